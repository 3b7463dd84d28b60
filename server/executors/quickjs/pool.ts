// The QuickJS executor's worker supervision: an elastic pool of worker threads running one worker entry,
// many legs per worker routed by id, crash isolation (a dead worker fails its legs with internal_error and
// is replaced), and a check of every worker message before the host reads it. (The live executors, Node
// and quickjs-emscripten, share ../live-pool.ts.) The guest never runs on the Gateway's event loop. Each
// leg carries a SharedArrayBuffer control block (deadline, abort flag) the worker's interrupt handler
// reads, so the host can stop a guest that never yields. Each worker also publishes since when its guest
// has been computing: a worker whose guest has run longer than BUSY_AFTER_MS is taken, and when every
// worker is taken (or full, below) the pool starts an extra one (up to maxExtraWorkers), so CPU-bound
// cells cannot starve other cells. Extra workers retire once they have been empty for EXTRA_WORKER_IDLE_MS.
//
// Pool pressure (spec 01: "worker-pool pressure checkpoints it"): a worker holds at most
// maxLiveVmsPerWorker live VMs. A leg that finds no worker with a free place, at the extra-worker cap,
// is queued, and a full worker whose guest is not computing is asked to checkpoint one VM that only
// waits on the host (the least recently active: pressure.ts chooses, this pool asks). The snapshot stays
// in the leg (pool-leg.ts, its `checkpointed` phase); a reply queues it again and it resumes on any worker
// within the same exec/wait call, its requests untouched. A VM whose snapshot is over maxSnapshotBytes is
// not moved (the worker declines); when no VM can ever move, the queued leg goes to the worker with the
// fewest VMs, so a queue never stalls. While guests compute, queued legs wait in the pool for the first
// worker that frees (not behind one thread). This pool decides every move of a leg; the leg records it.
import type { ExecutorKind } from '../../config/types.ts';
import type { HostToWorker } from '../../bridge/protocol.ts';
import { CONTROL_ABORT, CONTROL_DEADLINE, RUN_ABORTED_MESSAGE } from '../../bridge/leg-control.mjs';
import type { Leg, LegHandlers, LegOutcome } from '../types.ts';
import { failedLeg, handleLegMessage, legControl, malformedOutcome, type RoutedMessage } from '../leg-messages.ts';
import { startPoolWorker, type PoolWorker } from './pool-worker.ts';
import { PoolLeg } from './pool-leg.ts';
import { pressureStep } from './pressure.ts';

/**
 * A guest that has computed this long without yielding holds its worker thread: new cells go
 * elsewhere. Booting a cell takes 1-10 ms (up to ~35 ms with 64 cells starting at once on two
 * cores); a bound above that keeps bursts of short cells from spawning workers.
 */
export const BUSY_AFTER_MS = 50;
/**
 * Extra workers beyond the base size while every worker is taken or full. Each is a thread with its own V8
 * isolate (about 10 MiB) that takes a core only while its guest computes: four lets that many
 * CPU-bound cells run beside the base workers without starving a trivial one, and past that more
 * threads on a small machine only share the same cores thinner (each cell's budget still ends it).
 */
export const DEFAULT_MAX_EXTRA_WORKERS = 4;
/** An extra worker with no legs for this long is retired: long enough to serve a burst, short enough to give the memory back. */
export const EXTRA_WORKER_IDLE_MS = 10_000;
/**
 * Live VMs one worker holds before a new cell makes the pool start an extra worker or, past the cap,
 * checkpoint a waiting VM (pool pressure). Each live VM keeps its WASM memory (1.4 MiB for a trivial
 * cell, up to memoryLimitBytes) where its snapshot stores about 160 KiB; 32 per worker lets the
 * suspended-run cap (64) stay live on two workers, so pressure parking is the exception, not the path.
 */
export const DEFAULT_MAX_LIVE_VMS_PER_WORKER = 32;

export interface PoolOptions {
  kind: ExecutorKind;
  entry: URL;
  size: number;
  maxExtraWorkers?: number;
  /** Default EXTRA_WORKER_IDLE_MS. */
  extraWorkerIdleMs?: number;
  /** Default DEFAULT_MAX_LIVE_VMS_PER_WORKER; Infinity turns pressure parking off. */
  maxLiveVmsPerWorker?: number;
  workerData?: Record<string, unknown>;
  /** How long the host polls a worker's leg port after replying while one leg runs, the two taking turns (ms; host-poll.ts; 0: never). */
  hostPollMs?: number;
  /** Sent to every worker once it settles (pool-worker.ts `init`): the QuickJS base image. */
  workerInit?: Promise<Record<string, unknown>>;
}

