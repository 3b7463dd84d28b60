// QuickJS executor worker: one quickjs-wasi VM per leg, snapshot on park, restore on resume.
//
// The WASM module is compiled once per worker and instantiated synchronously (on Node 20 a second
// asynchronous WebAssembly.instantiate can stall for hundreds of milliseconds); the worker warms one
// VM before it reports ready. The guest has no ambient file system, network, process or modules.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { QuickJS } from 'quickjs-wasi';
import { CONTROL_ABORT, RUN_ABORTED_MESSAGE } from '../../bridge/leg-control.mjs';
import { runWorker, LegFailure } from '../worker-runtime.mjs';
import { baseImageHash, encodeSnapshot, decodeSnapshot, SnapshotFormatError } from './snapshot-codec.mjs';

// the executor compiles the module once per process and shares it; compile here only when run alone
const shared = workerData?.wasmModule instanceof WebAssembly.Module ? workerData.wasmModule : null;
const wasmBytes = shared ? null : readFileSync(createRequire(import.meta.url).resolve('quickjs-wasi/quickjs.wasm'));
const wasmModule = shared ?? new WebAssembly.Module(wasmBytes);
const moduleHash = shared ? new Uint8Array(workerData.moduleHash) : new Uint8Array(createHash('sha256').update(wasmBytes).digest());
const prelude = readFileSync(new URL('../../guest/prelude.js', import.meta.url), 'utf8');
// test hook: guest code that runs before the prelude (a cell that holds the raw host primitive)
const preludePrefix = typeof workerData?.preludePrefix === 'string' ? workerData.preludePrefix : null;
const maxStackSizeBytes = workerData?.maxStackSizeBytes ?? 256 * 1024;

// The base image every snapshot is stored against (base-image.ts): the executor builds it once per
// process while this worker starts and sends it on a port of its own; leg messages wait in the
// worker's queue meanwhile. Run alone, or if the host could not build one, the base is empty: then a
// snapshot keeps every non-zero page (and resumes only where the base is empty too).
const init = workerData?.initPort ? await new Promise((resolve) => workerData.initPort.once('message', resolve)) : null;
workerData?.initPort?.close();
const base =
  init?.baseMemory instanceof SharedArrayBuffer && init.baseHash instanceof Uint8Array
    ? { memory: new Uint8Array(init.baseMemory), hash: new Uint8Array(init.baseHash) }
    : { memory: new Uint8Array(0), hash: baseImageHash(moduleHash, new Uint8Array(0)) };

// Instantiate from the compiled module synchronously (see header).
const asyncInstantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async (mod, imports) =>
  mod instanceof WebAssembly.Module ? new WebAssembly.Instance(mod, imports) : asyncInstantiate(mod, imports);

const HOST_SYNC = '__cm_sync';

function vmOptions(leg) {
  return {
    wasm: wasmModule,
    memoryLimit: leg.limits.memoryLimitBytes,
    maxStackSize: maxStackSizeBytes,
    interruptHandler: leg.shouldInterrupt,
    timezoneOffset: 0,
  };
}

function hostSync(vm, leg) {
  // Guest-controlled arguments: only strings are read (converting anything else would run guest code
  // inside this callback); the leg loop checks the rest and never throws back.
  return (opHandle, payloadHandle) => {
    const isString = (h) => h !== undefined && h.typeof === 'string';
    const op = isString(opHandle) ? opHandle.toString() : '';
    const payload = isString(payloadHandle) ? payloadHandle.toString() : payloadHandle === undefined || payloadHandle.isUndefined ? '' : null;
    const out = leg.onSync(op, payload);
    return out === undefined ? vm.undefined : vm.newString(out);
  };
}

function classify(err, leg) {
  const message = err && typeof err.message === 'string' ? err.message : String(err);
  if (message.includes('interrupted')) {
    if (leg.control[CONTROL_ABORT] !== 0) return new LegFailure('aborted', RUN_ABORTED_MESSAGE);
    return new LegFailure('timeout', 'code mode cell exceeded its execution budget (timeoutMs); split the work or await slow tools so the run can wait');
  }
  if (message.includes('out of memory')) {
    return new LegFailure('memory_limit_exceeded', 'code mode cell exceeded memoryLimitBytes; the VM was terminated. Keep less data in memory (results.save large values).');
  }
  if (err && err.name === 'InternalError' && message.includes('string too long')) {
    // QuickJS's string length limit (2^30 - 1 characters): a concatenation past it throws an error the
    // guest cannot catch, so it ends the cell like the memory limit would
    return new LegFailure('memory_limit_exceeded', "code mode cell built a string longer than QuickJS's maximum string length (2^30 - 1 characters); the VM was terminated. Build smaller strings (results.save large values).");
  }
  if (err instanceof SnapshotFormatError) return new LegFailure('internal_error', `snapshot restore failed: ${message}`);
  if (err && err.name === 'JSException') {
    // a guest error thrown synchronously out of evaluation (e.g. a SyntaxError)
    return new LegFailure('invalid_input', `${err.stack ? String(err.stack).split('\n')[0] : message}`);
  }
  return null;
}

