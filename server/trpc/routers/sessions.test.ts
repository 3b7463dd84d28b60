// Sessions router through createCaller against a real Gateway: branching and compacting a session, and their refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompleted } from '../../testing.ts';
import { openRouterHarness, wholeTranscript, rejection, type RouterCaller } from '../testing.ts';
import type { GatewayApi, TranscriptEntry } from '../../gateway-types.ts';
import { MAX_SUMMARY_LENGTH } from '../schemas.ts';

let gateway: GatewayApi;
let caller: RouterCaller;

beforeAll(async () => {
  ({ gateway, caller } = await openRouterHarness());
});

afterAll(async () => {
  await gateway.close();
});

/** A turn on a session of its own (a fresh id per test keeps tests apart in the shared database file). */
async function freshTurn(sessionId?: string) {
  return caller.turns.prepare({ agentId: 'main', sessionId: sessionId ?? `sess_branch_${Math.random().toString(36).slice(2, 12)}` });
}

async function completed(agentRunId: string, code: string, toolCallId?: string): Promise<unknown> {
  return expectCompleted(await caller.exec({ agentRunId, input: { code }, ...(toolCallId ? { toolCallId } : {}) })).value;
}

function resultEntry(branch: TranscriptEntry[], toolCallId: string): TranscriptEntry {
  const entry = branch.find((e) => e.type === 'tool-result' && e.payload.toolCallId === toolCallId);
  if (!entry) throw new Error(`no result entry for ${toolCallId}`);
  return entry;
}

describe('transcript pages', () => {
  it('sessions.transcript answers a page: `limit` entries root first with a nextCursor, `after` it the rest; a cursor off the branch is BAD_REQUEST', async () => {
    const { agentRunId, sessionId } = await freshTurn();
    for (let i = 0; i < 3; i++) await completed(agentRunId, `return ${i}`);
    const whole = await wholeTranscript(caller, { sessionId });
    const first = await caller.sessions.transcript({ sessionId, limit: 2 });
    expect(first.entries.map((e) => e.id)).toEqual(whole.slice(0, 2).map((e) => e.id));
    expect(first.total).toBe(whole.length);
    expect(first.nextCursor).toBe(whole[1]?.id);
    const rest = await caller.sessions.transcript({ sessionId, after: first.nextCursor! });
    expect(rest.entries.map((e) => e.id)).toEqual(whole.slice(2).map((e) => e.id));
    expect(rest.nextCursor).toBeNull();
    const off = await rejection(caller.sessions.transcript({ sessionId, after: 'e_not_here' }));
    expect(off.code).toBe('BAD_REQUEST');
    expect(off.message).toContain('is not on the current branch');
    await caller.turns.end({ agentRunId });
  });
});

