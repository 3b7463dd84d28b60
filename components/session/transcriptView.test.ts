// Tests for grouping a transcript branch into call groups, branch points and the leaf.
import { describe, expect, it } from 'vitest';
import { branchPoint, buildTranscriptView, itemRunIds, leafItemIndex, lineCount } from './transcriptView.ts';
import type { CallGroup, TranscriptItem } from './transcriptView.ts';
import type { EntryPayloads, EntryType, TranscriptEntry } from '../../server/sessions/types.ts';

let seq = 0;
function entry<K extends EntryType>(type: K, payload: EntryPayloads[K]): TranscriptEntry {
  seq += 1;
  return { id: `e${seq}`, parentId: seq === 1 ? null : `e${seq - 1}`, sessionId: 's1', type, payload, createdAt: seq } as TranscriptEntry;
}
const call = (toolCallId: string, tool: 'exec' | 'wait' = 'exec') =>
  entry('tool-call', { tool, toolCallId, agentRunId: 'ar1', ...(tool === 'exec' ? { code: 'return 1' } : { runId: 'run_1' }) });
const result = (toolCallId: string, status: 'completed' | 'waiting' | 'failed' = 'completed', tool: 'exec' | 'wait' = 'exec') =>
  entry('tool-result', { tool, toolCallId, status, runId: 'run_1', text: `{"status":"${status}"}` });
const nested = (parentToolCallId: string | undefined, tool: string, startedAt: number) =>
  entry('nested-activity', {
    runId: 'run_1',
    parentCallId: 'exec_1',
    ...(parentToolCallId !== undefined ? { parentToolCallId } : {}),
    invocationId: `inv_${tool}_${startedAt}`,
    requestId: 'r',
    tool,
    kind: 'tool',
    status: 'ok',
    inputBytes: 2,
    outputBytes: 2,
    startedAt,
    endedAt: startedAt + 1,
  });

function groups(items: TranscriptItem[]): CallGroup[] {
  return items.filter((i): i is CallGroup => i.kind === 'call');
}

describe('buildTranscriptView', () => {
  it('puts nested rows and the result under the call they belong to, calls in branch order', () => {
    const items = buildTranscriptView([call('a'), nested('a', 'store', 5), result('a'), call('b'), nested('b', 'load', 9), result('b', 'failed')]);
    const calls = groups(items);
    expect(calls.map((g) => g.call.payload.toolCallId)).toEqual(['a', 'b']);
    expect(calls.map((g) => g.nested.map((n) => n.payload.tool))).toEqual([['store'], ['load']]);
    expect(calls.map((g) => g.result?.payload.status)).toEqual(['completed', 'failed']);
    expect(items).toHaveLength(2);
  });

  it('on nested rows written out of start order: sorts them by start time under their call', () => {
    const [group] = groups(buildTranscriptView([call('a'), nested('a', 'second', 20), nested('a', 'first', 10), result('a')]));
    expect(group?.nested.map((n) => n.payload.tool)).toEqual(['first', 'second']);
  });

  it('on a late nested row after a later call: still indents it under its own call', () => {
    const [first, second] = groups(buildTranscriptView([call('a'), result('a', 'waiting'), call('w', 'wait'), nested('a', 'late', 3), result('w', 'completed', 'wait')]));
    expect(first?.nested.map((n) => n.payload.tool)).toEqual(['late']);
    expect(second?.nested).toEqual([]);
    expect(second?.result?.payload.tool).toBe('wait');
  });

  it('on a reused tool-call id: rows after the second call go under the second call, not the first', () => {
    const [first, second] = groups(buildTranscriptView([call('x'), nested('x', 'one', 1), result('x'), call('x'), nested('x', 'two', 2), result('x')]));
    expect(first?.nested.map((n) => n.payload.tool)).toEqual(['one']);
    expect(second?.nested.map((n) => n.payload.tool)).toEqual(['two']);
    expect(second?.result).toBeDefined();
  });

  it('on a call without a result yet: the group has no result (the cell is still running)', () => {
    const [group] = groups(buildTranscriptView([call('a'), nested('a', 'sleep', 1)]));
    expect(group?.result).toBeUndefined();
  });

  it('on rows whose call is not on the branch: keeps them as orphans in place instead of dropping them', () => {
    const items = buildTranscriptView([nested(undefined, 'lost', 1), result('gone'), call('a'), result('a')]);
    expect(items.map((i) => i.kind)).toEqual(['orphan', 'orphan', 'call']);
  });

  it('keeps store commits, compactions and messages as their own items in branch order', () => {
    const items = buildTranscriptView([
      entry('message', { role: 'user', text: 'hi' }),
      call('a'),
      entry('code-mode-store', { runId: 'run_1', sets: [{ key: 'k', json: '1', networkContent: false }], deletes: [] }),
      result('a'),
      entry('compaction', { summary: 'earlier work', compactedEntries: 4 }),
    ]);
    expect(items.map((i) => i.kind)).toEqual(['message', 'call', 'store', 'compaction']);
  });
});

