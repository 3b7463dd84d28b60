// Worker supervision shared by the executors: a pool of worker threads running one worker entry, legs
// routed by id, crash isolation (a dead worker fails its legs with internal_error and is replaced).
//
// The guest never runs on the Gateway's event loop. Each leg carries a SharedArrayBuffer control
// block (deadline, abort flag) the worker's interrupt handler reads, so the host can stop a guest
// that never yields.
import { Worker } from 'node:worker_threads';
import type { ExecutorKind } from '../config/types.ts';
import type { BridgeReply, HostToWorker, WorkerToHost } from '../bridge/protocol.ts';
import { CONTROL_ABORT, CONTROL_DEADLINE, CONTROL_SLOTS } from '../bridge/protocol.ts';
import type { Leg, LegHandlers, LegOutcome } from './types.ts';
import { handleLegMessage } from './leg-messages.ts';

interface PoolWorker {
  id: number;
  worker: Worker;
  ready: Promise<void>;
  legs: Map<string, LegState>;
  dead: boolean;
  /** Live continuations parked in this worker (Node executor). */
  continuations: number;
}

interface LegState {
  id: string;
  worker: PoolWorker;
  handlers: LegHandlers;
  resolve: (o: LegOutcome) => void;
  control: Float64Array;
  ended: boolean;
  executor: ExecutorKind;
}

export interface PoolOptions {
  kind: ExecutorKind;
  entry: URL;
  size: number;
  workerData?: unknown;
  resourceLimits?: { maxOldGenerationSizeMb?: number; maxYoungGenerationSizeMb?: number };
}

let legCounter = 0;

export class WorkerPool {
  private workers: PoolWorker[] = [];
  private nextWorkerId = 1;
  private closed = false;

  constructor(private readonly opts: PoolOptions) {
    for (let i = 0; i < opts.size; i++) this.workers.push(this.spawn());
  }

  get size(): number {
    return this.workers.length;
  }

  activeLegs(): number {
    return this.workers.reduce((n, w) => n + w.legs.size, 0);
  }

  /** Ids of the live workers (supervision tests and diagnostics). */
  workerIds(): number[] {
    return this.workers.filter((w) => !w.dead).map((w) => w.id);
  }

