// Replay lab, part 2: forking a waiting QuickJS run from its snapshot, answered differently, and the original still waitable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../gateway.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { NodeExecutor } from '../executors/node/executor.ts';
import { MAX_SLOTS_PER_TURN } from '../runs/runs.ts';
import { MAX_VALUE_DEPTH } from '../runs/bound.ts';
import { expectCompleted, expectWaiting, testGateway, until } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import type { RunView } from '../runs/types.ts';

/** A tool whose calls stay in flight until the test opens them: the run parks with them pending (no timing involved). */
function gates() {
  const open = new Map<string, (v: unknown) => void>();
  const calls: string[] = [];
  const tool: ToolDefinition = {
    name: 'gate',
    description: 'test: resolves when the test opens it',
    source: 'core',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    execute: (input) => {
      const name = String((input as { name?: string }).name);
      calls.push(name);
      return new Promise((resolve) => open.set(name, resolve));
    },
  };
  return { tool, calls, open: (name: string, v: unknown) => open.get(name)?.(v), has: (name: string) => open.has(name) };
}

async function waitUntilDone(gw: Gateway, agentRunId: string, runId: string) {
  let r = await gw.wait(agentRunId, { runId });
  while (r.status === 'waiting') r = await gw.wait(agentRunId, { runId });
  return r;
}

