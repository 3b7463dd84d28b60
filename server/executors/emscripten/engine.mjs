// The quickjs-emscripten engine: one QuickJS runtime + context per cell on a WASM module this worker owns; a parked cell stays live.
// long: one engine adapter (the module, each cell's runtime and guest, their exact disposal), read top to bottom; its JSDoc types took it past the limit.
//
// Limits: memoryLimitBytes is the runtime's memory limit, the stack is its max stack size, and time is
// the interrupt handler, which reads the leg's shared deadline and abort flag. QuickJS's allocator
// refuses one allocation past the limit, but under emscripten it cannot read an allocation's size
// (js_def_malloc_usable_size is 0 there) and counts each one as 8 bytes: a cell could pile up hundreds
// of megabytes of 1 MiB buffers under an 8 MiB limit, and one that fills memory with small allocations
// (a Map grown entry by entry) meets the count's end with no room left for the error, which QuickJS
// then throws as `null`. So the interrupt handler also ends the cell with memory_limit_exceeded when
// the runtime is over its limit: by QuickJS's own count within NEAR_COUNT_LIMIT of the limit (read
// each time; the real bytes are then well past it, every allocation being at least 16), or by
// measuring it (JS_ComputeMemoryUsage, the same estimate the parked cost uses) whenever the WASM memory
// grew, and otherwise after FIRST_MEMORY_CHECK_MS and then at most every MEMORY_CHECK_SPACING times the
// last measurement's own cost. Neither sees a cell that piles up large buffers faster than the
// interrupt handler runs (it runs every ~10,000 bytecode steps; a loop of `new Array(1e6).fill(7)` fills
// gigabytes between two calls, on a loaded machine until its budget ends). So the engine gives the module
// a WASM memory of its own whose growth it rules (guardedMemory): while a cell runs, the memory may grow
// by at most MAX_GROWTH_FACTOR times its limit plus GROWTH_SLACK_BYTES past its size when the cell started;
// a growth past that is refused, so the allocation fails where it is made (QuickJS: out of memory) and the
// cell ends with memory_limit_exceeded, whatever the machine's load. A waiting cell keeps its runtime and context in this worker
// (quickjs-emscripten has no public memory snapshot): its parked cost is the runtime's live memory, an
// estimate.
//
// Disposal is exact: every handle the host takes is disposed in the scope that took it, then the
// context, then the runtime. QuickJS asserts in JS_FreeRuntime that no object is left; after an
// out-of-memory inside a promise job it can leave unreachable objects behind, and the assertion aborts
// the WASM module (an emscripten RuntimeError, not a crash of the thread). The engine catches that,
// counts it, drops the module and loads a fresh one from the compiled WebAssembly.Module before the
// next cell: the worker goes on. Nothing else shares a module with a cell (one cell per worker).
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
/** @import { EmscriptenModuleLoaderOptions, QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten' */
/** @import { EngineLeg, LiveGuest } from '../worker-types.ts' */
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import { CONTROL_ABORT, CONTROL_OVER_MEMORY, RUN_ABORTED_MESSAGE } from '../../bridge/leg-control.mjs';
import { LegFailure } from '../worker-runtime.mjs';
import { liveContinuations } from '../live-continuations.mjs';
import { isRecord } from '../../util/is-record.mjs';
import { allocationCountsOf, guardedMemory, GROWTH_SLACK_BYTES, MAX_GROWTH_FACTOR, memoryGuards, moduleMemory, wasmMemoryBytes } from './memory.mjs';

const HOST_SYNC = '__cm_sync';

export const TIMEOUT_MESSAGE = 'code mode cell exceeded its execution budget (timeoutMs); split the work or await slow tools so the run can wait';
export const OUT_OF_MEMORY_MESSAGE =
  'code mode cell exceeded memoryLimitBytes; the VM was terminated. Keep less data in memory (results.save large values).';
const memoryLimitFailure = () => new LegFailure('memory_limit_exceeded', OUT_OF_MEMORY_MESSAGE);
/**
 * An entry the interrupt handler stopped: aborted when the host set the leg's abort flag, else its budget ran out
 * (interrupts come only while a leg runs the guest).
 * @param {EngineLeg | null} leg
 */