  /** Wait until every worker has warmed up (tests and the benchmark use it). */
  async ready(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.ready));
  }

  private spawn(): PoolWorker {
    const worker = new Worker(this.opts.entry, {
      workerData: this.opts.workerData,
      resourceLimits: this.opts.resourceLimits,
      stdout: false,
      stderr: false,
    });
    let markReady!: () => void;
    let markFailed!: (e: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => undefined);
    const pw: PoolWorker = { id: this.nextWorkerId++, worker, ready, legs: new Map(), dead: false, continuations: 0 };
    worker.on('message', (msg: WorkerToHost) => {
      if (msg.t === 'ready') return markReady();
      this.onMessage(pw, msg);
    });
    const onDeath = (reason: string) => {
      if (pw.dead) return;
      pw.dead = true;
      markFailed(new Error(reason));
      for (const leg of pw.legs.values()) {
        this.finish(leg, {
          kind: 'failed',
          code: 'internal_error',
          error: `the ${this.opts.kind} executor worker stopped (${reason}); the run was released. Run the cell again.`,
          droppedBytes: 0,
        });
      }
      pw.legs.clear();
      const idx = this.workers.indexOf(pw);
      if (idx >= 0 && !this.closed) this.workers[idx] = this.spawn();
    };
    worker.on('error', (err) => onDeath(err.message));
    worker.on('exit', (code) => onDeath(`exit code ${code}`));
    return pw;
  }

  private onMessage(pw: PoolWorker, msg: WorkerToHost): void {
    if (!('legId' in msg)) return;
    const leg = pw.legs.get(msg.legId);
    if (!leg || leg.ended) return;
    const outcome = handleLegMessage(msg, leg.handlers, this.opts.kind, pw.id);
    if (!outcome) return;
    if (outcome.kind === 'parked' && outcome.continuation.continuationId) pw.continuations++;
    this.finish(leg, outcome);
  }

  private finish(leg: LegState, outcome: LegOutcome): void {
    if (leg.ended) return;
    leg.ended = true;
    leg.worker.legs.delete(leg.id);
    leg.resolve(outcome);
  }

  /** Pick the worker with the fewest active legs, or the one holding a live continuation. */
  private pick(workerId?: number): PoolWorker | undefined {
    if (workerId !== undefined) return this.workers.find((w) => w.id === workerId && !w.dead);
    let best: PoolWorker | undefined;
    for (const w of this.workers) {
      if (w.dead) continue;
      if (!best || w.legs.size < best.legs.size) best = w;
    }
    return best;
  }

  /** Open a leg on a worker and send its first message (built from the leg id and control buffer). */
  openLeg(
    handlers: LegHandlers,
    deadlineAt: number,
    first: (legId: string, control: SharedArrayBuffer) => HostToWorker,
    transfer: ArrayBuffer[] = [],
    workerId?: number,
  ): Leg {
    const legId = `leg${++legCounter}`;
    const sab = new SharedArrayBuffer(CONTROL_SLOTS * Float64Array.BYTES_PER_ELEMENT);
    const control = new Float64Array(sab);
    control[CONTROL_DEADLINE] = deadlineAt;
    let resolve!: (o: LegOutcome) => void;
    const done = new Promise<LegOutcome>((r) => (resolve = r));
    const pw = this.pick(workerId);
    if (!pw || this.closed) {
      resolve({
        kind: 'failed',
        code: workerId !== undefined ? 'invalid_input' : 'runtime_unavailable',
        error:
          workerId !== undefined
            ? 'code mode run is unavailable or expired.'
            : `the ${this.opts.kind} executor is not running; check the gateway log`,
        droppedBytes: 0,
      });
      return { done, deliver() {}, park() {}, setDeadline() {}, abort() {} };
    }
    const state: LegState = { id: legId, worker: pw, handlers, resolve, control, ended: false, executor: this.opts.kind };
    pw.legs.set(legId, state);
    // messages sent before the worker is ready (or before the first message) wait, in order
    let opened = false;
    const backlog: HostToWorker[] = [];
    const send = (msg: HostToWorker, tr: ArrayBuffer[] = []) => {
      if (state.ended || pw.dead) return;
      if (!opened) {
        backlog.push(msg);
        return;
      }
      pw.worker.postMessage(msg, tr);
    };
    pw.ready.then(
      () => {
        if (state.ended || pw.dead) return;
        pw.worker.postMessage(first(legId, sab), transfer);
        opened = true;
        for (const msg of backlog.splice(0)) send(msg);
      },
      () => undefined,
    );
    return {
      done,
      deliver: (replies: BridgeReply[]) => {
        if (replies.length > 0) send({ t: 'deliver', legId, replies });
      },
      park: () => send({ t: 'park', legId }),
      setDeadline: (epochMs: number) => {
        control[CONTROL_DEADLINE] = epochMs;
      },
      abort: () => {
        if (state.ended) return;
        control[CONTROL_ABORT] = 1;
        send({ t: 'release', legId });
        // a worker busy in guest code sees the abort flag at its next interrupt check
        this.finish(state, { kind: 'failed', code: 'aborted', error: 'code mode run was aborted', droppedBytes: 0 });
      },
    };
  }

  /** Tell a worker to drop a live continuation (Node executor). */
  releaseContinuation(workerId: number, continuationId: string): void {
    const pw = this.workers.find((w) => w.id === workerId);
    if (!pw || pw.dead) return;
    pw.continuations = Math.max(0, pw.continuations - 1);
    pw.worker.postMessage({ t: 'release', legId: '', continuationId } satisfies HostToWorker);
  }

  /** Terminate and replace one worker (used when a worker must be retired). */
  async retire(workerId: number): Promise<void> {
    const pw = this.workers.find((w) => w.id === workerId);
    if (pw) await pw.worker.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
    this.workers = [];
  }
}
