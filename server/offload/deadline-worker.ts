// One warm worker thread that runs CPU-bound host jobs (grep's regex matching, typecheck) off the Gateway's
// event loop, one at a time, each under a hard deadline.
//
// Why a thread and a deadline: these jobs run on input a guest controls (a regex, a cell's types), and their
// cost has no useful bound: `(a+)+$` backtracks exponentially, a recursive type can keep the checker busy for
// minutes. On the event loop that stalls every other client; in a worker it stalls only the job. A job that
// outlives its deadline cannot be interrupted from inside, so the worker is terminated and a fresh one is
// started at once, warm for the next job. The deadline counts from when a job reaches a ready worker: the
// worker's own start (loading TypeScript takes seconds on a busy machine) is bounded separately.
//
// Fairness: a job may name its run (`key`). A run holds at most one place in the shared queue (queued or
// running); its later jobs wait behind its own earlier one and join the queue only when it ends. So a cell
// that fires many greps delays another client's grep by at most one job per run ahead of it, not by the
// whole queue; its own parallel calls still all run, one after another. A job may also name its owner (the
// run's turn's owner, access/owners.ts): an owner holds at most its share of places (owner.shares.queuedJobs,
// less than the queue), so one client's many runs cannot take every place; past its share a job is `busy`.
//
// Worker protocol (the entry is plain .mjs so it loads in any runner, like the executor workers):
//   worker -> host  { t: 'ready' }                       once, after its warm-up
//   host -> worker  { id, job }                          one job at a time
//   worker -> host  { id, ok: true, value } | { id, ok: false, error }
import { Worker } from 'node:worker_threads';
import { shareName, type Owner } from '../access/owners.ts';
import { ShareCount } from '../access/share-count.ts';

/** How a job ended. A guest-caused overrun is `timeout`; a worker that would not start or died is `unavailable`. */
export type JobOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; reason: 'timeout' | 'unavailable' | 'busy' | 'aborted' | 'failed'; message: string };

export interface DeadlineWorkerOptions {
  /** The worker's .mjs entry. */
  entry: URL;
  /** Names the worker in messages ("grep", "typecheck"). */
  name: string;
  /** Hard limit of one job, counted from when it reaches a ready worker. */
  deadlineMs: number;
  /** Hard limit of a worker's start and warm-up. */
  startTimeoutMs: number;
  /** Jobs waiting beyond the running one; more is `busy` rather than an unbounded wait. */
  maxQueued: number;
  workerData?: unknown;
}

interface Job {
  id: number;
  payload: unknown;
  /** The run it belongs to (see Fairness above). */
  key?: string;
  /** Whose share of places it holds while it is queued or running (a held job inherits its run's place). */
  owner?: Owner;
  /** Waiting behind an earlier job of its run, not yet in the shared queue. */
  held?: boolean;
  resolve: (outcome: JobOutcome<unknown>) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  startTimer?: NodeJS.Timeout;
  /** The job the worker is running. */
  running?: Job;
}

/** What the host sends a deadline worker: one job (its entry file reads it as this). */
export interface DeadlineJobMessage<Payload> {
  id: number;
  job: Payload;
}

/** What a deadline worker answers: ready once, then each job's value or its failure (its entry file sends these). */
export type DeadlineWorkerReply<Value = unknown> = { t: 'ready' } | { id: number; ok: true; value: Value } | { id: number; ok: false; error: string };

export class DeadlineWorker<Payload, Value> {
  private slot: Slot | undefined;
  private readonly queue: Job[] = [];
  /** Runs with a job queued or running, each with its jobs held back behind it. */
  private readonly keyed = new Map<string, Job[]>();
  /** Places in the shared queue (queued or running) per owner. */
  private readonly places = new ShareCount('queuedJobs');
  private nextId = 1;
  private closed = false;
  /** Workers started so far (the first, and one per replacement); tests read it. */
  started = 0;

  constructor(private readonly opts: DeadlineWorkerOptions) {}

