// Node executor worker: each cell in a fresh node:vm context; a parked cell stays live in this worker.
//
// The context gets only ECMAScript built-ins plus the guest controller's globals (no require,
// process, Buffer, fetch, Node timers or WebAssembly) and refuses code generation from strings.
// `microtaskMode: 'afterEvaluate'` gives the context its own job queue, drained at the end of every
// script run, so every entry (start, deliver, drain) is a script run that carries a `timeout`: a
// guest that never yields is stopped by V8's watchdog, and the supervisor (../live-worker.ts) terminates
// the whole worker if even that does not end the leg. This is trusted execution, not a security
// boundary (spec: security boundary); the hardening here only keeps honest mistakes contained.
//
// Plain JavaScript on purpose, like the QuickJS worker: worker entry files load as they are.
/** @import { EngineLeg, ExecutorWorkerData, LiveGuest, WorkerEngine, WorkerLeg } from '../worker-types.ts' */
import { readFileSync } from 'node:fs';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { CONTROL_ABORT, CONTROL_DEADLINE, RUN_ABORTED_MESSAGE } from '../../bridge/leg-control.mjs';
import { LegFailure, MIN_SLICE_MS } from '../worker-runtime.mjs';
import { runWorker } from '../worker-port.mjs';
import { liveContinuations } from '../live-continuations.mjs';
import { isRecord } from '../../util/is-record.mjs';

const data = /** @type {ExecutorWorkerData | null | undefined} */ (workerData);

const prelude = new vm.Script(readFileSync(new URL('../../guest/prelude.js', import.meta.url), 'utf8'), { filename: 'prelude.js' });
// One entry into a context never runs longer than this, even while an approval pauses the budget
// (the executor passes the config's timeoutMs ceiling).
const maxSliceMs = data?.maxSliceMs;
// test hook: guest code that runs before the prelude (a cell that holds the raw host primitive)
const preludePrefix = typeof data?.preludePrefix === 'string' ? new vm.Script(data.preludePrefix, { filename: 'prefix.js' }) : null;
if (maxSliceMs === undefined || !(maxSliceMs > 0)) throw new Error('node executor worker: workerData.maxSliceMs must be a positive number of milliseconds');

// Runs before the prelude: hands the context a context-realm wrapper around the host primitive (so a
// host error never reaches the guest as a host-realm object) and an inbox for bridge replies that
// only the host can fill. Both are captured here, then the prelude captures and deletes both globals
// (__cm_sync and __cm_take_reply), so no cell sees either.
/**
 * V8's largest array (FixedArray::kMaxLength on 64-bit builds): a split that would make more elements
 * than this aborts the process instead of throwing (see the bootstrap).
 */
const MAX_SPLIT_RESULT_ELEMENTS = 134_217_725;

const bootstrap = new vm.Script(
  `(function (host) {
    'use strict';
    var g = globalThis, ErrorCtor = Error, StringCtor = String, box;
    delete g.WebAssembly;
    // the worker switches --expose-gc on for its heap watch (below) and never off, so every context is
    // born with gc; it is non-configurable there (delete throws) but writable
    if (typeof g.gc === 'function') g.gc = undefined;
    // cleanup callbacks would run as host tasks, outside any leg and its timeout
    delete g.FinalizationRegistry;
    // V8 aborts the whole process (a fatal "invalid size", crbug.com/1201626) when split builds an
    // array longer than its maximum array length, which only a string that long can produce: such a
    // split throws the RangeError V8 should have thrown. Every other call is the original, unchanged.
    var split = g.String.prototype.split, stringValue = g.String.prototype.valueOf, apply = g.Reflect.apply, RangeErrorCtor = RangeError;
    var MAX_ARRAY_ELEMENTS = ${MAX_SPLIT_RESULT_ELEMENTS};
    g.Object.defineProperty(g.String.prototype, 'split', {
      value: {
        split: function (separator, limit) {
          if (typeof separator === 'string' && (limit === undefined || limit > MAX_ARRAY_ELEMENTS)) {
            var len = typeof this === 'string' ? this.length : this instanceof StringCtor ? apply(stringValue, this, []).length : 0;
            if (len > MAX_ARRAY_ELEMENTS) throw new RangeErrorCtor('Invalid array length: split of a ' + len + '-character string would make more elements than an array can hold; split a smaller part');
          }
          return apply(split, this, arguments);
        },
      }.split,
      writable: true,
      configurable: true,
      enumerable: false,
    });
    g.__cm_sync = function (op, payload) {
      try {
        return host(op, payload);
      } catch (e) {
        throw new ErrorCtor('code mode bridge failure: ' + StringCtor(e && e.message));
      }
    };
    // configurable, so the prelude can delete it once it holds it
    Object.defineProperty(g, '__cm_take_reply', {
      value: function () { var r = box; box = undefined; return r; },
      configurable: true,
    });
    return function (json) { box = json; };
  })`,
  { filename: 'bootstrap.js' },
);
// the prelude's __cm_deliver takes the reply from the inbox itself when called without one
const deliverScript = new vm.Script('__cm_deliver()', { filename: 'deliver.js' });
const drainScript = new vm.Script('undefined', { filename: 'drain.js' });
const queuedScript = new vm.Script('__cm_queued()', { filename: 'queued.js' });
const clockScript = new vm.Script('__cm_clock()', { filename: 'clock.js' });

