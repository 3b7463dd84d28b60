// The QuickJS executor: quickjs-wasi VMs in an elastic worker pool; a parked cell is an encoded snapshot.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type { Continuation, Executor, Leg, LegHandlers, ResumeRequest, StartRequest } from '../types.ts';
import { baseImage } from './base-image.ts';
import { WorkerPool, type PoolStats } from './pool.ts';
import { holdStealGuard, replySpinData, replySpinUs } from '../reply-spin.ts';

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
function quickjsModule(): { module: WebAssembly.Module; hash: Uint8Array } {
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
  private readonly pool: WorkerPool;
  /** Ends this executor's hold on the steal guard (reply-spin.ts), at close. */
  private readonly releaseStealGuard: () => void;

  constructor(opts: QuickJsExecutorOptions = {}) {
    const wasm = quickjsModule();
    const maxStackSizeBytes = opts.maxStackSizeBytes ?? DEFAULT_MAX_STACK_SIZE_BYTES;
    // built once per process on this thread while the workers start; every worker diffs against it
    const base = baseImage(wasm.module, wasm.hash, { maxStackSizeBytes, ...(opts.preludePrefix !== undefined ? { preludePrefix: opts.preludePrefix } : {}) });
    const spin = replySpinData(opts.replySpinUs ?? replySpinUs());
    this.pool = new WorkerPool({
      kind: 'quickjs',
      entry: opts.entry ?? new URL('./worker.mjs', import.meta.url),
      size: opts.workers ?? Math.max(1, Math.min(4, availableParallelism())),
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

  ready(): Promise<void> {
    return this.pool.ready();
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
    return this.pool.close().finally(this.releaseStealGuard);
  }
}
