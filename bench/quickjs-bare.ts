// Baselines without the Gateway: bare quickjs-wasi create-and-eval, and the snapshot codec on a bare VM.
//
// These set up QuickJS the way the executor worker does (server/executors/quickjs/worker.mjs): the
// WASM module compiled once and instantiated synchronously, the same stack bound, the same codec.
// The difference to a Gateway row is then what the Gateway adds (worker hop, guest controller,
// bridge, run bookkeeping), not a different engine setup.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { QuickJS, type Snapshot } from 'quickjs-wasi';
import { DEFAULT_MAX_STACK_SIZE_BYTES } from '../server/executors/quickjs/executor.ts';
import { baseImageHash, decodeSnapshot, encodeSnapshot, type BaseImage } from '../server/executors/quickjs/snapshot-codec.mjs';

const require = createRequire(import.meta.url);

/** Name of the one host primitive the guest controller expects (server/guest/prelude.js header). */
const HOST_SYNC = '__cm_sync';

export interface BareQuickJs {
  readonly module: WebAssembly.Module;
  readonly moduleHash: Uint8Array;
  /** Create a VM, evaluate `code`, read the number it returns, dispose. */
  createAndEval(code: string): Promise<number>;
  /** Same, after evaluating the guest controller (prelude) the Gateway runs before every cell. */
  createPreludeAndEval(code: string): Promise<number>;
  /** Restores the patched WebAssembly.instantiate. */
  dispose(): void;
}

export function openBareQuickJs(opts: { memoryLimitBytes: number }): BareQuickJs {
  const wasmBytes = readFileSync(require.resolve('quickjs-wasi/quickjs.wasm'));
  const module = new WebAssembly.Module(wasmBytes);
  const moduleHash = new Uint8Array(createHash('sha256').update(wasmBytes).digest());
  const prelude = readFileSync(new URL('../server/guest/prelude.js', import.meta.url), 'utf8');
  // As in the worker: on Node 20 a second asynchronous instantiate can stall, so instantiate synchronously.
  const asyncInstantiate = WebAssembly.instantiate;
  const syncInstantiate = ((mod: WebAssembly.Module | BufferSource, imports?: WebAssembly.Imports) =>
    mod instanceof WebAssembly.Module
      ? Promise.resolve(new WebAssembly.Instance(mod, imports))
      : asyncInstantiate(mod, imports)) as typeof WebAssembly.instantiate;
  WebAssembly.instantiate = syncInstantiate;

  const create = () => QuickJS.create({ wasm: module, memoryLimit: opts.memoryLimitBytes, maxStackSize: DEFAULT_MAX_STACK_SIZE_BYTES });
  return {
    module,
    moduleHash,
    async createAndEval(code) {
      const vm = await create();
      try {
        return vm.evalCode(code).consume((h) => h.toNumber());
      } finally {
        vm.dispose();
      }
    },
    async createPreludeAndEval(code) {
      const vm = await create();
      try {
        vm.newFunction(HOST_SYNC, () => vm.undefined).consume((fn) => vm.setProp(vm.global, HOST_SYNC, fn));
        vm.evalCode(prelude, 'prelude.js').dispose();
        return vm.evalCode(code).consume((h) => h.toNumber());
      } finally {
        vm.dispose();
      }
    },
    dispose() {
      if (WebAssembly.instantiate === syncInstantiate) WebAssembly.instantiate = asyncInstantiate;
    },
  };
}

export interface CodecSample {
  rawBytes: number;
  storedBytes: number;
  /** vm.snapshot() plus encodeSnapshot, as the worker's takeMs. */
  takeMs: number;
  /** decodeSnapshot plus QuickJS.restore, as the worker's restoreMs. */
  restoreMs: number;
}

/**
 * One snapshot round trip on a bare VM parked on a pending promise, after `setup` built its live data.
 * `check` runs in the restored VM and must return 1, proving the restore carried the state.
 */
export async function codecRoundTrip(bare: BareQuickJs, setup: string, check: string, memoryLimitBytes: number): Promise<CodecSample> {
  const options = { wasm: bare.module, memoryLimit: memoryLimitBytes, maxStackSize: DEFAULT_MAX_STACK_SIZE_BYTES };
  const base = await bareBase(bare, options);
  const vm = await QuickJS.create(options);
  let snapshot: Snapshot;
  let encoded: ReturnType<typeof encodeSnapshot>;
  let takeMs: number;
  try {
    vm.evalCode(`${setup};\nglobalThis.parked = new Promise((r) => { globalThis.resume = r; });`).dispose();
    vm.executePendingJobs();
    const t0 = performance.now();
    snapshot = vm.snapshot();
    encoded = encodeSnapshot(snapshot, base);
    takeMs = performance.now() - t0;
  } finally {
    vm.dispose();
  }
  const t1 = performance.now();
  const restored = await QuickJS.restore(decodeSnapshot(encoded.bytes, base), options);
  const restoreMs = performance.now() - t1;
  try {
    const ok = restored.evalCode(check).consume((h) => h.toNumber());
    if (ok !== 1) throw new Error(`the restored bare VM lost its state: \`${check}\` gave ${ok}, expected 1`);
  } finally {
    restored.dispose();
  }
  return { rawBytes: encoded.rawBytes, storedBytes: encoded.storedBytes, takeMs, restoreMs };
}

const bareBases = new WeakMap<BareQuickJs, Promise<BaseImage>>();

/** The bare rows' base image: a fresh bare VM (no prelude), built once, as the executor builds its own. */
function bareBase(bare: BareQuickJs, options: Parameters<typeof QuickJS.create>[0]): Promise<BaseImage> {
  let base = bareBases.get(bare);
  if (!base) {
    base = QuickJS.create(options).then((vm) => {
      try {
        const memory = vm.snapshot().memory.slice();
        return { memory, hash: baseImageHash(bare.moduleHash, memory) };
      } finally {
        vm.dispose();
      }
    });
    bareBases.set(bare, base);
  }
  return base;
}