const interruptedFailure = (leg) => (leg && leg.control[CONTROL_ABORT] !== 0 ? new LegFailure('aborted', RUN_ABORTED_MESSAGE) : new LegFailure('timeout', TIMEOUT_MESSAGE));

/** How Bellard QuickJS reports a refused allocation: a catchable InternalError (quickjs-ng makes it uncatchable), named RangeError by the shim. */
const OOM_PATTERN = /^(?:InternalError|RangeError): out of memory/;

/**
 * Wall time between two memory measurements of a running cell, as a multiple of the last one's cost
 * (it walks every object): the check stays near 1/MEMORY_CHECK_SPACING of the cell's time.
 */
const MEMORY_CHECK_SPACING = 32;
/** When a cell's runtime is measured first if the WASM memory has not grown before (see checkedWasmBytes). */
const FIRST_MEMORY_CHECK_MS = 2;
/** The share of QuickJS's allocation count against its limit at which a cell is over its memory (see above). */
const NEAR_COUNT_LIMIT = 0.9;
/**
 * Engine parity shim, evaluated before the prelude: Bellard QuickJS throws a catchable InternalError where V8 and
 * quickjs-ng throw a RangeError (endless recursion, a string past the length limit, a refused allocation). Its
 * InternalError becomes a kind of RangeError named so: `e instanceof RangeError` and `e.name` agree on every
 * executor (the message stays the engine's own, "stack overflow").
 */
const RANGE_ERROR_SHIM = `(function () {
  if (typeof InternalError !== 'function' || InternalError === RangeError) return;
  Object.setPrototypeOf(InternalError.prototype, RangeError.prototype);
  Object.setPrototypeOf(InternalError, RangeError);
  Object.defineProperty(InternalError.prototype, 'name', { value: 'RangeError', writable: true, enumerable: false, configurable: true });
})();`;

/**
 * What a live park hands the leg loop: the runtime stays in this worker under `continuationId`.
 * @typedef {{ continuationId: string, retainedBytesEstimate: number | undefined, queuedJson: string | null }} LiveParked
 */
/**
 * One cell's runtime: a live guest whose park is synchronous and always keeps the runtime (it takes no arguments).
 * @typedef {Omit<LiveGuest<EngineLeg>, 'park'> & { park(): LiveParked }} EmscriptenGuest
 */

/**
 * What the engine hands the leg loop (and what its test drives): a guest per cell, live continuations, and counters of
 * the runtimes it made and freed.
 * @typedef {{
 *   readonly name: 'quickjs-emscripten',
 *   readonly counters: { modulesLoaded: number, runtimesCreated: number, runtimesDisposed: number, disposeAborts: number, liveRuntimes: number },
 *   warm(): Promise<QuickJSWASMModule>,
 *   create(leg: EngineLeg): Promise<EmscriptenGuest>,
 *   resume: ReturnType<typeof liveContinuations<EngineLeg, EmscriptenGuest>>['resume'],
 *   release(continuationId: string): void,
 * }} EmscriptenEngine
 */

/**
 * @param {{ prelude: string, preludePrefix?: string | null, maxStackSizeBytes: number, wasmModule?: WebAssembly.Module }} opts
 * @returns {EmscriptenEngine}
 */
