// The Node executor: each cell in a fresh node:vm context inside a worker thread; a waiting run keeps its live worker.
//
// Worker lifecycle (one cell per worker at a time, see node-worker.ts):
//   spawn -> busy --completed--> idle (warm: at most maxIdleWorkers, each for idleWorkerTtlMs)
//                 --parked-----> parked (holds the cell's live context; `continue` legs go back to it)
//                 --failed, timed out, aborted, released--> retired (terminated)
// A warm worker is reused only for the same runtime entry and heap limit (the worker's
// resourceLimits are fixed at spawn, so the warm set is keyed by memoryLimitBytes). Memory
// pressure retires idle workers, never a parked one. Nothing here loads the QuickJS WASM runtime.
//
// Trusted execution, not a security boundary (spec: security boundary).
import { freemem, totalmem } from 'node:os';
import { CODE_MODE_LIMIT_BOUNDS } from '../../config/schema.ts';
import { RUN_ABORTED_MESSAGE } from '../../bridge/leg-control.mjs';
import type { Continuation, Executor, Leg, LegHandlers, LegOutcome, ResumeRequest, StartRequest } from '../types.ts';
import { HEAP_HEADROOM_MB, heapWatch, type HeapWatch } from './heap-watch.ts';
import { failedLeg } from '../leg-messages.ts';
import { NodeWorker } from './node-worker.ts';

/** Spec (Node runtime): "Node keeps up to four idle workers warm". */
export const DEFAULT_MAX_IDLE_WORKERS = 4;
/** Spec (Node runtime): idle workers stay warm "for five minutes each". */
export const DEFAULT_IDLE_WORKER_TTL_MS = 5 * 60 * 1000;
/**
 * How long past its deadline a leg may run before the supervisor terminates its worker. The worker's
 * own vm timeout stops a busy guest at the deadline; this only catches a worker stuck beyond V8's
 * watchdog, and is long enough not to race a slow but working park or reply parse under load.
 */
export const DEFAULT_SUPERVISOR_GRACE_MS = 1000;
/** A worker that has not reported ready by then will not: the executor is unavailable. */
export const DEFAULT_WORKER_START_TIMEOUT_MS = 10_000;
/**
 * V8 old-generation floor: a Node worker's own runtime takes about 5 MiB of heap before any cell, and
 * one with less than 8 MiB dies while starting (measured on Node 20). memoryLimitBytes below this is
 * raised to it ("subject to engine minimums").
 */
export const MIN_OLD_GENERATION_MB = 8;
/** Young-generation share bounds: 1 MiB is V8's smallest; past 16 MiB a larger nursery buys nothing here. */
export const MIN_YOUNG_GENERATION_MB = 1;
export const MAX_YOUNG_GENERATION_MB = 16;
/** Critical memory pressure: less than this share of memory left (cgroup limit when known, else the machine's). */
export const CRITICAL_FREE_MEMORY_FRACTION = 0.05;

export interface NodeExecutorOptions {
  /** Idle workers kept warm after a successful cell; 0 closes each completed worker at once (no host). */
  maxIdleWorkers?: number;
  idleWorkerTtlMs?: number;
  supervisorGraceMs?: number;
  workerStartTimeoutMs?: number;
  /** The worker runtime entry; warm workers are reused only for the same entry. */
  entry?: URL;
  /** True under critical memory pressure (checked when a worker is taken or goes idle). */
  memoryPressure?: () => boolean;
  /** Guest code evaluated before the prelude in every context (tests: a cell with the raw host primitive). */
  preludePrefix?: string;
  /**
   * What enforces memoryLimitBytes while a cell runs (default: the process's heap watch). null: the
   * worker's own V8 heap limit, as tight as the budget; a large allocation near it can then abort the
   * whole process (heap-watch.ts says why), so null is only for a process without an inspector.
   */
  heapWatch?: HeapWatch | null;
}

export interface NodePoolStats {
  idle: number;
  busy: number;
  parked: number;
  /** Workers started since the executor was created. */
  spawned: number;
  /** Cells that started on a warm worker. */
  reused: number;
  /** Workers terminated or lost (failure, expiry, pressure, crash). */
  retired: number;
}

