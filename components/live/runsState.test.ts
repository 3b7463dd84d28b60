// Tests for folding run events into the page's run list and approvals.
import { describe, expect, it } from 'vitest';
import { applyApprovalEvent, applyRunEvent, approvalsInScope, boardRuns, listedRuns, NESTED_KEPT, queuedBehind, runForToolCall, runsInScope, runsLeftBehind, waitingRuns } from './runsState.ts';
import type { ApprovalView, ControlCallRecord, NestedCallRecord } from '../../server/runs/types.ts';
import { runViewFixture } from './testing.ts';

const view = runViewFixture;

function call(invocationId: string, status: NestedCallRecord['status']): NestedCallRecord {
  return { invocationId, requestId: '1', tool: 'sleep', kind: 'tool', inputBytes: 10, startedAt: 1100, status, parentCallId: 'c1' };
}

describe('applyRunEvent', () => {
  it('on run.started: adds the run, newest first', () => {
    const runs = applyRunEvent([view('a', { createdAt: 1 })], { type: 'run.started', runId: 'b', at: 2, view: view('b', { createdAt: 2 }) });
    expect(runs.map((r) => r.runId)).toEqual(['b', 'a']);
  });
  it('on run.updated: replaces the view of that run', () => {
    const runs = applyRunEvent([view('a')], { type: 'run.updated', runId: 'a', at: 2, view: view('a', { state: 'waiting', updatedAt: 2000 }) });
    expect(runs[0]?.state).toBe('waiting');
  });
  it('on run.updated without the source (the stream sends it once, on run.started): keeps the source the list has', () => {
    const { code: _source, ...withoutCode } = view('a', { state: 'waiting', updatedAt: 2000 });
    const runs = applyRunEvent([view('a', { code: 'return 42' })], { type: 'run.updated', runId: 'a', at: 2, view: withoutCode });
    expect(runs[0]).toMatchObject({ state: 'waiting', code: 'return 42' });
  });
  it('on a stale run.updated: keeps the newer view', () => {
    const runs = applyRunEvent([view('a', { state: 'completed', updatedAt: 3000 })], {
      type: 'run.updated',
      runId: 'a',
      at: 2,
      view: view('a', { state: 'running', updatedAt: 2000 }),
    });
    expect(runs[0]?.state).toBe('completed');
  });
  it('on nested.started then nested.finished: one row per invocation, last status wins', () => {
    let runs = applyRunEvent([view('a')], { type: 'nested.started', runId: 'a', at: 2, call: call('a:1', 'running') });
    runs = applyRunEvent(runs, { type: 'nested.finished', runId: 'a', at: 3, call: call('a:1', 'ok') });
    expect(runs[0]?.nested).toEqual([call('a:1', 'ok')]);
  });
  it(`past ${NESTED_KEPT} nested calls: the earliest finished ones are dropped and counted in nestedOmitted, unfinished ones stay`, () => {
    const open = { ...call('a:open', 'running') };
    let runs = applyRunEvent([view('a')], { type: 'nested.started', runId: 'a', at: 1, call: open });
    for (let i = 0; i < NESTED_KEPT + 100; i++) {
      runs = applyRunEvent(runs, { type: 'nested.started', runId: 'a', at: 2, call: call(`a:${i}`, 'running') });
      runs = applyRunEvent(runs, { type: 'nested.finished', runId: 'a', at: 3, call: { ...call(`a:${i}`, 'ok'), endedAt: 1200 } });
    }
    const run = runs[0]!;
    expect(run.nested).toHaveLength(NESTED_KEPT);
    expect(run.nestedOmitted).toBe(101);
    expect(run.nested[0]?.invocationId).toBe('a:open');
    expect(run.nested.at(-1)?.invocationId).toBe(`a:${NESTED_KEPT + 99}`);
  });
  it('on a nested event for an unknown run: leaves the list unchanged', () => {
    const runs = [view('a')];
    expect(applyRunEvent(runs, { type: 'nested.started', runId: 'zz', at: 2, call: call('zz:1', 'running') })).toBe(runs);
  });
});