describe('branch', () => {
  it('branching back before a store commit: a new cell of the session loads the older value', async () => {
    const { agentRunId, sessionId } = await freshTurn();
    await completed(agentRunId, 'await store("k", "v1"); return 1', 'call_v1');
    await completed(agentRunId, 'await store("k", "v2"); return 2', 'call_v2');
    expect(await completed(agentRunId, 'return await load("k")')).toBe('v2');

    const at = resultEntry(await wholeTranscript(caller, { sessionId }), 'call_v1');
    const moved = await caller.sessions.branch({ sessionId, entryId: at.id });
    expect(moved.leafId).toBe(at.id);
    const branch = await wholeTranscript(caller, { sessionId });
    expect(branch.at(-1)?.id).toBe(at.id);
    expect(branch).toHaveLength(moved.total);
    expect(branch.some((e) => e.type === 'tool-call' && e.payload.toolCallId === 'call_v2')).toBe(false);
    expect(await caller.sessions.store({ sessionId })).toEqual([{ key: 'k', json: '"v1"', networkContent: false }]);

    // the same turn (its store projection was built before the branch) and a new turn both see the older value
    expect(await completed(agentRunId, 'return await load("k")')).toBe('v1');
    const later = await freshTurn(sessionId);
    expect(await completed(later.agentRunId, 'return await load("k")')).toBe('v1');
    await caller.turns.end({ agentRunId });
    await caller.turns.end({ agentRunId: later.agentRunId });
  });

  it('after branching, new commits grow the new branch and the abandoned branch writes stay excluded', async () => {
    const { agentRunId, sessionId } = await freshTurn();
    await completed(agentRunId, 'await store("a", 1); return 1', 'call_a');
    await completed(agentRunId, 'await store("b", 2); return 2', 'call_b');
    const at = resultEntry(await wholeTranscript(caller, { sessionId }), 'call_a');
    await caller.sessions.branch({ sessionId, entryId: at.id });
    await completed(agentRunId, 'await store("c", 3); return 3', 'call_c');

    const branch = await wholeTranscript(caller, { sessionId });
    const calls = branch.flatMap((e) => (e.type === 'tool-call' ? [e.payload.toolCallId] : []));
    expect(calls).toEqual(['call_a', 'call_c']);
    expect((await caller.sessions.store({ sessionId })).map((e) => e.key)).toEqual(['a', 'c']);
    expect(await completed(agentRunId, 'return [await load("a"), await load("b"), await load("c")]')).toEqual([1, null, 3]);
    await caller.turns.end({ agentRunId });
  });

  it('on entryId null: the branch is empty and the store starts empty', async () => {
    const { agentRunId, sessionId } = await freshTurn();
    await completed(agentRunId, 'await store("gone", true); return 1');
    expect(await caller.sessions.branch({ sessionId, entryId: null })).toEqual({ leafId: null, total: 0 });
    expect(await caller.sessions.store({ sessionId })).toEqual([]);
    expect(await completed(agentRunId, 'return await load("gone")')).toBeNull();
    await caller.turns.end({ agentRunId });
  });

  it('on an entry of another session: BAD_REQUEST naming entryId, and the leaf stays where it was', async () => {
    const one = await freshTurn();
    const two = await freshTurn();
    await completed(one.agentRunId, 'return 1', 'call_one');
    await completed(two.agentRunId, 'await store("x", 2); return 2');
    const foreign = resultEntry(await wholeTranscript(caller, { sessionId: one.sessionId }), 'call_one');
    const before = await wholeTranscript(caller, { sessionId: two.sessionId });
    const err = await rejection(caller.sessions.branch({ sessionId: two.sessionId, entryId: foreign.id }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('entryId');
    expect(err.message).toContain(foreign.id);
    expect(await wholeTranscript(caller, { sessionId: two.sessionId })).toEqual(before);
    await caller.turns.end({ agentRunId: one.agentRunId });
    await caller.turns.end({ agentRunId: two.agentRunId });
  });

  it('on an unknown entry id, an empty one or a missing one: BAD_REQUEST naming entryId', async () => {
    const { agentRunId, sessionId } = await freshTurn();
    await completed(agentRunId, 'return 1');
    for (const input of [{ sessionId, entryId: 'e_nope' }, { sessionId, entryId: '' }, { sessionId } as never]) {
      const err = await rejection(caller.sessions.branch(input));
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.message).toContain('entryId');
    }
    await caller.turns.end({ agentRunId });
  });
});

describe('compact', () => {
  it('compaction keeps store replay intact: load still returns values committed before it', async () => {
    const { agentRunId, sessionId } = await freshTurn();
    await completed(agentRunId, 'await store("kept", { n: 1 }); await store("dropped", 0); return 1');
    await completed(agentRunId, 'await store("dropped", undefined); return 2');
    const before = await caller.sessions.store({ sessionId });

    const entry = await caller.sessions.compact({ sessionId });
    expect(entry.type).toBe('compaction');
    const branch = await wholeTranscript(caller, { sessionId });
    expect(branch.at(-1)?.id).toBe(entry.id);
    expect(entry.payload.compactedEntries).toBe(branch.length - 1);
    expect(entry.payload.summary).toContain('2 exec');
    expect(entry.payload.summary).toContain('kept');

    expect(await caller.sessions.store({ sessionId })).toEqual(before);
    const later = await freshTurn(sessionId);
    expect(await completed(later.agentRunId, 'return await load("kept")')).toEqual({ n: 1 });
    await caller.turns.end({ agentRunId });
    await caller.turns.end({ agentRunId: later.agentRunId });
  });

  it('a given summary is kept verbatim, and compaction counts only the entries since the previous one', async () => {
    const { agentRunId, sessionId } = await freshTurn();
    await completed(agentRunId, 'return 1');
    const first = await caller.sessions.compact({ sessionId, summary: 'the user wants numbers' });
    expect(first.payload.summary).toBe('the user wants numbers');
    await completed(agentRunId, 'return 2');
    const second = await caller.sessions.compact({ sessionId });
    const ids = (await wholeTranscript(caller, { sessionId })).map((e) => e.id);
    const between = ids.indexOf(second.id) - ids.indexOf(first.id) - 1;
    expect(between).toBeGreaterThan(0);
    expect(second.payload.compactedEntries).toBe(between);
    await caller.turns.end({ agentRunId });
  });

  it('branching back across a compaction: the compaction leaves the branch, the store is unchanged', async () => {
    const { agentRunId, sessionId } = await freshTurn();
    await completed(agentRunId, 'await store("k", "v1"); return 1', 'call_1');
    await caller.sessions.compact({ sessionId, summary: 's' });
    const at = resultEntry(await wholeTranscript(caller, { sessionId }), 'call_1');
    await caller.sessions.branch({ sessionId, entryId: at.id });
    expect((await wholeTranscript(caller, { sessionId })).some((e) => e.type === 'compaction')).toBe(false);
    expect(await completed(agentRunId, 'return await load("k")')).toBe('v1');
    await caller.turns.end({ agentRunId });
  });

  it('on a session without entries, or right after a compaction: BAD_REQUEST saying there is nothing to compact', async () => {
    const empty = await rejection(caller.sessions.compact({ sessionId: 'sess_never_used_for_compaction' }));
    expect(empty.code).toBe('BAD_REQUEST');
    expect(empty.message).toContain('nothing to compact');
    expect(await wholeTranscript(caller, { sessionId: 'sess_never_used_for_compaction' })).toEqual([]);

    const { agentRunId, sessionId } = await freshTurn();
    await completed(agentRunId, 'return 1');
    await caller.sessions.compact({ sessionId });
    const again = await rejection(caller.sessions.compact({ sessionId }));
    expect(again.code).toBe('BAD_REQUEST');
    expect(again.message).toContain('nothing to compact');
    await caller.turns.end({ agentRunId });
  });

  it('on a summary over the limit or of the wrong type: BAD_REQUEST naming summary', async () => {
    for (const summary of ['x'.repeat(MAX_SUMMARY_LENGTH + 1), 42 as unknown as string]) {
      const err = await rejection(caller.sessions.compact({ sessionId: 's', summary }));
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.message).toContain('summary');
    }
  });
});

