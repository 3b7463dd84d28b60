// The QuickJS executor's worker supervision: an elastic pool of worker threads running one worker
// entry, many legs per worker routed by id, crash isolation (a dead worker fails its legs with
// internal_error and is replaced), and a check of every worker message before the host reads it.
// (The Node executor supervises one leg per worker itself: node/node-worker.ts.)
//
// The guest never runs on the Gateway's event loop. Each leg carries a SharedArrayBuffer control
// block (deadline, abort flag) the worker's interrupt handler reads, so the host can stop a guest
// that never yields. Each worker also publishes since when its guest has been computing: a worker
// whose guest has run longer than BUSY_AFTER_MS is taken, and when every worker is taken the pool
// starts an extra one (up to maxExtraWorkers), so CPU-bound cells cannot starve other cells. Extra
// workers retire once they have been empty for EXTRA_WORKER_IDLE_MS.
import { Worker } from 'node:worker_threads';
import type { ExecutorKind } from '../../config/types.ts';
import type { HostToWorker } from '../../bridge/protocol.ts';
import { RUN_ABORTED_MESSAGE } from '../../bridge/leg-control.mjs';
import type { Leg, LegHandlers, LegOutcome } from '../types.ts';
import { failedLeg, handleLegMessage, legControl, legHandle, legSender, malformedOutcome, routeWorkerMessage } from '../leg-messages.ts';

/**
 * A guest that has computed this long without yielding holds its worker thread: new cells go
 * elsewhere. Booting a cell takes 1-10 ms (up to ~35 ms with 64 cells starting at once on two
 * cores); a bound above that keeps bursts of short cells from spawning workers.
 */
export const BUSY_AFTER_MS = 50;
/**
 * Extra workers beyond the base size while every worker is taken. Each is a thread with its own V8
 * isolate (about 10 MiB) that takes a core only while its guest computes: four lets that many
 * CPU-bound cells run beside the base workers without starving a trivial one, and past that more
 * threads on a small machine only share the same cores thinner (each cell's budget still ends it).
 */
export const DEFAULT_MAX_EXTRA_WORKERS = 4;
/** An extra worker with no legs for this long is retired: long enough to serve a burst, short enough to give the memory back. */
export const EXTRA_WORKER_IDLE_MS = 10_000;

interface PoolWorker {
  id: number;
  worker: Worker;
  ready: Promise<void>;
  legs: Map<string, LegState>;
  dead: boolean;
  /** Reported ready (module instantiated, one VM warmed). */
  warm: boolean;
  /** Started because every worker was taken; retires when idle. */
  extra: boolean;
  /** [0]: epoch ms since the worker's guest has been computing, 0 while it waits (written by the worker). */
  busySince: Float64Array;
  idleTimer?: ReturnType<typeof setTimeout>;
}

interface LegState {
  id: string;
  worker: PoolWorker;
  handlers: LegHandlers;
  resolve: (o: LegOutcome) => void;
  ended: boolean;
}

export interface PoolOptions {
  kind: ExecutorKind;
  entry: URL;
  size: number;
  maxExtraWorkers?: number;
  /** Default EXTRA_WORKER_IDLE_MS. */
  extraWorkerIdleMs?: number;
  workerData?: Record<string, unknown>;
}

export interface PoolStats {
  workers: number;
  /** Workers that reported ready: a cell on them costs what a warm one does. */
  readyWorkers: number;
  extraWorkers: number;
  activeLegs: number;
  /** Workers started since the pool was created (base, replacements and extras). */
  spawned: number;
}

let legCounter = 0;

export class WorkerPool {
  private workers: PoolWorker[] = [];
  private nextWorkerId = 1;
  private closed = false;
  private readonly maxExtra: number;
  private readonly extraIdleMs: number;
  private spawned = 0;

