// Supervision of one live executor worker thread (node or quickjs-emscripten): its start, its one leg at a time, its watchdog and its death.
//
// A live worker (node or quickjs-emscripten) serves one cell at a time (a parked cell keeps its
// context here; live-pool.ts decides what becomes of the worker after each leg), so unlike the
// QuickJS WorkerPool this owns exactly one leg.
// The watchdog is the last line: the worker's own vm timeout stops a busy guest at the deadline;
// when the leg still has not ended `graceMs` later, the guest is stuck where V8's watchdog cannot
// reach and the worker is terminated. The heap watch (node/heap-watch.ts), when the process has one,
// enforces the cell's memoryLimitBytes the same way: the leg fails, then the worker is terminated.
import { Worker } from 'node:worker_threads';
import type { CodeModeErrorCode } from '../errors.ts';
import type { HostToWorker } from '../bridge/protocol.ts';
import { CONTROL_DEADLINE, CONTROL_OVER_MEMORY, RUN_ABORTED_MESSAGE } from '../bridge/leg-control.mjs';
import type { Leg, LegHandlers, LegOutcome, LiveExecutorKind } from './types.ts';
import type { HeapWatch } from './node/heap-watch.ts';
import { handleLegMessage, legControl, legHandle, legSender, malformedOutcome, routeWorkerMessage } from './leg-messages.ts';

/** What a worker is doing; `parked` holds exactly one live continuation. */
export type LiveWorkerState = 'starting' | 'busy' | 'idle' | 'parked' | 'dead';

export interface LiveWorkerOptions {
  id: number;
  /** The executor whose cells this worker runs (a live-continuation executor: node or quickjs-emscripten). */
  kind?: LiveExecutorKind;
  entry: URL;
  /** Warm workers are reused only for the same key (runtime entry and heap limit). */
  key: string;
  memoryLimitBytes: number;
  resourceLimits: { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number };
  workerData: Record<string, unknown>;
  graceMs: number;
  startTimeoutMs: number;
  /** Enforces memoryLimitBytes while a leg runs; null: the worker's V8 limit is the budget itself. */
  heap: HeapWatch | null;
  /** Called once when the thread is gone (exited, crashed, out of memory or terminated). */
  onDeath: (w: LiveWorker) => void;
}

interface ActiveLeg {
  id: string;
  handlers: LegHandlers;
  control: Float64Array;
  resolve: (o: LegOutcome) => void;
  onEnd: (o: LegOutcome) => void;
  watchdog?: ReturnType<typeof setTimeout>;
  unwatchHeap?: () => void;
  /** the first message reached the worker; the watchdog only runs from then (a cold start is not guest time) */
  opened: boolean;
  ended: boolean;
}

let legCounter = 0;

/** Why a cell found no worker, and what to do: the executor's own words when a worker cannot start. */
export function cannotStartMessage(kind: LiveExecutorKind, reason: string): string {
  return `the ${kind} executor cannot start a worker: ${reason}. Check the gateway log, or select ${kind === 'node' ? 'the quickjs' : 'another'} executor.`;
}

export class LiveWorker {
  readonly id: number;
  readonly key: string;
  readonly ready: Promise<void>;
  state: LiveWorkerState = 'starting';
  /** The live continuation this worker holds while `parked`. */
  continuationId: string | undefined;
  private readonly worker: Worker;
  private leg: ActiveLeg | undefined;
  private startError: Error | undefined;
  private crash: Error | undefined;
  private startTimer: ReturnType<typeof setTimeout> | undefined;
  private readyFlag = false;
  /** terminate() was called: the thread is going, even while its leg's end is still being reported. */
  private stoppingFlag = false;