describe('replay lab: fork a waiting run', () => {
  let quickjs: QuickJsExecutor;
  let g: ReturnType<typeof gates>;
  let gw: Gateway;

  beforeAll(async () => {
    quickjs = new QuickJsExecutor({ workers: 1 });
  });
  afterAll(async () => {
    await quickjs.close();
  });

  async function setup() {
    g = gates();
    // a short budget parks the cell while its gate is closed: the run waits with the call pending
    gw = await testGateway({ executor: quickjs, tools: [g.tool], codeMode: { timeoutMs: 1000 } });
    return gw.prepareTurn({});
  }

  it('on a fork answered differently: the fork completes with its value, the original with its own, the gate ran once', async () => {
    const t = await setup();
    const code = 'const r = await gate({ name: "a" }); return { got: r, n: Math.random() }';
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code }, { seed: 9 }));
    const pending = parked.pendingToolCalls!;
    expect(pending.map((p) => p.tool)).toEqual(['gate']);
    const announced: RunView[] = [];
    const unsubscribe = gw.subscribe((e) => void (e.type === 'run.started' && announced.push(e.view)));
    const fork = gw.forkRun({ runId: parked.runId, replies: [{ id: pending[0]!.id, result: 'edited' }] });
    unsubscribe();
    expect(fork.runId).not.toBe(parked.runId);
    expect(fork.state).toBe('waiting');
    // a fork has a snapshot TTL like any parked run, from its first view on (the board shows its countdown)
    expect(fork.expiresAt).toEqual(expect.any(Number));
    expect(announced.map((v) => [v.runId, v.expiresAt])).toEqual([[fork.runId, fork.expiresAt]]);
    expect(fork.forkedFrom).toEqual({ runId: parked.runId, suspension: 1 });
    expect(fork.seed).toBe(9);
    expect(gw.run(parked.runId)?.forks).toEqual([fork.runId]);
    expect(gw.run(parked.runId)?.state).toBe('waiting');

    const forked = expectCompleted(await waitUntilDone(gw, t.agentRunId, fork.runId));
    expect((forked.value as { got: unknown }).got).toBe('edited');
    // the fork's call was answered from the reply, not dispatched: the trajectory says so
    expect(gw.trajectory(fork.runId)?.calls.flatMap((c) => c.nested).find((n) => n.tool === 'gate')?.answeredBy).toBe('fork');
    expect(gw.trajectory(fork.runId)?.forkedFrom).toEqual({ runId: parked.runId, suspension: 1 });

    g.open('a', 'real');
    const original = expectCompleted(await waitUntilDone(gw, t.agentRunId, parked.runId));
    expect((original.value as { got: unknown }).got).toBe('real');
    // same seed, same snapshot: the random draw after the call is the same in both
    expect((original.value as { n: number }).n).toBe((forked.value as { n: number }).n);
    expect(g.calls).toEqual(['a']);
    expect(gw.diagnostics.leaks()).toEqual([]);
  });

  it('on an edited error: the fork sees a catchable error with its code', async () => {
    const t = await setup();
    const code = 'try { await gate({ name: "e" }); return "no error" } catch (e) { return e.code + ": " + e.message }';
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code }));
    const id = parked.pendingToolCalls![0]!.id;
    const fork = gw.forkRun({ runId: parked.runId, replies: [{ id, error: 'upstream down', code: 'upstream_unavailable' }] });
    const r = expectCompleted(await waitUntilDone(gw, t.agentRunId, fork.runId));
    expect(r.value).toBe('upstream_unavailable: upstream down');
    gw.abortRun(parked.runId);
  });

  it('on a fork of a fork, and a pending call left unanswered: it is dispatched again for the fork', async () => {
    const t = await setup();
    const code = 'const a = await gate({ name: "a" }); const b = await gate({ name: "b" + a }); return a + b';
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code }));
    const f1 = gw.forkRun({ runId: parked.runId, replies: [{ id: parked.pendingToolCalls![0]!.id, result: 'X' }] });
    // f1 resumes with a = "X", then waits on gate "bX"
    const f1parked = expectWaiting(await gw.wait(t.agentRunId, { runId: f1.runId }));
    const bX = f1parked.pendingToolCalls!.find((p) => p.tool === 'gate')!;
    expect(bX.input).toEqual({ name: 'bX' });
    const f2 = gw.forkRun({ runId: f1.runId });
    expect(f2.forkedFrom).toEqual({ runId: f1.runId, suspension: 2 });
    // f2 got no reply for gate "bX": it dispatched the call again itself
    await until(() => g.calls.filter((c) => c === 'bX').length === 2, { what: 'the fork to dispatch gate "bX" again' });
    g.open('bX', 'Y');
    expect(expectCompleted(await waitUntilDone(gw, t.agentRunId, f2.runId)).value).toBe('XY');
    gw.abortRun(f1.runId);
    gw.abortRun(parked.runId);
    expect(gw.diagnostics.leaks()).toEqual([]);
  });

  it('on hostile replies: refused with a message naming what is wrong, the original untouched', async () => {
    const t = await setup();
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code: 'return await gate({ name: "h" })' }));
    const id = parked.pendingToolCalls![0]!.id;
    const cases: Array<[unknown, string]> = [
      ['nope', 'replies must be an array'],
      [[{ id: 'r999', result: 1 }], 'has no pending call "r999"'],
      [[{ id, result: 1, error: 'x' }], 'either result or error'],
      [[{ id, result: 1 }, { id, result: 2 }], 'answered twice'],
      [[{ id, error: 'x', code: 'Bad Code' }], 'snake_case error code'],
      [[{ id, result: 1, extra: true }], 'unknown field'],
      [[{ id, result: 10n }], 'not JSON data'],
    ];
    for (const [replies, message] of cases) {
      expect(() => gw.forkRun({ runId: parked.runId, replies: replies as never })).toThrow(message);
    }
    expect(() => gw.forkRun({ runId: 'run_unknown' })).toThrow('no waiting run');
    expect(gw.run(parked.runId)?.forks).toBeUndefined();
    expect(gw.run(parked.runId)?.state).toBe('waiting');
    gw.abortRun(parked.runId);
  });

  it(`on a reply nested deeper than values may be (${MAX_VALUE_DEPTH} levels): refused at the fork naming it, not at the wait; one at the bound is delivered`, async () => {
    const t = await setup();
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code: 'const r = await gate({ name: "deep" }); let d = 0; for (let v = r; Array.isArray(v); v = v[0]) d++; return d' }));
    const id = parked.pendingToolCalls![0]!.id;
    const nest = (levels: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    expect(() => gw.forkRun({ runId: parked.runId, replies: [{ id, result: nest(MAX_VALUE_DEPTH + 1) }] })).toThrow(
      `fork: replies[0].result nests deeper than ${MAX_VALUE_DEPTH} levels`,
    );
    expect(gw.run(parked.runId)?.forks).toBeUndefined();
    const fork = gw.forkRun({ runId: parked.runId, replies: [{ id, result: nest(MAX_VALUE_DEPTH) }] });
    expect(expectCompleted(await waitUntilDone(gw, t.agentRunId, fork.runId)).value).toBe(MAX_VALUE_DEPTH);
    gw.abortRun(parked.runId);
  });

  it('on forks past the turn\'s share of the suspended-run cap: the fork is refused with runtime_unavailable, forks count toward it', async () => {
    const t = await setup();
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code: 'return await gate({ name: "c" })' }));
    const before = gw.diagnostics.suspendedSlots();
    const forks: string[] = [];
    for (let i = before; i < MAX_SLOTS_PER_TURN; i++) forks.push(gw.forkRun({ runId: parked.runId, replies: [{ id: parked.pendingToolCalls![0]!.id, result: i }] }).runId);
    expect(gw.diagnostics.suspendedSlots()).toBe(MAX_SLOTS_PER_TURN);
    expect(() => gw.forkRun({ runId: parked.runId })).toThrow(`too many suspended code mode runs. This turn already has ${MAX_SLOTS_PER_TURN} runs`);
    gw.endTurn(t.agentRunId);
    expect(gw.diagnostics.suspendedSlots()).toBe(0);
    expect(gw.diagnostics.leaks()).toEqual([]);
  });

  it('on a Node run: fork says it needs a snapshot', async () => {
    const node = new NodeExecutor({ memoryPressure: () => false });
    try {
      const ng = await testGateway({ executor: node });
      const t = ng.prepareTurn({});
      const parked = expectWaiting(await ng.exec(t.agentRunId, { code: 'await yield_control("x"); return 1' }));
      expect(() => ng.forkRun({ runId: parked.runId })).toThrow(/fork needs a snapshot .* node executor/);
      ng.endTurn(t.agentRunId);
      await ng.close();
    } finally {
      await node.close();
    }
  });
});
