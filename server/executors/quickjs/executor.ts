// The QuickJS executor: quickjs-wasi VMs in an elastic worker pool; a parked cell is an encoded snapshot.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type { Continuation, Executor, Leg, LegHandlers, ResumeRequest, StartRequest } from '../types.ts';
import { baseImage, baseImageId } from './base-image.ts';
import { NO_DECLARATION_FILES } from '../../bridge/declaration-files.mjs';
import { WorkerPool, type PoolStats } from './pool.ts';
import { holdStealGuard, replySpinData, replySpinUs } from '../reply-spin.ts';
import { WARM_UP_BODY, WARM_UP_BOOT, WARM_UP_LIMITS, WARM_UP_VALUE_JSON } from '../warm-up-cell.mjs';

/**
 * Trivial legs each base worker runs through the host's own path as part of ready(): see warmHostPath. Measured on
 * 2 cores: a new executor's first cell 4.3-4.7 ms against its sixth 2.5-3.4 ms without them, 3.3-3.5 ms with six.
 */
export const HOST_WARM_UP_ROUNDS = 6;
const HOST_WARM_UP_BUDGET_MS = 10_000;

/** Native stack QuickJS may use: without a bound, deep recursion overflows the host stack and corrupts the VM. */
export const DEFAULT_MAX_STACK_SIZE_BYTES = 256 * 1024;

export interface QuickJsExecutorOptions {
  /** Base worker threads; each hosts many VMs (an idle VM waiting on tools costs no CPU). */
  workers?: number;
  /** Extra workers started while every worker's guest is computing (pool.ts DEFAULT_MAX_EXTRA_WORKERS). */
  maxExtraWorkers?: number;
  /** How long an extra worker stays with no legs before it retires (pool.ts EXTRA_WORKER_IDLE_MS). */
  extraWorkerIdleMs?: number;
  /** Live VMs per worker before pool pressure moves waiting ones off it (pool.ts DEFAULT_MAX_LIVE_VMS_PER_WORKER). */
  maxLiveVmsPerWorker?: number;
  maxStackSizeBytes?: number;
  /** The worker entry (tests drive the host with a scripted worker). */
  entry?: URL;
  /** Guest code evaluated before the prelude in every VM (tests: a cell with the raw host primitive). */
  preludePrefix?: string;
  /** How long a worker polls for replies after sending requests (µs; 0: never). Default: CODEMODE_REPLY_SPIN_US, else reply-spin.ts's. */
  replySpinUs?: number;
}

let compiled: { module: WebAssembly.Module; hash: Uint8Array } | undefined;

/**
 * The QuickJS WASM module, compiled once per process and shared with every worker (a module is
 * cloneable across threads), so a new worker, an extra one included, skips compilation.
 */
export function quickjsModule(): { module: WebAssembly.Module; hash: Uint8Array } {
  if (!compiled) {
    const bytes = readFileSync(createRequire(import.meta.url).resolve('quickjs-wasi/quickjs.wasm'));
    compiled = { module: new WebAssembly.Module(bytes), hash: new Uint8Array(createHash('sha256').update(bytes).digest()) };
  }
  return compiled;
}

export class QuickJsExecutor implements Executor {
  readonly kind = 'quickjs' as const;
  /** A snapshot resumes on any worker: pool pressure may move a VM that waits on the host (pool.ts). */
  readonly pressureParking = true;
  /**
   * The content-addressed id of the image every VM of this executor starts from (base-image.ts baseImageId): a
   * durable run's sealed row names it, and a snapshot taken on another id is refused rather than restored wrongly.
   */
  readonly baseImageId: string;
  private readonly pool: WorkerPool;
  /** Ends this executor's hold on the steal guard (reply-spin.ts), at close. */
  private readonly releaseStealGuard: () => void;
  private readonly workers: number;
  private warmed: Promise<void> | undefined;
  private closing = false;
  /** Host-path warm-up legs that completed with their value (tests). */
  private hostWarmUps = 0;

