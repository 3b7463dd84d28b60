// The elastic worker pool (through the QuickJS executor): computing guests push new cells to extra
// workers, up to the cap, and extras retire once idle.
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LegOutcome } from '../types.ts';
import { until } from '../../testing.ts';
import { HOST_WARM_UP_ROUNDS, QuickJsExecutor } from './executor.ts';
import { WORKER_YOUNG_GENERATION_MB } from './pool-worker.ts';
import { NO_DECLARATION_FILES } from '../../bridge/declaration-files.mjs';

const boot = { maxPendingToolCalls: 4, tools: [], mcp: [] };
const limits = { memoryLimitBytes: 32 * 1024 * 1024, maxOutputBytes: 4096, maxSnapshotBytes: 1024 * 1024, maxPendingToolCalls: 4 };
const noHandlers = { onRequests() {}, onOutput() {} };

let executor: QuickJsExecutor | undefined;
afterEach(async () => {
  await executor?.close();
  executor = undefined;
});

function start(ex: QuickJsExecutor, body: string, budgetMs = 20_000) {
  return ex.start({ body, boot, files: NO_DECLARATION_FILES, limits, budgetMs }, noHandlers);
}

async function value(done: Promise<LegOutcome>): Promise<unknown> {
  const o = await done;
  if (o.kind !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(o)}`);
  return JSON.parse(o.valueJson);
}

describe('QuickJS pool start', () => {
  it('on ready: every worker ran its warm-up cells to completion, and the first cell then runs as usual', async () => {
    const ex = (executor = new QuickJsExecutor({ workers: 2 }));
    await ex.ready();
    expect(ex.poolStats()).toMatchObject({ workers: 2, readyWorkers: 2, warmedUpWorkers: 2, activeLegs: 0 });
    expect(await value(start(ex, 'return "first"').done)).toBe('first');
  });

  it('ready() also runs warm-up legs through the host path, once: a nested call answered, a value, nothing left open', async () => {
    const ex = (executor = new QuickJsExecutor({ workers: 2 }));
    await Promise.all([ex.ready(), ex.ready()]);
    expect(ex.hostWarmUpLegs()).toBe(HOST_WARM_UP_ROUNDS * 2);
    await ex.ready();
    expect(ex.hostWarmUpLegs()).toBe(HOST_WARM_UP_ROUNDS * 2);
    expect(ex.poolStats()).toMatchObject({ activeLegs: 0 });
    expect(ex.leaks()).toEqual([]);
  });

  it('an executor closed while it warms up: ready() settles, and no warm-up leg is left behind', async () => {
    const ex = new QuickJsExecutor({ workers: 1 });
    const ready = ex.ready().then(
      () => 'resolved',
      () => 'rejected',
    );
    await ex.close();
    expect(['resolved', 'rejected']).toContain(await ready);
    expect(ex.hostWarmUpLegs()).toBeLessThan(HOST_WARM_UP_ROUNDS);
    expect(ex.leaks()).toEqual([]);
  });

  it('every worker, base or extra, runs with its young generation capped (a burst must not leave 32 MiB of new space resident)', async () => {
    const started: Worker[] = [];
    const on = Worker.prototype.on;
    const spy = vi.spyOn(Worker.prototype, 'on').mockImplementation(function (this: Worker, ...args: Parameters<Worker['on']>) {
      if (!started.includes(this)) started.push(this);
      return on.apply(this, args);
    });
    try {
      const ex = (executor = new QuickJsExecutor({ workers: 1, maxExtraWorkers: 1 }));
      await ex.ready();
      const spinning = start(ex, 'for (;;) {}');
      await until(() => ex.computingWorkers() === 1);
      expect(await value(start(ex, 'return 2').done)).toBe(2);
      expect(ex.poolStats()).toMatchObject({ workers: 2, extraWorkers: 1 });
      expect(started).toHaveLength(2);
      // the limits the thread runs with, as Node reports them for a live worker
      for (const w of started) expect(w.resourceLimits?.maxYoungGenerationSizeMb).toBe(WORKER_YOUNG_GENERATION_MB);
      spinning.abort();
      expect((await spinning.done).kind).toBe('failed');
    } finally {
      spy.mockRestore();
    }
  });
});

describe('elastic QuickJS pool', () => {
  it('on every worker computing: a trivial cell runs on an extra worker, extras stop at the cap, and retire once idle', async () => {
    const ex = (executor = new QuickJsExecutor({ workers: 1, maxExtraWorkers: 1, extraWorkerIdleMs: 20 }));
    await ex.ready();
    const loop1 = start(ex, 'for (;;) {}');
    await until(() => ex.computingWorkers() === 1);
    expect(await value(start(ex, 'return "extra"').done)).toBe('extra');
    expect(ex.poolStats()).toMatchObject({ workers: 2, extraWorkers: 1 });

    const loop2 = start(ex, 'for (;;) {}');
    await until(() => ex.computingWorkers() === 2);
    // at the cap: the cell waits on an existing worker instead of starting a third
    const queued = start(ex, 'return "queued"');
    expect(ex.poolStats()).toMatchObject({ workers: 2, extraWorkers: 1 });

    loop1.abort();
    loop2.abort();
    expect((await loop1.done).kind).toBe('failed');
    expect(await value(queued.done)).toBe('queued');
    await until(() => ex.poolStats().extraWorkers === 0);
    expect(ex.poolStats().workers).toBe(1);
    expect(ex.leaks()).toEqual([]);
  });

  it('on a cell opened while an idle extra worker is being retired: the cell runs elsewhere and completes', async () => {
    const ex = (executor = new QuickJsExecutor({ workers: 1, maxExtraWorkers: 1, extraWorkerIdleMs: 0 }));
    await ex.ready();
    const loop = start(ex, 'for (;;) {}');
    await until(() => ex.computingWorkers() === 1);
    // the moment the retiring extra is told to stop (before its exit event), open another cell
    let late: ReturnType<typeof start> | undefined;
    const terminate = Worker.prototype.terminate;
    const spy = vi.spyOn(Worker.prototype, 'terminate').mockImplementation(function (this: Worker) {
      late ??= start(ex, 'return "late"');
      return terminate.call(this);
    });
    try {
      expect(await value(start(ex, 'return "extra"').done)).toBe('extra');
      await until(() => late !== undefined);
      expect(await value(late!.done)).toBe('late');
    } finally {
      spy.mockRestore();
    }
    loop.abort();
    await loop.done;
    expect(ex.leaks()).toEqual([]);
  });

  it('on short cells only: never starts an extra worker', async () => {
    const ex = (executor = new QuickJsExecutor({ workers: 1 }));
    await ex.ready();
    for (let i = 0; i < 20; i++) expect(await value(start(ex, `return ${i}`).done)).toBe(i);
    expect(ex.poolStats().spawned).toBe(1);
  });
});