/** Live contexts of parked cells, by continuation id; `continue` re-attaches a leg to one. @type {ReturnType<typeof liveContinuations<WorkerLeg, LiveGuest>>} */
const continuations = liveContinuations('c');

/** @param {unknown} err @param {EngineLeg} leg */
function classify(err, leg) {
  if (isRecord(err) && err.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
    if (leg.control[CONTROL_ABORT] !== 0) return new LegFailure('aborted', RUN_ABORTED_MESSAGE);
    return new LegFailure('timeout', 'code mode cell exceeded its execution budget (timeoutMs); split the work or await slow tools so the run can wait');
  }
  return null;
}

/**
 * How long the next entry into the guest may run: the leg's remaining budget, at least its slice floor.
 * @param {WorkerLeg} leg @param {number} maxMs
 */
function sliceMs(leg, maxMs) {
  if (leg.control[CONTROL_ABORT] !== 0) throw new LegFailure('aborted', RUN_ABORTED_MESSAGE);
  const now = Date.now();
  const ms = Math.max(/** @type {number} */ (leg.control[CONTROL_DEADLINE]) - now, leg.sliceFloor - now, 1);
  return Math.ceil(Number.isFinite(ms) ? Math.min(ms, maxMs) : maxMs);
}

/** A compile error in the cell: the message and the user's line (the wrapper shares line 1). @param {{ message?: unknown, stack?: unknown }} err */
function syntaxFailure(err) {
  const where = typeof err.stack === 'string' ? /cell\.js:(\d+)/.exec(err.stack) : null;
  return new LegFailure('invalid_input', `SyntaxError: ${err.message}${where ? ` (line ${where[1]})` : ''}`);
}

/**
 * What a parked cell keeps alive, as V8 estimates it for the cell's own context (this worker holds one
 * cell's context besides its main one) after a GC; falls back to heap growth since the context was
 * made. An estimate either way, never enforced.
 * @param {number} baselineHeapBytes
 */
async function retainedEstimate(baselineHeapBytes) {
  try {
    // a detailed measurement lists the other contexts too (@types/node knows only the summary's fields)
    const m = /** @type {{ other?: Array<{ jsMemoryEstimate: number }> }} */ (await vm.measureMemory({ mode: 'detailed', execution: 'eager' }));
    const others = m.other ?? [];
    if (others.length > 0) return others.reduce((n, o) => n + o.jsMemoryEstimate, 0);
  } catch {
    // measureMemory is experimental; keep the heap-growth estimate below
  }
  return Math.max(0, getHeapStatistics().used_heap_size - baselineHeapBytes);
}

