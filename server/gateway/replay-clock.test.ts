// The guest's clock: real by default on every executor, logical for an explicitly seeded run, recorded in every run
// (across a suspension), replayed from a cassette reading by reading, kept by a fork up to the fork point.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../gateway.ts';
import type { ExecutorKind } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import { createExecutor, EXECUTOR_KINDS } from '../guest/testing.ts';
import { logicalClockStartMs } from '../runs/clock.ts';
import type { Cassette } from '../runs/cassette.ts';
import { expectCompleted, expectFailed, expectWaiting, testGateway } from '../testing.ts';
import { slowEcho } from '../tools/testing.ts';

/** Every clock the guest can read, before and after a tool call that really takes 200 ms (and a park, with yield). */
const CELL = `
const before = { now: Date.now(), made: new Date().getTime(), str: Date(), perf: performance.now(), origin: performance.timeOrigin };
await yield_control("park here");
await slow_echo({ ms: 200 });
const after = { now: Date.now(), perf: performance.now(), year: new Date().getUTCFullYear() };
return { before, after, r: Math.random() };
`;

interface ClockValue {
  before: { now: number; made: number; str: string; perf: number; origin: number };
  after: { now: number; perf: number; year: number };
  r: number;
}

async function runToEnd(gw: Gateway, agentRunId: string, first: Awaited<ReturnType<Gateway['exec']>>) {
  let r = first;
  const runId = r.status === 'waiting' ? r.runId : r.telemetry.runId!;
  while (r.status === 'waiting') r = await gw.wait(agentRunId, { runId });
  return { result: r, runId };
}

