// The Node executor: each cell in a fresh node:vm context inside a worker thread; a waiting run keeps its live worker.
//
// The worker pool is the live-continuation pool every live executor shares (../live-pool.ts: warm,
// parked and ready workers); what is Node's here is the worker's heap. A warm worker is reused only
// for the same runtime entry and heap limit (the worker's resourceLimits are fixed at spawn, so the
// warm set is keyed by memoryLimitBytes), and any failed cell retires its worker: a node:vm context
// that failed may have left its worker in any state. Nothing here loads the QuickJS WASM runtime.
//
// Trusted execution, not a security boundary (spec: security boundary).
import { freemem, totalmem } from 'node:os';
import { CODE_MODE_LIMIT_BOUNDS } from '../../config/schema.ts';
import { LiveWorkerPool, type LivePoolOptions } from '../live-pool.ts';
import { HEAP_HEADROOM_MB, heapWatch, type HeapWatch } from './heap-watch.ts';
import { holdStealGuard, replySpinData } from '../reply-spin.ts';

/**
 * V8 old-generation floor: a Node worker's own runtime takes about 5 MiB of heap before any cell, and
 * one with less than 8 MiB dies while starting (measured on Node 20). memoryLimitBytes below this is
 * raised to it ("subject to engine minimums").
 */
export const MIN_OLD_GENERATION_MB = 8;
/** Young-generation share bounds: 1 MiB is V8's smallest; past 16 MiB a larger nursery buys nothing here. */
export const MIN_YOUNG_GENERATION_MB = 1;
export const MAX_YOUNG_GENERATION_MB = 16;
/** Critical memory pressure: less than this share of memory left (cgroup limit when known, else the machine's). */
export const CRITICAL_FREE_MEMORY_FRACTION = 0.05;

export interface NodeExecutorOptions extends LivePoolOptions {
  /** The worker runtime entry; warm workers are reused only for the same entry. */
  entry?: URL;
  /** True under critical memory pressure (checked when a worker is taken or goes idle). */
  memoryPressure?: () => boolean;
  /** Guest code evaluated before the prelude in every context (tests: a cell with the raw host primitive). */
  preludePrefix?: string;
  /**
   * What enforces memoryLimitBytes while a cell runs (default: the process's heap watch). null: the
   * worker's own V8 heap limit, as tight as the budget; a large allocation near it can then abort the
   * whole process (heap-watch.ts says why), so null is only for a process without an inspector.
   */
  heapWatch?: HeapWatch | null;
}

/**
 * Worker resourceLimits for a heap budget: old plus young generation, with V8's floors, plus
 * `headroomMb` of old generation when something else (the heap watch) enforces the budget itself.
 */
export function resourceLimitsFor(memoryLimitBytes: number, headroomMb = 0): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  const totalMb = Math.max(1, Math.ceil(memoryLimitBytes / (1024 * 1024)));
  const youngMb = Math.min(MAX_YOUNG_GENERATION_MB, Math.max(MIN_YOUNG_GENERATION_MB, Math.floor(totalMb / 8)));
  return { maxOldGenerationSizeMb: Math.max(MIN_OLD_GENERATION_MB, totalMb - youngMb) + headroomMb, maxYoungGenerationSizeMb: youngMb };
}

/** Default pressure probe: the process's cgroup budget when Node knows it, else free system memory. */
export function criticalMemoryPressure(): boolean {
  const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : undefined;
  if (constrained && constrained > 0 && constrained < totalmem()) {
    return process.memoryUsage.rss() > constrained * (1 - CRITICAL_FREE_MEMORY_FRACTION);
  }
  return freemem() < totalmem() * CRITICAL_FREE_MEMORY_FRACTION;
}

export class NodeExecutor extends LiveWorkerPool<'node'> {
  constructor(opts: NodeExecutorOptions = {}) {
    const entry = opts.entry ?? new URL('./worker.mjs', import.meta.url);
    const spin = replySpinData();
    const workerData = { maxSliceMs: CODE_MODE_LIMIT_BOUNDS.timeoutMs.max, ...spin, ...(opts.preludePrefix !== undefined ? { preludePrefix: opts.preludePrefix } : {}) };
    /** undefined until the first worker: a process that never runs a Node cell never attaches the inspector. */
    let heap: HeapWatch | null | undefined = opts.heapWatch;
    super(
      {
        kind: 'node',
        entry,
        keyFor: (memoryLimitBytes) => `${entry.href}#${memoryLimitBytes}`,
        workerOptions: (memoryLimitBytes) => {
          if (heap === undefined) heap = heapWatch();
          return { resourceLimits: resourceLimitsFor(memoryLimitBytes, heap ? HEAP_HEADROOM_MB : 0), workerData, heap };
        },
        // a failed node:vm cell may have left its worker in any state (a half-run script, a patched realm)
        keepsWorkerAfter: () => false,
        memoryPressure: opts.memoryPressure ?? criticalMemoryPressure,
        onClose: holdStealGuard(spin),
      },
      opts,
    );
  }
}
