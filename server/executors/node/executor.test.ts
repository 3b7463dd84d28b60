// Node executor behaviour the shared conformance suite does not cover: the warm pool, worker retirement,
// live continuations, the supervisor, the memory budget and which runtimes a Node-only process loads.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BridgeRequest, CodeModeOutput, LegLimits } from '../../bridge/protocol.ts';
import { CODE_MODE_LIMIT_BOUNDS, DEFAULT_CODE_MODE_OPTIONS } from '../../config/schema.ts';
import type { Continuation, Leg, LegOutcome, NodeContinuation } from '../types.ts';
import { until } from '../../testing.ts';
import { MIN_OLD_GENERATION_MB, NodeExecutor, resourceLimitsFor, type NodeExecutorOptions } from './executor.ts';
import { heapWatch, inspectedThreadId } from './heap-watch.ts';
import { NO_DECLARATION_FILES } from '../../bridge/declaration-files.mjs';

const MiB = 1024 * 1024;
const boot = { maxPendingToolCalls: 4, tools: [], mcp: [] };
const limits: LegLimits = { memoryLimitBytes: 32 * MiB, maxOutputBytes: 4096, maxSnapshotBytes: MiB, maxPendingToolCalls: 16 };

const executors: NodeExecutor[] = [];
function executor(opts: NodeExecutorOptions = {}): NodeExecutor {
  const ex = new NodeExecutor({ memoryPressure: () => false, ...opts });
  executors.push(ex);
  return ex;
}
afterEach(async () => {
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
});

interface Drive {
  leg: Leg;
  requests: BridgeRequest[];
  output: CodeModeOutput[];
  /** Resolves with the first frontier of requests. */
  firstRequests: Promise<BridgeRequest[]>;
}

/** Open a leg like the runs layer does; timers are answered after their delay unless `holdTimers`. */
function drive(open: (h: Parameters<NodeExecutor['start']>[1]) => Leg, holdTimers = false): Drive {
  const requests: BridgeRequest[] = [];
  const output: CodeModeOutput[] = [];
  let first!: (r: BridgeRequest[]) => void;
  const firstRequests = new Promise<BridgeRequest[]>((r) => (first = r));
  const d: Drive = { leg: undefined as unknown as Leg, requests, output, firstRequests };
  d.leg = open({
    onRequests: (reqs) => {
      requests.push(...reqs);
      first(reqs);
      if (holdTimers) return;
      for (const q of reqs) if (q.op === 'timer') setTimeout(() => d.leg.deliver([{ id: q.id, ok: true }]), q.ms);
    },
    onOutput: (lines) => output.push(...lines),
  });
  return d;
}

/** Cells not about the deadline get the default budget: a loaded machine may take seconds to start a worker. */
const ROOMY_TIMEOUT_MS = DEFAULT_CODE_MODE_OPTIONS.timeoutMs;

function start(ex: NodeExecutor, body: string, o: { timeoutMs?: number; memoryLimitBytes?: number; holdTimers?: boolean } = {}): Drive {
  return drive(
    (h) =>
      ex.start(
        { body, boot, files: NO_DECLARATION_FILES, limits: { ...limits, memoryLimitBytes: o.memoryLimitBytes ?? limits.memoryLimitBytes }, budgetMs: o.timeoutMs ?? ROOMY_TIMEOUT_MS },
        h,
      ),
    o.holdTimers,
  );
}

function resume(ex: NodeExecutor, c: Continuation, inFlight: number, o: { holdTimers?: boolean } = {}): Drive {
  return drive((h) => ex.resume(c, { files: NO_DECLARATION_FILES, limits, budgetMs: ROOMY_TIMEOUT_MS, inFlight }, h), o.holdTimers);
}