  constructor(opts: QuickJsExecutorOptions = {}) {
    const wasm = quickjsModule();
    const maxStackSizeBytes = opts.maxStackSizeBytes ?? DEFAULT_MAX_STACK_SIZE_BYTES;
    // built once per process on this thread while the workers start; every worker diffs against it
    const imageOptions = { maxStackSizeBytes, ...(opts.preludePrefix !== undefined ? { preludePrefix: opts.preludePrefix } : {}) };
    const base = baseImage(wasm.module, wasm.hash, imageOptions);
    this.baseImageId = baseImageId(wasm.hash, imageOptions);
    const spin = replySpinData(opts.replySpinUs ?? replySpinUs());
    this.workers = opts.workers ?? Math.max(1, Math.min(4, availableParallelism()));
    this.pool = new WorkerPool({
      kind: 'quickjs',
      entry: opts.entry ?? new URL('./worker.mjs', import.meta.url),
      size: this.workers,
      ...(opts.maxExtraWorkers !== undefined ? { maxExtraWorkers: opts.maxExtraWorkers } : {}),
      ...(opts.extraWorkerIdleMs !== undefined ? { extraWorkerIdleMs: opts.extraWorkerIdleMs } : {}),
      ...(opts.maxLiveVmsPerWorker !== undefined ? { maxLiveVmsPerWorker: opts.maxLiveVmsPerWorker } : {}),
      // the host polls too, while one leg runs (host-poll.ts); off when the workers' polling is off
      hostPollMs: spin.replySpinMax > 0 ? spin.replySpinMs : 0,
      workerInit: base.then((b) => ({ baseMemory: b.memory, baseHash: b.hash, basePointers: b.pointers })),
      workerData: {
        maxStackSizeBytes,
        wasmModule: wasm.module,
        moduleHash: wasm.hash,
        ...spin,
        ...(opts.preludePrefix !== undefined ? { preludePrefix: opts.preludePrefix } : {}),
      },
    });
    this.releaseStealGuard = holdStealGuard(spin);
  }

  /** The workers started and warmed up, each on its own and then through the host's path (warmHostPath); once. */
  ready(): Promise<void> {
    this.warmed ??= this.pool.ready().then(() => this.warmHostPath());
    return this.warmed;
  }

  /**
   * Each worker warms up alone before it reports ready (worker.mjs), over a channel inside the worker; what that leaves
   * cold is the host's side of it: the leg port to the main thread, the pool's dispatch, the main thread's handling of
   * its messages. A new executor's first cells still cost ~1.5x later ones, and a new Gateway on a warm executor shows
   * no such cost, so ready() also runs HOST_WARM_UP_ROUNDS rounds of the warm-up cell (warm-up-cell.mjs) on each base
   * worker through start().
   * Best effort: a leg that fails only leaves that path cold (the first real cell reports its own failure).
   */
  private async warmHostPath(): Promise<void> {
    for (let round = 0; round < HOST_WARM_UP_ROUNDS && !this.closing; round++) {
      const legs = Array.from({ length: this.workers }, () => {
        const handlers: LegHandlers = {
          onRequests: (requests) => leg.deliver(requests.map((r) => ({ id: r.id, ok: true, value: null }))),
          onOutput: () => {},
        };
        const leg = this.start({ body: WARM_UP_BODY, boot: WARM_UP_BOOT, files: NO_DECLARATION_FILES, limits: WARM_UP_LIMITS, budgetMs: HOST_WARM_UP_BUDGET_MS }, handlers);
        return leg.done.then(
          (outcome) => {
            if (outcome.kind === 'completed' && outcome.valueJson === WARM_UP_VALUE_JSON) this.hostWarmUps++;
          },
          () => undefined,
        );
      });
      await Promise.all(legs);
    }
  }

  /** Host-path warm-up legs that completed with their value so far (tests: ready() ran them). */
  hostWarmUpLegs(): number {
    return this.hostWarmUps;
  }

  start(req: StartRequest, handlers: LegHandlers): Leg {
    return this.pool.openLeg(handlers, req.budgetMs, (legId, control) => ({
      t: 'start',
      legId,
      body: req.body,
      boot: req.boot,
      files: req.files,
      limits: req.limits,
      control,
    }));
  }

  resume(continuation: Continuation, req: ResumeRequest, handlers: LegHandlers): Leg {
    if (continuation.executor !== 'quickjs') throw new Error(`the quickjs executor cannot resume a ${continuation.executor} continuation`);
    const snapshot = continuation.snapshot;
    // the run keeps its snapshot until the resumed leg ends, so send a copy
    const copy = snapshot.slice();
    return this.pool.openLeg(
      handlers,
      req.budgetMs,
      (legId, control) => ({
        t: 'resume',
        legId,
        snapshot: copy,
        limits: req.limits,
        control,
        files: req.files,
        inFlight: req.inFlight,
        settled: continuation.settled,
      }),
      [copy.buffer as ArrayBuffer],
    );
  }

  release(_continuation: Continuation): void {
    // a snapshot is plain bytes held by the run; dropping the reference frees it
  }

  stats(): { workers: number; activeLegs: number } {
    return { workers: this.pool.size, activeLegs: this.pool.activeLegs() };
  }

  /** Workers whose guest is computing right now (tests of the elastic pool). */
  computingWorkers(): number {
    return this.pool.computingWorkers();
  }

  poolStats(): PoolStats {
    return this.pool.stats();
  }

  leaks(): string[] {
    return this.pool.leaks();
  }

  close(): Promise<void> {
    this.closing = true;
    return this.pool.close().finally(this.releaseStealGuard);
  }
}
