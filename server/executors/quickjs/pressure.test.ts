// Spec 01 "Explicit yield, an exhausted call budget, or worker-pool pressure checkpoints it. Pressure parking can remain internal to the same call; tools keep their original IDs and are not replayed. Actual checkpoints still enforce maxSnapshotBytes", through the Gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../gateway.ts';
import type { CodeModeResult } from '../../runs/types.ts';
import { expectCompleted, expectFailed, expectWaiting, testGateway, until } from '../../testing.ts';
import type { ToolDefinition } from '../../tools/types.ts';
import { QuickJsExecutor } from './executor.ts';

/** A tool whose replies the test gives: each call is recorded (key, invocation id) and waits for `reply(key)`. */
function gatedTool() {
  const calls: Array<{ key: string; invocationId: string }> = [];
  const waiting = new Map<string, () => void>();
  const tool: ToolDefinition = {
    name: 'gate',
    description: 'answers when the test says so',
    source: 'core',
    inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    execute: (input, ctx) => {
      const key = (input as { key: string }).key;
      calls.push({ key, invocationId: ctx.invocationId });
      return new Promise((resolve) => waiting.set(key, () => resolve({ key, echoed: true })));
    },
  };
  const reply = (key: string) => {
    const answer = waiting.get(key);
    if (!answer) throw new Error(`no gate call with key ${key} is waiting`);
    waiting.delete(key);
    answer();
  };
  return { tool, calls, waiting, reply };
}

/** The run id of the cell that called the gate with `key` (a completed result carries none). */
function runOf(gw: Gateway, key: string): string {
  const run = gw.runs().find((r) => r.code.includes(`gate({ key: ${JSON.stringify(key)} })`));
  if (!run) throw new Error(`no run called the gate with key ${key}`);
  return run.runId;
}

// a cell that awaits the gate and then computes with the reply (its id, as the cell saw the call go out)
const cell = (key: string) => `const r = await gate({ key: ${JSON.stringify(key)} });\nreturn { key: r.key, after: [1, 2, 3].map((n) => n * 2) };`;

