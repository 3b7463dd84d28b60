// QuickJS executor worker: one quickjs-wasi VM per leg, snapshot on park, restore on resume.
//
// The WASM module is compiled once per process and shared. A cell's VM is restored from the base
// image (module + QuickJS start-up + guest prelude) into a recycled instance (instances.mjs), so
// neither the prelude nor a fresh memory's page faults are paid per cell; the worker warms its
// instances before it reports ready. The guest has no ambient file system, network, process or modules.
/** @import { JSValueHandle, QuickJSOptions, Snapshot } from 'quickjs-wasi' */
/** @import { EngineLeg, ExecutorWorkerData, WorkerEngine, WorkerGuest } from '../worker-types.ts' */
/** @import { BaseImage } from './snapshot-codec.mjs' */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { QuickJS } from 'quickjs-wasi';
import { CONTROL_ABORT, RUN_ABORTED_MESSAGE } from '../../bridge/leg-control.mjs';
import { LegFailure } from '../worker-runtime.mjs';
import { runWorker } from '../worker-port.mjs';
import { warmUp } from '../warm-up.mjs';
import { isRecord } from '../../util/is-record.mjs';
import { InstanceRecycler, MAX_IDLE_INSTANCES } from './instances.mjs';
import { baseImageHash, encodeSnapshot, decodeSnapshot, SnapshotFormatError } from './snapshot-codec.mjs';

const data = /** @type {ExecutorWorkerData | null | undefined} */ (workerData);
// the executor compiles the module once per process and shares it; compile here only when run alone
const wasm = data?.wasmModule instanceof WebAssembly.Module ? { module: data.wasmModule, hash: new Uint8Array(data.moduleHash ?? []) } : compileModule();
const wasmModule = wasm.module;
const moduleHash = wasm.hash;
const prelude = readFileSync(new URL('../../guest/prelude.js', import.meta.url), 'utf8');

/** The module and its hash, compiled here (a worker run alone). */
function compileModule() {
  const bytes = readFileSync(createRequire(import.meta.url).resolve('quickjs-wasi/quickjs.wasm'));
  return { module: new WebAssembly.Module(bytes), hash: new Uint8Array(createHash('sha256').update(bytes).digest()) };
}
// test hook: guest code that runs before the prelude (a cell that holds the raw host primitive)
const preludePrefix = typeof data?.preludePrefix === 'string' ? data.preludePrefix : null;
const maxStackSizeBytes = data?.maxStackSizeBytes ?? 256 * 1024;

// The base image every snapshot is stored against (base-image.ts): the executor builds it once per
// process while this worker starts and sends it on a port of its own; leg messages wait in the
// worker's queue meanwhile. Run alone, or if the host could not build one, the base is empty: then a
// snapshot keeps every non-zero page (and resumes only where the base is empty too).
const initPort = data?.initPort;
/** @type {unknown} */
const init = initPort ? await new Promise((resolve) => initPort.once('message', resolve)) : null;
initPort?.close();
/** @type {BaseImage} */
const base =
  isRecord(init) && init.baseMemory instanceof SharedArrayBuffer && init.baseHash instanceof Uint8Array
    ? { memory: new Uint8Array(init.baseMemory), hash: new Uint8Array(init.baseHash) }
    : { memory: new Uint8Array(0), hash: baseImageHash(moduleHash, new Uint8Array(0)) };
// the base image as a snapshot a new VM is restored from (none when run alone: then VMs are created); the pointers
// come from this process's own base-image.ts
/** @type {Snapshot | null} */
const baseSnapshot =
  base.memory.length > 0 && isRecord(init) && init.basePointers
    ? { memory: base.memory, .../** @type {{ stackPointer: number, runtimePtr: number, contextPtr: number }} */ (init.basePointers), extensions: [] }
    : null;

const instances = new InstanceRecycler();
instances.install();

