// What the quickjs-emscripten engine knows about a module's memory: the WASM memory it hands each module load (whose
// growth it rules while a cell runs), the module's size, and where QuickJS keeps its allocation count.
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
/** @import { QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten' */

/**
 * The parts of quickjs-emscripten its types keep protected: a module's emscripten module (its heap view) and a
 * runtime's JSRuntime pointer. Pinned by package-lock; the engine test drives both.
 * @typedef {{ module?: { HEAPU8?: Uint8Array } }} ModuleInternals
 * @typedef {{ rt: { value: number } }} RuntimeInternals
 */
/** @param {QuickJSWASMModule} mod */
const moduleInternals = (mod) => /** @type {ModuleInternals} */ (/** @type {unknown} */ (mod));
/** @param {QuickJSRuntime} rt */
const runtimePointer = (rt) => /** @type {RuntimeInternals} */ (/** @type {unknown} */ (rt)).rt.value;

/**
 * How far a cell's WASM memory may grow, as a multiple of its memoryLimitBytes (plus GROWTH_SLACK_BYTES), before a
 * growth is refused. Twice the limit: a cell within its limit can still grow a large value by reallocation (the old
 * block and the new one live together for a moment) and leave some fragments; past twice it is over its limit by
 * any count, and the memory it already has is not the host's to give (the measurement ends it there).
 */
export const MAX_GROWTH_FACTOR = 2;
/** Room for QuickJS's own bookkeeping and fragments besides the cell's data, whatever its limit. */
export const GROWTH_SLACK_BYTES = 16 * 1024 * 1024;
/** The module's memory: emscripten's default start (16 MiB) and its 2 GiB ceiling, in 64 KiB pages. */
const WASM_INITIAL_PAGES = 256;
const WASM_MAXIMUM_PAGES = 32768;
const WASM_PAGE_BYTES = 65536;

/** A limit no runtime is given, set once on a probe runtime to find where QuickJS keeps it. */
const LIMIT_PROBE = 0x3a5c1f04;

/**
 * QuickJS's allocation count against the memory limit lives in JSRuntime's malloc_state (malloc_size, then
 * malloc_limit); neither is in quickjs-emscripten's API. Found once per module by setting LIMIT_PROBE on a
 * probe runtime and looking for it among the struct's first words; undefined when the layout is not the
 * expected one (then only the measurement holds the limit).
 * @param {QuickJSWASMModule} mod
 * @returns {{ used(rt: QuickJSRuntime): number, limit(rt: QuickJSRuntime): number } | undefined}
 */
export function allocationCountsOf(mod) {
  /** @type {QuickJSRuntime | undefined} */
  let probe;
  try {
    probe = mod.newRuntime();
    probe.setMemoryLimit(LIMIT_PROBE);
    /** A little-endian word of the heap (the heap view is read each time: a growth replaces it). @param {number} address */
    const word = (address) => {
      const heap = /** @type {Uint8Array} */ (moduleInternals(mod).module?.HEAPU8);
      const byte = (/** @type {number} */ i) => /** @type {number} */ (heap[address + i]);
      return (byte(0) | (byte(1) << 8) | (byte(2) << 16) | (byte(3) << 24)) >>> 0;
    };
    for (let offset = 4; offset < 64; offset += 4) {
      if (word(runtimePointer(probe) + offset) !== LIMIT_PROBE) continue;
      return { used: (rt) => word(runtimePointer(rt) + offset - 4), limit: (rt) => word(runtimePointer(rt) + offset) };
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    probe?.dispose();
  }
}

/**
 * A module memory's growth rule while its cell runs: past `limitBytes` a growth is noted (`onOverLimit`), past
 * `ceilingBytes` it is refused (and `refused` is set).
 * @typedef {{ limitBytes: number, ceilingBytes: number, refused: boolean, onOverLimit: () => void }} MemoryGuard
 */
/** Each module memory's growth rule: how large it may grow while its cell runs, and whether a growth was refused. @type {WeakMap<WebAssembly.Memory, MemoryGuard>} */
export const memoryGuards = new WeakMap();

/**
 * A WASM memory for one module load whose `grow` (emscripten's heap resize calls it) refuses to pass the running
 * cell's ceiling: emscripten then tries smaller steps and, refused again, lets the allocation fail (QuickJS: out
 * of memory), and the guard remembers the refusal so the cell ends with memory_limit_exceeded even if it catches it.
 * A growth past the cell's limit itself (not yet its ceiling) is only noted, for a supervisor that must stop the
 * thread (the live memory may still be within the limit then: a value being reallocated, fragments).
 */
export function guardedMemory() {
  const memory = new WebAssembly.Memory({ initial: WASM_INITIAL_PAGES, maximum: WASM_MAXIMUM_PAGES });
  /** @type {MemoryGuard} */
  const guard = { limitBytes: Infinity, ceilingBytes: Infinity, refused: false, onOverLimit: () => undefined };
  const grow = WebAssembly.Memory.prototype.grow;
  Object.defineProperty(memory, 'grow', {
    value: (/** @type {number} */ pages) => {
      const newBytes = memory.buffer.byteLength + pages * WASM_PAGE_BYTES;
      if (newBytes > guard.limitBytes) guard.onOverLimit();
      if (newBytes > guard.ceilingBytes) {
        guard.refused = true;
        throw new RangeError('the cell is over its memory limit');
      }
      return grow.call(memory, pages);
    },
  });
  memoryGuards.set(memory, guard);
  return memory;
}

/** The module's WASM memory, or undefined when the variant does not hand it out (then no growth rule applies). @param {QuickJSWASMModule} mod */
export function moduleMemory(mod) {
  try {
    return mod.getWasmMemory();
  } catch {
    return undefined;
  }
}

/** Bytes of the module's WASM memory (it only grows): a growth is when a cell may have gone over its limit. @param {QuickJSWASMModule} mod */
export function wasmMemoryBytes(mod) {
  // HEAPU8 is the memory's current view
  return moduleInternals(mod).module?.HEAPU8?.byteLength ?? 0;
}