describe('worker-pool pressure parking (one worker, one live VM per worker, no extra workers)', () => {
  let executor: QuickJsExecutor;

  beforeAll(async () => {
    executor = new QuickJsExecutor({ workers: 1, maxExtraWorkers: 0, maxLiveVmsPerWorker: 1 });
    await executor.ready();
  });

  afterAll(async () => {
    await executor.close();
  });

  it('on more concurrent cells awaiting slow tools than worker places: each completes in its one exec call, its tool called once under its original invocation id', async () => {
    const gate = gatedTool();
    const gw = await testGateway({ executor, tools: [gate.tool], codeMode: { timeoutMs: 60_000 } });
    const t = gw.prepareTurn({ sessionId: 'pressure-many' });
    const keys = ['a', 'b', 'c', 'd'];
    const parksBefore = executor.poolStats().pressureParks;
    const results: Array<Promise<CodeModeResult>> = keys.map((k) => gw.exec(t.agentRunId, { code: cell(k) }, { toolCallId: `call_${k}` }));
    // every cell reached its tool: with one place, all but one were moved off the worker to get there
    await until(() => gate.waiting.size === keys.length, { what: 'every cell to call the gate' });
    expect(executor.poolStats().pressureParks - parksBefore).toBeGreaterThanOrEqual(keys.length - 1);
    for (const k of keys) gate.reply(k);
    const done = (await Promise.all(results)).map(expectCompleted);

    expect(done.map((r) => r.value)).toEqual(keys.map((key) => ({ key, after: [2, 4, 6] })));
    // not replayed: one call per cell, and the id each tool call ran under is the one its run recorded
    expect(gate.calls.map((c) => c.key).sort()).toEqual(keys);
    for (const key of keys) {
      const trajectory = gw.trajectory(runOf(gw, key));
      expect(trajectory?.calls.map((c) => c.tool)).toEqual(['exec']);
      const nested = trajectory?.calls[0]?.nested ?? [];
      expect(nested.map((n) => n.invocationId)).toEqual(gate.calls.filter((c) => c.key === key).map((c) => c.invocationId));
      expect(nested.map((n) => n.status)).toEqual(['ok']);
    }
    expect(executor.leaks()).toEqual([]);
    expect(gw.diagnostics.leaks()).toEqual([]);
  });

  it('on cells moved more than once (two awaited calls each): both calls keep their ids, in order, and output from every worker stay reaches the result', async () => {
    const gate = gatedTool();
    const gw = await testGateway({ executor, tools: [gate.tool], codeMode: { timeoutMs: 60_000 } });
    const t = gw.prepareTurn({ sessionId: 'pressure-twice' });
    const twice = (k: string) =>
      `console.log("before ${k}");\nconst a = await gate({ key: "${k}1" });\nconsole.log("between ${k}");\nconst b = await gate({ key: "${k}2" });\nconsole.log("after ${k}");\nreturn [a.key, b.key];`;
    const parksBefore = executor.poolStats().pressureParks;
    const x = gw.exec(t.agentRunId, { code: twice('x') }, { toolCallId: 'call_x' });
    const y = gw.exec(t.agentRunId, { code: twice('y') }, { toolCallId: 'call_y' });
    await until(() => gate.waiting.has('x1') && gate.waiting.has('y1'), { what: 'both first calls' });
    gate.reply('x1');
    gate.reply('y1');
    await until(() => gate.waiting.has('x2') && gate.waiting.has('y2'), { what: 'both second calls' });
    gate.reply('y2');
    gate.reply('x2');
    const [rx, ry] = [expectCompleted(await x), expectCompleted(await y)];
    expect([rx.value, ry.value]).toEqual([
      ['x1', 'x2'],
      ['y1', 'y2'],
    ]);
    expect(rx.output?.map((l) => l.text)).toEqual(['before x', 'between x', 'after x']);
    expect(ry.output?.map((l) => l.text)).toEqual(['before y', 'between y', 'after y']);
    for (const k of ['x', 'y']) {
      const runId = gw.runs().find((r) => r.code.includes(`"before ${k}"`))?.runId ?? '';
      const nested = gw.trajectory(runId)?.calls[0]?.nested ?? [];
      const ids = nested.map((n) => n.invocationId);
      expect(ids).toEqual([`${k}1`, `${k}2`].map((key) => gate.calls.find((c) => c.key === key)?.invocationId));
      expect(ids.map((id) => id.split(':')[1])).toEqual(['1', '2']);
    }
    // one place for two cells that each wait twice: at least three moves
    expect(executor.poolStats().pressureParks - parksBefore).toBeGreaterThanOrEqual(3);
    expect(gate.calls.map((c) => c.key).sort()).toEqual(['x1', 'x2', 'y1', 'y2']);
    expect(executor.leaks()).toEqual([]);
  });

  it('on a pressure checkpoint: the run trajectory and board show a snapshot record marked pressure, with its sizes and restore time', async () => {
    const gate = gatedTool();
    const gw = await testGateway({ executor, tools: [gate.tool], codeMode: { timeoutMs: 60_000 } });
    const t = gw.prepareTurn({ sessionId: 'pressure-telemetry' });
    const first = gw.exec(t.agentRunId, { code: cell('first') }, { toolCallId: 'call_first' });
    await until(() => gate.waiting.has('first'), { what: 'the first cell to call the gate' });
    const second = gw.exec(t.agentRunId, { code: cell('second') }, { toolCallId: 'call_second' });
    await until(() => gate.waiting.has('second'), { what: 'the second cell to call the gate' });
    const firstRun = gw.run(runOf(gw, 'first'));
    expect(firstRun?.state).toBe('running');
    expect(firstRun?.snapshots).toEqual([expect.objectContaining({ reason: 'pressure' })]);
    gate.reply('first');
    gate.reply('second');
    expectCompleted(await first);
    expectCompleted(await second);

    const snapshots = gw.trajectory(runOf(gw, 'first'))?.snapshots ?? [];
    expect(snapshots).toHaveLength(1);
    const [pressure] = snapshots;
    expect(pressure?.reason).toBe('pressure');
    expect(pressure?.storedBytes).toBeGreaterThan(0);
    expect(pressure?.rawBytes).toBeGreaterThan(pressure?.storedBytes ?? 0);
    expect(pressure?.restoreMs).toBeGreaterThan(0);
  });

  it('on a wait moved by pressure: its result telemetry reports the snapshot it restored from, not the pressure checkpoint', async () => {
    const gate = gatedTool();
    const gw = await testGateway({ executor, tools: [gate.tool], codeMode: { timeoutMs: 60_000 } });
    const t = gw.prepareTurn({ sessionId: 'pressure-wait-telemetry' });
    // small at the yield, large (random doubles) when pressure moves it during the wait
    const code = 'await yield_control("checkpoint");\nconst big = Array.from({ length: 100000 }, () => Math.random());\nawait gate({ key: "grown" });\nreturn big.length;';
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code }, { toolCallId: 'call_grow' }));
    const yielded = gw.trajectory(parked.runId)?.snapshots[0];
    expect(yielded?.reason).toBe('yield');
    const resumed = gw.wait(t.agentRunId, { runId: parked.runId }, { toolCallId: 'call_grow_wait' });
    await until(() => gate.waiting.has('grown'), { what: 'the resumed cell to call the gate' });
    const other = gw.exec(t.agentRunId, { code: cell('other') }, { toolCallId: 'call_other_cell' });
    await until(() => gate.waiting.has('other'), { what: 'the other cell to call the gate' });
    gate.reply('grown');
    const done = expectCompleted(await resumed);
    expect(done.value).toBe(100000);
    const pressure = gw.trajectory(parked.runId)?.snapshots.find((r) => r.reason === 'pressure');
    expect(pressure?.storedBytes).toBeGreaterThan(yielded?.storedBytes ?? Infinity);
    expect(done.telemetry.snapshot?.storedBytes).toBe(yielded?.storedBytes);
    gate.reply('other');
    expectCompleted(await other);
  });

  it('on a budget that ends while the cell is pressure-parked: waits with that checkpoint, and wait completes it without replaying its tool', async () => {
    const gate = gatedTool();
    const gw = await testGateway({ executor, tools: [gate.tool], codeMode: { timeoutMs: 300 } });
    const slow = await testGateway({ executor, tools: [gate.tool], codeMode: { timeoutMs: 60_000 } });
    const t = gw.prepareTurn({ sessionId: 'pressure-budget' });
    const s = slow.prepareTurn({ sessionId: 'pressure-budget-other' });
    const parked = gw.exec(t.agentRunId, { code: cell('parked') }, { toolCallId: 'call_parked' });
    await until(() => gate.waiting.has('parked'), { what: 'the cell to call the gate' });
    // another cell takes the only place: the first is checkpointed by pressure, then its budget ends
    const other = slow.exec(s.agentRunId, { code: cell('other') }, { toolCallId: 'call_other' });
    const waiting = expectWaiting(await parked);
    const record = gw.trajectory(waiting.runId)?.snapshots.map((r) => r.reason);
    expect(record).toEqual(['pressure', 'pending_tools']);
    gate.reply('parked');
    const resumed = expectCompleted(await gw.wait(t.agentRunId, { runId: waiting.runId }, { toolCallId: 'call_wait' }));
    expect(resumed.value).toEqual({ key: 'parked', after: [2, 4, 6] });
    await until(() => gate.waiting.has('other'), { what: 'the other cell to call the gate' });
    gate.reply('other');
    expectCompleted(await other);
    expect(gate.calls.map((c) => c.key).sort()).toEqual(['other', 'parked']);
    expect(executor.leaks()).toEqual([]);
  });
});

