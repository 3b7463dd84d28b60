// Tests for the benchmark harness: the no-op tool and result narrowing (no timing asserted).
import { describe, expect, it } from 'vitest';
import type { CodeModeResult } from '../server/runs/types.ts';
import { testContext } from '../server/tools/testing.ts';
import { expectStatus, noopTool, NOOP_TOOL } from './harness.ts';

const telemetry = { executor: 'quickjs' as const, durationMs: 1, budgetUsedMs: 1, counters: { search: 0, describe: 0, call: 0 }, nestedCalls: 0, outputBytes: 0 };

describe('noopTool', () => {
  it('on a call: returns null without doing work, as a parallel core tool', async () => {
    const tool = noopTool();
    expect(tool.name).toBe(NOOP_TOOL);
    expect(tool.executionMode).toBe('parallel');
    expect(await tool.execute?.({}, testContext())).toBeNull();
  });
});

describe('expectStatus', () => {
  it('on the expected status: returns the result narrowed to it', () => {
    const r: CodeModeResult = { status: 'completed', value: 1, telemetry };
    expect(expectStatus(r, 'completed', 'cell').value).toBe(1);
  });

  it('on another status: throws naming the row, the expected status and the result', () => {
    const r: CodeModeResult = { status: 'failed', error: 'boom', code: 'timeout', telemetry };
    expect(() => expectStatus(r, 'waiting', 'trivial suspend')).toThrow(/trivial suspend: expected a waiting result, got .*"code":"timeout"/);
  });
});