/**
 * Worker resourceLimits for a heap budget: old plus young generation, with V8's floors, plus
 * `headroomMb` of old generation when something else (the heap watch) enforces the budget itself.
 */
export function resourceLimitsFor(memoryLimitBytes: number, headroomMb = 0): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  const totalMb = Math.max(1, Math.ceil(memoryLimitBytes / (1024 * 1024)));
  const youngMb = Math.min(MAX_YOUNG_GENERATION_MB, Math.max(MIN_YOUNG_GENERATION_MB, Math.floor(totalMb / 8)));
  return { maxOldGenerationSizeMb: Math.max(MIN_OLD_GENERATION_MB, totalMb - youngMb) + headroomMb, maxYoungGenerationSizeMb: youngMb };
}

/** Default pressure probe: the process's cgroup budget when Node knows it, else free system memory. */
export function criticalMemoryPressure(): boolean {
  const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : undefined;
  if (constrained && constrained > 0 && constrained < totalmem()) {
    return process.memoryUsage.rss() > constrained * (1 - CRITICAL_FREE_MEMORY_FRACTION);
  }
  return freemem() < totalmem() * CRITICAL_FREE_MEMORY_FRACTION;
}

export class NodeExecutor implements Executor {
  readonly kind = 'node' as const;
  /** A suspended Node cell is its live context: it cannot leave its worker, so pool pressure never moves it. */
  readonly pressureParking = false;
  private readonly entry: URL;
  private readonly maxIdle: number;
  private readonly idleTtlMs: number;
  private readonly graceMs: number;
  private readonly startTimeoutMs: number;
  private readonly pressure: () => boolean;
  private readonly preludePrefix: string | undefined;
  /** undefined until the first worker: a process that never runs a Node cell never attaches the inspector. */
  private heap: HeapWatch | null | undefined;
  private readonly workers = new Map<number, NodeWorker>();
  /** Idle workers, least recently used first, with their expiry timers. */
  private idle: Array<{ worker: NodeWorker; timer: ReturnType<typeof setTimeout> }> = [];
  private nextWorkerId = 1;
  private counters = { spawned: 0, reused: 0, retired: 0 };
  private closed = false;

  constructor(opts: NodeExecutorOptions = {}) {
    this.entry = opts.entry ?? new URL('./worker.mjs', import.meta.url);
    this.maxIdle = Math.max(0, opts.maxIdleWorkers ?? DEFAULT_MAX_IDLE_WORKERS);
    this.idleTtlMs = opts.idleWorkerTtlMs ?? DEFAULT_IDLE_WORKER_TTL_MS;
    this.graceMs = opts.supervisorGraceMs ?? DEFAULT_SUPERVISOR_GRACE_MS;
    this.startTimeoutMs = opts.workerStartTimeoutMs ?? DEFAULT_WORKER_START_TIMEOUT_MS;
    this.pressure = opts.memoryPressure ?? criticalMemoryPressure;
    this.preludePrefix = opts.preludePrefix;
    this.heap = opts.heapWatch;
  }

  start(req: StartRequest, handlers: LegHandlers): Leg {
    if (this.closed) return failedLeg('runtime_unavailable', 'the node executor is closed; the gateway is shutting down');
    let worker: NodeWorker;
    try {
      worker = this.acquire(req.limits.memoryLimitBytes);
    } catch (err) {
      return failedLeg('runtime_unavailable', `the node executor cannot start a worker: ${(err as Error).message}. Check the gateway log, or select the quickjs executor.`);
    }
    return worker.openLeg(
      handlers,
      req.budgetMs,
      (legId, control) => ({ t: 'start', legId, body: req.body, boot: req.boot, files: req.files, limits: req.limits, control }),
      (outcome) => this.afterLeg(worker, outcome),
    );
  }

