// The quickjs-emscripten executor: each cell in a fresh QuickJS runtime inside a worker thread; a waiting run keeps its live VM there.
//
// A hardened sandbox like the quickjs executor (a bare QuickJS context: no host APIs but the bridge),
// with a live continuation like Node's: quickjs-emscripten has no public memory snapshot, so a parked
// cell keeps its runtime in its worker and the worker serves no other cell until the run resumes or
// is released. The workers are the live-continuation pool Node's executor uses too (../live-pool.ts:
// warm, parked and ready workers, one cell per worker at a time). Unlike Node, any idle worker serves
// any budget (the runtime's memory limit is set per cell), and a cell that failed (timeout, out of
// memory, an uncaught error) leaves its worker sound: the engine disposed its runtime (or dropped a
// module the library aborted, engine.mjs), so the worker goes back to the warm set. An aborted cell,
// a worker fault or a worker that never started retires it.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { CODE_MODE_LIMIT_BOUNDS } from '../../config/schema.ts';
import type { CodeModeErrorCode } from '../../errors.ts';
import { LiveWorkerPool, type LivePoolOptions } from '../live-pool.ts';
import { DEFAULT_MAX_STACK_SIZE_BYTES } from '../quickjs/executor.ts';
import { holdStealGuard, replySpinData } from '../reply-spin.ts';

/**
 * Host-side heap of a worker, over the cell's memoryLimitBytes (which QuickJS enforces inside the WASM
 * memory): strings the guest hands the bridge are copied into the worker's V8 heap, at most the VM's
 * own size, as UTF-16 (twice the bytes), plus the worker's own runtime.
 */
export const HOST_HEAP_HEADROOM_MB = 64;

export interface EmscriptenExecutorOptions extends LivePoolOptions {
  maxStackSizeBytes?: number;
  /** Guest code evaluated before the prelude in every VM (tests: a cell with the raw host primitive). */
  preludePrefix?: string;
}

let compiled: WebAssembly.Module | undefined;

/** The quickjs-emscripten release-sync WASM module, compiled once per process and shared with every worker. */
function emscriptenModule(): WebAssembly.Module {
  if (!compiled) {
    const require = createRequire(import.meta.url);
    compiled = new WebAssembly.Module(readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')));
  }
  return compiled;
}

/** Failures that leave a worker's state unknown (a host fault, an abort, a worker that never started): the worker goes. */
const WORKER_FAULT_CODES: ReadonlySet<CodeModeErrorCode> = new Set<CodeModeErrorCode>(['internal_error', 'aborted', 'runtime_unavailable']);

export class EmscriptenExecutor extends LiveWorkerPool<'quickjs-emscripten'> {
  constructor(opts: EmscriptenExecutorOptions = {}) {
    const entry = new URL('./worker.mjs', import.meta.url);
    const spin = replySpinData();
    const workerData = {
      maxSliceMs: CODE_MODE_LIMIT_BOUNDS.timeoutMs.max,
      ...spin,
      maxStackSizeBytes: opts.maxStackSizeBytes ?? DEFAULT_MAX_STACK_SIZE_BYTES,
      wasmModule: emscriptenModule(),
      ...(opts.preludePrefix !== undefined ? { preludePrefix: opts.preludePrefix } : {}),
    };
    const heapMb = Math.ceil((2 * CODE_MODE_LIMIT_BOUNDS.memoryLimitBytes.max) / (1024 * 1024)) + HOST_HEAP_HEADROOM_MB;
    super(
      {
        kind: 'quickjs-emscripten',
        entry,
        // the runtime's memory limit is set per cell: any idle worker serves any budget
        keyFor: () => entry.href,
        workerOptions: () => ({ resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 16 }, workerData, heap: null }),
        // the guest's failures leave the worker sound (its runtime was disposed); a host fault does not
        keepsWorkerAfter: (failure) => failure.code === undefined || !WORKER_FAULT_CODES.has(failure.code),
        memoryPressure: () => false,
        onClose: holdStealGuard(spin),
      },
      opts,
    );
  }
}
