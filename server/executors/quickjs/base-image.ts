// The base image: the VM every cell starts from (WASM module + QuickJS start-up + guest prelude),
// built once per process on the main thread and shared, without copying, with every worker. A
// snapshot stores only how a VM differs from it (snapshot-codec.mjs).
//
// QuickJS seeds its own Math.random and reads the clock at start-up. Built with the host's clock and random
// bytes, two images differ in a few bytes, so a snapshot could resume only in the process that took it. So the
// image is built with a fixed clock and fixed random bytes (DETERMINISTIC_WASI): the same module, prelude and
// options give the same bytes in every process, on every Gateway, and a snapshot of one resumes on another.
// Nothing a cell sees changes: a run's Math.random and clock are the prelude's own, installed per cell from
// its seed (prelude.js installClock), and a restored VM reads the host's real WASI clock.
//
// The image is named two ways. Its memory hash (baseImageHash) is what a snapshot's header carries and
// decodeSnapshot checks. Its id (baseImageId) is content-addressed from what makes it: the quickjs-wasi
// version, the WASM module's bytes, the prelude's source, the prefix and stack size, the snapshot format and
// this build recipe. The id is known before the image is built, so a durable run's sealed row names it
// (durable/seal.ts) and one parked on another base is refused naming both ids.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { QuickJS, type WasiOptions } from 'quickjs-wasi';
import { baseImageHash, SNAPSHOT_FORMAT_VERSION } from './snapshot-codec.mjs';

/** The host primitive the prelude expects (server/guest/prelude.js header; worker.mjs defines the real one). */
const HOST_SYNC = '__cm_sync';

export interface SharedBaseImage {
  /** The image's WASM memory, read-only by convention in every thread. */
  memory: SharedArrayBuffer;
  /** baseImageHash(module hash, memory): what a snapshot's header names. */
  hash: Uint8Array;
  /** Where the image's QuickJS runtime, context and stack are: a VM restored from the image starts here. */
  pointers: { stackPointer: number; runtimePtr: number; contextPtr: number };
  /** baseImageId(...) of what it was built from: the content-addressed name durable rows carry. */
  id: string;
}

export interface BaseImageOptions {
  /** Guest code evaluated before the prelude (a test hook): another prefix is another image. */
  preludePrefix?: string;
  maxStackSizeBytes: number;
}

/**
 * The recipe of the build below: bump it when build() changes what it makes (another fixed clock, another option
 * passed to QuickJS), so images made the old way get another id.
 */
const BASE_IMAGE_RECIPE = 1;
/** The instant QuickJS reads while the image is built (2025-01-01T00:00:00Z in ns): any fixed value works. */
const BUILD_CLOCK_NS = 1_735_689_600_000n * 1_000_000n;
/** The byte QuickJS's start-up gets for every random byte it asks for while the image is built. */
const BUILD_RANDOM_BYTE = 0x5a;

/** WASI clock and randomness that answer the same in every process (the host's defaults otherwise: wasi-shim.js). */
const DETERMINISTIC_WASI: WasiOptions = (memory) => ({
  clock_time_get(_clockId: number, _precision: bigint, resultPtr: number): number {
    new DataView(memory.buffer).setBigUint64(resultPtr, BUILD_CLOCK_NS, true);
    return 0;
  },
  random_get(bufPtr: number, bufLen: number): number {
    new Uint8Array(memory.buffer, bufPtr, bufLen).fill(BUILD_RANDOM_BYTE);
    return 0;
  },
});

let prelude: string | undefined;
/** The guest prelude's source, read once. */
function preludeSource(): string {
  prelude ??= readFileSync(new URL('../../guest/prelude.js', import.meta.url), 'utf8');
  return prelude;
}

/** The quickjs-wasi package version (its package.json, which it exports). */
function quickjsWasiVersion(): string {
  const pkg: unknown = createRequire(import.meta.url)('quickjs-wasi/package.json');
  const version = (pkg as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}

/**
 * The content-addressed id of the image `moduleHash` and `opts` make: "quickjs-wasi@<version>+<24 hex>", the hex
 * a SHA-256 of everything that changes what a snapshot means (module bytes, prelude source, prefix, stack size,
 * snapshot format, build recipe). Equal ids mean snapshots of one restore on the other.
 */
export function baseImageId(moduleHash: Uint8Array, opts: BaseImageOptions): string {
  const version = quickjsWasiVersion();
  const digest = createHash('sha256')
    .update(
      JSON.stringify({
        recipe: BASE_IMAGE_RECIPE,
        snapshotFormat: SNAPSHOT_FORMAT_VERSION,
        quickjsWasi: version,
        module: Buffer.from(moduleHash).toString('hex'),
        prelude: createHash('sha256').update(preludeSource()).digest('hex'),
        preludePrefix: opts.preludePrefix || null,
        maxStackSizeBytes: opts.maxStackSizeBytes,
      }),
    )
    .digest('hex');
  return `quickjs-wasi@${version}+${digest.slice(0, 24)}`;
}

const images = new Map<string, Promise<SharedBaseImage>>();

/**
 * The base image for this module and prelude prefix (a test hook evaluated before the prelude),
 * built the first time it is asked for and kept for the life of the process.
 */
export function baseImage(module: WebAssembly.Module, moduleHash: Uint8Array, opts: BaseImageOptions): Promise<SharedBaseImage> {
  const key = `${opts.maxStackSizeBytes}\0${opts.preludePrefix ?? ''}`;
  let image = images.get(key);
  if (!image) {
    image = buildBaseImage(module, moduleHash, opts);
    images.set(key, image);
  }
  return image;
}

/**
 * Builds the image anew (not cached: baseImage() keeps one per process). The same module and options give the
 * same memory every time, in every process.
 */
export async function buildBaseImage(module: WebAssembly.Module, moduleHash: Uint8Array, opts: BaseImageOptions): Promise<SharedBaseImage> {
  // the options a cell's VM is created with (worker.mjs vmOptions), but no memory limit or interrupt
  // handler: those live outside the image or change a few bytes of it
  const vm = await QuickJS.create({ wasm: module, maxStackSize: opts.maxStackSizeBytes, timezoneOffset: 0, wasi: DETERMINISTIC_WASI });
  try {
    vm.newFunction(HOST_SYNC, () => vm.undefined).consume((fn) => vm.setProp(vm.global, HOST_SYNC, fn));
    if (opts.preludePrefix) vm.evalCode(opts.preludePrefix, 'prefix.js').dispose();
    vm.evalCode(preludeSource(), 'prelude.js').dispose();
    const snapshot = vm.snapshot();
    const memory = new SharedArrayBuffer(snapshot.memory.byteLength);
    new Uint8Array(memory).set(snapshot.memory);
    const { stackPointer, runtimePtr, contextPtr } = snapshot;
    return { memory, hash: baseImageHash(moduleHash, snapshot.memory), pointers: { stackPointer, runtimePtr, contextPtr }, id: baseImageId(moduleHash, opts) };
  } finally {
    vm.dispose();
  }
}