export interface PoolStats {
  workers: number;
  /** Workers that reported ready, and of those the ones whose warm-up cells completed (worker.mjs). */
  readyWorkers: number;
  warmedUpWorkers: number;
  extraWorkers: number;
  activeLegs: number;
  /** Workers started since the pool was created (base, replacements and extras). */
  spawned: number;
  /** Legs waiting for a worker place (pool pressure), and legs whose VM is checkpointed off any worker. */
  queuedLegs: number;
  pressureParkedLegs: number;
  /** Pressure checkpoints taken since the pool was created. */
  pressureParks: number;
}

let legCounter = 0;

export class WorkerPool {
  private workers: PoolWorker[] = [];
  private nextWorkerId = 1;
  private closed = false;
  private readonly maxExtra: number;
  private readonly extraIdleMs: number;
  private readonly maxLiveVms: number;
  private spawned = 0;
  /** Legs waiting for a worker place, oldest first (phase queued). */
  private queue: PoolLeg[] = [];
  /** Legs checkpointed by pressure and not yet queued again (phase checkpointed). */
  private readonly parkedByPressure = new Set<PoolLeg>();
  private pressureParks = 0;
  private pumping = false;
  private repump?: ReturnType<typeof setTimeout>;

  constructor(private readonly opts: PoolOptions) {
    this.maxExtra = Math.max(0, opts.maxExtraWorkers ?? DEFAULT_MAX_EXTRA_WORKERS);
    this.extraIdleMs = opts.extraWorkerIdleMs ?? EXTRA_WORKER_IDLE_MS;
    this.maxLiveVms = Math.max(1, opts.maxLiveVmsPerWorker ?? DEFAULT_MAX_LIVE_VMS_PER_WORKER);
    for (let i = 0; i < opts.size; i++) this.workers.push(this.spawn(false));
  }

  get size(): number {
    return this.workers.length;
  }

  activeLegs(): number {
    return this.workers.reduce((n, w) => n + w.legs.size, 0) + this.queue.length + this.parkedByPressure.size;
  }

