// The live-continuation pool's warm start, run against both live executors: ready() starts a worker before any cell, keeps one ready after parks, and leaves nothing behind.
import { afterEach, describe, expect, it } from 'vitest';
import type { BridgeRequest, LegLimits } from '../bridge/protocol.ts';
import { DEFAULT_CODE_MODE_OPTIONS } from '../config/schema.ts';
import { until } from '../testing.ts';
import type { Continuation, Leg, LegHandlers, LegOutcome } from './types.ts';
import type { LivePoolOptions, LiveWorkerPool } from './live-pool.ts';
import { EmscriptenExecutor } from './emscripten/executor.ts';
import { NodeExecutor } from './node/executor.ts';
import { NO_DECLARATION_FILES } from '../bridge/declaration-files.mjs';

const MiB = 1024 * 1024;
const boot = { maxPendingToolCalls: 4, tools: [], mcp: [] };
/** The config's default budget: ready() without a hint starts a worker for it. */
const limits: LegLimits = { memoryLimitBytes: DEFAULT_CODE_MODE_OPTIONS.memoryLimitBytes, maxOutputBytes: 4096, maxSnapshotBytes: MiB, maxPendingToolCalls: 16 };

type LivePool = LiveWorkerPool<'node'> | LiveWorkerPool<'quickjs-emscripten'>;

const IMPLEMENTATIONS: Array<[string, (o: LivePoolOptions) => LivePool]> = [
  // the probe never reports pressure: a loaded machine must not turn warm workers off mid-test
  ['node', (o) => new NodeExecutor({ memoryPressure: () => false, ...o })],
  ['quickjs-emscripten', (o) => new EmscriptenExecutor(o)],
];

describe.each(IMPLEMENTATIONS)('live pool warm start (%s)', (_kind, create) => {
  const pools: LivePool[] = [];
  function pool(o: LivePoolOptions = {}): LivePool {
    const p = create(o);
    pools.push(p);
    return p;
  }
  afterEach(async () => {
    for (const p of pools) expect(p.leaks()).toEqual([]);
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  function drive(open: (h: LegHandlers) => Leg): { leg: Leg; first: Promise<BridgeRequest[]> } {
    let first!: (r: BridgeRequest[]) => void;
    const firstP = new Promise<BridgeRequest[]>((r) => (first = r));
    const leg = open({ onRequests: (reqs) => first(reqs), onOutput: () => undefined });
    return { leg, first: firstP };
  }
  const start = (p: LivePool, body: string) =>
    drive((h) => p.start({ body, boot, files: NO_DECLARATION_FILES, limits, budgetMs: DEFAULT_CODE_MODE_OPTIONS.timeoutMs }, h));

  /** A cell parked on a held timer: its worker keeps it. */
  async function parked(p: LivePool): Promise<{ continuation: Continuation; timer: BridgeRequest }> {
    const d = start(p, 'await new Promise((done) => setTimeout(done, 1));\nreturn "resumed"');
    const [timer] = await d.first;
    d.leg.park();
    const o: LegOutcome = await d.leg.done;
    if (o.kind !== 'parked' || !timer) throw new Error(`expected a parked leg, got ${JSON.stringify(o)}`);
    return { continuation: o.continuation, timer };
  }

  it('without ready(): starts no worker before the first cell', () => {
    const p = pool();
    expect(p.poolStats()).toMatchObject({ spawned: 0, idle: 0 });
    expect(p.stats().workers).toBe(0);
  });

  it('on ready(): one worker has started and reported ready before any cell, and the first cell runs on it', async () => {
    const p = pool();
    await p.ready();
    expect(p.poolStats()).toMatchObject({ spawned: 1, idle: 1, readyIdle: 1, busy: 0 });
    expect(await start(p, 'return "first"').leg.done).toMatchObject({ kind: 'completed', valueJson: '"first"' });
    expect(p.poolStats()).toMatchObject({ spawned: 1, reused: 1, idle: 1 });
  });

  it('on ready() twice: one ready worker, not two', async () => {
    const p = pool();
    await Promise.all([p.ready(), p.ready()]);
    await p.ready();
    expect(p.poolStats()).toMatchObject({ spawned: 1, idle: 1 });
  });

  it('on a cell that takes the ready worker before it reported ready: the cell runs on it once it is', async () => {
    const p = pool();
    const ready = p.ready();
    const d = start(p, 'return 7');
    // no worker can have reported ready synchronously: the cell took the starting one
    expect(p.poolStats()).toMatchObject({ spawned: 1, reused: 1, idle: 0, busy: 1 });
    await ready;
    expect(await d.leg.done).toMatchObject({ kind: 'completed', valueJson: '7' });
    expect(p.poolStats()).toMatchObject({ spawned: 1, idle: 1 });
  });

  it('on a parked cell after ready(): a ready worker is started for the next cell, which runs there; release leaves that one idle', async () => {
    const p = pool();
    await p.ready();
    const first = await parked(p);
    // the parked run keeps the first worker; the pool started the next one in the background
    expect(p.poolStats()).toMatchObject({ parked: 1, idle: 1, spawned: 2 });
    await until(() => p.poolStats().readyIdle === 1);
    expect(await start(p, 'return "next"').leg.done).toMatchObject({ kind: 'completed', valueJson: '"next"' });
    expect(p.poolStats()).toMatchObject({ spawned: 2, reused: 2, parked: 1, idle: 1 });
    p.release(first.continuation);
    expect(p.poolStats()).toMatchObject({ parked: 0, idle: 1, spawned: 2 });
  });

  it('with maxIdleWorkers 1: parked cells never leave more than one ready worker', async () => {
    const p = pool({ maxIdleWorkers: 1 });
    await p.ready();
    const a = await parked(p);
    const b = await parked(p);
    expect(p.poolStats()).toMatchObject({ parked: 2, idle: 1, spawned: 3 });
    for (const c of [a, b]) p.release(c.continuation);
    expect(p.poolStats()).toMatchObject({ parked: 0, idle: 1 });
  });

  it('with maxIdleWorkers 0: ready() starts nothing (no worker may stay idle)', async () => {
    const p = pool({ maxIdleWorkers: 0 });
    await p.ready();
    expect(p.poolStats()).toMatchObject({ spawned: 0, idle: 0 });
  });

  it('on close() while the ready worker is still starting: ready() resolves, and no worker is left', async () => {
    const p = pool();
    const ready = p.ready();
    expect(p.stats().workers).toBe(1);
    await p.close();
    await expect(ready).resolves.toBeUndefined();
    expect(p.stats().workers).toBe(0);
    expect(p.poolStats()).toMatchObject({ idle: 0, busy: 0, parked: 0 });
  });

  it('on the idle TTL passing: retires the ready worker like any idle one', async () => {
    const p = pool({ idleWorkerTtlMs: 50 });
    await p.ready();
    await until(() => p.poolStats().idle === 0);
    expect(p.poolStats()).toMatchObject({ spawned: 1, retired: 1 });
    expect(p.stats().workers).toBe(0);
  });
});
