// Replay lab, part 1: a run's seed decides the guest's time and randomness, on every executor and across a suspension.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../gateway.ts';
import { NodeExecutor } from '../executors/node/executor.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { Executor } from '../executors/types.ts';
import { expectCompleted, expectFailed, expectWaiting, testGateway } from '../testing.ts';
import { slowEcho } from '../tools/testing.ts';

/** Draws before and after a timer and a parked tool call: every value the seed decides. */
const CELL = `
const before = { now: Date.now(), iso: new Date().toISOString(), str: typeof Date(), r: [Math.random(), Math.random()] };
await new Promise((r) => setTimeout(r, 25));
const afterTimer = Date.now();
const echoed = await slow_echo({ ms: 200, v: Math.random() });
const after = { now: Date.now(), r: Math.random(), parsed: new Date(Date.UTC(2020, 0, 2)).toISOString(), inst: new Date() instanceof Date };
return { before, afterTimer, echoed, after };
`;

describe('replay lab: the seed', () => {
  const executors: Record<'quickjs' | 'node', Executor> = {} as Record<'quickjs' | 'node', Executor>;
  const gateways: Partial<Record<'quickjs' | 'node', Gateway>> = {};

  beforeAll(async () => {
    executors.quickjs = new QuickJsExecutor({ workers: 1 });
    executors.node = new NodeExecutor({ memoryPressure: () => false });
    for (const kind of ['quickjs', 'node'] as const) {
      // a budget far under the tool's delay would park it; here the tool is awaited after a yield instead
      gateways[kind] = await testGateway({ executor: executors[kind], tools: [slowEcho] });
    }
  });

  afterAll(async () => {
    for (const g of Object.values(gateways)) await g?.close();
    await Promise.all(Object.values(executors).map((e) => e.close()));
  });

  /** Runs CELL with `seed`, parking it once with yield_control so it resumes from its continuation. */
  async function runSeeded(kind: 'quickjs' | 'node', seed: number) {
    const gw = gateways[kind]!;
    const t = gw.prepareTurn({});
    try {
      const code = CELL.replace('const echoed', 'await yield_control("check");\nconst echoed');
      let r = await gw.exec(t.agentRunId, { code }, { seed });
      const runId = expectWaiting(r).runId;
      while (r.status === 'waiting') r = await gw.wait(t.agentRunId, { runId });
      return { value: expectCompleted(r).value as Record<string, unknown>, runId, gw };
    } finally {
      gw.endTurn(t.agentRunId);
    }
  }

  it('on the same seed: the same value on QuickJS and on Node, across a timer and a suspension', async () => {
    const q = await runSeeded('quickjs', 42);
    const n = await runSeeded('node', 42);
    expect(q.value).toEqual(n.value);
    const before = q.value.before as { now: number; r: number[]; str: string; iso: string };
    // time stands still while the cell computes and awaits tools; a timer moves it by its delay
    expect(q.value.afterTimer).toBe(before.now + 25);
    expect((q.value.after as { now: number }).now).toBe(before.now + 25);
    expect(before.str).toBe('string');
    expect(before.iso.startsWith('2025-')).toBe(true);
    expect(before.r[0]).not.toBe(before.r[1]);
    expect((q.value.after as { inst: boolean }).inst).toBe(true);
    expect((q.value.after as { parsed: string }).parsed).toBe('2020-01-02T00:00:00.000Z');
  });

  it('on another seed: other draws and another start time', async () => {
    const a = await runSeeded('quickjs', 42);
    const b = await runSeeded('quickjs', 7);
    expect((b.value.before as { r: number[] }).r).not.toEqual((a.value.before as { r: number[] }).r);
    expect((b.value.before as { now: number }).now).not.toBe((a.value.before as { now: number }).now);
  });

  it('on a run: its seed is in the run view, the trajectory export and the transcript exec entry', async () => {
    const { runId, gw } = await runSeeded('quickjs', 1234);
    expect(gw.run(runId)?.seed).toBe(1234);
    expect(gw.trajectory(runId)?.seed).toBe(1234);
    const view = gw.run(runId)!;
    const execEntry = (await gw.transcript(view.sessionId)).find((e) => e.type === 'tool-call' && e.payload.tool === 'exec');
    expect(execEntry?.type === 'tool-call' && execEntry.payload.seed).toBe(1234);
  });

  it('on no seed: the Gateway draws one and records it', async () => {
    const gw = gateways.quickjs!;
    const t = gw.prepareTurn({});
    const r = expectCompleted(await gw.exec(t.agentRunId, { code: 'return Math.random()' }));
    const seed = gw.run(r.telemetry.runId!)!.seed;
    expect(Number.isInteger(seed)).toBe(true);
    // the recorded seed repeats the draw
    const again = expectCompleted(await gw.exec(t.agentRunId, { code: 'return Math.random()' }, { seed }));
    expect(again.value).toBe(r.value);
    gw.endTurn(t.agentRunId);
  });

  it('on a seed that is not a uint32: fails with invalid_input naming the range', async () => {
    const gw = gateways.quickjs!;
    const t = gw.prepareTurn({});
    for (const seed of [-1, 1.5, 2 ** 32, Number.NaN, '5' as unknown as number]) {
      const r = expectFailed(await gw.exec(t.agentRunId, { code: 'return 1' }, { seed }), 'invalid_input');
      expect(r.error).toContain('seed must be an integer from 0 to 4294967295');
    }
    gw.endTurn(t.agentRunId);
  });
});
