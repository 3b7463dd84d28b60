// Recycled WASM instances for one worker: a restore reuses the instance of a disposed VM instead of
// instantiating a fresh one.
//
// Measured on this project's machine: touching a fresh WASM memory costs about 3 µs per KiB (page
// faults), so a fresh 1.5 MiB VM memory costs ~5 ms before QuickJS runs a single instruction, while
// copying a snapshot into a memory that is already resident costs ~0.06 ms. A quickjs-wasi instance
// holds no state outside its linear memory and its one mutable global, `__stack_pointer` (checked
// in instances.test.ts against the module), and `QuickJS.restore` overwrites both; so an instance
// whose VM was disposed can host the next restored VM. Every instance this worker makes is built
// with trampoline imports that call whichever VM currently owns it.
//
// Only restores reuse an instance (a fresh `QuickJS.create` initialises the C runtime and needs the
// data segments of a fresh memory), and only one whose memory is no larger than the snapshot: the
// restore then grows it to exactly the snapshot's size, as it would a fresh one. A reused memory is
// zeroed before it is handed out.

/** @typedef {(...args: unknown[]) => unknown} HostImport one host function a module imports */
/**
 * The host functions a module imports, by module and name (quickjs-wasi's WASI and its callbacks).
 * @typedef {Record<string, Record<string, HostImport>>} HostImports
 */
/** Whose imports an instance's trampolines call now: null once its VM was released. @typedef {{ imports: HostImports | null }} ImportTarget */

/** The bytes of an instance's memory (every quickjs-wasi instance exports one). @param {WebAssembly.Instance} instance */
const memoryBytes = (instance) => /** @type {WebAssembly.Memory} */ (instance.exports.memory).buffer.byteLength;

/** Idle instances kept per worker: enough for a burst of parks and resumes, small in RSS (~1.5 MiB each). */
export const MAX_IDLE_INSTANCES = 4;

/** An instance whose memory grew past this is dropped rather than kept (its memory cannot shrink). */
export const MAX_RECYCLED_MEMORY_BYTES = 4 * 1024 * 1024;

/**
 * Once installed, it is `WebAssembly.instantiate` for compiled modules (synchronous instantiation: on
 * Node 20 a second asynchronous instantiate can stall for hundreds of milliseconds).
 */
export class InstanceRecycler {
  constructor() {
    /** @type {{ instance: WebAssembly.Instance, target: ImportTarget }[]} */
    this.idle = [];
    /** @type {WeakMap<WebAssembly.Instance, ImportTarget>} */
    this.targets = new WeakMap();
    /** bytes the next instantiate may reuse an instance for (set by `restoreOptions`), 0: make a fresh one */
    this.reuseFor = 0;
    this.stats = { created: 0, reused: 0, released: 0, dropped: 0 };
    /** @type {(() => void) | undefined} called when an instance is dropped (the worker schedules a collection) */
    this.onDrop = undefined;
  }

  /** Becomes this thread's `WebAssembly.instantiate` for compiled modules; returns the uninstaller. */
  install() {
    const asyncInstantiate = WebAssembly.instantiate;
    /** @param {BufferSource | WebAssembly.Module} mod @param {WebAssembly.Imports} [imports] */
    const instantiate = async (mod, imports) =>
      // imports are optional, as for the original (a module that imports nothing)
      mod instanceof WebAssembly.Module ? this.instantiate(mod, imports ?? {}) : asyncInstantiate(mod, imports);
    // one function for both of the original's overloads: a compiled module gives an Instance, bytes a source
    WebAssembly.instantiate = /** @type {typeof WebAssembly.instantiate} */ (instantiate);
    return () => {
      WebAssembly.instantiate = asyncInstantiate;
    };
  }

  /**
   * The `wasi` option for a `QuickJS.restore` of `memoryBytes`: quickjs-wasi calls it synchronously
   * just before it instantiates, so the mark cannot reach another VM's instantiation.
   * @param {number} memoryBytes
   */
  restoreOptions(memoryBytes) {
    return () => {
      this.reuseFor = memoryBytes;
      return undefined;
    };
  }

  /** @param {WebAssembly.Module} mod @param {WebAssembly.Imports} imports */
  instantiate(mod, imports) {
    const reuseFor = this.reuseFor;
    this.reuseFor = 0;
    if (reuseFor > 0) {
      const i = this.idle.findIndex((e) => memoryBytes(e.instance) <= reuseFor);
      const entry = i >= 0 ? this.idle.splice(i, 1)[0] : undefined;
      if (entry) {
        new Uint8Array(/** @type {WebAssembly.Memory} */ (entry.instance.exports.memory).buffer).fill(0);
        entry.target.imports = /** @type {HostImports} */ (imports);
        this.stats.reused++;
        return entry.instance;
      }
    }
    /** @type {ImportTarget} */
    const target = { imports: /** @type {HostImports} */ (imports) };
    /** @type {HostImports} */
    const trampolines = {};
    for (const [moduleName, fns] of Object.entries(imports)) {
      /** @type {HostImports[string]} */
      const moduleTrampolines = {};
      for (const name of Object.keys(fns)) {
        // fixed arity: no import of this module takes more than five arguments; once released, the target's imports
        // are null and the call throws into the WASM caller
        moduleTrampolines[name] = (a, b, c, d, e) => /** @type {HostImport} */ (/** @type {HostImports} */ (target.imports)[moduleName]?.[name])(a, b, c, d, e);
      }
      trampolines[moduleName] = moduleTrampolines;
    }
    const instance = new WebAssembly.Instance(mod, trampolines);
    this.targets.set(instance, target);
    this.stats.created++;
    return instance;
  }

  /**
   * The instance of a VM that was just disposed: kept for a later restore while there is room.
   * @param {WebAssembly.Instance | null | undefined} instance
   */
  release(instance) {
    const target = instance ? this.targets.get(instance) : undefined;
    if (!instance || !target) return;
    // the disposed VM's callbacks must never run again, whatever still holds the instance
    target.imports = null;
    const bytes = memoryBytes(instance);
    if (bytes > MAX_RECYCLED_MEMORY_BYTES) return this.drop(instance);
    if (this.idle.length >= MAX_IDLE_INSTANCES) {
      // keep the smallest: an instance serves only snapshots at least its size, and most cells
      // start from (and park at) the base image's size
      let largest = 0;
      const sizes = this.idle.map((e) => memoryBytes(e.instance));
      for (let i = 1; i < sizes.length; i++) if (/** @type {number} */ (sizes[i]) > /** @type {number} */ (sizes[largest])) largest = i;
      if (/** @type {number} */ (sizes[largest]) <= bytes) return this.drop(instance);
      const [evicted] = this.idle.splice(largest, 1);
      if (evicted) this.drop(evicted.instance);
    }
    this.idle.push({ instance, target });
    this.stats.released++;
  }

  /** @param {WebAssembly.Instance} instance an instance not kept: its memory goes with the next GC */
  drop(instance) {
    this.targets.delete(instance);
    this.stats.dropped++;
    this.onDrop?.();
  }
}