/** @param {WorkerLeg} firstLeg @param {number} maxMs the longest one entry may run @returns {LiveGuest} */
function createGuest(firstLeg, maxMs) {
  /** @type {WorkerLeg | null} */
  let leg = firstLeg;
  // measured before the context exists: the context's own built-ins are part of what a parked cell retains
  const baselineHeapBytes = getHeapStatistics().used_heap_size;
  /** @type {vm.Context | null} */
  let ctx = vm.createContext(Object.create(null), {
    name: 'code-mode cell',
    codeGeneration: { strings: false, wasm: false },
    microtaskMode: 'afterEvaluate',
  });
  // the host primitive the bootstrap wraps: its arguments are the guest's own values, which the leg loop narrows
  /** @type {(json: string) => void} */
  const putReply = bootstrap.runInContext(ctx)((/** @type {unknown} */ op, /** @type {unknown} */ payload) => (leg ? leg.onSync(op, payload) : undefined));
  /** @type {string | null} */
  let continuationId = null;

  /** @param {vm.Script} script @returns {unknown} what the guest's script evaluated to (guest memory) */
  const run = (script) => {
    if (!ctx) throw new LegFailure('internal_error', 'the cell context was already released');
    if (!leg) throw new LegFailure('internal_error', 'the cell context is parked: no leg runs it');
    return script.runInContext(ctx, { timeout: sliceMs(leg, maxMs), displayErrors: false });
  };

  /** @type {LiveGuest} */
  const guest = {
    rawBytes: undefined,
    classify,
    attach(next) {
      leg = next;
      continuationId = null;
    },
    // the runtime's own set-up in the fresh context: part of start-up, not of the cell's budget
    prepare(boot) {
      if (preludePrefix) run(preludePrefix);
      run(prelude);
      run(new vm.Script(`__cm_boot(${JSON.stringify(JSON.stringify(boot))})`, { filename: 'boot.js' }));
    },
    start(body) {
      let cell;
      try {
        // the header shares the first line with the cell so guest line numbers match the user's
        cell = new vm.Script(`__cm_run(async function cell() {${body}\n})`, { filename: 'cell.js' });
      } catch (err) {
        throw isRecord(err) && err.name === 'SyntaxError' ? syntaxFailure(err) : err;
      }
      run(cell);
    },
    drain() {
      run(drainScript);
    },
    deliver(replyJson) {
      putReply(replyJson);
      run(deliverScript);
    },
    // the clock readings the guest recorded since the last take (checked by the leg loop: guest memory)
    takeClock() {
      return run(clockScript);
    },
    async park(parking) {
      // queued inputs are serialized now and may run guest toJSON code: give it a slice of its own
      parking.sliceFloor = Date.now() + MIN_SLICE_MS;
      // checked by the leg loop: the queue is guest memory, and a non-string never reaches JSON.parse here
      const queuedJson = run(queuedScript);
      continuationId = continuations.keep(guest);
      leg = null;
      return { continuationId, retainedBytesEstimate: await retainedEstimate(baselineHeapBytes), queuedJson: typeof queuedJson === 'string' ? queuedJson : null };
    },
    dispose() {
      if (continuationId) continuations.forget(continuationId);
      continuationId = null;
      ctx = null;
      leg = null;
    },
  };
  return guest;
}

/** @type {WorkerEngine} */
const engine = {
  name: 'node',
  async create(leg) {
    return createGuest(leg, maxSliceMs);
  },
  resume: continuations.resume,
  release: continuations.release,
};

// A rejection the guest makes and never handles ends up here (a context's promises report to its
// worker's process). QuickJS ignores such rejections; Node's default ('throw') would kill the worker,
// and with it the cell, a parked context and the warm slot. A guest promise belongs to its context's
// realm, never the host's: those are dropped, a host-realm rejection is a host bug and still crashes.
process.on('unhandledRejection', (reason, promise) => {
  if (promise instanceof Promise) throw reason;
});

// The heap watch's live reading (node/heap-watch.ts evaluates this in an interrupt while the guest
// runs): a full collection first, so the cell's garbage never counts against its budget. V8 hands
// gc() only to a context created while --expose-gc is set, so the flag goes on here, for a throwaway
// context whose gc this worker keeps (in its own realm, out of guest reach). The flag is process-wide
// and is never switched off again: switching it off would race other workers starting at the same
// moment (a lock around it stays locked forever when a worker is terminated inside it) and would also
// turn off a process-level --expose-gc. Guest contexts are therefore born with gc: the bootstrap
// removes it.
setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');
Object.defineProperty(globalThis, '__cm_live_heap_bytes', {
  value: () => {
    collectGarbage();
    return getHeapStatistics().used_heap_size;
  },
});

// Warm this worker: the first context pays V8's context setup, not the first cell.
prelude.runInContext(vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate' }));
runWorker(engine);
parentPort?.postMessage({ t: 'ready', engine: 'node' });
