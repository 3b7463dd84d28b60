// The QuickJS executor: quickjs-wasi VMs in a worker pool; a parked cell is an encoded snapshot.
import { availableParallelism } from 'node:os';
import type { Continuation, Executor, Leg, LegHandlers, ResumeRequest, StartRequest } from '../types.ts';
import { WorkerPool } from '../pool.ts';

/** Native stack QuickJS may use: without a bound, deep recursion overflows the host stack and corrupts the VM. */
export const DEFAULT_MAX_STACK_SIZE_BYTES = 256 * 1024;

export interface QuickJsExecutorOptions {
  /** Worker threads; each hosts many VMs (an idle VM waiting on tools costs no CPU). */
  workers?: number;
  maxStackSizeBytes?: number;
}

export class QuickJsExecutor implements Executor {
  readonly kind = 'quickjs' as const;
  private readonly pool: WorkerPool;

  constructor(opts: QuickJsExecutorOptions = {}) {
    this.pool = new WorkerPool({
      kind: 'quickjs',
      entry: new URL('./worker.mjs', import.meta.url),
      size: opts.workers ?? Math.max(1, Math.min(4, availableParallelism())),
      workerData: { maxStackSizeBytes: opts.maxStackSizeBytes ?? DEFAULT_MAX_STACK_SIZE_BYTES },
    });
  }

  ready(): Promise<void> {
    return this.pool.ready();
  }

  start(req: StartRequest, handlers: LegHandlers): Leg {
    return this.pool.openLeg(handlers, req.deadlineAt, (legId, control) => ({
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
    const snapshot = continuation.snapshot;
    if (!snapshot) throw new Error('QuickJS continuation without a snapshot');
    // the run keeps its snapshot until the resumed leg ends, so send a copy
    const copy = snapshot.slice();
    return this.pool.openLeg(
      handlers,
      req.deadlineAt,
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

  close(): Promise<void> {
    return this.pool.close();
  }
}