export function createEmscriptenEngine(opts) {
  // emscripten prints its abort reason to stderr; the engine counts aborts itself (disposeAborts). print and printErr
  // are emscripten's own module options, which the variant's loader passes through but does not type.
  const quiet = /** @type {EmscriptenModuleLoaderOptions & { print(): void, printErr(): void }} */ ({ print: () => undefined, printErr: () => undefined });
  // every module load gets a memory of its own whose growth the engine rules (a loader: called per load)
  const variant = newVariant(RELEASE_SYNC, {
    ...(opts.wasmModule ? { wasmModule: opts.wasmModule } : {}),
    emscriptenModule: quiet,
    wasmMemory: async () => guardedMemory(),
  });
  /** The module the next cell runs on; null after an abort (loaded again on demand). @type {QuickJSWASMModule | null} */
  let module = null;
  /** @type {ReturnType<typeof liveContinuations<EngineLeg, EmscriptenGuest>>} */
  const continuations = liveContinuations('e');
  /** Per loaded module: where its runtimes keep QuickJS's allocation count (allocationCountsOf). @type {WeakMap<QuickJSWASMModule, NonNullable<ReturnType<typeof allocationCountsOf>>>} */
  const allocationCounts = new WeakMap();
  const counters = { modulesLoaded: 0, runtimesCreated: 0, runtimesDisposed: 0, disposeAborts: 0, liveRuntimes: 0 };

  async function currentModule() {
    if (!module) {
      module = await newQuickJSWASMModuleFromVariant(variant);
      counters.modulesLoaded++;
      const counts = allocationCountsOf(module);
      if (counts) allocationCounts.set(module, counts);
    }
    return module;
  }

  /** @param {unknown} err @param {EngineLeg | null} leg @returns {LegFailure | null} */
  function classify(err, leg) {
    if (err instanceof LegFailure) return err;
    const message = typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string' ? err.message : String(err);
    if (message.includes('interrupted')) return interruptedFailure(leg);
    if (message.includes('out of memory')) return memoryLimitFailure();
    return null;
  }

  /** @param {EngineLeg} leg */
  async function create(leg) {
    const mod = await currentModule();
    const rt = mod.newRuntime();
    counters.runtimesCreated++;
    counters.liveRuntimes++;
    /** @type {QuickJSContext} */
    let ctx;
    try {
      rt.setMemoryLimit(leg.limits.memoryLimitBytes);
      rt.setMaxStackSize(opts.maxStackSizeBytes);
      ctx = rt.newContext();
    } catch (err) {
      disposeRuntime(rt, null, mod);
      throw err;
    }
    return guestOf(mod, rt, ctx, leg);
  }

  /**
   * Context first, then runtime; an abort in the library's own teardown drops the module, never the worker.
   * @param {QuickJSRuntime} rt @param {QuickJSContext | null} ctx @param {QuickJSWASMModule} mod
   */
  function disposeRuntime(rt, ctx, mod) {
    try {
      if (ctx?.alive) ctx.dispose();
      if (rt.alive) rt.dispose();
    } catch {
      counters.disposeAborts++;
      if (module === mod) module = null;
    }
    counters.runtimesDisposed++;
    counters.liveRuntimes--;
  }

  /**
   * @param {QuickJSWASMModule} mod @param {QuickJSRuntime} rt @param {QuickJSContext} ctx @param {EngineLeg} firstLeg
   * @returns {EmscriptenGuest}
   */
  function guestOf(mod, rt, ctx, firstLeg) {
    /** @type {EngineLeg | null} */
    let leg = firstLeg;
    let disposed = false;
    /** @type {string | null} */
    let continuationId = null;
    // the cell went over its memory limit: its uncaught out-of-memory settled, or the interrupt handler found it over
    let outOfMemory = false;
    // Bellard QuickJS stops the code that runs at an interrupt, but an async function turns the error
    // into a rejection the prelude settles with: the flag makes the entry fail with the budget's code
    let interrupted = false;
    // the first measurement waits for the WASM memory to grow or for FIRST_MEMORY_CHECK_MS of running: a
    // trivial cell ends before it, where one measurement was a fifth of its time
    let checkedWasmBytes = wasmMemoryBytes(mod);
    const allocCount = allocationCounts.get(mod);
    let nextCheckAt = performance.now() + FIRST_MEMORY_CHECK_MS;
    // the memory may grow by a bounded amount while this cell lives (guardedMemory); a refused growth is this cell's
    const memory = moduleMemory(mod);
    const growth = memory ? memoryGuards.get(memory) : undefined;
    if (growth) {
      const startBytes = wasmMemoryBytes(mod);
      growth.limitBytes = startBytes + firstLeg.limits.memoryLimitBytes;
      growth.ceilingBytes = startBytes + MAX_GROWTH_FACTOR * firstLeg.limits.memoryLimitBytes + GROWTH_SLACK_BYTES;
      growth.refused = false;
      // A memory grown past the cell's limit, or a refusal, inside a long native call (a fill over a million
      // elements on a slow machine) may keep the interrupt handler from running until the supervisor stops the
      // thread at its deadline: the control block tells it the cell had grown past its memory by then.
      growth.onOverLimit = () => {
        if (leg) leg.control[CONTROL_OVER_MEMORY] = 1;
      };
    }
    rt.setInterruptHandler(() => {
      if (!leg) return false;
      if (growth?.refused || overMemoryLimit()) {
        outOfMemory = interrupted = true;
        return true;
      }
      if (leg.shouldInterrupt()) {
        interrupted = true;
        // a cell whose budget ends while over its memory is over its memory: the code says what ended it
        if (leg.control[CONTROL_ABORT] === 0 && measuredOverLimit()) outOfMemory = true;
        return true;
      }
      return false;
    });

    /** Whether the runtime is over its memory limit: QuickJS's count near its end, or a measurement past it. */
    function overMemoryLimit() {
      if (allocCount && allocCount.used(rt) >= NEAR_COUNT_LIMIT * allocCount.limit(rt)) return true;
      const wasmBytes = wasmMemoryBytes(mod);
      const now = performance.now();
      if (wasmBytes <= checkedWasmBytes && now < nextCheckAt) return false;
      checkedWasmBytes = wasmBytes;
      const over = measuredOverLimit();
      nextCheckAt = now + MEMORY_CHECK_SPACING * (performance.now() - now);
      return over;
    }

    /** Whether the runtime's live memory, measured now (it walks every object), is over the cell's limit. */
    function measuredOverLimit() {
      const used = liveBytes();
      return used !== undefined && leg !== null && used > leg.limits.memoryLimitBytes;
    }

    // Guest-controlled arguments: only strings are read (converting anything else would run guest code
    // inside this callback); the leg loop checks the rest and never throws back.
    const host = ctx.newFunction(HOST_SYNC, (opHandle, payloadHandle) => {
      if (!leg) return undefined;
      const op = opHandle !== undefined && ctx.typeof(opHandle) === 'string' ? ctx.getString(opHandle) : '';
      const kind = payloadHandle === undefined ? 'undefined' : ctx.typeof(payloadHandle);
      const payload = kind === 'string' ? ctx.getString(payloadHandle) : kind === 'undefined' ? '' : null;
      if (op === 'settle' && typeof payload === 'string' && isOutOfMemoryOutcome(payload)) {
        // the limit's own failure, reported when the entry ends (drain), not the guest's InternalError
        outOfMemory = true;
        return undefined;
      }
      const out = leg.onSync(op, payload);
      return out === undefined ? undefined : ctx.newString(out);
    });
    try {
      ctx.setProp(ctx.global, HOST_SYNC, host);
    } finally {
      host.dispose();
    }

    /** Evaluate, dispose the value; a thrown guest error becomes the leg's failure. @param {string} code @param {string} filename */
    const evaluate = (code, filename) => {
      const result = ctx.evalCode(code, filename);
      if (result.error) throw interrupted ? (result.error.dispose(), interruption()) : failureOf(result.error, filename === 'cell.js');
      result.value.dispose();
    };

    /** Why the cell ended early: over its memory limit, else its budget or an abort (the interrupt handler). */
    const interruption = () => (outOfMemory ? memoryLimitFailure() : interruptedFailure(leg));

    /** The leg's failure for a guest error (the handle is disposed here). @param {QuickJSHandle} handle @param {boolean} compile */
    const failureOf = (handle, compile) => {
      let dumped;
      try {
        dumped = ctx.dump(handle);
      } catch {
        dumped = undefined;
      } finally {
        handle.dispose();
      }
      if (interrupted) return interruption();
      const fields = isRecord(dumped) ? dumped : {};
      const name = typeof fields.name === 'string' ? fields.name : 'Error';
      const message = typeof fields.message === 'string' ? fields.message : String(dumped);
      const known = classify({ message }, leg);
      if (known) return known;
      if (compile && name === 'SyntaxError') return new LegFailure('invalid_input', `SyntaxError: ${message}`);
      return new LegFailure('internal_error', `executor failure: ${name}: ${message}`);
    };

    /** Calls the guest's global `name` (with one string argument); the result is the caller's to dispose. @param {string} name @param {string} [arg] */
    const callGlobal = (name, arg) => {
      const fn = ctx.getProp(ctx.global, name);
      const argHandle = arg === undefined ? undefined : ctx.newString(arg);
      try {
        const result = argHandle ? ctx.callFunction(fn, ctx.undefined, argHandle) : ctx.callFunction(fn, ctx.undefined);
        if (result.error) throw failureOf(result.error, false);
        return result.value;
      } finally {
        argHandle?.dispose();
        fn.dispose();
      }
    };

    /** @type {EmscriptenGuest} */
    const guest = {
      rawBytes: undefined,
      classify: (err, l) => classify(err, l),
      attach(next) {
        leg = next;
        continuationId = null;
      },
      // the runtime's own set-up in the fresh context: part of start-up, not of the cell's budget
      prepare(boot) {
        evaluate(RANGE_ERROR_SHIM, 'parity.js');
        if (opts.preludePrefix) evaluate(opts.preludePrefix, 'prefix.js');
        evaluate(opts.prelude, 'prelude.js');
        evaluate(`__cm_boot(${JSON.stringify(JSON.stringify(boot))})`, 'boot.js');
      },
      start(body) {
        // the header shares the first line with the cell so guest line numbers match the user's
        evaluate(`__cm_run(async function cell() {${body}\n})`, 'cell.js');
      },
      drain() {
        // every job runs now (like node:vm's afterEvaluate queue); an uncatchable error stops the queue
        for (;;) {
          const r = rt.executePendingJobs();
          if (r.error) throw failureOf(r.error, false);
          if (r.value === 0) break;
        }
        if (growth?.refused) outOfMemory = true;
        if (interrupted || outOfMemory) throw interruption();
      },
      deliver(replyJson) {
        callGlobal('__cm_deliver', replyJson).dispose();
      },
      // the clock readings the guest recorded since the last take (checked by the leg loop: guest memory)
      takeClock() {
        const out = callGlobal('__cm_clock');
        try {
          return ctx.typeof(out) === 'string' ? ctx.getString(out) : null;
        } finally {
          out.dispose();
        }
      },
      park() {
        const out = callGlobal('__cm_queued');
        let queuedJson = null;
        try {
          // checked by the leg loop: the queue is guest memory
          if (ctx.typeof(out) === 'string') queuedJson = ctx.getString(out);
        } finally {
          out.dispose();
        }
        continuationId = continuations.keep(guest);
        leg = null;
        return { continuationId, retainedBytesEstimate: liveBytes(), queuedJson };
      },
      dispose() {
        if (disposed) return;
        disposed = true;
        if (continuationId) continuations.forget(continuationId);
        continuationId = null;
        leg = null;
        disposeRuntime(rt, ctx, mod);
      },
    };

    /** What the parked runtime holds: QuickJS's own count of bytes in use (an estimate of what the VM keeps). */
    function liveBytes() {
      try {
        const usage = rt.computeMemoryUsage();
        try {
          // one field, not ctx.dump (a JSON round trip of every field): this runs at the interrupt handler's checks
          const field = ctx.getProp(usage, 'memory_used_size');
          try {
            const used = ctx.typeof(field) === 'number' ? ctx.getNumber(field) : 0;
            return used > 0 ? used : undefined;
          } finally {
            field.dispose();
          }
        } finally {
          usage.dispose();
        }
      } catch {
        return undefined;
      }
    }
    return guest;
  }

  return {
    name: 'quickjs-emscripten',
    counters,
    /** Load the module now (the worker warms before it reports ready). */
    warm: currentModule,
    create: (leg) => create(leg),
    resume: continuations.resume,
    release: continuations.release,
  };
}

/**
 * An uncaught out-of-memory reaches the prelude as a plain InternalError (Bellard QuickJS lets a cell
 * catch it), and only the host may report memory_limit_exceeded: such an outcome ends the leg with the
 * limit's code and message instead, like the other executors report it.
 */
/** @param {string} payload */
function isOutOfMemoryOutcome(payload) {
  if (payload.length > 4096 || !payload.includes('out of memory')) return false;
  try {
    /** @type {unknown} */
    const o = JSON.parse(payload);
    return isRecord(o) && o.ok === false && typeof o.error === 'string' && OOM_PATTERN.test(o.error);
  } catch {
    return false;
  }
}