  /**
   * Runs one job; `key` names its run (one place in the shared queue per run), `owner` whose share of places it
   * takes. Never rejects: every ending is a JobOutcome.
   */
  run(payload: Payload, signal?: AbortSignal, key?: string, owner?: Owner): Promise<JobOutcome<Value>> {
    if (this.closed) return Promise.resolve({ ok: false, reason: 'unavailable', message: `the ${this.opts.name} worker is closed` });
    if (signal?.aborted) return Promise.resolve({ ok: false, reason: 'aborted', message: `${this.opts.name} was canceled because the run was aborted` });
    const held = key === undefined ? undefined : this.keyed.get(key);
    // the job at the head counts as running even while the thread is still starting
    const waiting = this.queue.length + (this.slot?.running ? 1 : 0) - 1;
    if (!held && waiting >= this.opts.maxQueued) {
      return Promise.resolve({ ok: false, reason: 'busy', message: `${this.opts.name} has ${waiting} jobs waiting; try again in a moment` });
    }
    if (!held && owner && !this.places.tryTake(owner)) {
      return Promise.resolve({
        ok: false,
        reason: 'busy',
        message:
          `this owner (${owner.label}) already holds ${this.places.held(owner)} places in the ${this.opts.name} queue, its share (${shareName(owner, 'queuedJobs')}); ` +
          'await earlier calls before starting more, then try again',
      });
    }
    return new Promise<JobOutcome<Value>>((resolve) => {
      const job: Job = { id: this.nextId++, payload, resolve: resolve as (o: JobOutcome<unknown>) => void, signal, key, ...(owner ? { owner } : {}) };
      if (signal) {
        job.onAbort = () => this.abort(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      if (held) {
        // the run's own earlier job is queued or running: this one waits behind it, outside the shared queue
        job.held = true;
        held.push(job);
        return;
      }
      if (key !== undefined) this.keyed.set(key, []);
      this.queue.push(job);
      this.pump();
    });
  }

  /** Starts the worker now (a server warms it at start; otherwise the first job does). */
  warm(): void {
    if (!this.closed && !this.slot) this.slot = this.spawn();
  }

  async close(): Promise<void> {
    this.closed = true;
    const held = [...this.keyed.values()].flat();
    this.keyed.clear();
    for (const job of held) this.finish(job, { ok: false, reason: 'unavailable', message: `the ${this.opts.name} worker was closed` });
    for (const job of this.queue.splice(0)) this.finish(job, { ok: false, reason: 'unavailable', message: `the ${this.opts.name} worker was closed` });
    const slot = this.slot;
    this.slot = undefined;
    if (slot) {
      if (slot.running) this.finish(slot.running, { ok: false, reason: 'unavailable', message: `the ${this.opts.name} worker was closed` });
      clearTimeout(slot.startTimer);
      await slot.worker.terminate();
    }
  }

  private spawn(): Slot {
    this.started++;
    // execArgv: [] keeps the parent's loader flags (`--import tsx`) out: the entries are plain .mjs, and a loader's
    // own hooks thread in the worker would keep the process alive after its last job
    const worker = new Worker(this.opts.entry, { workerData: this.opts.workerData, stdout: false, stderr: false, execArgv: [] });
    const slot: Slot = { worker, ready: false };
    slot.startTimer = setTimeout(() => {
      this.retire(slot, `the ${this.opts.name} worker did not start within ${this.opts.startTimeoutMs} ms; the machine may be overloaded, try again`);
    }, this.opts.startTimeoutMs);
    worker.on('message', (msg: DeadlineWorkerReply) => this.onMessage(slot, msg));
    worker.on('error', (err: Error) => this.retire(slot, `the ${this.opts.name} worker failed (${err.message}); try again`));
    worker.on('exit', (code) => this.retire(slot, `the ${this.opts.name} worker stopped (exit code ${code}); try again`));
    // a warm idle worker must not keep a CLI or a test process alive; pending jobs hold their own timers.
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    return slot;
  }

  private onMessage(slot: Slot, msg: DeadlineWorkerReply): void {
    if (slot !== this.slot) return;
    if ('t' in msg) {
      if (msg.t === 'ready' && !slot.ready) {
        slot.ready = true;
        clearTimeout(slot.startTimer);
        this.pump();
      }
      return;
    }
    const job = slot.running;
    if (!job || job.id !== msg.id) return;
    slot.running = undefined;
    this.finish(job, msg.ok ? { ok: true, value: msg.value } : { ok: false, reason: 'failed', message: msg.error });
    this.pump();
  }

  private pump(): void {
    if (this.closed || this.queue.length === 0) return;
    this.slot ??= this.spawn();
    const slot = this.slot;
    if (!slot.ready || slot.running) return;
    const job = this.queue.shift()!;
    slot.running = job;
    job.timer = setTimeout(() => {
      if (slot.running !== job) return;
      slot.running = undefined;
      this.finish(job, { ok: false, reason: 'timeout', message: `${this.opts.name} took longer than ${this.opts.deadlineMs} ms` });
      this.replace(slot);
    }, this.opts.deadlineMs);
    slot.worker.postMessage({ id: job.id, job: job.payload });
  }

  private abort(job: Job): void {
    const message = `${this.opts.name} was canceled because the run was aborted`;
    if (job.held) {
      const held = job.key === undefined ? undefined : this.keyed.get(job.key);
      held?.splice(held.indexOf(job), 1);
      this.finish(job, { ok: false, reason: 'aborted', message });
      return;
    }
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.finish(job, { ok: false, reason: 'aborted', message });
      // the run's next job may have joined the queue
      this.pump();
      return;
    }
    const slot = this.slot;
    if (slot?.running === job) {
      slot.running = undefined;
      this.finish(job, { ok: false, reason: 'aborted', message });
      this.replace(slot);
    }
  }

  /** Terminates a worker stuck in a job and starts its replacement at once, so the next job finds it warm. */
  private replace(slot: Slot): void {
    if (this.slot !== slot) return;
    this.slot = undefined;
    clearTimeout(slot.startTimer);
    void slot.worker.terminate();
    if (!this.closed) this.slot = this.spawn();
    this.pump();
  }

  /** A worker that failed on its own: its job fails, waiting jobs go to a fresh worker (or fail if it never started). */
  private retire(slot: Slot, message: string): void {
    if (this.slot !== slot) return;
    this.slot = undefined;
    clearTimeout(slot.startTimer);
    void slot.worker.terminate();
    if (slot.running) this.finish(slot.running, { ok: false, reason: 'unavailable', message });
    slot.running = undefined;
    // a worker that never became ready would fail the same way again: fail the queue instead of looping
    if (!slot.ready) for (const job of this.queue.splice(0)) this.finish(job, { ok: false, reason: 'unavailable', message });
    this.pump();
  }

  /**
   * Settles a job. A run's queued or running job that ends lets the run's next held job join the queue in its
   * place (the owner's place passes to it); otherwise the owner's place is given back. The caller pumps.
   */
  private finish(job: Job, outcome: JobOutcome<unknown>): void {
    clearTimeout(job.timer);
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if (!job.held) {
      const held = job.key === undefined ? undefined : this.keyed.get(job.key);
      const next = held?.shift();
      if (next) {
        next.held = false;
        this.queue.push(next);
      } else {
        if (job.key !== undefined) this.keyed.delete(job.key);
        if (job.owner) this.places.release(job.owner);
      }
    }
    job.resolve(outcome);
  }
}