describe('while a run of the session is live', () => {
  it('on a waiting run: branch and compact are refused naming the run and saying to wait or abort; after abort both go through', async () => {
    const { agentRunId, sessionId } = await freshTurn();
    await completed(agentRunId, 'await store("k", 1); return 1', 'call_first');
    const waiting = await caller.exec({ agentRunId, input: { code: 'await yield_control("park"); return 2' } });
    expect(waiting.status).toBe('waiting');
    if (waiting.status !== 'waiting') return;
    const at = resultEntry(await wholeTranscript(caller, { sessionId }), 'call_first');

    const branchErr = await rejection(caller.sessions.branch({ sessionId, entryId: at.id }));
    expect(branchErr.code).toBe('BAD_REQUEST');
    expect(branchErr.message).toContain(waiting.runId);
    expect(branchErr.message).toMatch(/wait for it to finish or abort it/);
    const compactErr = await rejection(caller.sessions.compact({ sessionId }));
    expect(compactErr.message).toContain(waiting.runId);
    expect((await wholeTranscript(caller, { sessionId })).some((e) => e.type === 'compaction')).toBe(false);

    // another session is not held up by this one's run
    const other = await freshTurn();
    await completed(other.agentRunId, 'return 1');
    await caller.sessions.compact({ sessionId: other.sessionId });

    expect(await caller.abort({ runId: waiting.runId })).toEqual({ aborted: true });
    expect((await caller.sessions.branch({ sessionId, entryId: at.id })).leafId).toBe(at.id);
    await caller.turns.end({ agentRunId });
    await caller.turns.end({ agentRunId: other.agentRunId });
  });
});