describe('the guest clock', () => {
  const executors: Partial<Record<ExecutorKind, Executor>> = {};
  const gateways: Partial<Record<ExecutorKind, Gateway>> = {};

  beforeAll(async () => {
    for (const kind of EXECUTOR_KINDS) {
      executors[kind] = await createExecutor(kind);
      gateways[kind] = await testGateway({ executor: executors[kind], tools: [slowEcho] });
    }
  });

  afterAll(async () => {
    for (const g of Object.values(gateways)) await g?.close();
    await Promise.all(Object.values(executors).map((e) => e?.close()));
  });

  for (const kind of EXECUTOR_KINDS) {
    it(`on ${kind} without a seed: Date, new Date(), Date() and performance.now read the real clock and move across a park and a tool call`, async () => {
      const gw = gateways[kind]!;
      const t = gw.prepareTurn({});
      const hostBefore = Date.now();
      const { result, runId } = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code: CELL }));
      const hostAfter = Date.now();
      const v = expectCompleted(result).value as ClockValue;
      // bounds, not timings: every reading lies between the host's readings around the run
      for (const at of [v.before.now, v.before.made, v.after.now]) {
        expect(at).toBeGreaterThanOrEqual(hostBefore);
        expect(at).toBeLessThanOrEqual(hostAfter);
      }
      expect(new Date(v.before.str).getUTCFullYear()).toBe(new Date(hostBefore).getUTCFullYear());
      expect(v.after.year).toBe(new Date(hostAfter).getUTCFullYear());
      // the tool really took 200 ms: the clock moved at least that much across it, and so did performance.now
      expect(v.after.now - v.before.now).toBeGreaterThanOrEqual(200);
      expect(v.after.perf - v.before.perf).toBeGreaterThanOrEqual(200);
      // performance.now counts from the run's start, which is on the real clock too
      expect(v.before.origin).toBeGreaterThanOrEqual(hostBefore);
      expect(v.before.origin + v.before.perf).toBeGreaterThanOrEqual(hostBefore);
      expect(v.before.origin + v.before.perf).toBeLessThanOrEqual(hostAfter);
      const view = gw.run(runId)!;
      expect(view.clock).toBe('real');
      // the drawn seed still decides Math.random: the same seed with the real clock draws the same number
      const again = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code: CELL }, { seed: view.seed, clock: 'real' }));
      expect((expectCompleted(again.result).value as ClockValue).r).toBe(v.r);
      gw.endTurn(t.agentRunId);
    });
  }

  it('on an explicit seed: the logical clock (a seed-derived instant of 2025, still across a tool call), marked so on the run and in the transcript', async () => {
    for (const kind of EXECUTOR_KINDS) {
      const gw = gateways[kind]!;
      const t = gw.prepareTurn({});
      const { result, runId } = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code: CELL }, { seed: 77 }));
      const v = expectCompleted(result).value as ClockValue;
      expect(v.before.now).toBe(logicalClockStartMs(77));
      expect(v.after.now).toBe(v.before.now);
      expect(v.before.origin).toBe(v.before.now);
      expect([v.before.perf, v.after.perf]).toEqual([0, 0]);
      expect(v.after.year).toBe(2025);
      const view = gw.run(runId)!;
      expect(view.clock).toBe('logical');
      expect(gw.trajectory(runId)?.clock).toBe('logical');
      const entry = (await gw.transcript(view.sessionId)).find((e) => e.type === 'tool-call' && e.payload.tool === 'exec');
      expect(entry?.type === 'tool-call' && entry.payload.clock).toBe('logical');
      gw.endTurn(t.agentRunId);
    }
  });

  for (const kind of EXECUTOR_KINDS) {
    it(`on ${kind}: the cassette holds every reading across the park, and a replay returns them in order`, async () => {
      const gw = gateways[kind]!;
      const t = gw.prepareTurn({});
      const recorded = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code: CELL }));
      const original = expectCompleted(recorded.result).value as ClockValue;
      const cassette = gw.cassette(recorded.runId)!;
      // seven readings: four before the park (Date.now, new Date(), Date(), performance.now; timeOrigin is no
      // reading), three after; run-length pairs keep them
      expect(cassette.clock?.mode).toBe('real');
      const count = (c: Cassette) => (c.clock?.runs ?? []).filter((_n, i) => i % 2 === 1).reduce((a, b) => a + b, 0);
      expect(count(cassette)).toBe(7);
      // the cassette crosses JSON, as a file does
      const replayed = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code: CELL }, { replay: JSON.parse(JSON.stringify(cassette)) }));
      expect(expectCompleted(replayed.result).value).toEqual(original);
      expect(gw.run(replayed.runId)?.clock).toBe('replayed');
      // the replay records the same readings, so its own cassette replays too
      expect(gw.cassette(replayed.runId)?.clock?.runs).toEqual(cassette.clock?.runs);
      gw.endTurn(t.agentRunId);
    });
  }

  it('on a replay that reads the clock once more than recorded: fails with replay_mismatch naming the reading, even when the cell catches it', async () => {
    const gw = gateways.quickjs!;
    const t = gw.prepareTurn({});
    const recorded = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code: 'const a = Date.now(); await slow_echo({ ms: 1 }); return a' }));
    const cassette = gw.cassette(recorded.runId)!;
    const code = 'const a = Date.now(); await slow_echo({ ms: 1 }); try { return [a, performance.now()] } catch (e) { return "caught" }';
    const r = expectFailed(await gw.exec(t.agentRunId, { code }, { replay: cassette }), 'replay_mismatch');
    expect(r.error).toContain('read the clock a 2nd time (performance.now())');
    expect(r.error).toContain('the cassette recorded 1 reading');
    gw.endTurn(t.agentRunId);
  });

  it('on a cassette recorded before readings were kept (no clock): replays with its seed\'s logical clock', async () => {
    const gw = gateways.node!;
    const t = gw.prepareTurn({});
    const recorded = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code: 'await slow_echo({ ms: 1 }); return [Date.now(), Math.random()]' }, { seed: 5 }));
    const { clock: _clock, ...old } = gw.cassette(recorded.runId)!;
    const replayed = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code: 'await slow_echo({ ms: 1 }); return [Date.now(), Date.now(), Math.random()]' }, { replay: old }));
    const [a, b, r] = expectCompleted(replayed.result).value as number[];
    expect([a, b]).toEqual([logicalClockStartMs(5), logicalClockStartMs(5)]);
    expect(r).toBe((expectCompleted(recorded.result).value as number[])[1]);
    expect(gw.run(replayed.runId)?.clock).toBe('logical');
    gw.endTurn(t.agentRunId);
  });

  it('on a cassette whose clock is malformed: the replay is refused with invalid_input naming the field', async () => {
    const gw = gateways.quickjs!;
    const t = gw.prepareTurn({});
    const recorded = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code: 'return Date.now()' }));
    const cassette = gw.cassette(recorded.runId)!;
    for (const [clock, words] of [
      [{ ...cassette.clock, runs: [1] }, 'clock.runs must be a list'],
      [{ ...cassette.clock, runs: [1, 0] }, 'positive count'],
      [{ ...cassette.clock, runs: [9e15, 1] }, 'no Date can hold'],
      [{ ...cassette.clock, startMs: 'x' }, 'clock.startMs'],
    ] as const) {
      const r = expectFailed(await gw.exec(t.agentRunId, { code: 'return 1' }, { replay: { ...cassette, clock } }), 'invalid_input');
      expect(r.error).toContain(words);
    }
    gw.endTurn(t.agentRunId);
  });

  it('on a fork: it keeps the parent\'s readings up to the fork point, and the fork\'s own cassette replays it exactly', async () => {
    const gw = gateways.quickjs!;
    const t = gw.prepareTurn({});
    const code = 'const a = Date.now(); const e = await slow_echo({ ms: 1, v: "x" }); await yield_control("fork me"); const b = Date.now(); return { a, b, e, r: Math.random() }';
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code }));
    const fork = gw.forkRun({ runId: parked.runId });
    expect(gw.cassette(fork.runId)?.clock).toEqual(gw.cassette(parked.runId)?.clock);
    const forked = await runToEnd(gw, t.agentRunId, await gw.wait(t.agentRunId, { runId: fork.runId }));
    const value = expectCompleted(forked.result).value as { a: number; b: number };
    expect(value.b).toBeGreaterThanOrEqual(value.a);
    const forkCassette = gw.cassette(fork.runId)!;
    const replayed = await runToEnd(gw, t.agentRunId, await gw.exec(t.agentRunId, { code }, { replay: forkCassette }));
    expect(expectCompleted(replayed.result).value).toEqual(value);
    gw.endTurn(t.agentRunId);
  });
});