describe('applyApprovalEvent', () => {
  const approval: ApprovalView = { approvalId: 'p1', runId: 'a', tool: 'exec', input: { command: 'ls' }, code: 'await exec({command:"ls"})', requestedAt: 5 };
  it('on requested then resolved: shows it, then removes it', () => {
    const pending = applyApprovalEvent([], { type: 'approval.requested', runId: 'a', at: 5, approval });
    expect(pending).toEqual([approval]);
    expect(applyApprovalEvent(pending, { type: 'approval.resolved', runId: 'a', at: 6, approvalId: 'p1', approved: true })).toEqual([]);
  });
  it('on a repeated request: lists it once', () => {
    const once = applyApprovalEvent([approval], { type: 'approval.requested', runId: 'a', at: 5, approval });
    expect(once).toHaveLength(1);
  });
});

describe('waitingRuns', () => {
  it('keeps only runs that hold a continuation', () => {
    const runs = [view('a', { state: 'waiting' }), view('b', { state: 'completed' }), view('c', { state: 'expired' })];
    expect(waitingRuns(runs).map((r) => r.runId)).toEqual(['a']);
  });
});

describe('listedRuns', () => {
  const mine = view('mine', { agentRunId: 'ar_page', createdAt: 1 });
  const plan = view('plan', { agentRunId: 'ar_plan', createdAt: 2 });
  it('adds the selected run of another turn to the list, in its place, and names it', () => {
    const listed = listedRuns([mine], [mine, plan], 'plan');
    expect(listed.runs.map((r) => r.runId)).toEqual(['plan', 'mine']);
    expect(listed.outOfScope?.runId).toBe('plan');
  });
  it('keeps the scoped list as it is when the selected run is in it, unknown, or none is selected', () => {
    for (const selected of ['mine', 'gone', undefined]) expect(listedRuns([mine], [mine, plan], selected)).toEqual({ runs: [mine] });
  });
});

describe('runsInScope', () => {
  const runs = [view('mine', { agentRunId: 'ar_page' }), view('theirs', { agentRunId: 'ar_other' })];
  it("shows only the page's own turn by default", () => {
    expect(runsInScope(runs, { kind: 'turn', agentRunId: 'ar_page' }).map((r) => r.runId)).toEqual(['mine']);
  });
  it('shows every turn with "all turns"', () => {
    expect(runsInScope(runs, { kind: 'all' }).map((r) => r.runId)).toEqual(['mine', 'theirs']);
  });
  it('shows nothing as its own before the turn is prepared', () => {
    expect(runsInScope(runs, { kind: 'turn', agentRunId: undefined })).toEqual([]);
  });
  it('shows a durable run not resumed here in every scope (its turn is from before a restart: no page holds it)', () => {
    const row = view('stored', { agentRunId: 'ar_gone', durableRow: { parkedAt: 1, parkedBy: 'gw-1', state: 'parked', snapshotRawBytes: 10, snapshotStoredBytes: 5 } });
    expect(runsInScope([...runs, row], { kind: 'turn', agentRunId: 'ar_page' }).map((r) => r.runId)).toEqual(['mine', 'stored']);
    expect(runsInScope([...runs, row], { kind: 'turn', agentRunId: undefined }).map((r) => r.runId)).toEqual(['stored']);
  });
});

describe('approvalsInScope', () => {
  it('keeps approvals asked by runs in scope, drops another turn\'s', () => {
    const approval = (approvalId: string, runId: string): ApprovalView => ({ approvalId, runId, tool: 'exec', input: {}, code: '', requestedAt: 1 });
    const scoped = approvalsInScope([approval('p1', 'mine'), approval('p2', 'theirs')], [view('mine')]);
    expect(scoped.map((a) => a.approvalId)).toEqual(['p1']);
  });
});

