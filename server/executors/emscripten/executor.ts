// The quickjs-emscripten executor: each cell in a fresh QuickJS runtime inside a worker thread; a waiting run keeps its live VM there.
//
// A hardened sandbox like the quickjs executor (a bare QuickJS context: no host APIs but the bridge),
// with a live continuation like Node's: quickjs-emscripten has no public memory snapshot, so a parked
// cell keeps its runtime in its worker and the worker serves no other cell until the run resumes or
// is released. Worker lifecycle (one cell per worker at a time, supervised by NodeWorker):
//   spawn -> busy --completed or failed with its VM disposed--> idle (warm: at most maxIdleWorkers, each for idleWorkerTtlMs)
//                 --parked-----> parked (holds the cell's live runtime; `continue` legs go back to it)
//                 --aborted, worker fault, released while parked--> retired (terminated)
// Unlike Node, a cell that failed (timeout, out of memory, an uncaught error) leaves its worker sound:
// the engine disposed its runtime (or dropped a module the library aborted, engine.mjs), so the
// worker goes back to the warm set.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { CODE_MODE_LIMIT_BOUNDS } from '../../config/schema.ts';
import { RUN_ABORTED_MESSAGE } from '../../bridge/leg-control.mjs';
import type { Continuation, Executor, Leg, LegHandlers, LegOutcome, ResumeRequest, StartRequest } from '../types.ts';
import { failedLeg } from '../leg-messages.ts';
import { NodeWorker } from '../node/node-worker.ts';
import { DEFAULT_IDLE_WORKER_TTL_MS, DEFAULT_MAX_IDLE_WORKERS, DEFAULT_SUPERVISOR_GRACE_MS, DEFAULT_WORKER_START_TIMEOUT_MS, type NodePoolStats } from '../node/executor.ts';
import { DEFAULT_MAX_STACK_SIZE_BYTES } from '../quickjs/executor.ts';

/**
 * Host-side heap of a worker, over the cell's memoryLimitBytes (which QuickJS enforces inside the WASM
 * memory): strings the guest hands the bridge are copied into the worker's V8 heap, at most the VM's
 * own size, as UTF-16 (twice the bytes), plus the worker's own runtime.
 */
export const HOST_HEAP_HEADROOM_MB = 64;

export interface EmscriptenExecutorOptions {
  /** Idle workers kept warm; 0 closes each worker once its cell ends. */
  maxIdleWorkers?: number;
  idleWorkerTtlMs?: number;
  supervisorGraceMs?: number;
  workerStartTimeoutMs?: number;
  maxStackSizeBytes?: number;
  /** Guest code evaluated before the prelude in every VM (tests: a cell with the raw host primitive). */
  preludePrefix?: string;
}

let compiled: WebAssembly.Module | undefined;

