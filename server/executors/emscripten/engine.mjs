// The quickjs-emscripten engine: one QuickJS runtime + context per cell on a WASM module this worker owns; a parked cell stays live.
//
// Limits: memoryLimitBytes is the runtime's memory limit (QuickJS's allocator refuses past it), the
// stack is its max stack size, and time is the interrupt handler, which reads the leg's shared
// deadline and abort flag. A waiting cell keeps its runtime and context in this worker (quickjs-emscripten
// has no public memory snapshot): its parked cost is the runtime's live memory, an estimate.
//
// Disposal is exact: every handle the host takes is disposed in the scope that took it, then the
// context, then the runtime. QuickJS asserts in JS_FreeRuntime that no object is left; after an
// out-of-memory inside a promise job it can leave unreachable objects behind, and the assertion aborts
// the WASM module (an emscripten RuntimeError, not a crash of the thread). The engine catches that,
// counts it, drops the module and loads a fresh one from the compiled WebAssembly.Module before the
// next cell: the worker goes on. Nothing else shares a module with a cell (one cell per worker).
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import { CONTROL_ABORT, RUN_ABORTED_MESSAGE } from '../../bridge/leg-control.mjs';
import { LegFailure } from '../worker-runtime.mjs';
import { liveContinuations } from '../live-continuations.mjs';

const HOST_SYNC = '__cm_sync';

export const TIMEOUT_MESSAGE = 'code mode cell exceeded its execution budget (timeoutMs); split the work or await slow tools so the run can wait';
export const OUT_OF_MEMORY_MESSAGE =
  'code mode cell exceeded memoryLimitBytes; the VM was terminated. Keep less data in memory (results.save large values).';
/** How Bellard QuickJS reports a refused allocation: a catchable InternalError (quickjs-ng makes it uncatchable). */
const OOM_PATTERN = /^InternalError: out of memory/;

/**
 * @param {{ prelude: string, preludePrefix?: string | null, maxStackSizeBytes: number, wasmModule?: WebAssembly.Module }} opts
 */
export function createEmscriptenEngine(opts) {
  // emscripten prints its abort reason to stderr; the engine counts aborts itself (disposeAborts)
  const quiet = { print: () => undefined, printErr: () => undefined };
  const variant = newVariant(RELEASE_SYNC, { ...(opts.wasmModule ? { wasmModule: opts.wasmModule } : {}), emscriptenModule: quiet });
  /** The module the next cell runs on; null after an abort (loaded again on demand). */
  let module = null;
  const continuations = liveContinuations('e');
  const counters = { modulesLoaded: 0, runtimesCreated: 0, runtimesDisposed: 0, disposeAborts: 0, liveRuntimes: 0 };

  async function currentModule() {
    if (!module) {
      module = await newQuickJSWASMModuleFromVariant(variant);
      counters.modulesLoaded++;
    }
    return module;
  }

  function classify(err, leg) {
    if (err instanceof LegFailure) return err;
    const message = err && typeof err.message === 'string' ? err.message : String(err);
    if (message.includes('interrupted')) {
      if (leg.control[CONTROL_ABORT] !== 0) return new LegFailure('aborted', RUN_ABORTED_MESSAGE);
      return new LegFailure('timeout', TIMEOUT_MESSAGE);
    }
    if (message.includes('out of memory')) return new LegFailure('memory_limit_exceeded', OUT_OF_MEMORY_MESSAGE);
    return null;
  }

  async function create(leg) {
    const mod = await currentModule();
    const rt = mod.newRuntime();
    counters.runtimesCreated++;
    counters.liveRuntimes++;
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

  /** Context first, then runtime; an abort in the library's own teardown drops the module, never the worker. */
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

  function guestOf(mod, rt, ctx, firstLeg) {
    let leg = firstLeg;
    let disposed = false;
    let continuationId = null;
    let outOfMemory = false;
    // Bellard QuickJS stops the code that runs at an interrupt, but an async function turns the error
    // into a rejection the prelude settles with: the flag makes the entry fail with the budget's code
    let interrupted = false;
    rt.setInterruptHandler(() => {
      if (!leg || !leg.shouldInterrupt()) return false;
      interrupted = true;
      return true;
    });

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

    /** Evaluate, dispose the value; a thrown guest error becomes the leg's failure. */
    const evaluate = (code, filename) => {
      const result = ctx.evalCode(code, filename);
      if (result.error) throw interrupted ? (result.error.dispose(), classify({ message: 'interrupted' }, leg)) : failureOf(result.error, filename === 'cell.js');
      result.value.dispose();
    };

    const failureOf = (handle, compile) => {
      let dumped;
      try {
        dumped = ctx.dump(handle);
      } catch {
        dumped = undefined;
      } finally {
        handle.dispose();
      }
      const name = dumped && typeof dumped === 'object' && typeof dumped.name === 'string' ? dumped.name : 'Error';
      const message = dumped && typeof dumped === 'object' && typeof dumped.message === 'string' ? dumped.message : String(dumped);
      const known = classify({ message }, leg);
      if (known) return known;
      if (compile && name === 'SyntaxError') return new LegFailure('invalid_input', `SyntaxError: ${message}`);
      return new LegFailure('internal_error', `executor failure: ${name}: ${message}`);
    };

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

    const guest = {
      rawBytes: undefined,
      classify: (err, l) => classify(err, l),
      attach(next) {
        leg = next;
        continuationId = null;
      },
      // the runtime's own set-up in the fresh context: part of start-up, not of the cell's budget
      prepare(boot) {
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
        if (interrupted) throw classify({ message: 'interrupted' }, leg);
        if (outOfMemory) throw new LegFailure('memory_limit_exceeded', OUT_OF_MEMORY_MESSAGE);
      },
      deliver(replyJson) {
        callGlobal('__cm_deliver', replyJson).dispose();
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
          const dumped = ctx.dump(usage);
          return typeof dumped?.memory_used_size === 'number' && dumped.memory_used_size > 0 ? dumped.memory_used_size : undefined;
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
function isOutOfMemoryOutcome(payload) {
  if (payload.length > 4096 || !payload.includes('out of memory')) return false;
  try {
    const o = JSON.parse(payload);
    return Boolean(o && o.ok === false && typeof o.error === 'string' && OOM_PATTERN.test(o.error));
  } catch {
    return false;
  }
}