describe('boardRuns', () => {
  it('lists waiting runs and running runs that ask the user, not other running or ended runs', () => {
    const ask = { callId: '1', tool: 'ask_user', input: {} };
    const runs = [
      view('parked', { state: 'waiting' }),
      view('asking', { state: 'running', clientCalls: [ask] }),
      view('busy', { state: 'running' }),
      view('done', { state: 'completed' }),
    ];
    expect(boardRuns(runs).map((r) => r.runId)).toEqual(['parked', 'asking']);
  });
});

describe('runForToolCall', () => {
  const exec = (toolCallId: string): ControlCallRecord => ({ callId: 'c1', toolCallId, tool: 'exec', startedAt: 1 });
  it('finds the run whose exec carries the tool-call id the page gave', () => {
    const runs = [view('a', { calls: [exec('playground-1')] }), view('b', { calls: [exec('playground-2')] })];
    expect(runForToolCall(runs, 'playground-2')?.runId).toBe('b');
    expect(runForToolCall(runs, 'playground-3')).toBeUndefined();
  });
});

describe('runsLeftBehind', () => {
  it('lists the runs that were live when the turn changed, as they stand now', () => {
    const runs = [runViewFixture('run_a', { state: 'aborted' }), runViewFixture('run_b', { state: 'waiting' }), runViewFixture('run_c', { state: 'completed' })];
    expect(runsLeftBehind(runs, new Set(['run_a', 'run_b'])).map((r) => `${r.runId} ${r.state}`)).toEqual(['run_a aborted', 'run_b waiting']);
    expect(runsLeftBehind(runs, new Set())).toEqual([]);
  });
});

describe('queuedBehind: a sequential call held by an earlier call of its turn, in any run', () => {
  const nested = (requestId: string, tool: string, kind: NestedCallRecord['kind'], status: NestedCallRecord['status'], startedAt: number): NestedCallRecord => ({
    invocationId: `i-${requestId}`, requestId, tool, kind, status, startedAt, inputBytes: 2, parentCallId: 'c1',
  });
  const asker = view('run_ask', { state: 'waiting', nested: [nested('r1', 'ask_user', 'client', 'awaiting_client', 10)] });
  const shell = view('run_exec', { state: 'waiting', nested: [nested('r1', 'exec', 'tool', 'running', 20)] });
  const call = { id: 'r1', tool: 'exec', startedAt: 20, state: 'running' };
  const sequential = new Set(['exec', 'ask_user']);

  it('names the unanswered client call of an earlier run of the turn', () => {
    expect(queuedBehind(call, shell, [asker, shell], sequential)).toEqual({ tool: 'ask_user', runId: 'run_ask', state: 'awaiting_client' });
  });
  it('nothing once that call is answered, or when it belongs to another turn', () => {
    const answered = view('run_ask', { nested: [nested('r1', 'ask_user', 'client', 'ok', 10)] });
    expect(queuedBehind(call, shell, [answered, shell], sequential)).toBeUndefined();
    const otherTurn = view('run_ask', { agentRunId: 'ar2', nested: asker.nested });
    expect(queuedBehind(call, shell, [otherTurn, shell], sequential)).toBeUndefined();
  });
  it('nothing for a parallel tool, a call the Gateway already reports otherwise, or bridge ops before it', () => {
    expect(queuedBehind({ ...call, tool: 'sleep' }, shell, [asker, shell], sequential)).toBeUndefined();
    expect(queuedBehind({ ...call, state: 'awaiting_approval' }, shell, [asker, shell], sequential)).toBeUndefined();
    const timer = view('run_t', { nested: [nested('r1', 'setTimeout', 'timer', 'running', 5)] });
    expect(queuedBehind(call, shell, [timer, shell], sequential)).toBeUndefined();
  });
});