/** The quickjs-emscripten release-sync WASM module, compiled once per process and shared with every worker. */
function emscriptenModule(): WebAssembly.Module {
  if (!compiled) {
    const require = createRequire(import.meta.url);
    compiled = new WebAssembly.Module(readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')));
  }
  return compiled;
}

export class EmscriptenExecutor implements Executor {
  readonly kind = 'quickjs-emscripten' as const;
  /** A suspended cell is its live runtime: it cannot leave its worker, so pool pressure never moves it. */
  readonly pressureParking = false;
  private readonly entry = new URL('./worker.mjs', import.meta.url);
  private readonly maxIdle: number;
  private readonly idleTtlMs: number;
  private readonly graceMs: number;
  private readonly startTimeoutMs: number;
  private readonly workerData: Record<string, unknown>;
  private readonly workers = new Map<number, NodeWorker>();
  /** Idle workers, least recently used first, with their expiry timers. */
  private idle: Array<{ worker: NodeWorker; timer: ReturnType<typeof setTimeout> }> = [];
  private nextWorkerId = 1;
  private counters = { spawned: 0, reused: 0, retired: 0 };
  private closed = false;

  constructor(opts: EmscriptenExecutorOptions = {}) {
    this.maxIdle = Math.max(0, opts.maxIdleWorkers ?? DEFAULT_MAX_IDLE_WORKERS);
    this.idleTtlMs = opts.idleWorkerTtlMs ?? DEFAULT_IDLE_WORKER_TTL_MS;
    this.graceMs = opts.supervisorGraceMs ?? DEFAULT_SUPERVISOR_GRACE_MS;
    this.startTimeoutMs = opts.workerStartTimeoutMs ?? DEFAULT_WORKER_START_TIMEOUT_MS;
    this.workerData = {
      maxSliceMs: CODE_MODE_LIMIT_BOUNDS.timeoutMs.max,
      maxStackSizeBytes: opts.maxStackSizeBytes ?? DEFAULT_MAX_STACK_SIZE_BYTES,
      wasmModule: emscriptenModule(),
      ...(opts.preludePrefix !== undefined ? { preludePrefix: opts.preludePrefix } : {}),
    };
  }

  start(req: StartRequest, handlers: LegHandlers): Leg {
    if (this.closed) return failedLeg('runtime_unavailable', 'the quickjs-emscripten executor is closed; the gateway is shutting down');
    let worker: NodeWorker;
    try {
      worker = this.acquire(req.limits.memoryLimitBytes);
    } catch (err) {
      return failedLeg('runtime_unavailable', `the quickjs-emscripten executor cannot start a worker: ${(err as Error).message}. Check the gateway log, or select another executor.`);
    }
    return worker.openLeg(
      handlers,
      req.budgetMs,
      (legId, control) => ({ t: 'start', legId, body: req.body, boot: req.boot, files: req.files, limits: req.limits, control }),
      (outcome) => this.afterLeg(worker, outcome),
    );
  }

  resume(continuation: Continuation, req: ResumeRequest, handlers: LegHandlers): Leg {
    const live = continuation.executor === 'quickjs-emscripten' ? continuation : undefined;
    const worker = live ? this.workers.get(live.workerId) : undefined;
    if (!live || !worker || worker.state !== 'parked' || worker.continuationId !== live.continuationId) {
      return failedLeg('invalid_input', 'code mode run is unavailable or expired.');
    }
    // the live runtime now belongs to this leg; a later park hands out a new continuation id
    worker.continuationId = undefined;
    return worker.openLeg(
      handlers,
      req.budgetMs,
      (legId, control) => ({
        t: 'continue',
        legId,
        continuationId: live.continuationId,
        limits: req.limits,
        control,
        files: req.files,
        inFlight: req.inFlight,
        settled: live.settled,
      }),
      (outcome) => this.afterLeg(worker, outcome),
    );
  }

  release(continuation: Continuation): void {
    if (continuation.executor !== 'quickjs-emscripten') return;
    const worker = this.workers.get(continuation.workerId);
    if (!worker || worker.state !== 'parked' || worker.continuationId !== continuation.continuationId) return;
    // released means expired, aborted or shut down: the worker goes, and its WASM memory with it
    this.retire(worker);
  }

  stats(): { workers: number; activeLegs: number } {
    let activeLegs = 0;
    for (const w of this.workers.values()) if (w.hasActiveLeg) activeLegs++;
    return { workers: this.workers.size, activeLegs };
  }

  leaks(): string[] {
    const out: string[] = [];
    for (const w of this.workers.values()) {
      if (!w.alive) out.push(`quickjs-emscripten worker ${w.id} is dead but still tracked`);
      if (w.state === 'idle' && w.hasActiveLeg) out.push(`quickjs-emscripten worker ${w.id} is idle with an active leg`);
      if (w.state === 'parked' && !w.continuationId && !w.hasActiveLeg) out.push(`quickjs-emscripten worker ${w.id} is parked without a continuation`);
    }
    for (const { worker } of this.idle) if (!this.workers.has(worker.id)) out.push(`idle quickjs-emscripten worker ${worker.id} is not tracked`);
    return out;
  }

  poolStats(): NodePoolStats {
    let busy = 0;
    let parked = 0;
    for (const w of this.workers.values()) {
      if (w.state === 'parked') parked++;
      else if (w.state === 'busy' || w.state === 'starting') busy++;
    }
    return { idle: this.idle.length, busy, parked, ...this.counters };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const { timer } of this.idle) clearTimeout(timer);
    this.idle = [];
    const all = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(all.map((w) => w.terminate({ code: 'aborted', error: `${RUN_ABORTED_MESSAGE}: the quickjs-emscripten executor was closed` })));
  }

  private acquire(memoryLimitBytes: number): NodeWorker {
    // most recently used first: the one most likely still hot in the caches (the runtime's memory
    // limit is set per cell, so any idle worker serves any budget)
    const slot = this.idle.pop();
    if (slot) {
      clearTimeout(slot.timer);
      slot.worker.holdProcess(true);
      this.counters.reused++;
      return slot.worker;
    }
    const heapMb = Math.ceil((2 * CODE_MODE_LIMIT_BOUNDS.memoryLimitBytes.max) / (1024 * 1024)) + HOST_HEAP_HEADROOM_MB;
    const worker = new NodeWorker({
      id: this.nextWorkerId++,
      kind: this.kind,
      entry: this.entry,
      key: this.entry.href,
      memoryLimitBytes,
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 16 },
      workerData: this.workerData,
      graceMs: this.graceMs,
      startTimeoutMs: this.startTimeoutMs,
      heap: null,
      onDeath: (w) => {
        if (this.forget(w)) this.counters.retired++;
      },
    });
    this.workers.set(worker.id, worker);
    this.counters.spawned++;
    return worker;
  }

  private afterLeg(worker: NodeWorker, outcome: LegOutcome): void {
    if (!worker.alive) return;
    switch (outcome.kind) {
      case 'completed':
        return this.makeIdle(worker);
      case 'parked':
        worker.state = 'parked';
        worker.continuationId = outcome.continuation.executor === 'quickjs-emscripten' ? outcome.continuation.continuationId : undefined;
        return;
      case 'failed':
        // the guest's failures leave the worker sound (its runtime was disposed); a host fault, or a
        // failure the supervisor made while stopping the thread (watchdog, abort), does not
        if (worker.stopping) return this.retire(worker);
        return outcome.code === 'internal_error' || outcome.code === 'aborted' || outcome.code === 'runtime_unavailable' ? this.retire(worker) : this.makeIdle(worker);
    }
  }

  private makeIdle(worker: NodeWorker): void {
    if (this.closed || this.maxIdle === 0) {
      this.retire(worker);
      return;
    }
    worker.state = 'idle';
    worker.holdProcess(false);
    const timer = setTimeout(() => this.retire(worker), this.idleTtlMs);
    timer.unref();
    this.idle.push({ worker, timer });
    while (this.idle.length > this.maxIdle) this.retire(this.idle[0]!.worker);
  }

  private retire(worker: NodeWorker): void {
    if (this.forget(worker)) this.counters.retired++;
    void worker.terminate();
  }

  private forget(worker: NodeWorker): boolean {
    const i = this.idle.findIndex((s) => s.worker === worker);
    if (i >= 0) {
      clearTimeout(this.idle[i]!.timer);
      this.idle.splice(i, 1);
    }
    return this.workers.delete(worker.id);
  }
}