async function value(d: Drive): Promise<unknown> {
  const o = await d.leg.done;
  if (o.kind !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(o)}`);
  return JSON.parse(o.valueJson);
}

async function failure(d: Drive): Promise<Extract<LegOutcome, { kind: 'failed' }>> {
  const o = await d.leg.done;
  if (o.kind !== 'failed') throw new Error(`expected failed, got ${JSON.stringify(o)}`);
  return o;
}

/** Start a cell that waits on a held timer, and park it. */
async function parked(ex: NodeExecutor, body: string): Promise<{ continuation: NodeContinuation; timer: BridgeRequest; output: CodeModeOutput[] }> {
  const d = start(ex, body, { holdTimers: true });
  const [timer] = await d.firstRequests;
  d.leg.park();
  const o = await d.leg.done;
  if (o.kind !== 'parked' || !timer || o.continuation.executor !== 'node') throw new Error(`expected a parked node leg, got ${JSON.stringify(o)}`);
  return { continuation: o.continuation, timer, output: d.output };
}

describe('warm workers', () => {
  it('on a second cell with the same heap limit: reuses the warm worker with a fresh context', async () => {
    const ex = executor();
    expect(await value(start(ex, 'globalThis.leak = 41; return typeof leak'))).toBe('number');
    expect(await value(start(ex, 'return typeof leak'))).toBe('undefined');
    expect(ex.poolStats()).toMatchObject({ spawned: 1, reused: 1, idle: 1 });
  });

  it('on ready() for a heap limit: the ready worker serves cells with that limit only', async () => {
    const ex = executor();
    await ex.ready({ memoryLimitBytes: limits.memoryLimitBytes });
    expect(ex.poolStats()).toMatchObject({ spawned: 1, readyIdle: 1 });
    await value(start(ex, 'return 1', { memoryLimitBytes: 48 * MiB }));
    expect(ex.poolStats()).toMatchObject({ spawned: 2, reused: 0 });
    await value(start(ex, 'return 2'));
    expect(ex.poolStats()).toMatchObject({ spawned: 2, reused: 1 });
  });

  it('after ready(): a failed cell retires its worker and a ready one takes its place for the next cell', async () => {
    const ex = executor();
    await ex.ready({ memoryLimitBytes: limits.memoryLimitBytes });
    expect((await failure(start(ex, 'throw new Error("bad")'))).error).toContain('bad');
    expect(ex.poolStats()).toMatchObject({ retired: 1, idle: 1, spawned: 2 });
    expect(await value(start(ex, 'return "next"'))).toBe('next');
    expect(ex.poolStats()).toMatchObject({ spawned: 2, reused: 2 });
  });

  it('on a different heap limit: starts another worker instead of reusing', async () => {
    const ex = executor();
    await value(start(ex, 'return 1'));
    await value(start(ex, 'return 2', { memoryLimitBytes: 48 * MiB }));
    expect(ex.poolStats()).toMatchObject({ spawned: 2, reused: 0, idle: 2 });
  });

  it('on more idle workers than maxIdleWorkers: retires the least recently used', async () => {
    const ex = executor({ maxIdleWorkers: 2 });
    // three concurrent cells need three workers; only two stay warm
    await Promise.all([0, 1, 2].map((i) => value(start(ex, `await new Promise((r) => setTimeout(r, 30)); return ${i}`))));
    expect(ex.poolStats()).toMatchObject({ spawned: 3, idle: 2, retired: 1 });
  });

  it('on several workers starting at once (each switches the process-wide --expose-gc on for its heap watch): every one starts, and no guest sees gc', async () => {
    const ex = executor({ maxIdleWorkers: 0 });
    const seen = await Promise.all([0, 1, 2, 3, 4, 5].map(() => value(start(ex, 'await new Promise((r) => setTimeout(r, 30)); return typeof gc'))));
    expect(seen).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
  });

  it('on the idle TTL passing: retires the warm worker', async () => {
    const ex = executor({ idleWorkerTtlMs: 50 });
    await value(start(ex, 'return 1'));
    expect(ex.poolStats().idle).toBe(1);
    // the TTL timer retires it; a loaded machine only takes longer to get there
    await until(() => ex.poolStats().idle === 0);
    expect(ex.poolStats()).toMatchObject({ idle: 0, retired: 1 });
    expect(ex.stats().workers).toBe(0);
  });

  it('without a host (maxIdleWorkers 0): closes the completed worker at once', async () => {
    const ex = executor({ maxIdleWorkers: 0 });
    await value(start(ex, 'return 1'));
    expect(ex.poolStats()).toMatchObject({ idle: 0, retired: 1 });
  });

  it('on critical memory pressure: retires idle workers but keeps a parked continuation', async () => {
    let pressure = false;
    const ex = executor({ memoryPressure: () => pressure });
    const p = await parked(ex, 'let n = 1; await new Promise((r) => setTimeout(r, 10)); return n + 1');
    // a parked worker is never lent out: this cell needs a second worker, which then stays warm
    await value(start(ex, 'return 1'));
    expect(ex.poolStats()).toMatchObject({ idle: 1, parked: 1 });
    pressure = true;
    expect(ex.relieveMemoryPressure()).toBe(1);
    expect(ex.poolStats()).toMatchObject({ idle: 0, parked: 1 });
    // a new cell under pressure runs on a fresh worker and is not kept warm
    expect(await value(start(ex, 'return 3'))).toBe(3);
    expect(ex.poolStats().idle).toBe(0);
    const r = resume(ex, p.continuation, 1);
    r.leg.deliver([{ id: p.timer.id, ok: true }]);
    expect(await value(r)).toBe(2);
  });
});

describe('retirement', () => {
  it('on an uncaught guest error: fails and retires its worker', async () => {
    const ex = executor();
    const f = await failure(start(ex, 'throw new TypeError("bad")'));
    expect(f.error).toContain('TypeError: bad');
    expect(ex.poolStats()).toMatchObject({ idle: 0, retired: 1 });
    await value(start(ex, 'return 1'));
    expect(ex.poolStats().spawned).toBe(2);
  });

  it('on while(true){}: fails with timeout near the deadline and retires its worker', async () => {
    const ex = executor();
    const f = await failure(start(ex, 'while (true) {}', { timeoutMs: 300 }));
    expect(f.code).toBe('timeout');
    expect(f.error).toMatch(/timeoutMs/);
    // stopped by the worker's own vm timeout, not by the supervisor terminating the thread
    expect(f.error).not.toMatch(/terminated/);
    expect(ex.poolStats()).toMatchObject({ idle: 0, retired: 1 });
  });

  it('on abort of a busy guest: fails with aborted at once and terminates the worker', async () => {
    const ex = executor();
    const d = start(ex, 'await new Promise((r) => setTimeout(r, 0));\nwhile (true) {}', { timeoutMs: 30_000 });
    await d.firstRequests;
    await new Promise((r) => setTimeout(r, 50));
    d.leg.abort();
    expect((await failure(d)).code).toBe('aborted');
    expect(ex.stats()).toEqual({ workers: 0, activeLegs: 0 });
  });

  it('on a worker stuck beyond the vm watchdog: the supervisor terminates it after the grace', async () => {
    const ex = executor({ entry: new URL('./fixtures/stuck-worker.mjs', import.meta.url), supervisorGraceMs: 100 });
    const f = await failure(start(ex, 'return 1', { timeoutMs: 200 }));
    expect(f.code).toBe('timeout');
    expect(f.error).toMatch(/terminated/);
    expect(ex.stats().workers).toBe(0);
  });
});

describe('live continuation', () => {
  it('on park and continue: the same worker resumes the live context without replaying the source', async () => {
    const ex = executor();
    const p = await parked(
      ex,
      'console.log("once");\nconst obj = {};\nglobalThis.kept = obj;\nlet n = 1;\nawait new Promise((r) => setTimeout(r, 10));\nn += 1;\nreturn { n, same: globalThis.kept === obj }',
    );
    expect(p.continuation).toMatchObject({ executor: 'node', workerId: expect.any(Number), continuationId: expect.any(String) });
    expect(p.continuation).not.toHaveProperty('snapshot');
    expect(p.output.map((o) => o.text)).toEqual(['once']);
    expect(ex.poolStats()).toMatchObject({ parked: 1, spawned: 1 });

    const r = resume(ex, p.continuation, 1);
    r.leg.deliver([{ id: p.timer.id, ok: true }]);
    expect(await value(r)).toEqual({ n: 2, same: true });
    expect(r.output).toEqual([]);
    expect(ex.poolStats()).toMatchObject({ parked: 0, idle: 1, spawned: 1 });
  });

  it('on park again after a continue: hands out a new continuation on the same worker', async () => {
    const ex = executor();
    const p = await parked(ex, 'await new Promise((r) => setTimeout(r, 10));\nawait new Promise((r) => setTimeout(r, 10));\nreturn "two"');
    const r = resume(ex, p.continuation, 1, { holdTimers: true });
    r.leg.deliver([{ id: p.timer.id, ok: true }]);
    const [second] = await r.firstRequests;
    r.leg.park();
    const o = await r.leg.done;
    if (o.kind !== 'parked' || !second || o.continuation.executor !== 'node') throw new Error(`expected a parked node leg, got ${JSON.stringify(o)}`);
    expect(o.continuation.workerId).toBe(p.continuation.workerId);
    expect(o.continuation.continuationId).not.toBe(p.continuation.continuationId);
    // the consumed continuation no longer resumes; the new one does
    expect((await failure(resume(ex, p.continuation, 1))).code).toBe('invalid_input');
    const last = resume(ex, o.continuation, 1);
    last.leg.deliver([{ id: second.id, ok: true }]);
    expect(await value(last)).toBe('two');
  });

  it('on release: drops the context, retires its worker, and a later resume fails with invalid_input', async () => {
    const ex = executor();
    const p = await parked(ex, 'await new Promise((r) => setTimeout(r, 10)); return 1');
    ex.release(p.continuation);
    expect(ex.poolStats()).toMatchObject({ parked: 0, retired: 1 });
    const f = await failure(resume(ex, p.continuation, 1));
    expect(f).toMatchObject({ code: 'invalid_input', error: 'code mode run is unavailable or expired.' });
  });

  it('on retained data: the retained-bytes estimate grows with what the parked cell keeps alive', async () => {
    const ex = executor({ maxIdleWorkers: 0 });
    const small = await parked(ex, 'await new Promise((r) => setTimeout(r, 10)); return 1');
    const big = await parked(ex, 'const keep = Array.from({ length: 200000 }, (_, i) => ({ i }));\nawait new Promise((r) => setTimeout(r, 10)); return keep.length');
    expect(small.continuation.retainedBytesEstimate).toBeGreaterThan(0);
    expect(big.continuation.retainedBytesEstimate).toBeGreaterThan(4 * MiB);
    expect(big.continuation.retainedBytesEstimate!).toBeGreaterThan(small.continuation.retainedBytesEstimate!);
  });
});

describe('memory budget', () => {
  it('on a memory bomb, even inside try/catch: fails with memory_limit_exceeded the cell cannot catch', async () => {
    // the heap watch enforces the limit; on a loaded machine it may take seconds to see the bomb: the whole budget, so only memory ends it
    const ex = executor();
    const f = await failure(start(ex, 'const a = [];\ntry { for (;;) a.push("x".repeat(1 << 16) + a.length) } catch (e) { return "caught" }', { timeoutMs: CODE_MODE_LIMIT_BOUNDS.timeoutMs.max }));
    expect(f.code).toBe('memory_limit_exceeded');
    expect(f.error).toMatch(/memoryLimitBytes \(32 MiB heap.*terminated/);
    expect(ex.stats().workers).toBe(0);
    expect(await value(start(ex, 'return "next cell runs"'))).toBe('next cell runs');
  }, 90_000);

  it('on a cell waiting on a tool: the heap watch reads its heap only once its guest computes again', async () => {
    const watch = heapWatch();
    expect(watch).not.toBeNull();
    const ex = executor({ heapWatch: watch });
    const d = start(ex, 'await new Promise((r) => setTimeout(r, 60_000));\nfor (;;) {}', { holdTimers: true });
    const [timer] = await d.firstRequests;
    // the inspector reaches the worker, and the guest is parked on its timer: polls go by, no reading
    await until(() => watch!.counts().attached === 1, { timeoutMs: 60_000 });
    const parked = watch!.counts();
    await until(() => watch!.counts().polls >= parked.polls + 5);
    expect(watch!.counts().probes).toBe(parked.probes);
    // the reply wakes the guest into a loop: readings resume
    d.leg.deliver([{ id: timer!.id, ok: true }]);
    // roomy: a full run may leave this fork busy for seconds (the previous test fills a heap)
    await until(() => watch!.counts().probes > parked.probes, { timeoutMs: 60_000 });
    d.leg.abort();
    expect((await d.leg.done).kind).toBe('failed');
  }, 150_000);

  it('on terminating a watched worker: the heap watch lets go of the thread first (Node can crash terminating a thread with an inspector message in flight)', async () => {
    const watch = heapWatch()!;
    const detach = vi.spyOn(watch, 'detach');
    try {
      const ex = executor({ heapWatch: watch });
      const d = start(ex, 'await new Promise((r) => setTimeout(r, 0));\nfor (;;) {}', { timeoutMs: 60_000 });
      await d.firstRequests;
      await until(() => watch.counts().attached >= 1, { timeoutMs: 60_000 });
      const attachedBefore = watch.counts().attached;
      d.leg.abort();
      expect((await failure(d)).code).toBe('aborted');
      expect(detach).toHaveBeenCalledTimes(1);
      expect(watch.counts().attached).toBe(attachedBefore - 1);
    } finally {
      detach.mockRestore();
    }
  }, 150_000);

  it("on the inspector's attach report: the thread id comes from the worker's title, not the inspector's attach counter", () => {
    // as seen under load: the seventh worker attached was thread 11
    expect(inspectedThreadId({ workerId: '7', title: '[worker 11]' })).toBe(11);
    expect(inspectedThreadId({ workerId: '3', title: '[worker 3] codemode-node' })).toBe(3);
    expect(inspectedThreadId({ workerId: '3', title: 'something else' })).toBeNaN();
  });

  it('on a heap limit below the engine minimum: raises the old generation to its floor', () => {
    expect(resourceLimitsFor(MiB)).toEqual({ maxOldGenerationSizeMb: MIN_OLD_GENERATION_MB, maxYoungGenerationSizeMb: 1 });
    const big = resourceLimitsFor(64 * MiB);
    expect(big.maxOldGenerationSizeMb + big.maxYoungGenerationSizeMb).toBe(64);
  });
});

describe('startup', () => {
  it('on a runtime entry that cannot start: fails with runtime_unavailable', async () => {
    const ex = executor({ entry: new URL('./fixtures/broken-worker.mjs', import.meta.url) });
    const f = await failure(start(ex, 'return 1'));
    expect(f.code).toBe('runtime_unavailable');
    expect(f.error).toMatch(/cannot start a worker/);
  });

  it('on a closed executor: fails with runtime_unavailable', async () => {
    const ex = executor();
    await ex.close();
    expect((await failure(start(ex, 'return 1'))).code).toBe('runtime_unavailable');
  });
});

describe('no WASM runtime for Node', () => {
  const child = fileURLToPath(new URL('./fixtures/module-log.mts', import.meta.url));
  const run = async (kind: string) => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child, kind], { timeout: 60_000 });
    return JSON.parse(stdout) as { result: { status: string; value?: unknown }; modules: string[] };
  };
  const quickjs = (m: string) => /quickjs/i.test(m);

  it('on a process that only used the Node executor: never loads quickjs-wasi or the QuickJS executor', async () => {
    const out = await run('node');
    expect(out.result).toMatchObject({ status: 'completed', value: 42 });
    expect(out.modules.some((m) => m.endsWith('/executors/node/executor.ts'))).toBe(true);
    expect(out.modules.filter(quickjs)).toEqual([]);
  }, 60_000);

  it('on the same probe with QuickJS selected: sees the QuickJS executor load (the probe works)', async () => {
    const out = await run('quickjs');
    expect(out.result).toMatchObject({ status: 'completed', value: 42 });
    expect(out.modules.some(quickjs)).toBe(true);
  }, 60_000);

  it('on the Node worker entry: imports nothing QuickJS, transitively', () => {
    const seen = new Set<string>();
    const visit = (url: URL) => {
      if (seen.has(url.href)) return;
      seen.add(url.href);
      const src = readFileSync(url, 'utf8');
      for (const m of src.matchAll(/^\s*import\s[^'"]*['"]([^'"]+)['"]/gm)) {
        const spec = m[1]!;
        expect(spec).not.toMatch(/quickjs/i);
        if (spec.startsWith('.')) visit(new URL(spec, url));
      }
    };
    visit(new URL('./worker.mjs', import.meta.url));
    expect(seen.size).toBeGreaterThan(1);
  });
});