  constructor(private readonly opts: LiveWorkerOptions) {
    this.id = opts.id;
    this.key = opts.key;
    // since when the worker's guest has been computing (worker-runtime.mjs writes it): the heap watch
    // reads the heap only then
    const busySince = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT));
    // throws synchronously on bad options; the executor reports runtime_unavailable
    this.worker = new Worker(opts.entry, {
      workerData: { ...opts.workerData, busySince: busySince.buffer },
      resourceLimits: opts.resourceLimits,
      // the entry is plain JavaScript: skip the parent's loaders (tsx, Vitest), which cost ~150 ms per start;
      // and no experimental-feature notice for vm.measureMemory (the retained-bytes estimate)
      execArgv: ['--no-warnings'],
      stdout: false,
      stderr: false,
    });
    opts.heap?.register(this.worker.threadId, busySince);
    let markReady!: () => void;
    let markFailed!: (e: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    this.ready.catch(() => undefined);
    this.startTimer = setTimeout(() => {
      this.startError = new Error(`the worker did not start within ${opts.startTimeoutMs} ms`);
      void this.stopThread();
    }, opts.startTimeoutMs);
    this.startTimer.unref();
    this.worker.on('message', (raw: unknown) => {
      const routed = routeWorkerMessage(raw);
      if (routed.kind === 'ready') {
        clearTimeout(this.startTimer);
        this.readyFlag = true;
        if (this.state === 'starting') this.state = this.leg ? 'busy' : 'idle';
        markReady();
        return;
      }
      this.onMessage(routed);
    });
    this.worker.on('error', (err) => {
      this.crash ??= err;
    });
    this.worker.on('exit', (code) => {
      clearTimeout(this.startTimer);
      const err = this.startError ?? this.crash ?? new Error(`exit code ${code}`);
      markFailed(err);
      this.onExit(err);
    });
  }

  get kind(): LiveExecutorKind {
    return this.opts.kind ?? 'node';
  }

  /** False once terminate() began: a leg ended by the supervisor must not hand its worker back to a pool. */
  get stopping(): boolean {
    return this.stoppingFlag;
  }

  get alive(): boolean {
    return this.state !== 'dead';
  }

  get hasActiveLeg(): boolean {
    return this.leg !== undefined;
  }

  /**
   * Open this worker's one leg. `onEnd` runs before `done` resolves, so whoever awaits the outcome
   * already sees the worker idle, parked or retired.
   */
  openLeg(
    handlers: LegHandlers,
    budgetMs: number,
    first: (legId: string, control: SharedArrayBuffer) => HostToWorker,
    onEnd: (o: LegOutcome) => void,
  ): Leg {
    if (this.leg) throw new Error(`node worker ${this.id} already runs a leg`);
    const legId = `nleg${++legCounter}`;
    const { sab, control } = legControl(budgetMs);
    let resolve!: (o: LegOutcome) => void;
    const done = new Promise<LegOutcome>((r) => (resolve = r));
    const leg: ActiveLeg = { id: legId, handlers, control, resolve, onEnd, opened: false, ended: false };
    this.leg = leg;
    if (this.state !== 'starting') this.state = 'busy';
    leg.unwatchHeap = this.opts.heap?.watch(this.worker.threadId, this.opts.memoryLimitBytes, (usedBytes) => {
      if (leg.ended) return;
      void this.terminate({ code: 'memory_limit_exceeded', error: this.memoryLimitMessage(usedBytes) });
    });
    const send = legSender({
      ready: this.ready,
      post: (msg) => this.worker.postMessage(msg),
      gone: () => leg.ended || !this.alive,
      first: () => first(legId, sab),
      onOpened: () => {
        leg.opened = true;
        this.armWatchdog(leg);
      },
    });
    return legHandle({
      legId,
      done,
      control,
      send,
      onDeadline: () => {
        if (leg.opened) this.armWatchdog(leg);
      },
      abort: () => {
        if (leg.ended) return;
        // a guest busy in a loop would only see the flag at its next entry: stop the thread instead
        this.finish(leg, { kind: 'failed', code: 'aborted', error: RUN_ABORTED_MESSAGE, droppedBytes: 0 });
        void this.terminate();
      },
    });
  }

  /** An idle warm worker must not keep a finished host process (a CLI command) alive. */
  holdProcess(hold: boolean): void {
    if (!this.alive) return;
    if (hold) this.worker.ref();
    else this.worker.unref();
  }

  /** Stop the thread. An active leg ends first with `failWith` (default: aborted). */
  async terminate(failWith?: { code: CodeModeErrorCode; error: string }): Promise<void> {
    this.stoppingFlag = true;
    if (this.leg && failWith) this.finish(this.leg, { kind: 'failed', ...failWith, droppedBytes: 0 });
    if (!this.alive) return;
    this.state = 'dead';
    if (this.leg) this.finish(this.leg, { kind: 'failed', code: 'aborted', error: `${RUN_ABORTED_MESSAGE}: its worker was stopped`, droppedBytes: 0 });
    await this.stopThread();
  }

  /** Every termination goes through here: the heap watch lets go of the thread first (heap-watch.ts detach says why). */
  private async stopThread(): Promise<void> {
    await this.opts.heap?.detach(this.worker.threadId);
    await this.worker.terminate();
  }

  private armWatchdog(leg: ActiveLeg): void {
    if (leg.watchdog) clearTimeout(leg.watchdog);
    leg.watchdog = undefined;
    if (leg.ended) return;
    const deadline = leg.control[CONTROL_DEADLINE] ?? Number.POSITIVE_INFINITY;
    // a paused budget (approval pending) has no deadline; the worker caps each entry itself
    if (!Number.isFinite(deadline)) return;
    const delay = Math.max(0, deadline + this.opts.graceMs - Date.now());
    leg.watchdog = setTimeout(() => {
      leg.watchdog = undefined;
      if (leg.ended) return;
      const now = leg.control[CONTROL_DEADLINE] ?? Number.POSITIVE_INFINITY;
      if (Date.now() < now + this.opts.graceMs) return this.armWatchdog(leg);
      // the worker found its guest over its memory but could not stop it: that is what ended the cell
      if ((leg.control[CONTROL_OVER_MEMORY] ?? 0) !== 0) return void this.terminate({ code: 'memory_limit_exceeded', error: this.memoryLimitMessage() });
      void this.terminate({
        code: 'timeout',
        error: `code mode cell exceeded its execution budget (timeoutMs) and did not stop within ${this.opts.graceMs} ms; its ${this.kind} worker was terminated. Split the work or await slow tools so the run can wait.`,
      });
    }, delay);
    leg.watchdog.unref();
  }

  private onMessage(routed: ReturnType<typeof routeWorkerMessage>): void {
    const leg = this.leg;
    if (routed.kind === 'ready' || routed.kind === 'stray' || !leg || leg.ended || routed.legId !== leg.id) return;
    if (routed.kind === 'malformed') {
      this.finish(leg, malformedOutcome(routed.error));
      return;
    }
    // the worker started the deadline in the shared control block when the context was ready
    if (routed.msg.t === 'opened') this.armWatchdog(leg);
    const outcome = handleLegMessage(routed.msg, leg.handlers, this.kind, this.id);
    if (outcome) this.finish(leg, outcome);
  }

  private finish(leg: ActiveLeg, outcome: LegOutcome): void {
    if (leg.ended) return;
    leg.ended = true;
    if (leg.watchdog) clearTimeout(leg.watchdog);
    leg.unwatchHeap?.();
    if (this.leg === leg) this.leg = undefined;
    try {
      leg.onEnd(outcome);
    } finally {
      leg.resolve(outcome);
    }
  }

  private memoryLimitMessage(usedBytes?: number): string {
    const mib = (n: number) => Math.round(n / (1024 * 1024));
    const used = usedBytes !== undefined ? `, ${mib(usedBytes)} MiB live` : '';
    return `code mode cell exceeded memoryLimitBytes (${mib(this.opts.memoryLimitBytes)} MiB heap${used}); its ${this.kind} worker was terminated and the cell cannot catch this. Keep less data in memory (results.save large values) or raise memoryLimitBytes.`;
  }

  private onExit(err: Error & { code?: string }): void {
    const wasReady = this.readyFlag;
    this.state = 'dead';
    this.opts.heap?.unregister(this.worker.threadId);
    this.continuationId = undefined;
    const leg = this.leg;
    if (leg) {
      const outcome: LegOutcome =
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { kind: 'failed', code: 'memory_limit_exceeded', error: this.memoryLimitMessage(), droppedBytes: 0 }
          : !wasReady
            ? { kind: 'failed', code: 'runtime_unavailable', error: cannotStartMessage(this.kind, err.message), droppedBytes: 0 }
            : {
                kind: 'failed',
                code: 'internal_error',
                error: `the ${this.kind} executor worker stopped (${err.message}); the run was released. Run the cell again.`,
                droppedBytes: 0,
              };
      this.finish(leg, outcome);
    }
    this.opts.onDeath(this);
  }
}