  constructor(private readonly opts: PoolOptions) {
    this.maxExtra = Math.max(0, opts.maxExtraWorkers ?? DEFAULT_MAX_EXTRA_WORKERS);
    this.extraIdleMs = opts.extraWorkerIdleMs ?? EXTRA_WORKER_IDLE_MS;
    for (let i = 0; i < opts.size; i++) this.workers.push(this.spawn(false));
  }

  get size(): number {
    return this.workers.length;
  }

  activeLegs(): number {
    return this.workers.reduce((n, w) => n + w.legs.size, 0);
  }

  stats(): PoolStats {
    return {
      workers: this.workers.length,
      readyWorkers: this.workers.filter((w) => w.warm && !w.dead).length,
      extraWorkers: this.workers.filter((w) => w.extra).length,
      activeLegs: this.activeLegs(),
      spawned: this.spawned,
    };
  }

  /** Workers whose guest has been computing for longer than BUSY_AFTER_MS (taken for new cells). */
  computingWorkers(): number {
    const now = Date.now();
    return this.workers.filter((w) => !w.dead && this.taken(w, now)).length;
  }

  /** Wait until every worker has warmed up (the Gateway awaits it at start; tests and the benchmark too). */
  async ready(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.ready));
  }

  /** Broken invariants: legs on dead workers, ended legs still tracked, dead workers still listed. */
  leaks(): string[] {
    const out: string[] = [];
    for (const w of this.workers) {
      if (w.dead && !this.closed) out.push(`worker ${w.id} is dead but still in the pool`);
      for (const leg of w.legs.values()) {
        if (leg.ended) out.push(`leg ${leg.id} ended but is still tracked by worker ${w.id}`);
        if (w.dead) out.push(`leg ${leg.id} is held by dead worker ${w.id}`);
      }
    }
    return out;
  }

  private spawn(extra: boolean): PoolWorker {
    const busySince = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT));
    const worker = new Worker(this.opts.entry, {
      workerData: { ...this.opts.workerData, busySince: busySince.buffer },
      // the entry is plain JavaScript: skip the parent's loaders (tsx, Vitest), which slow every start
      execArgv: ['--no-warnings'],
      stdout: false,
      stderr: false,
    });
    this.spawned++;
    let markReady!: () => void;
    let markFailed!: (e: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => undefined);
    const pw: PoolWorker = { id: this.nextWorkerId++, worker, ready, legs: new Map(), dead: false, warm: false, extra, busySince };
    // an idle extra must not keep a finished host process (a CLI command) alive
    if (extra) worker.unref();
    worker.on('message', (raw: unknown) => {
      const routed = routeWorkerMessage(raw);
      if (routed.kind === 'ready') {
        pw.warm = true;
        return markReady();
      }
      this.onMessage(pw, routed);
    });
    const onDeath = (reason: string) => {
      if (pw.dead) return;
      pw.dead = true;
      if (pw.idleTimer) clearTimeout(pw.idleTimer);
      markFailed(new Error(reason));
      for (const leg of [...pw.legs.values()]) {
        this.finish(leg, {
          kind: 'failed',
          code: 'internal_error',
          error: `the ${this.opts.kind} executor worker stopped (${reason}); the run was released. Run the cell again.`,
          droppedBytes: 0,
        });
      }
      pw.legs.clear();
      const idx = this.workers.indexOf(pw);
      if (idx < 0) return;
      // a base worker is replaced; an extra one is simply gone
      if (!this.closed && !pw.extra) this.workers[idx] = this.spawn(false);
      else this.workers.splice(idx, 1);
    };
    worker.on('error', (err) => onDeath(err.message));
    worker.on('exit', (code) => onDeath(`exit code ${code}`));
    return pw;
  }

  private onMessage(pw: PoolWorker, routed: ReturnType<typeof routeWorkerMessage>): void {
    // a message naming no leg, or a leg this worker does not run (ended, aborted, or never its own): dropped
    if (routed.kind === 'ready' || routed.kind === 'stray') return;
    const leg = pw.legs.get(routed.legId);
    if (!leg || leg.ended) return;
    if (routed.kind === 'malformed') {
      this.finish(leg, malformedOutcome(routed.error));
      return;
    }
    const outcome = handleLegMessage(routed.msg, leg.handlers, this.opts.kind, pw.id);
    if (outcome) this.finish(leg, outcome);
  }

  private finish(leg: LegState, outcome: LegOutcome): void {
    if (leg.ended) return;
    leg.ended = true;
    const pw = leg.worker;
    pw.legs.delete(leg.id);
    if (pw.extra && pw.legs.size === 0 && !pw.dead && !this.closed) {
      pw.idleTimer = setTimeout(() => void this.retireExtra(pw), this.extraIdleMs);
      pw.idleTimer.unref();
    }
    if (pw.extra && pw.legs.size === 0) pw.worker.unref();
    leg.resolve(outcome);
  }

  private async retireExtra(pw: PoolWorker): Promise<void> {
    if (pw.legs.size > 0 || pw.dead) return;
    // out of the pool before it stops: until its 'exit', pick() would still hand this idle worker a cell
    const idx = this.workers.indexOf(pw);
    if (idx >= 0) this.workers.splice(idx, 1);
    await pw.worker.terminate();
  }

  private taken(w: PoolWorker, now: number): boolean {
    const since = w.busySince[0] ?? 0;
    return since > 0 && now - since > BUSY_AFTER_MS;
  }

  /** A worker whose guest is not computing, with the fewest legs; an extra one when every worker is taken. */
  private pick(): PoolWorker | undefined {
    const now = Date.now();
    let best: PoolWorker | undefined;
    let fallback: PoolWorker | undefined;
    for (const w of this.workers) {
      if (w.dead) continue;
      if (!fallback || w.legs.size < fallback.legs.size) fallback = w;
      if (this.taken(w, now)) continue;
      if (!best || w.legs.size < best.legs.size) best = w;
    }
    if (best) return best;
    if (this.workers.filter((w) => w.extra).length >= this.maxExtra) return fallback;
    const extra = this.spawn(true);
    this.workers.push(extra);
    return extra;
  }

  /**
   * Open a leg on a worker and send its first message (built from the leg id and control buffer). The
   * guest gets `budgetMs` from when the worker reports its VM ready.
   */
  openLeg(handlers: LegHandlers, budgetMs: number, first: (legId: string, control: SharedArrayBuffer) => HostToWorker, transfer: ArrayBuffer[] = []): Leg {
    const legId = `leg${++legCounter}`;
    const { sab, control } = legControl(budgetMs);
    const pw = this.closed ? undefined : this.pick();
    if (!pw) return failedLeg('runtime_unavailable', `the ${this.opts.kind} executor is not running; check the gateway log`);
    let resolve!: (o: LegOutcome) => void;
    const done = new Promise<LegOutcome>((r) => (resolve = r));
    if (pw.idleTimer) clearTimeout(pw.idleTimer);
    pw.idleTimer = undefined;
    if (pw.extra) pw.worker.ref();
    const state: LegState = { id: legId, worker: pw, handlers, resolve, ended: false };
    pw.legs.set(legId, state);
    const send = legSender({
      ready: pw.ready,
      post: (msg, tr) => pw.worker.postMessage(msg, tr ?? []),
      gone: () => state.ended || pw.dead,
      first: () => first(legId, sab),
      transfer,
    });
    return legHandle({
      legId,
      done,
      control,
      send,
      abort: () => {
        if (state.ended) return;
        send({ t: 'release', legId });
        // a worker busy in guest code sees the abort flag at its next interrupt check
        this.finish(state, { kind: 'failed', code: 'aborted', error: RUN_ABORTED_MESSAGE, droppedBytes: 0 });
      },
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.workers) if (w.idleTimer) clearTimeout(w.idleTimer);
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
    this.workers = [];
  }
}