describe("another Gateway's runs (remote.run, remote.gone)", () => {
  const held = (over: Partial<NonNullable<ReturnType<typeof view>['heldBy']>> = {}) => ({ gatewayId: 'gw_AAAAAAAAAAAAAAAA', detail: 'sealed' as const, approvals: 0, clientCalls: 0, ...over });
  const approval = (approvalId: string, runId: string, heldBy?: string): ApprovalView => ({ approvalId, runId, tool: 'pay', input: {}, code: '', requestedAt: 1, ...(heldBy ? { heldBy } : {}) });
  const row = { parkedAt: 1, parkedBy: 'gw_AAAAAAAAAAAAAAAA', state: 'parked' as const, snapshotRawBytes: 10, snapshotStoredBytes: 5 };

  it('remote.run adds the run, then replaces it; a durable row listed for it keeps its facts beside the view', () => {
    let runs = applyRunEvent([view('mine', { createdAt: 1 })], { type: 'remote.run', runId: 'r', at: 2, view: view('r', { createdAt: 2, heldBy: held() }), approvals: [] });
    expect(runs.map((r) => r.runId)).toEqual(['r', 'mine']);
    runs = applyRunEvent(runs, { type: 'remote.run', runId: 'r', at: 3, view: view('r', { createdAt: 2, state: 'running', heldBy: held() }), approvals: [] });
    expect(runs[0]?.state).toBe('running');
    const stored = applyRunEvent([view('d', { durableRow: row })], { type: 'remote.run', runId: 'd', at: 3, view: view('d', { heldBy: held(), code: 'return 1' }), approvals: [] });
    expect(stored[0]).toMatchObject({ code: 'return 1', durableRow: row, heldBy: { gatewayId: 'gw_AAAAAAAAAAAAAAAA' } });
  });
  it('remote.run never replaces a run this Gateway holds; its own run.updated replaces what was listed of another Gateway, whatever the clocks say', () => {
    const mine = [view('r', { state: 'running', updatedAt: 5 })];
    expect(applyRunEvent(mine, { type: 'remote.run', runId: 'r', at: 9, view: view('r', { heldBy: held(), updatedAt: 9 }), approvals: [] })).toBe(mine);
    const listed = [view('r', { heldBy: held(), updatedAt: 9000 })];
    const taken = applyRunEvent(listed, { type: 'run.updated', runId: 'r', at: 10, view: view('r', { state: 'running', updatedAt: 10 }) });
    expect(taken[0]?.heldBy).toBeUndefined();
  });
  it('remote.gone drops another Gateway\'s run and a listed durable row that ended elsewhere, never a run held here', () => {
    const runs = [view('other', { heldBy: held() }), view('stored', { durableRow: row }), view('mine')];
    let after: ReturnType<typeof applyRunEvent> = runs;
    for (const runId of ['other', 'stored', 'mine']) after = applyRunEvent(after, { type: 'remote.gone', runId, at: 1 });
    expect(after.map((r) => r.runId)).toEqual(['mine']);
  });
  it("approvals: remote.run replaces that run's approvals from another Gateway with the event's; remote.gone drops them; this Gateway's stay", () => {
    const local = approval('p1', 'r');
    let approvals = applyApprovalEvent([local], { type: 'remote.run', runId: 'r', at: 1, view: view('r', { heldBy: held({ approvals: 1 }) }), approvals: [approval('p2', 'r', 'gw_A')] });
    expect(approvals.map((a) => a.approvalId)).toEqual(['p1', 'p2']);
    approvals = applyApprovalEvent(approvals, { type: 'remote.run', runId: 'r', at: 2, view: view('r', { heldBy: held() }), approvals: [] });
    expect(approvals.map((a) => a.approvalId)).toEqual(['p1']);
    approvals = applyApprovalEvent([local, approval('p3', 'r', 'gw_A')], { type: 'remote.gone', runId: 'r', at: 3 });
    expect(approvals).toEqual([local]);
  });
  it('the board lists a running run of another Gateway with an approval or client call pending there (counts only), and scopes show it on every turn', () => {
    const idsOnly = view('ids', { state: 'running', agentRunId: 'ar_theirs', heldBy: held({ detail: 'ids', approvals: 1 }) });
    const quiet = view('quiet', { state: 'running', heldBy: held() });
    expect(boardRuns([idsOnly, quiet]).map((r) => r.runId)).toEqual(['ids']);
    expect(runsInScope([idsOnly], { kind: 'turn', agentRunId: 'ar_page' }).map((r) => r.runId)).toEqual(['ids']);
  });
});
