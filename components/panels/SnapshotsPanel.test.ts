// Tests for the snapshot panel's text about the selected run, and the span detail's hook line.
import { describe, expect, it } from 'vitest';
import { hookText } from '../trajectory/SpanDetail.tsx';
import { noSnapshotText } from './SnapshotsPanel.tsx';

describe('noSnapshotText', () => {
  it('names the selected run and says the bars below are other runs, when there are some', () => {
    expect(noSnapshotText({ runId: 'run_a', executor: 'quickjs' }, new Set(['run_b', 'run_c']))).toBe(
      'Run run_a never suspended, so none of the bars below are its own (they are 2 other runs).',
    );
    expect(noSnapshotText({ runId: 'run_a', executor: 'quickjs' }, new Set())).toBe('Run run_a never suspended.');
  });
  it('on a node run: says node keeps a worker instead', () => {
    expect(noSnapshotText({ runId: 'run_n', executor: 'node' }, new Set(['run_b']))).toMatch(/^Run run_n ran on node, which keeps a live worker/);
  });
});

describe('hookText', () => {
  it('lists each hook with its decision and a block\'s reason, or says none ran', () => {
    expect(hookText(undefined)).toBe('no before_tool_call hook ran');
    expect(
      hookText([
        { plugin: 'guard', decision: 'passed' },
        { plugin: 'policy', decision: 'blocked', reason: 'no secrets' },
      ]),
    ).toBe('guard: passed; policy: blocked (no secrets)');
  });
});