describe('pressure parking and maxSnapshotBytes', () => {
  let executor: QuickJsExecutor;
  let gate: ReturnType<typeof gatedTool>;
  let gw: Gateway;

  beforeAll(async () => {
    executor = new QuickJsExecutor({ workers: 1, maxExtraWorkers: 0, maxLiveVmsPerWorker: 1 });
    await executor.ready();
    gate = gatedTool();
    // the smallest cap the config takes (1 KiB): a trivial cell's snapshot stores about 15 KiB, so every checkpoint here is over it
    gw = await testGateway({ executor, tools: [gate.tool], codeMode: { timeoutMs: 60_000, maxSnapshotBytes: 1024 } });
  });

  afterAll(async () => {
    await gw.close();
    await executor.close();
  });

  it('on a waiting VM whose snapshot is over maxSnapshotBytes: pressure does not fail it, it stays on its worker and completes in its exec call', async () => {
    const t = gw.prepareTurn({ sessionId: 'pressure-over-cap' });
    const big = gw.exec(t.agentRunId, { code: cell('big') }, { toolCallId: 'call_big' });
    await until(() => gate.waiting.has('big'), { what: 'the cell to call the gate' });
    // the second cell needs the only place: the first cannot be moved, so the second runs beside it
    expect(expectCompleted(await gw.exec(t.agentRunId, { code: 'return 2' }, { toolCallId: 'call_small' })).value).toBe(2);
    expect(executor.poolStats().pressureParks).toBe(0);
    gate.reply('big');
    const done = expectCompleted(await big);
    expect(done.value).toEqual({ key: 'big', after: [2, 4, 6] });
    expect(gw.trajectory(runOf(gw, 'big'))?.snapshots).toEqual([]);
    expect(executor.leaks()).toEqual([]);
  });

  it('on the same VM when it must genuinely park (its budget ends): fails with snapshot_limit_exceeded', async () => {
    const short = await testGateway({ executor, tools: [gate.tool], codeMode: { timeoutMs: 300, maxSnapshotBytes: 1024 } });
    const t = short.prepareTurn({ sessionId: 'pressure-over-cap-park' });
    const result = short.exec(t.agentRunId, { code: cell('parks') }, { toolCallId: 'call_parks' });
    expectFailed(await result, 'snapshot_limit_exceeded');
    gate.reply('parks');
  });
});