  stats(): PoolStats {
    return {
      workers: this.workers.length,
      readyWorkers: this.workers.filter((w) => w.warm && !w.dead).length,
      warmedUpWorkers: this.workers.filter((w) => w.warmedUp && !w.dead).length,
      extraWorkers: this.workers.filter((w) => w.extra).length,
      activeLegs: this.activeLegs(),
      spawned: this.spawned,
      queuedLegs: this.queue.length,
      pressureParkedLegs: this.parkedByPressure.size,
      pressureParks: this.pressureParks,
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
    for (const leg of [...this.queue, ...this.parkedByPressure]) if (leg.ended) out.push(`leg ${leg.id} ended but is still queued or pressure-parked`);
    return out;
  }

  private spawn(extra: boolean): PoolWorker {
    this.spawned++;
    const pw: PoolWorker = startPoolWorker({
      id: this.nextWorkerId++,
      entry: this.opts.entry,
      workerData: this.opts.workerData,
      ...(this.opts.workerInit ? { init: this.opts.workerInit } : {}),
      extra,
      onMessage: (routed) => this.onMessage(pw, routed),
      onDeath: (reason) => this.onDeath(pw, reason),
      hostPoll: { windowMs: this.opts.hostPollMs ?? 0, eligible: () => this.activeLegs() === 1 },
    });
    return pw;
  }

  /** A worker stopped: a base worker is replaced (an extra one is simply gone), and its legs fail. */
  private onDeath(pw: PoolWorker, reason: string): void {
    const idx = this.workers.indexOf(pw);
    if (idx >= 0 && !this.closed && !pw.extra) this.workers[idx] = this.spawn(false);
    else if (idx >= 0) this.workers.splice(idx, 1);
    for (const leg of [...pw.legs.values()]) {
      this.finish(leg, {
        kind: 'failed',
        code: 'internal_error',
        error: `the ${this.opts.kind} executor worker stopped (${reason}); the run was released. Run the cell again.`,
        droppedBytes: 0,
      });
    }
    pw.legs.clear();
  }

  private onMessage(pw: PoolWorker, routed: RoutedMessage): void {
    // a message naming no leg, or a leg this worker does not run (ended, aborted, moved, or never its own): dropped
    if (routed.kind === 'ready' || routed.kind === 'stray') return;
    const leg = pw.legs.get(routed.legId);
    if (!leg || leg.ended) return;
    if (routed.kind === 'malformed') {
      this.finish(leg, malformedOutcome(routed.error));
      return;
    }
    const effect = leg.onMessage(routed.msg);
    if (effect === 'route') {
      const outcome = handleLegMessage(routed.msg, leg.handlers, this.opts.kind, pw.id);
      if (outcome) this.finish(leg, outcome);
      // a VM that just sent requests may now only wait on the host: a queued leg can have its place
      else if (this.queue.length > 0) this.pump();
    } else if (effect === 'declined') {
      // it stays: what waited for its answer goes now
      leg.flush();
      this.pump();
    } else if (effect !== 'handled') {
      if ('malformed' in effect) return this.finish(leg, malformedOutcome(effect.malformed));
      this.checkpointed(pw, leg, effect.checkpointed);
    }
  }

  /** Pressure moved the leg's VM off `pw`: resumed at once when replies wait, parked when the run asked, else held for a reply. */
  private checkpointed(pw: PoolWorker, leg: PoolLeg, next: 'reopen' | 'parked' | 'idle'): void {
    pw.legs.delete(leg.id);
    this.left(pw);
    this.pressureParks++;
    if (next === 'reopen') this.requeue(leg);
    else if (next === 'parked') this.finish(leg, leg.parkedOutcome());
    else this.parkedByPressure.add(leg);
    this.pump();
  }

  private finish(leg: PoolLeg, outcome: LegOutcome): void {
    if (leg.ended) return;
    this.parkedByPressure.delete(leg);
    this.queue = this.queue.filter((l) => l !== leg);
    const pw = leg.finish(outcome);
    if (pw) {
      pw.legs.delete(leg.id);
      this.left(pw);
    }
    this.pump();
  }

  /** A leg left `pw` (ended or moved): an extra worker with none left starts its idle clock. */
  private left(pw: PoolWorker): void {
    if (!pw.extra || pw.legs.size > 0) return;
    if (!pw.dead && !this.closed) {
      pw.idleTimer = setTimeout(() => void this.retireExtra(pw), this.extraIdleMs);
      pw.idleTimer.unref();
    }
    pw.worker.unref();
  }

  private async retireExtra(pw: PoolWorker): Promise<void> {
    if (pw.legs.size > 0 || pw.dead) return;
    // out of the pool before it stops: until its 'exit', a placement would still hand this idle worker a cell
    const idx = this.workers.indexOf(pw);
    if (idx >= 0) this.workers.splice(idx, 1);
    await pw.worker.terminate();
  }

  private taken(w: PoolWorker, now: number): boolean {
    const since = w.busySince[0] ?? 0;
    return since > 0 && now - since > BUSY_AFTER_MS;
  }

  /**
   * Where a leg opens now: a worker whose guest is not computing with a free place (the fewest VMs);
   * else a new extra worker, up to the cap. Undefined: pool pressure (the leg stays queued).
   */
  private place(): PoolWorker | undefined {
    const now = Date.now();
    let best: PoolWorker | undefined;
    for (const w of this.workers) {
      if (w.dead || this.taken(w, now)) continue;
      if (w.legs.size >= this.maxLiveVms) continue;
      if (!best || w.legs.size < best.legs.size) best = w;
    }
    if (best) return best;
    if (this.workers.filter((w) => w.extra).length < this.maxExtra) {
      const extra = this.spawn(true);
      this.workers.push(extra);
      return extra;
    }
    return undefined;
  }

  private fewestLegs(): PoolWorker | undefined {
    let out: PoolWorker | undefined;
    for (const w of this.workers) if (!w.dead && (!out || w.legs.size < out.legs.size)) out = w;
    return out;
  }

  /**
   * Give queued legs places: free ones, else one pressure checkpoint per queued leg. While a VM on a
   * full worker may still become movable (starting, computing, parking) the queue waits for it: its
   * next message pumps again, and a timer catches a guest that turns into a long computation. Only when
   * none can (all over maxSnapshotBytes) does a leg go past the place count, so a queue never stalls.
   */
  private pump(): void {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      for (;;) {
        const next = this.queue[0];
        if (!next) return;
        const pw = this.place();
        if (pw) {
          this.queue.shift();
          this.attach(next, pw);
          continue;
        }
        const now = Date.now();
        const full = this.workers.filter((w) => !w.dead && !this.taken(w, now) && w.legs.size >= this.maxLiveVms);
        const step = pressureStep(full, this.queue.length, this.workers.filter((w) => !w.dead).length);
        if (step.kind === 'checkpoint') {
          step.leg.askCheckpoint();
          continue;
        }
        if (step.kind === 'wait') return;
        if (step.kind === 'retry') return this.pumpLater();
        const fallback = this.fewestLegs();
        if (!fallback) return;
        this.queue.shift();
        this.attach(next, fallback);
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Look again once a guest computing now counts as taken (then its worker is not waited for). */
  private pumpLater(): void {
    if (this.repump) return;
    this.repump = setTimeout(() => ((this.repump = undefined), this.pump()), BUSY_AFTER_MS + 1);
    this.repump.unref();
  }

  /** Put the leg's VM on `pw` (the leg posts its opening message once the worker is ready). */
  private attach(leg: PoolLeg, pw: PoolWorker): void {
    pw.legs.set(leg.id, leg);
    if (pw.idleTimer) clearTimeout(pw.idleTimer);
    pw.idleTimer = undefined;
    if (pw.extra) pw.worker.ref();
    leg.place(pw);
  }

  /** A pressure-parked leg got a reply: it waits for a place again, to resume from its checkpoint. */
  private requeue(leg: PoolLeg): void {
    this.parkedByPressure.delete(leg);
    leg.reopen();
    this.queue.push(leg);
    this.pump();
  }

  /** A message for the leg's VM: straight to its worker, or kept until it has one (a reply wakes a pressure-parked leg). */
  private send(leg: PoolLeg, msg: HostToWorker): void {
    if (leg.ended) return;
    leg.send(msg);
    if (msg.t === 'deliver' && this.parkedByPressure.has(leg)) this.requeue(leg);
  }

  /** Open a leg; its first message (built from leg id and control buffer) goes once it has a worker. Its budget starts at `opened`. */
  openLeg(handlers: LegHandlers, budgetMs: number, first: (legId: string, control: SharedArrayBuffer) => HostToWorker, transfer: ArrayBuffer[] = []): Leg {
    if (this.closed || this.workers.length === 0) return failedLeg('runtime_unavailable', `the ${this.opts.kind} executor is not running; check the gateway log`);
    const legId = `leg${++legCounter}`;
    const { sab, control } = legControl(budgetMs);
    let resolve!: (o: LegOutcome) => void;
    const done = new Promise<LegOutcome>((r) => (resolve = r));
    const leg = new PoolLeg(legId, handlers, resolve, sab, control, first(legId, sab), transfer);
    this.queue.push(leg);
    this.pump();
    return {
      done,
      deliver: (replies) => {
        if (replies.length > 0) this.send(leg, { t: 'deliver', legId, replies });
      },
      park: () => {
        if (leg.ended) return;
        // checkpointed by pressure with nothing to deliver: that checkpoint is the parked continuation
        if (this.parkedByPressure.has(leg)) return this.finish(leg, leg.parkedOutcome());
        this.send(leg, { t: 'park', legId });
      },
      setDeadline: (epochMs) => {
        leg.control[CONTROL_DEADLINE] = epochMs;
      },
      abort: () => {
        leg.control[CONTROL_ABORT] = 1;
        if (leg.ended) return;
        leg.postedTo?.post({ t: 'release', legId });
        // a worker busy in guest code sees the abort flag at its next interrupt check
        this.finish(leg, { kind: 'failed', code: 'aborted', error: RUN_ABORTED_MESSAGE, droppedBytes: 0 });
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.repump) clearTimeout(this.repump);
    // legs with no worker would never hear from one
    for (const leg of [...this.queue, ...this.parkedByPressure]) {
      this.finish(leg, { kind: 'failed', code: 'runtime_unavailable', error: `the ${this.opts.kind} executor was closed; the run was released. Run the cell again.`, droppedBytes: 0 });
    }
    for (const w of this.workers) if (w.idleTimer) clearTimeout(w.idleTimer);
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
    this.workers = [];
  }
}