  resume(continuation: Continuation, req: ResumeRequest, handlers: LegHandlers): Leg {
    const id = continuation.executor === 'node' ? continuation.continuationId : undefined;
    const worker = continuation.executor === 'node' ? this.workers.get(continuation.workerId) : undefined;
    if (!id || !worker || worker.state !== 'parked' || worker.continuationId !== id) {
      return failedLeg('invalid_input', 'code mode run is unavailable or expired.');
    }
    // the live context now belongs to this leg; a later park hands out a new continuation id
    worker.continuationId = undefined;
    return worker.openLeg(
      handlers,
      req.budgetMs,
      (legId, control) => ({
        t: 'continue',
        legId,
        continuationId: id,
        limits: req.limits,
        control,
        files: req.files,
        inFlight: req.inFlight,
        settled: continuation.settled,
      }),
      (outcome) => this.afterLeg(worker, outcome),
    );
  }

  release(continuation: Continuation): void {
    if (continuation.executor !== 'node') return;
    const worker = this.workers.get(continuation.workerId);
    // a continuation a resumed leg already took is not this worker's any more
    if (!worker || worker.state !== 'parked' || worker.continuationId !== continuation.continuationId) return;
    // released means expired, aborted or shut down: the cell did not succeed, so its worker goes too
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
      if (!w.alive) out.push(`node worker ${w.id} is dead but still tracked`);
      if (w.state === 'idle' && w.hasActiveLeg) out.push(`node worker ${w.id} is idle with an active leg`);
      if (w.state === 'parked' && !w.continuationId && !w.hasActiveLeg) out.push(`node worker ${w.id} is parked without a continuation`);
    }
    for (const { worker } of this.idle) if (!this.workers.has(worker.id)) out.push(`idle node worker ${worker.id} is not tracked`);
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

  /** Retire every idle worker (critical memory pressure); parked workers keep their continuations. */
  relieveMemoryPressure(): number {
    const n = this.idle.length;
    for (const { worker } of [...this.idle]) this.retire(worker);
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const { timer } of this.idle) clearTimeout(timer);
    this.idle = [];
    const all = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(all.map((w) => w.terminate({ code: 'aborted', error: `${RUN_ABORTED_MESSAGE}: the node executor was closed` })));
  }

  // ---- worker lifecycle ------------------------------------------------------------------------

  private keyFor(memoryLimitBytes: number): string {
    return `${this.entry.href}#${memoryLimitBytes}`;
  }

  private acquire(memoryLimitBytes: number): NodeWorker {
    if (this.idle.length > 0 && this.pressure()) this.relieveMemoryPressure();
    const key = this.keyFor(memoryLimitBytes);
    // most recently used first: it is the one most likely still hot in the caches
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const slot = this.idle[i]!;
      if (slot.worker.key !== key || !slot.worker.alive) continue;
      this.idle.splice(i, 1);
      clearTimeout(slot.timer);
      slot.worker.holdProcess(true);
      this.counters.reused++;
      return slot.worker;
    }
    if (this.heap === undefined) this.heap = heapWatch();
    const heap = this.heap;
    const worker = new NodeWorker({
      id: this.nextWorkerId++,
      entry: this.entry,
      key,
      memoryLimitBytes,
      resourceLimits: resourceLimitsFor(memoryLimitBytes, heap ? HEAP_HEADROOM_MB : 0),
      workerData: { maxSliceMs: CODE_MODE_LIMIT_BOUNDS.timeoutMs.max, ...(this.preludePrefix !== undefined ? { preludePrefix: this.preludePrefix } : {}) },
      graceMs: this.graceMs,
      startTimeoutMs: this.startTimeoutMs,
      heap,
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
        // a node leg parks only with a live context (leg-messages.ts refuses any other kind)
        worker.continuationId = outcome.continuation.executor === 'node' ? outcome.continuation.continuationId : undefined;
        return;
      case 'failed':
        return this.retire(worker);
    }
  }

  private makeIdle(worker: NodeWorker): void {
    if (this.closed || this.maxIdle === 0 || this.pressure()) {
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

  /** Stop tracking a worker; false when it was already gone. */
  private forget(worker: NodeWorker): boolean {
    const i = this.idle.findIndex((s) => s.worker === worker);
    if (i >= 0) {
      clearTimeout(this.idle[i]!.timer);
      this.idle.splice(i, 1);
    }
    return this.workers.delete(worker.id);
  }
}
