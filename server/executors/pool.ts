// Worker supervision shared by the executors: a pool of worker threads running one worker entry, legs
// routed by id, crash isolation (a dead worker fails its legs with internal_error and is replaced).
//
// The guest never runs on the Gateway's event loop. Each leg carries a SharedArrayBuffer control
// block (deadline, abort flag) the worker's interrupt handler reads, so the host can stop a guest
// that never yields.
import { Worker } from 'node:worker_threads';
import type { ExecutorKind } from '../config/types.ts';
import type { HostToWorker, WorkerToHost } from '../bridge/protocol.ts';
import type { Leg, LegHandlers, LegOutcome } from './types.ts';
import { handleLegMessage, legControl, legHandle, legSender } from './leg-messages.ts';

interface PoolWorker {
  id: number;
  worker: Worker;
  ready: Promise<void>;
  legs: Map<string, LegState>;
  dead: boolean;
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
  workerData?: unknown;
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
    const pw: PoolWorker = { id: this.nextWorkerId++, worker, ready, legs: new Map(), dead: false };
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
    this.finish(leg, outcome);
  }

  private finish(leg: LegState, outcome: LegOutcome): void {
    if (leg.ended) return;
    leg.ended = true;
    leg.worker.legs.delete(leg.id);
    leg.resolve(outcome);
  }

  /** The worker with the fewest active legs. */
  private pick(): PoolWorker | undefined {
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
  ): Leg {
    const legId = `leg${++legCounter}`;
    const { sab, control } = legControl(deadlineAt);
    let resolve!: (o: LegOutcome) => void;
    const done = new Promise<LegOutcome>((r) => (resolve = r));
    const pw = this.pick();
    if (!pw || this.closed) {
      resolve({ kind: 'failed', code: 'runtime_unavailable', error: `the ${this.opts.kind} executor is not running; check the gateway log`, droppedBytes: 0 });
      return { done, deliver() {}, park() {}, setDeadline() {}, abort() {} };
    }
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
        this.finish(state, { kind: 'failed', code: 'aborted', error: 'code mode run was aborted', droppedBytes: 0 });
      },
    });
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