function wrap(vm, leg, extra) {
  let disposed = false;
  return {
    rawBytes: extra?.rawBytes,
    classify,
    // the runtime's own set-up in the fresh VM: part of start-up, not of the cell's budget
    prepare(boot) {
      if (preludePrefix) vm.evalCode(preludePrefix, 'prefix.js').dispose();
      vm.evalCode(prelude, 'prelude.js').dispose();
      vm.evalCode(`__cm_boot(${JSON.stringify(JSON.stringify(boot))})`, 'boot.js').dispose();
    },
    start(body) {
      // the header shares the first line with the cell so guest line numbers match the user's
      vm.evalCode(`__cm_run(async function cell() {${body}\n})`, 'cell.js').dispose();
    },
    drain() {
      vm.executePendingJobs();
    },
    deliver(replyJson) {
      vm.withScope(() => {
        const fn = vm.global.getProp('__cm_deliver');
        vm.callFunction(fn, vm.undefined, vm.newString(replyJson)).dispose();
      });
    },
    // `pressure`: a checkpoint the pool asked for; over maxSnapshotBytes the VM stays alive and runs on
    park(_leg, opts) {
      const queuedJson = vm.withScope(() => {
        const fn = vm.global.getProp('__cm_queued');
        const out = vm.callFunction(fn, vm.undefined);
        // checked by the leg loop: the queue is guest memory
        return out.typeof === 'string' ? out.toString() : null;
      });
      const t0 = performance.now();
      const snap = vm.snapshot();
      const encoded = encodeSnapshot(snap, base);
      const takeMs = performance.now() - t0;
      if (opts?.pressure && encoded.storedBytes > leg.limits.maxSnapshotBytes) return { overLimit: true, storedBytes: encoded.storedBytes };
      this.dispose();
      if (encoded.storedBytes > leg.limits.maxSnapshotBytes) {
        throw new LegFailure(
          'snapshot_limit_exceeded',
          `the suspended cell's snapshot is ${encoded.storedBytes} bytes stored (${encoded.rawBytes} raw), over maxSnapshotBytes ${leg.limits.maxSnapshotBytes}; keep less live data across awaits or use results.save`,
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
      vm.dispose();
    },
  };
}

const engine = {
  name: 'quickjs',
  // a snapshot can resume on any worker, so the pool may move a waiting VM to free this one
  pressureParking: true,
  classify,
  async create(leg) {
    const vm = await QuickJS.create(vmOptions(leg));
    vm.newFunction(HOST_SYNC, hostSync(vm, leg)).consume((fn) => vm.setProp(vm.global, HOST_SYNC, fn));
    return wrap(vm, leg);
  },
  async resume(leg, msg) {
    const snapshot = decodeSnapshot(msg.snapshot, base);
    const vm = await QuickJS.restore(snapshot, vmOptions(leg));
    vm.registerHostCallback(HOST_SYNC, hostSync(vm, leg));
    return wrap(vm, leg, { rawBytes: snapshot.memory.length });
  },
};

// Warm this worker: the first VM pays the instantiation costs, and parsing the prelude once warms the
// engine's hot paths, so the first cell costs what a warm one does.
{
  const warm = await QuickJS.create({ wasm: wasmModule, maxStackSize: maxStackSizeBytes });
  try {
    warm.newFunction(HOST_SYNC, () => warm.undefined).consume((fn) => warm.setProp(warm.global, HOST_SYNC, fn));
    warm.evalCode(prelude, 'prelude.js').dispose();
  } catch {
    // warming is best effort: a failure here shows up, with its reason, in the first real cell
  } finally {
    warm.dispose();
  }
}
runWorker(engine);
parentPort.postMessage({ t: 'ready', engine: 'quickjs' });
