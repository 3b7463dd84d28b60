// The worker pool of a live-continuation executor (node, quickjs-emscripten): one cell per worker, and a parked cell keeps its worker.
//
// Worker lifecycle (one leg at a time per worker, supervised by LiveWorker in live-worker.ts):
//   spawn -> busy --completed (or a failure the engine survives)--> idle (warm: at most maxIdleWorkers, each for idleWorkerTtlMs)
//                 --parked-----> parked (holds the cell's live context or runtime; `continue` legs go back to it)
//                 --failed, timed out, aborted, released--> retired (terminated)
// An idle worker serves a cell only under the same key (LiveWorkerSpec.keyFor: Node's heap limit is
// fixed at spawn, quickjs-emscripten's is set per cell). Memory pressure retires idle workers, never a
// parked one: a parked cell cannot leave its worker.
//
// Warm start: ready() spawns a worker for the budget it is given and puts it in the idle set before
// any cell, so the first cell costs what a warm one does (a worker's start, module load and first
// context are most of a cold cell: docs/decisions.md). From then on, a leg that ends leaving no idle
// worker for a warm budget (its worker parked or retired) starts one more in the background for the
// next cell. A ready worker is an idle worker like any other: the same cap, time to live and pressure.
//
// What differs per engine is a small spec (LiveWorkerSpec): its worker entry and options, its key, and
// whether a failed cell leaves the worker sound.
import { DEFAULT_CODE_MODE_OPTIONS } from '../config/schema.ts';
import { RUN_ABORTED_MESSAGE } from '../bridge/leg-control.mjs';
import type { Continuation, Executor, Leg, LegHandlers, LegOutcome, LiveContinuation, LiveExecutorKind, ResumeRequest, StartRequest } from './types.ts';
import { failedLeg } from './leg-messages.ts';
import type { HeapWatch } from './node/heap-watch.ts';
import { cannotStartMessage, LiveWorker } from './live-worker.ts';

/** Spec (Node runtime): "Node keeps up to four idle workers warm". quickjs-emscripten keeps the same. */
export const DEFAULT_MAX_IDLE_WORKERS = 4;
/** Spec (Node runtime): idle workers stay warm "for five minutes each". */
export const DEFAULT_IDLE_WORKER_TTL_MS = 5 * 60 * 1000;
/**
 * How long past its deadline a leg may run before the supervisor terminates its worker. The worker's
 * own limit stops a busy guest at the deadline; this only catches a worker stuck beyond it, and is
 * long enough not to race a slow but working park or reply parse under load.
 */
export const DEFAULT_SUPERVISOR_GRACE_MS = 1000;
/** A worker that has not reported ready by then will not: the executor is unavailable. */
export const DEFAULT_WORKER_START_TIMEOUT_MS = 10_000;

export interface LivePoolOptions {
  /** Idle workers kept warm; 0 closes each worker once its cell ends (and ready() keeps none). */
  maxIdleWorkers?: number;
  idleWorkerTtlMs?: number;
  supervisorGraceMs?: number;
  workerStartTimeoutMs?: number;
}

/** A failed leg's outcome. */
export type LegFailureOutcome = Extract<LegOutcome, { kind: 'failed' }>;

/** What one engine's workers need from the pool. */
export interface LiveWorkerSpec<K extends LiveExecutorKind> {
  readonly kind: K;
  readonly entry: URL;
  /** Idle workers serve a cell only under the same key (a worker's fixed options for this budget). */
  keyFor(memoryLimitBytes: number): string;
  /** A new worker's thread options for a cell with this budget; may throw (the cell fails with runtime_unavailable). */
  workerOptions(memoryLimitBytes: number): {
    resourceLimits: { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number };
    workerData: Record<string, unknown>;
    heap: HeapWatch | null;
  };
  /** Whether a worker whose cell failed this way (its guest's failure, not the supervisor's) may take another cell. */
  keepsWorkerAfter(failure: LegFailureOutcome): boolean;
  /** True under critical memory pressure (checked when a worker is taken or goes idle). */
  memoryPressure(): boolean;
  /** Called once the pool has closed (the executor lets go of what it holds: the steal guard, reply-spin.ts). */
  onClose?: () => void;
}

export interface LivePoolStats {
  idle: number;
  /** Idle workers that reported ready: a cell on one costs what a warm one does. */
  readyIdle: number;
  busy: number;
  parked: number;
  /** Workers started since the executor was created (ready workers included). */
  spawned: number;
  /** Cells that started on a warm (or ready) worker. */
  reused: number;
  /** Workers terminated or lost (failure, expiry, pressure, crash). */
  retired: number;
}

/** An idle worker and its expiry timer (a ready worker still starting has none yet). */
interface IdleSlot {
  worker: LiveWorker;
  timer?: ReturnType<typeof setTimeout>;
}

