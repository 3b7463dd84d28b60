// The base image: the VM every cell starts from (WASM module + QuickJS start-up + guest prelude),
// built once per process on the main thread and shared, without copying, with every worker. A
// snapshot stores only how a VM differs from it (snapshot-codec.mjs).
//
// QuickJS seeds Math.random and reads the clock at start-up, so two VMs built the same way differ in a
// few bytes: the image cannot be rebuilt per worker and still match, which is why one process-wide
// copy is built here and handed to every worker (a snapshot can resume on any of them).
import { readFileSync } from 'node:fs';
import { QuickJS } from 'quickjs-wasi';
import { baseImageHash } from './snapshot-codec.mjs';

/** The host primitive the prelude expects (server/guest/prelude.js header; worker.mjs defines the real one). */
const HOST_SYNC = '__cm_sync';

export interface SharedBaseImage {
  /** The image's WASM memory, read-only by convention in every thread. */
  memory: SharedArrayBuffer;
  /** baseImageHash(module hash, memory): what a snapshot's header names. */
  hash: Uint8Array;
  /** Where the image's QuickJS runtime, context and stack are: a VM restored from the image starts here. */
  pointers: { stackPointer: number; runtimePtr: number; contextPtr: number };
}

const images = new Map<string, Promise<SharedBaseImage>>();

/**
 * The base image for this module and prelude prefix (a test hook evaluated before the prelude),
 * built the first time it is asked for and kept for the life of the process.
 */
export function baseImage(module: WebAssembly.Module, moduleHash: Uint8Array, opts: { preludePrefix?: string; maxStackSizeBytes: number }): Promise<SharedBaseImage> {
  const key = `${opts.maxStackSizeBytes}\0${opts.preludePrefix ?? ''}`;
  let image = images.get(key);
  if (!image) {
    image = build(module, moduleHash, opts);
    images.set(key, image);
  }
  return image;
}

async function build(module: WebAssembly.Module, moduleHash: Uint8Array, opts: { preludePrefix?: string; maxStackSizeBytes: number }): Promise<SharedBaseImage> {
  const prelude = readFileSync(new URL('../../guest/prelude.js', import.meta.url), 'utf8');
  // the options a cell's VM is created with (worker.mjs vmOptions), but no memory limit or interrupt
  // handler: those live outside the image or change a few bytes of it
  const vm = await QuickJS.create({ wasm: module, maxStackSize: opts.maxStackSizeBytes, timezoneOffset: 0 });
  try {
    vm.newFunction(HOST_SYNC, () => vm.undefined).consume((fn) => vm.setProp(vm.global, HOST_SYNC, fn));
    if (opts.preludePrefix) vm.evalCode(opts.preludePrefix, 'prefix.js').dispose();
    vm.evalCode(prelude, 'prelude.js').dispose();
    const snapshot = vm.snapshot();
    const memory = new SharedArrayBuffer(snapshot.memory.byteLength);
    new Uint8Array(memory).set(snapshot.memory);
    const { stackPointer, runtimePtr, contextPtr } = snapshot;
    return { memory, hash: baseImageHash(moduleHash, snapshot.memory), pointers: { stackPointer, runtimePtr, contextPtr } };
  } finally {
    vm.dispose();
  }
}