// Dropped instances hold their memory (1.5 MiB or more each) until this worker's heap is collected,
// and an idle worker allocates nothing that would trigger a collection: after a burst of cells (64
// parked at once dropped ~90 MiB here) the worker collects once, a moment after the last drop.
// V8 exposes its collector only through a flag; it is set just long enough to take the function.
const collect = (() => {
  // a process started with --expose-gc already gave this thread its collector: leave the flag alone
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  try {
    v8.setFlagsFromString('--expose-gc');
    return runInNewContext('gc');
  } catch {
    return null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
})();
/** How long after the last dropped instance the worker collects (ms): one collection per burst. */
const COLLECT_AFTER_DROP_MS = 50;
/** @type {NodeJS.Timeout | null} */
let collectTimer = null;
instances.onDrop = () => {
  if (!collect) return;
  if (collectTimer) clearTimeout(collectTimer);
  collectTimer = setTimeout(() => {
    collectTimer = null;
    collect();
  }, COLLECT_AFTER_DROP_MS);
  collectTimer.unref();
};

const HOST_SYNC = '__cm_sync';
/** Trivial cells each worker runs before it reports ready (the first 10-50 ms, the rest about 2 ms each). */
const WARM_UP_CELLS = 3;

/** @param {EngineLeg} leg @returns {QuickJSOptions} */
function vmOptions(leg) {
  return {
    wasm: wasmModule,
    memoryLimit: leg.limits.memoryLimitBytes,
    maxStackSize: maxStackSizeBytes,
    interruptHandler: leg.shouldInterrupt,
    timezoneOffset: 0,
  };
}

// One reused buffer to decode snapshots into (a fresh 1.5 MiB buffer costs ~5 ms of page faults).
// A restore copies it into the VM's memory before the worker handles its next message; a restore
// that starts while another still holds it decodes into a buffer of its own.
let decodeBuffer = new ArrayBuffer(0);
let decodeBufferBusy = false;

/** A VM restored from an encoded snapshot. @param {Uint8Array} bytes @param {QuickJSOptions} options */
async function restoreEncoded(bytes, options) {
  const reuse = !decodeBufferBusy;
  decodeBufferBusy = true;
  try {
    const snapshot = decodeSnapshot(bytes, base, reuse ? reusedDecodeBuffer : undefined);
    return { vm: await restoreVm(snapshot, options), rawBytes: snapshot.memory.length };
  } finally {
    if (reuse) decodeBufferBusy = false;
  }
}

/** @param {number} rawBytes */
function reusedDecodeBuffer(rawBytes) {
  if (decodeBuffer.byteLength < rawBytes) decodeBuffer = new ArrayBuffer(rawBytes);
  return new Uint8Array(decodeBuffer, 0, rawBytes);
}

/** Disposes `vm` and hands its instance to the recycler (a later restore overwrites its memory). @param {QuickJS} vm */
function disposeVm(vm) {
  const instance = internals(vm).instance;
  vm.dispose();
  instances.release(instance);
}

/** A VM restored from `snapshot` into a recycled instance where one fits. @param {Snapshot} snapshot @param {QuickJSOptions} options */
function restoreVm(snapshot, options) {
  return QuickJS.restore(snapshot, { ...options, wasi: instances.restoreOptions(snapshot.memory.byteLength) });
}

/**
 * The parts of a quickjs-wasi VM its types keep private: its WASM instance and that instance's exports (pinned by
 * package-lock, tested in instances.test.ts).
 * @typedef {{
 *   instance: WebAssembly.Instance,
 *   exports: { memory: WebAssembly.Memory, __stack_pointer: WebAssembly.Global, qjs_get_runtime_ptr(): number, qjs_get_context_ptr(): number },
 * }} VmInternals
 */
/** @param {QuickJS} vm */
const internals = (vm) => /** @type {VmInternals} */ (/** @type {unknown} */ (vm));

/**
 * What `vm.snapshot()` returns, without copying the memory: the encoder reads the live memory.
 * @param {QuickJS} vm
 */
function liveSnapshot(vm) {
  const exports = internals(vm).exports;
  return {
    memory: new Uint8Array(exports.memory.buffer),
    stackPointer: exports.__stack_pointer.value,
    runtimePtr: exports.qjs_get_runtime_ptr(),
    contextPtr: exports.qjs_get_context_ptr(),
  };
}

/** @param {QuickJS} vm @param {EngineLeg} leg @returns {(opHandle?: JSValueHandle, payloadHandle?: JSValueHandle) => JSValueHandle} */
function hostSync(vm, leg) {
  // Guest-controlled arguments: only strings are read (converting anything else would run guest code
  // inside this callback); the leg loop checks the rest and never throws back.
  return (opHandle, payloadHandle) => {
    /** @param {JSValueHandle | undefined} h */
    const stringOf = (h) => (h !== undefined && h.typeof === 'string' ? h.toString() : undefined);
    const op = stringOf(opHandle) ?? '';
    const payload = stringOf(payloadHandle) ?? (payloadHandle === undefined || payloadHandle.isUndefined ? '' : null);
    const out = leg.onSync(op, payload);
    return out === undefined ? vm.undefined : vm.newString(out);
  };
}

/** @param {unknown} err @param {EngineLeg} leg @returns {LegFailure | null} */
function classify(err, leg) {
  const e = isRecord(err) ? err : {};
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (message.includes('interrupted')) {
    if (leg.control[CONTROL_ABORT] !== 0) return new LegFailure('aborted', RUN_ABORTED_MESSAGE);
    return new LegFailure('timeout', 'code mode cell exceeded its execution budget (timeoutMs); split the work or await slow tools so the run can wait');
  }
  if (message.includes('out of memory')) {
    return new LegFailure('memory_limit_exceeded', 'code mode cell exceeded memoryLimitBytes; the VM was terminated. Keep less data in memory (results.save large values).');
  }
  if (e.name === 'InternalError' && message.includes('string too long')) {
    // QuickJS's string length limit (2^30 - 1 characters): a concatenation past it throws an error the
    // guest cannot catch, so it ends the cell like the memory limit would
    return new LegFailure('memory_limit_exceeded', "code mode cell built a string longer than QuickJS's maximum string length (2^30 - 1 characters); the VM was terminated. Build smaller strings (results.save large values).");
  }
  if (err instanceof SnapshotFormatError) return new LegFailure('internal_error', `snapshot restore failed: ${message}`);
  if (e.name === 'JSException') {
    // a guest error thrown synchronously out of evaluation (e.g. a SyntaxError)
    return new LegFailure('invalid_input', `${e.stack ? String(e.stack).split('\n')[0] : message}`);
  }
  return null;
}

/**
 * The leg loop's guest over one VM.
 * @param {QuickJS} vm @param {EngineLeg} leg @param {{ fromBase?: boolean, rawBytes?: number }} [extra]
 * @returns {WorkerGuest}
 */
function wrap(vm, leg, extra) {
  let disposed = false;
  /** @type {JSValueHandle | null} */
  let deliverFn = null;
  const releaseDeliverFn = () => {
    deliverFn?.dispose();
    deliverFn = null;
  };
  return {
    rawBytes: extra?.rawBytes,
    classify,
    // the runtime's own set-up in the fresh VM: part of start-up, not of the cell's budget (a VM
    // restored from the base image has the prelude already)
    prepare(boot) {
      if (!extra?.fromBase) {
        if (preludePrefix) vm.evalCode(preludePrefix, 'prefix.js').dispose();
        vm.evalCode(prelude, 'prelude.js').dispose();
      }
      vm.evalCode(`__cm_boot(${JSON.stringify(JSON.stringify(boot))})`, 'boot.js').dispose();
    },
    start(body) {
      // the header shares the first line with the cell so guest line numbers match the user's
      vm.evalCode(`__cm_run(async function cell() {${body}\n})`, 'cell.js').dispose();
    },
    drain() {
      vm.executePendingJobs();
    },
    deliver(repliesJson) {
      // looked up once per VM (the prelude defines it non-writable); released before a snapshot or disposal
      const fn = (deliverFn ??= vm.global.getProp('__cm_deliver'));
      vm.withScope(() => vm.callFunction(fn, vm.undefined, vm.newString(repliesJson)).dispose());
    },
    // the clock readings the guest recorded since the last take (checked by the leg loop: guest memory)
    takeClock() {
      return vm.withScope(() => {
        const out = vm.callFunction(vm.global.getProp('__cm_clock'), vm.undefined);
        return out.typeof === 'string' ? out.toString() : null;
      });
    },
    // `pressure`: a checkpoint the pool asked for; over maxSnapshotBytes the VM stays alive and runs on
    park(_leg, opts) {
      // a snapshot must not count a host handle's reference: the restored VM would never release it
      releaseDeliverFn();
      const queuedJson = vm.withScope(() => {
        const fn = vm.global.getProp('__cm_queued');
        const out = vm.callFunction(fn, vm.undefined);
        // checked by the leg loop: the queue is guest memory
        return out.typeof === 'string' ? out.toString() : null;
      });
      const t0 = performance.now();
      const encoded = encodeSnapshot(liveSnapshot(vm), base);
      const takeMs = performance.now() - t0;
      const maxSnapshotBytes = /** @type {number} */ (leg.limits.maxSnapshotBytes);
      if (opts?.pressure && encoded.storedBytes > maxSnapshotBytes) return { overLimit: true, storedBytes: encoded.storedBytes };
      this.dispose();
      if (encoded.storedBytes > maxSnapshotBytes) {
        throw new LegFailure(
          'snapshot_limit_exceeded',
          `the suspended cell's snapshot is ${encoded.storedBytes} bytes stored (${encoded.rawBytes} raw), over maxSnapshotBytes ${maxSnapshotBytes}; keep less live data across awaits or use results.save`,
        );
      }
      return {
        snapshot: encoded.bytes,
        rawBytes: encoded.rawBytes,
        storedBytes: encoded.storedBytes,
        takeMs,
        queuedJson,
      };
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      releaseDeliverFn();
      disposeVm(vm);
    },
  };
}

/** @type {WorkerEngine} */
const engine = {
  name: 'quickjs',
  // a snapshot can resume on any worker, so the pool may move a waiting VM to free this one
  pressureParking: true,
  classify,
  async create(leg) {
    if (baseSnapshot) {
      const vm = await restoreVm(baseSnapshot, vmOptions(leg));
      vm.registerHostCallback(HOST_SYNC, hostSync(vm, leg));
      return wrap(vm, leg, { fromBase: true });
    }
    const vm = await QuickJS.create(vmOptions(leg));
    vm.newFunction(HOST_SYNC, hostSync(vm, leg)).consume((fn) => vm.setProp(vm.global, HOST_SYNC, fn));
    return wrap(vm, leg);
  },
  async resume(leg, msg) {
    if (msg.t !== 'resume') throw new LegFailure('internal_error', 'executor failure: a QuickJS leg resumes from a snapshot, not from a live continuation');
    const { vm, rawBytes } = await restoreEncoded(msg.snapshot, vmOptions(leg));
    vm.registerHostCallback(HOST_SYNC, hostSync(vm, leg));
    return wrap(vm, leg, { rawBytes });
  },
};

let warmedUp = true;
// Warm this worker: a few resident instances for the first cells (a fresh memory's page faults are
// most of a VM's creation), then WARM_UP_CELLS trivial cells through the whole leg loop so the engine's
// and the loop's code paths are compiled: the first cell costs what a warm one does.
{
  const warm = [];
  try {
    for (let i = 0; i < MAX_IDLE_INSTANCES; i++) {
      warm.push(baseSnapshot ? await restoreVm(baseSnapshot, { wasm: wasmModule, maxStackSize: maxStackSizeBytes }) : await QuickJS.create({ wasm: wasmModule, maxStackSize: maxStackSizeBytes }));
    }
  } catch {
    // warming is best effort: a failure here shows up, with its reason, in the first real cell
  } finally {
    for (const vm of warm) disposeVm(vm);
  }
  // a few rounds: V8 compiles a function optimised only after it has run more than once
  for (let i = 0; i < WARM_UP_CELLS; i++) warmedUp = (await warmUp(engine)) && warmedUp;
}
runWorker(engine);
parentPort?.postMessage({ t: 'ready', engine: 'quickjs', warmedUp });