export class LiveWorkerPool<K extends LiveExecutorKind> implements Executor {
  readonly kind: K;
  /** A suspended cell is its live context or runtime: it cannot leave its worker, so pool pressure never moves it. */
  readonly pressureParking = false;
  private readonly maxIdle: number;
  private readonly idleTtlMs: number;
  private readonly graceMs: number;
  private readonly startTimeoutMs: number;
  private readonly workers = new Map<number, LiveWorker>();
  /** Idle workers, least recently used first. */
  private idle: IdleSlot[] = [];
  /** Budgets ready() was asked for, by key: the pool keeps a ready worker for each. */
  private readonly warmBudgets = new Map<string, number>();
  private nextWorkerId = 1;
  private counters = { spawned: 0, reused: 0, retired: 0 };
  private closed = false;

  constructor(
    private readonly spec: LiveWorkerSpec<K>,
    opts: LivePoolOptions = {},
  ) {
    this.kind = spec.kind;
    this.maxIdle = Math.max(0, opts.maxIdleWorkers ?? DEFAULT_MAX_IDLE_WORKERS);
    this.idleTtlMs = opts.idleWorkerTtlMs ?? DEFAULT_IDLE_WORKER_TTL_MS;
    this.graceMs = opts.supervisorGraceMs ?? DEFAULT_SUPERVISOR_GRACE_MS;
    this.startTimeoutMs = opts.workerStartTimeoutMs ?? DEFAULT_WORKER_START_TIMEOUT_MS;
  }

  start(req: StartRequest, handlers: LegHandlers): Leg {
    if (this.closed) return failedLeg('runtime_unavailable', `the ${this.kind} executor is closed; the gateway is shutting down`);
    let worker: LiveWorker;
    try {
      worker = this.acquire(req.limits.memoryLimitBytes);
    } catch (err) {
      return failedLeg('runtime_unavailable', cannotStartMessage(this.kind, (err as Error).message));
    }
    return worker.openLeg(
      handlers,
      req.budgetMs,
      (legId, control) => ({ t: 'start', legId, body: req.body, boot: req.boot, files: req.files, limits: req.limits, control }),
      (outcome) => this.afterLeg(worker, outcome),
    );
  }