describe('lineCount', () => {
  it('counts lines, ignoring one trailing newline', () => {
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a')).toBe(1);
    expect(lineCount('')).toBe(0);
  });
});

describe('branchPoint', () => {
  it('on a call with a result: branches at the result entry, after everything the call committed', () => {
    const c = call('a');
    const commit = entry('code-mode-store', { runId: 'run_1', sets: [{ key: 'k', json: '1', networkContent: false }], deletes: [] });
    const r = result('a');
    const items = buildTranscriptView([c, commit, r]);
    expect(branchPoint(items[0] as TranscriptItem)).toEqual({ entryId: r.id, label: 'exec a' });
  });

  it('on a call without a result, a store commit or an orphan result: no branch point', () => {
    const items = buildTranscriptView([
      call('running'),
      entry('code-mode-store', { runId: 'run_1', sets: [], deletes: ['k'] }),
      result('lost', 'failed'),
    ]);
    expect(items.map((i) => i.kind)).toEqual(['call', 'store', 'orphan']);
    expect(items.map((i) => branchPoint(i))).toEqual([undefined, undefined, undefined]);
  });

  it('on a compaction or a message: branches at that entry', () => {
    const compaction = entry('compaction', { summary: 's', compactedEntries: 2 });
    const message = entry('message', { role: 'user', text: 'hi' });
    const items = buildTranscriptView([compaction, message]);
    expect(items.map((i) => branchPoint(i))).toEqual([
      { entryId: compaction.id, label: 'the compaction' },
      { entryId: message.id, label: 'the user message' },
    ]);
  });
});

describe('leafItemIndex', () => {
  it('on a result written after its store commit: the leaf is the call group, not the later commit item', () => {
    const branch = [
      call('a'),
      entry('code-mode-store', { runId: 'run_1', sets: [{ key: 'k', json: '1', networkContent: false }], deletes: [] }),
      result('a'),
    ];
    const items = buildTranscriptView(branch);
    expect(items.map((i) => i.kind)).toEqual(['call', 'store']);
    expect(leafItemIndex(items, branch)).toBe(0);
  });

  it('on a leaf that is an item of its own, or a nested row of an earlier call: that item; on an empty branch: -1', () => {
    const first = [call('a'), result('a', 'waiting'), call('b'), result('b'), nested('a', 'sleep', 3)];
    expect(leafItemIndex(buildTranscriptView(first), first)).toBe(0);
    const second = [call('c'), result('c'), entry('compaction', { summary: 's', compactedEntries: 2 })];
    expect(leafItemIndex(buildTranscriptView(second), second)).toBe(1);
    expect(leafItemIndex([], [])).toBe(-1);
  });
});

describe('itemRunIds', () => {
  it('gives a call its result\'s run and its nested rows\' runs, a store commit its run, a message none', () => {
    const items = buildTranscriptView([
      call('a'),
      nested('a', 'store', 5),
      entry('code-mode-store', { runId: 'run_1', sets: [], deletes: ['k'] }),
      result('a'),
      entry('tool-call', { tool: 'exec', toolCallId: 'b', agentRunId: 'ar1', code: 'return 2' }),
      entry('tool-result', { tool: 'exec', toolCallId: 'b', status: 'completed', runId: 'run_2', text: '{}' }),
      entry('message', { role: 'user', text: 'hi' }),
    ]);
    expect(items.map((i) => [...itemRunIds(i)])).toEqual([['run_1'], ['run_1'], ['run_2'], []]);
  });
  it('gives a wait call without its result yet the run it continues', () => {
    const [item] = buildTranscriptView([call('w', 'wait')]);
    expect(item && [...itemRunIds(item)]).toEqual(['run_1']);
  });
});