  resume(continuation: Continuation, req: ResumeRequest, handlers: LegHandlers): Leg {
    const live = this.own(continuation);
    const worker = live ? this.workers.get(live.workerId) : undefined;
    if (!live || !worker || worker.state !== 'parked' || worker.continuationId !== live.continuationId) {
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
    const live = this.own(continuation);
    const worker = live ? this.workers.get(live.workerId) : undefined;
    // a continuation a resumed leg already took is not this worker's any more
    if (!live || !worker || worker.state !== 'parked' || worker.continuationId !== live.continuationId) return;
    // released means expired, aborted or shut down: the cell did not succeed, so its worker goes too
    // (and a quickjs-emscripten runtime's WASM memory with it)
    this.retire(worker);
  }

  /**
   * Start a worker for cells with this budget (default: the config's default memoryLimitBytes) and
   * resolve once it reported ready; it waits in the idle set for the first cell, and the pool keeps
   * one ready for this budget from now on. Rejects with the reason when the worker cannot start.
   */
  async ready(hint?: { memoryLimitBytes: number }): Promise<void> {
    if (this.closed || this.maxIdle === 0) return;
    const budget = hint?.memoryLimitBytes ?? DEFAULT_CODE_MODE_OPTIONS.memoryLimitBytes;
    const key = this.spec.keyFor(budget);
    this.warmBudgets.set(key, budget);
    let worker: LiveWorker | undefined;
    try {
      worker = this.idle.find((s) => s.worker.key === key)?.worker ?? this.startReadyWorker(key, budget);
      await worker.ready;
    } catch (err) {
      // retired on purpose before it was ready (closed, idle cap, pressure): not a start failure
      if (this.closed || worker?.stopping) return;
      throw new Error(cannotStartMessage(this.kind, (err as Error).message));
    }
  }

  stats(): { workers: number; activeLegs: number } {
    let activeLegs = 0;
    for (const w of this.workers.values()) if (w.hasActiveLeg) activeLegs++;
    return { workers: this.workers.size, activeLegs };
  }

  leaks(): string[] {
    const out: string[] = [];
    for (const w of this.workers.values()) {
      if (!w.alive) out.push(`${this.kind} worker ${w.id} is dead but still tracked`);
      if (w.state === 'idle' && w.hasActiveLeg) out.push(`${this.kind} worker ${w.id} is idle with an active leg`);
      if (w.state === 'parked' && !w.continuationId && !w.hasActiveLeg) out.push(`${this.kind} worker ${w.id} is parked without a continuation`);
    }
    for (const { worker } of this.idle) {
      if (!this.workers.has(worker.id)) out.push(`idle ${this.kind} worker ${worker.id} is not tracked`);
      if (worker.hasActiveLeg) out.push(`idle ${this.kind} worker ${worker.id} holds a leg`);
    }
    return out;
  }

  poolStats(): LivePoolStats {
    let busy = 0;
    let parked = 0;
    for (const w of this.workers.values()) {
      if (w.state === 'parked') parked++;
      // a ready worker still starting waits in the idle set without a leg
      else if (w.state === 'busy' || (w.state === 'starting' && w.hasActiveLeg)) busy++;
    }
    const readyIdle = this.idle.filter((s) => s.worker.state === 'idle').length;
    return { idle: this.idle.length, readyIdle, busy, parked, ...this.counters };
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
    try {
      await Promise.all(all.map((w) => w.terminate({ code: 'aborted', error: `${RUN_ABORTED_MESSAGE}: the ${this.kind} executor was closed` })));
    } finally {
      this.spec.onClose?.();
    }
  }

  // ---- worker lifecycle ------------------------------------------------------------------------

  /** The live continuation if it is one of this executor's. */
  private own(continuation: Continuation): LiveContinuation | undefined {
    return continuation.executor !== 'quickjs' && continuation.executor === this.kind ? continuation : undefined;
  }

  private acquire(memoryLimitBytes: number): LiveWorker {
    if (this.idle.length > 0 && this.spec.memoryPressure()) this.relieveMemoryPressure();
    const key = this.spec.keyFor(memoryLimitBytes);
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
    return this.spawn(key, memoryLimitBytes);
  }

  private spawn(key: string, memoryLimitBytes: number): LiveWorker {
    const worker = new LiveWorker({
      id: this.nextWorkerId++,
      kind: this.kind,
      entry: this.spec.entry,
      key,
      memoryLimitBytes,
      ...this.spec.workerOptions(memoryLimitBytes),
      graceMs: this.graceMs,
      startTimeoutMs: this.startTimeoutMs,
      onDeath: (w) => {
        if (this.forget(w)) this.counters.retired++;
      },
    });
    this.workers.set(worker.id, worker);
    this.counters.spawned++;
    return worker;
  }

  /**
   * A worker for the next cell, idle from the start. It holds the process until it reported ready (a
   * caller awaiting ready() must not see the process exit under it), then lets go like any idle worker.
   */
  private startReadyWorker(key: string, memoryLimitBytes: number): LiveWorker {
    const worker = this.spawn(key, memoryLimitBytes);
    // its idle time counts from ready: a slow start must not use up its time to live
    const slot: IdleSlot = { worker };
    this.addIdle(slot);
    worker.ready.then(
      () => {
        if (!this.idle.includes(slot)) return;
        worker.holdProcess(false);
        this.armIdleTtl(slot);
      },
      () => undefined,
    );
    return worker;
  }

  private afterLeg(worker: LiveWorker, outcome: LegOutcome): void {
    if (!worker.alive) return;
    switch (outcome.kind) {
      case 'completed':
        this.makeIdle(worker);
        break;
      case 'parked':
        worker.state = 'parked';
        // a live leg parks only with a live continuation (leg-messages.ts refuses any other kind)
        worker.continuationId = outcome.continuation.executor === this.kind ? (outcome.continuation as LiveContinuation).continuationId : undefined;
        break;
      case 'failed':
        // a failure the supervisor made while stopping the thread (watchdog, abort, memory) never leaves it sound
        if (worker.stopping || !this.spec.keepsWorkerAfter(outcome)) this.retire(worker);
        else this.makeIdle(worker);
        break;
    }
    this.keepWarm();
  }

  /** For every warm budget without an idle worker, start one (within the idle cap, never under pressure). */
  private keepWarm(): void {
    if (this.closed) return;
    for (const [key, budget] of this.warmBudgets) {
      if (this.idle.length >= this.maxIdle || this.spec.memoryPressure()) return;
      if (this.idle.some((s) => s.worker.key === key)) continue;
      try {
        this.startReadyWorker(key, budget);
      } catch {
        // a worker that cannot start now: the next cell reports why (runtime_unavailable)
        return;
      }
    }
  }

  private makeIdle(worker: LiveWorker): void {
    if (this.closed || this.maxIdle === 0 || this.spec.memoryPressure()) {
      this.retire(worker);
      return;
    }
    worker.state = 'idle';
    worker.holdProcess(false);
    const slot: IdleSlot = { worker };
    this.armIdleTtl(slot);
    this.addIdle(slot);
  }

  private addIdle(slot: IdleSlot): void {
    this.idle.push(slot);
    while (this.idle.length > this.maxIdle) this.retire(this.idle[0]!.worker);
  }

  private armIdleTtl(slot: IdleSlot): void {
    slot.timer = setTimeout(() => this.retire(slot.worker), this.idleTtlMs);
    slot.timer.unref();
  }

  private retire(worker: LiveWorker): void {
    if (this.forget(worker)) this.counters.retired++;
    void worker.terminate();
  }

  /** Stop tracking a worker; false when it was already gone. */
  private forget(worker: LiveWorker): boolean {
    const i = this.idle.findIndex((s) => s.worker === worker);
    if (i >= 0) {
      clearTimeout(this.idle[i]!.timer);
      this.idle.splice(i, 1);
    }
    return this.workers.delete(worker.id);
  }
}
