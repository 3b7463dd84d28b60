// The guest controller: defines every guest global on top of two host primitives. Shared by all executors.
// long: the VM evaluates it as one plain script before the cell (a guest has no modules), so splitting it would need a build step to join it again.
//
// This file is evaluated as a plain script inside the guest (QuickJS VM or node:vm context) before the
// cell. The cell may then replace any builtin of its realm (Function.prototype.call, JSON, Promise's
// then, Array.prototype methods, Object.prototype getters, toJSON, ...). The controller must stay
// honest anyway, so it follows "primordials" rules:
//   - every builtin it uses is captured below, before any guest code runs, and methods are called
//     through `uncurry`d copies, never looked up on an object at run time (no `x.then(...)`,
//     `arr.push`, `.call`, `for..of`, spread);
//   - its own records are null-prototype objects or literals whose every field is declared up front
//     (a setter on Object.prototype cannot catch an assignment), and property descriptors are
//     null-prototype (an inherited `get` cannot poison Object.defineProperty);
//   - objects the guest or the host hand over are read with own-property checks;
//   - protocol messages are built as strings around JSON text: a guest value is stringified on its
//     own (JSON semantics, so a guest toJSON only changes that value) and checked to be a string, and
//     no toJSON can reshape the envelope;
//   - guest code that runs inside a controller call (a getter, a toJSON, a timer callback) can throw
//     only into the guest, never out of an entry point the executor calls.
// A guest that replaces builtins may break its own code's results; it cannot change what the
// controller sends to the host or reach the host primitive.
//
// Host primitives (installed by the executor before this script runs):
//   __cm_sync(op: string, payload: string): string | undefined
//     'send'     payload = request JSON   -> the executor buffers it; the frontier is dispatched after the
//                                           current drain unless the leg failed (no partial batches)
//     'overflow' payload = message        -> marks the leg failed with invalid_input
//     'emit'     payload = {kind,text}    -> one output line (the executor bounds total bytes)
//     'settle'   payload = outcome JSON   -> the cell's final value or uncaught error
//     'cancel'   payload = request id     -> a timer that was cleared while in flight
//     'api'      payload = {op,arg}       -> API.list / API.read answered synchronously from the catalog
//   __cm_take_reply(): string | undefined  (Node only) the reply the executor's __cm_deliver() call delivers
// Entry points the executor calls (non-writable, non-configurable globals):
//   __cm_boot(configJson)   once per cell: tool metadata, limits
//   __cm_run(asyncFn)       once per cell: runs the cell function and settles it
//   __cm_deliver(repliesJson) one bridge reply { id, ok, value?, error?, code? }, or a list of them
//                           (Node: no argument, the reply is taken from __cm_take_reply)
//   __cm_queued()           JSON of queued (not yet sent) requests, for the waiting board
//
// Pending requests, the queue beyond maxPendingToolCalls, timers and buffered state all live in this
// heap, so a QuickJS snapshot carries them and a Node continuation keeps them alive.
//
// tsc checks this file (checkJs) through the JSDoc below; the types are comments only, so the VM evaluates the same
// script. What the guest hands over stays `unknown` until it is read with own() or checked by type.
/** @import { GuestBootConfig } from '../bridge/protocol.ts' */
/** The host primitive (see above). @typedef {(op: string, payload: string) => string | undefined} HostSync */
/**
 * The realm's global as the prelude finds it: the host primitives the executor installed before this script.
 * @typedef {typeof globalThis & { __cm_sync?: HostSync, __cm_take_reply?: () => string | undefined }} GuestGlobal
 */
/** A request not yet sent: its id, its envelope as JSON text, and the timer it starts (0: none). @typedef {{ id: string, json: string, timer: number }} OutgoingRequest */
/**
 * A request waiting for its reply: how its promise settles (`map` turns the reply value into what it resolves to), or
 * the timer it fires (0: none; a timer has no promise).
 * @typedef {{ resolve: (value: unknown) => void, reject: (reason: unknown) => void, map: ((value: unknown) => unknown) | null, timer: number }} PendingEntry
 */
/**
 * A guest timer: its callback and up to three arguments, its request, whether that was sent, its place in the queue
 * (-1: sent at once), and when it is due on the logical clock.
 * @typedef {{ fn: Function, a0: unknown, a1: unknown, a2: unknown, requestId: string | null, sent: boolean, queueSeq: number, dueMs: number }} GuestTimer
 */
/** Builds a request's own fields as JSON text; may throw (a guest value that cannot cross). @typedef {() => string} FieldsJson */
(/** @param {GuestGlobal} global */ function (global) {
  'use strict';
  // ---- primordials: captured before any guest code runs -----------------------------------------
  var sync = /** @type {HostSync} */ (global.__cm_sync); // called only as a plain local call: nothing to look up, `this` undefined
  // Node executor only: the inbox __cm_deliver() reads a reply from (a vm script cannot pass one an argument)
  var takeReply = typeof global.__cm_take_reply === 'function' ? global.__cm_take_reply : null;
  // the inbox is the Node executor's alone: where the engines differ, this says which one runs the cell
  var onNode = takeReply !== null;
  var FunctionProto = Function.prototype;
  // uncurry(f)(self, a, b) is f.call(self, a, b) without reading `.call` when it runs
  /** @type {<T, A extends unknown[], R>(method: (this: T, ...args: A) => R) => (self: T, ...args: A) => R} */
  var uncurry = FunctionProto.bind.bind(FunctionProto.call);
  var JSONstringify = JSON.stringify;
  var JSONparse = JSON.parse;
  var PromiseCtor = Promise;
  var promiseThen = uncurry(Promise.prototype.then);
  var ErrorCtor = Error;
  var ErrorProto = Error.prototype;
  var StringCtor = String;
  var ObjectCreate = Object.create;
  var ObjectKeys = Object.keys;
  var defineProperty = Object.defineProperty;
  var freeze = Object.freeze;
  var hasOwn = uncurry(Object.prototype.hasOwnProperty);
  var isPrototypeOf = uncurry(Object.prototype.isPrototypeOf);
  var isArray = Array.isArray;
  var numberIsFinite = Number.isFinite;
  var ProxyCtor = Proxy;
  var SetCtor = Set;
  var setAdd = uncurry(Set.prototype.add);
  var setHas = uncurry(Set.prototype.has);
  var setDelete = uncurry(Set.prototype.delete);
  var RealDate = Date;
  var ReflectConstruct = Reflect.construct;
  var imul = Math.imul;
  var mathFloor = Math.floor;

  delete global.__cm_sync;
  delete global.__cm_take_reply;

  // Bounded by the executor config (maxPendingToolCalls), set in __cm_boot.
  var maxInFlight = 16;
  // Spec: "At most 128 ordinary requests can be queued, independently of the configured in-flight cap".
  var MAX_QUEUED = 128;
  /**
   * Nesting limit for every value that crosses the bridge (tool inputs, store, results.save, the final
   * value). Real JSON data nests a few dozen levels at most; 1000 leaves generated trees ample room while
   * every recursive walk of the value (QuickJS's JSON.stringify on its 256 KiB stack with our replacer
   * frames, V8's in a worker, the host's parse, re-serialization and the playground's viewer) stays far
   * from its stack limit, so a deep value fails here with a clear error instead of a stack overflow.
   * The host re-checks final values against the same number (MAX_VALUE_DEPTH in server/runs/bound.ts;
   * bound.test.ts keeps the two equal).
   */
  var MAX_VALUE_DEPTH = 1000;
  /**
   * The longest timer delay, the sleep tool's cap (MAX_SLEEP_MS, ten minutes): a longer delay is clamped to it,
   * as a browser clamps what it cannot hold instead of refusing it, so a run never waits days on a timer while it
   * holds a suspended-run slot. Clamped here too, so the logical clock and the waiting board see the delay the
   * host keeps (the host clamps again: MAX_TIMER_DELAY_MS in server/bridge/dispatcher.ts, held equal by its test).
   */
  var MAX_TIMER_MS = 600000;
  /**
   * The bridge's length limits (server/bridge/protocol-check.mjs MAX_NAME_CHARS and MAX_QUERY_CHARS; its test
   * keeps them equal): a store key or result ref, and a catalog.search query. Checked here so a cell gets a
   * catchable error naming the limit; past the host's check the whole cell fails as a malformed message.
   */
  var MAX_NAME_CHARS = 1024;
  var MAX_QUERY_CHARS = 65536;

  var nextId = 1;
  var inFlight = 0;
  /** @type {Record<string, PendingEntry>} */
  var pending = ObjectCreate(null); // id -> entry (see request)
  /** @type {Record<number, OutgoingRequest>} */
  var queue = ObjectCreate(null); // seq -> { id, json, timer }, or absent once a queued timer is cleared
  var queueHead = 0;
  var queueTail = 0;
  // Queued requests still waiting for a slot: seqs between head and tail minus the holes cleared timers left,
  // so a cleared timer frees its place in the queue at once, wherever it was.
  var queuedLive = 0;
  /** @type {Record<number, GuestTimer>} */
  var timers = ObjectCreate(null); // timer id -> { fn, a0, a1, a2, requestId, sent, queueSeq, dueMs }
  var failedFrontier = false;

  function queuedCount() {
    return queuedLive;
  }

  /** Drops the holes at both ends of the queue, so pump and __cm_queued never walk past them again. */
  function trimQueue() {
    while (queueHead < queueTail && !queue[queueHead]) queueHead++;
    while (queueTail > queueHead && !queue[queueTail - 1]) queueTail--;
  }

  function noop() {}

  /** An own data property of `obj`, or undefined: inherited getters (guest-installed) never run. @param {unknown} obj @param {string} key @returns {unknown} */
  function own(obj, key) {
    return obj !== null && typeof obj === 'object' && hasOwn(obj, key) ? /** @type {Record<string, unknown>} */ (obj)[key] : undefined;
  }

  /** JSON text of a primitive string: JSON.stringify consults no toJSON or replacer for a primitive. @param {string} s */
  function quote(s) {
    return JSONstringify(s);
  }

  /** @param {object} obj @param {PropertyKey} key @param {unknown} value @param {boolean} enumerable */
  function dataProperty(obj, key, value, enumerable) {
    defineProperty(obj, key, /** @type {PropertyDescriptor} */ ({ __proto__: null, value: value, writable: true, enumerable: enumerable, configurable: true }));
  }

  /** @param {string} message @param {string} [code] @param {string} [name] */
  function makeError(message, code, name) {
    var err = new ErrorCtor(message);
    if (name) dataProperty(err, 'name', name, true);
    if (code) dataProperty(err, 'code', code, true);
    return err;
  }

  /**
   * The invalid_input error for a string argument past a bridge length limit; `todo` says what to do instead.
   * @param {string} what @param {string} s @param {number} max @param {string} todo
   */
  function tooLong(what, s, max, todo) {
    return makeError(what + ' is ' + s.length + ' characters, over the ' + max + '-character limit; ' + todo, 'invalid_input');
  }

  /**
   * A rejected promise for the guest. A cell may never await a call (fire and forget, the loser of a Promise.race):
   * its failure then stays an unhandled rejection, which is harmless: QuickJS ignores those, and the Node executor's
   * worker drops a guest realm's unhandled rejections (node/worker.mjs), so no bridge promise needs a handler of its own.
   * @param {unknown} reason
   * @returns {Promise<never>}
   */
  function rejected(reason) {
    return new PromiseCtor(function (/** @type {unknown} */ _resolve, /** @type {(reason: unknown) => void} */ reject) {
      reject(reason);
    });
  }

  /**
   * Appends to an array the controller made and hands out: defined, so an index setter on Array.prototype never runs.
   * @template T @param {T[]} arr @param {T} value
   */
  function append(arr, value) {
    dataProperty(arr, arr.length, value, true);
  }

  // ---- guest values -> JSON text ----------------------------------------------------------------
  /**
   * Path entries checked by a plain scan before the Set is consulted: real data rarely nests deeper, and in
   * QuickJS a scan of a few dozen entries costs less than calls into Set (measured: 30k flat rows
   * serialize several times faster than with a Set alone), while deeper paths still cost O(1) per check.
   */
  var PATH_SCAN_LIMIT = 32;

  /**
   * JSON text of a guest value with JSON.stringify's semantics (toJSON, getters and proxies run: they are
   * the guest's own choice of value), plus: a bigint becomes a string, a cycle is named as such (the same
   * object twice, `[a, a]`, is not a cycle), nesting is bounded by MAX_VALUE_DEPTH. The cycle check looks
   * only at the current path (ancestors of the value being visited), so it is linear in the size of the
   * value. Returns a string, or undefined when the value has no JSON form (a function, a symbol). Throws
   * an invalid_input error that names `what`.
   * @param {unknown} value @param {string} what
   * @returns {string | undefined}
   */
  function serialize(value, what) {
    /** @type {Record<number, object>} */
    var path = ObjectCreate(null); // depth (1-based) -> the object on the current path at that depth
    var pathLength = 0;
    /** @type {Set<object> | null} */
    var deepOnPath = null; // Set of the path entries deeper than PATH_SCAN_LIMIT, made when first needed
    /** @this {unknown} @param {string} _key @param {unknown} v */
    function replacer(_key, v) {
      if (typeof v === 'bigint') return StringCtor(v);
      if (typeof v !== 'object' || v === null) return v;
      // `this` is the holder, an ancestor on the path (the root's holder is JSON.stringify's own wrapper):
      // JSON.stringify walks depth-first, so everything above the holder is finished. Each entry is
      // pushed and popped once, so the popping is linear overall.
      while (pathLength > 0 && path[pathLength] !== this) {
        // past PATH_SCAN_LIMIT entries the set exists: it was made when the path first grew that deep
        if (pathLength > PATH_SCAN_LIMIT) setDelete(/** @type {Set<object>} */ (deepOnPath), path[pathLength]);
        pathLength--;
      }
      var scan = pathLength < PATH_SCAN_LIMIT ? pathLength : PATH_SCAN_LIMIT;
      var cycle = false;
      for (var i = 1; i <= scan; i++) if (path[i] === v) cycle = true;
      if (cycle || (pathLength > PATH_SCAN_LIMIT && setHas(/** @type {Set<object>} */ (deepOnPath), v))) {
        throw makeError(what + ' contains a circular reference (an object inside itself); pass plain JSON data', 'invalid_input');
      }
      if (pathLength >= MAX_VALUE_DEPTH) {
        throw makeError(what + ' is nested more than ' + MAX_VALUE_DEPTH + ' levels deep; flatten it or pass a smaller part', 'invalid_input');
      }
      pathLength++;
      path[pathLength] = v;
      if (pathLength > PATH_SCAN_LIMIT) {
        if (deepOnPath === null) deepOnPath = new SetCtor();
        setAdd(deepOnPath, v);
      }
      return v;
    }
    var json;
    // only on Node, whose engine throws a string-length RangeError: a QuickJS VM out of memory throws an
    // exception that a catch here would turn into a plain `throw null`, hiding memory_limit_exceeded (cell 25)
    if (!onNode) {
      json = JSONstringify(value, replacer);
    } else {
      try {
        json = JSONstringify(value, replacer);
      } catch (e) {
        throw tooLargeToSerialize(e, what);
      }
    }
    return typeof json === 'string' ? json : undefined;
  }

  /**
   * An engine's string-length error while serializing (a sparse array of 2^32-1 holes is billions of "null"s)
   * becomes an invalid_input that says what to do; every other error (the guest's own, a cycle, depth) is
   * passed on as it is.
   * @param {unknown} e @param {string} what
   */
  function tooLargeToSerialize(e, what) {
    var message;
    try {
      message = e !== null && typeof e === 'object' && !hasOwn(e, 'code') ? /** @type {{ message?: unknown }} */ (e).message : undefined;
    } catch (e2) {
      return e;
    }
    if (typeof message !== 'string' || !(message === 'Invalid string length' || message === 'string too long')) return e;
    return makeError(what + ' is too large to serialize (' + message + '); pass a smaller value, or results.save it in parts', 'invalid_input');
  }

  /** serialize() for a value that must have a JSON form: undefined is null, a function or symbol is refused. @param {unknown} value @param {string} what */
  function serializeData(value, what) {
    if (value === undefined) return 'null';
    var json = serialize(value, what);
    if (json === undefined) {
      throw makeError(what + ' is not JSON data (a function, a symbol, or a toJSON that returned undefined); pass plain JSON data', 'invalid_input');
    }
    return json;
  }


  // ---- time and randomness -----------------------------------------------------------------------
  /**
   * The guest's clock and random numbers (docs/decisions.md, "The guest's clock"). Math.random is mulberry32
   * over the run's seed, so a seed repeats it. Date.now, `new Date()`, `Date()` and performance.now read one
   * clock, in one of three modes the host picks (boot config `clock`):
   *   real     the host's own clock (a run without an explicit seed): it moves across awaits and tool calls;
   *   logical  an explicitly seeded run: starts at a seed-derived instant of 2025 and moves only when a timer
   *            fires (to the time that timer was due), so the same seed and tool results give the same value on
   *            every engine, whenever it runs;
   *   replay   a replay of a recording: the recorded readings, in order; reading once more than recorded fails
   *            the leg with replay_mismatch (the 'replay' primitive), as a call the cassette does not hold does.
   * Every reading is recorded as run-length pairs (the difference from the previous reading, then how many
   * readings in a row had that value), at most MAX_CLOCK_RUNS pairs per run: past them readings are only
   * counted. The executor takes the pairs out at the end of each leg (__cm_clock), so a QuickJS snapshot, a
   * live continuation and a fork all keep them. performance.now is the reading minus the run's start, in
   * whole milliseconds (coarse on purpose: a fine timer is a side-channel tool in a sandbox). All of this
   * lives in this heap: a snapshot carries it, a fork continues it.
   */
  var CLOCK_BASE_MS = 1735689600000; // 2025-01-01T00:00:00Z
  var YEAR_MS = 365 * 24 * 3600 * 1000;
  // the host keeps the same cap (MAX_CLOCK_RUNS in server/runs/clock.ts; its test holds them equal)
  var MAX_CLOCK_RUNS = 10000;
  var realDateNow = Date.now;
  /** @type {'real' | 'logical' | 'replay'} */
  var clockMode = 'real';
  var clockMs = CLOCK_BASE_MS; // the logical clock's now
  var clockStartMs = CLOCK_BASE_MS; // the run's start: performance.now's origin
  var prngState = 0;
  // replay: the recorded pairs, the next pair, readings left in the current one, its value, how many were read
  /** @type {number[] | null} */
  var replayRuns = null;
  var replayPair = 0;
  var replayLeft = 0;
  var replayValue = 0;
  var replayRead = 0;
  var replayRecorded = 0;
  var replayDropped = 0;
  // the recording: pairs not yet taken by the executor, the last value recorded, pairs so far, readings past the cap
  /** @type {number[]} */
  var recRuns = [];
  var recPrev = 0;
  var recPairs = 0;
  var recDropped = 0;
  var recDroppedTaken = 0;

  /** mulberry32: 32 bits of state, the same sequence for the same seed on every engine. */
  function nextRandom() {
    prngState = (prngState + 0x6d2b79f5) | 0;
    var t = imul(prngState ^ (prngState >>> 15), 1 | prngState);
    t = (t + imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** @param {number} v */
  function recordReading(v) {
    if (recDropped > 0) {
      recDropped++;
      return;
    }
    var d = v - recPrev;
    var n = recRuns.length;
    if (d === 0 && n > 0) {
      recRuns[n - 1] = /** @type {number} */ (recRuns[n - 1]) + 1;
      return;
    }
    if (recPairs >= MAX_CLOCK_RUNS) {
      recDropped = 1;
      return;
    }
    recPrev = v;
    recPairs++;
    append(recRuns, d);
    append(recRuns, 1);
  }

  /** @param {number} n */
  function ordinal(n) {
    var tens = n % 100;
    var suffix = tens >= 11 && tens <= 13 ? 'th' : n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th';
    return n + suffix;
  }

  /** The next recorded reading of a replay; one past the recording fails the leg (replay_mismatch) and throws. @param {string} what */
  function replayNext(what) {
    if (replayLeft === 0) {
      // replay mode is set with its pairs (installClock)
      if (replayPair + 1 >= /** @type {number[]} */ (replayRuns).length) {
        var msg =
          'replay_mismatch: the cell read the clock a ' + ordinal(replayRead + 1) + ' time (' + what + '), but the cassette recorded ' +
          replayRecorded + ' reading' + (replayRecorded === 1 ? '' : 's') +
          (replayDropped > 0 ? ' (the recording kept its first ' + MAX_CLOCK_RUNS + ' changes of value and only counted ' + replayDropped + ' later readings)' : '') +
          '. The cell or its tool results changed since the recording: record the cassette again, or fix the cell.';
        sync('replay', msg);
        throw makeError(msg, 'replay_mismatch', 'ReplayMismatch');
      }
      // the host checked the pairs (finite differences, positive counts), and the check above keeps both in range
      replayValue += /** @type {number} */ (/** @type {number[]} */ (replayRuns)[replayPair]);
      replayLeft = /** @type {number} */ (/** @type {number[]} */ (replayRuns)[replayPair + 1]);
      replayPair += 2;
    }
    replayLeft--;
    replayRead++;
    return replayValue;
  }

  /** One clock reading (`what` names the call, for a replay that runs out): recorded, then returned. @param {string} what */
  function readClock(what) {
    var v = clockMode === 'replay' ? replayNext(what) : clockMode === 'logical' ? clockMs : realDateNow();
    recordReading(v);
    return v;
  }

  defineProperty(global, '__cm_clock', /** @type {PropertyDescriptor} */ ({
    __proto__: null,
    // the readings recorded since the last take, as JSON ('' when none): the executor calls it at the end of a leg
    value: function () {
      var dropped = recDropped - recDroppedTaken;
      if (recRuns.length === 0 && dropped === 0) return '';
      var out = '{"runs":[';
      for (var i = 0; i < recRuns.length; i++) out += (i === 0 ? '' : ',') + JSONstringify(recRuns[i]);
      out += '],"dropped":' + JSONstringify(dropped) + '}';
      recRuns = [];
      recDroppedTaken = recDropped;
      return out;
    },
  }));

  /**
   * `clock`: the boot config's { mode, startMs, runs?, recorded?, dropped? } (the host checked it); `seed`: the run's.
   * Read with own() and checked anyway: the config is JSON the guest realm parsed.
   * @param {unknown} seed @param {unknown} clock
   */
  function installClock(seed, clock) {
    var seeded = typeof seed === 'number' && seed >= 0 && seed <= 4294967295 && mathFloor(seed) === seed;
    if (seeded) {
      prngState = /** @type {number} */ (seed) | 0;
      // the logical clock's start is the seed's first draw in every mode, so Math.random repeats whichever clock
      // the run reads (and cassettes recorded before the real clock replay as they did)
      clockMs = CLOCK_BASE_MS + mathFloor(nextRandom() * (YEAR_MS / 1000)) * 1000;
    }
    var mode = own(clock, 'mode');
    var startMs = own(clock, 'startMs');
    if (mode === 'logical' && seeded) {
      clockMode = 'logical';
      clockStartMs = clockMs;
    } else if (mode === 'replay' && isArray(own(clock, 'runs')) && numberIsFinite(startMs)) {
      // Number.isFinite holds for numbers only: each value it passed below is a number
      clockMode = 'replay';
      clockStartMs = /** @type {number} */ (startMs);
      replayRuns = /** @type {number[]} */ (own(clock, 'runs'));
      replayValue = /** @type {number} */ (startMs);
      var recorded = own(clock, 'recorded');
      var droppedBefore = own(clock, 'dropped');
      replayRecorded = numberIsFinite(recorded) ? /** @type {number} */ (recorded) : 0;
      replayDropped = numberIsFinite(droppedBefore) ? /** @type {number} */ (droppedBefore) : 0;
    } else {
      clockMode = 'real';
      clockStartMs = numberIsFinite(startMs) ? /** @type {number} */ (startMs) : realDateNow();
    }
    recPrev = clockStartMs;
    var DateProto = RealDate.prototype;
    /**
     * The guest's Date: the real one, reading the guest clock when given no time.
     * @param {unknown} [a0] @param {unknown} [a1] @param {unknown} [a2] @param {unknown} [a3] @param {unknown} [a4] @param {unknown} [a5] @param {unknown} [a6]
     */
    var GuestDate = function Date(a0, a1, a2, a3, a4, a5, a6) {
      var n = arguments.length;
      // called as a function: the current time as a string, as the real Date does
      if (new.target === undefined) return new RealDate(readClock('Date()')).toString();
      if (n === 0) return ReflectConstruct(RealDate, [readClock('new Date()')], new.target);
      var args = [a0];
      if (n > 1) append(args, a1);
      if (n > 2) append(args, a2);
      if (n > 3) append(args, a3);
      if (n > 4) append(args, a4);
      if (n > 5) append(args, a5);
      if (n > 6) append(args, a6);
      return ReflectConstruct(RealDate, args, new.target);
    };
    defineProperty(GuestDate, 'prototype', /** @type {PropertyDescriptor} */ ({ __proto__: null, value: DateProto, writable: false, enumerable: false, configurable: false }));
    defineProperty(GuestDate, 'length', /** @type {PropertyDescriptor} */ ({ __proto__: null, value: 7, configurable: true }));
    dataProperty(GuestDate, 'now', function now() {
      return readClock('Date.now()');
    }, false);
    dataProperty(GuestDate, 'parse', RealDate.parse, false);
    dataProperty(GuestDate, 'UTC', RealDate.UTC, false);
    dataProperty(DateProto, 'constructor', GuestDate, false);
    dataProperty(global, 'Date', GuestDate, false);
    if (seeded) {
      dataProperty(Math, 'random', function random() {
        return nextRandom();
      }, false);
    }
    var perfNow = function now() {
      return readClock('performance.now()') - clockStartMs;
    };
    var perf = global.performance;
    var replaced = false;
    if (perf !== null && typeof perf === 'object') {
      try {
        dataProperty(perf, 'now', perfNow, false);
        dataProperty(perf, 'timeOrigin', clockStartMs, true);
        replaced = true;
      } catch (e) {
        // an engine's own performance object that refuses the change is replaced whole below
      }
    }
    if (!replaced) {
      // Node's contexts and quickjs-emscripten have no performance global: every engine gets the same one
      var ownPerf = ObjectCreate(null);
      dataProperty(ownPerf, 'now', perfNow, false);
      dataProperty(ownPerf, 'timeOrigin', clockStartMs, true);
      dataProperty(global, 'performance', ownPerf, false);
    }
  }

  // ---- requests ---------------------------------------------------------------------------------
  /** @param {OutgoingRequest} record */
  function send(record) {
    // a timer's record is dropped from the queue when the timer is cleared, so a sent one still has its timer
    if (record.timer) /** @type {GuestTimer} */ (timers[record.timer]).sent = true;
    inFlight++;
    sync('send', record.json);
  }

  function pump() {
    while (inFlight < maxInFlight && queueHead < queueTail) {
      var record = queue[queueHead];
      delete queue[queueHead];
      queueHead++;
      if (!record) continue; // a timer cleared while queued: never starts a host timer
      queuedLive--;
      send(record);
    }
  }

  /**
   * Every bridge request goes through here: sent now when a slot is free, queued otherwise. `fieldsJson`
   * is the request's own fields as JSON text (`,"tool":"x","input":{...}`); the envelope around it is
   * built here. `map` turns the reply value into what the promise resolves to; a timer has no promise.
   * @param {string} op @param {string} fieldsJson @param {((value: unknown) => unknown) | null} [map] @param {number} [timer]
   * @returns {{ id: string, promise: Promise<unknown> | undefined, seq: number }}
   */
  function request(op, fieldsJson, map, timer) {
    if (failedFrontier) {
      throw makeError('code mode bridge refused this request: an earlier request in this cell overflowed the queue', 'invalid_input');
    }
    var id = 'r' + nextId++;
    /** @type {OutgoingRequest} */
    var record = /** @type {OutgoingRequest} */ ({ __proto__: null, id: id, json: '{"id":' + quote(id) + ',"op":' + quote(op) + fieldsJson + '}', timer: timer || 0 });
    /** @type {PendingEntry} */
    var entry = /** @type {PendingEntry} */ ({ __proto__: null, resolve: noop, reject: noop, map: map || null, timer: timer || 0 });
    /** @type {Promise<unknown> | undefined} */
    var promise;
    var seq = -1; // the request's place in the queue, or -1 when it was sent at once
    if (!timer) {
      promise = new PromiseCtor(function (resolve, reject) {
        entry.resolve = resolve;
        entry.reject = reject;
      });
    }
    if (inFlight < maxInFlight) {
      pending[id] = entry;
      send(record);
    } else {
      if (queuedCount() >= MAX_QUEUED) {
        failedFrontier = true;
        var msg =
          'too many concurrent code mode requests: ' + maxInFlight + ' may run and ' + MAX_QUEUED +
          ' may queue. Await smaller batches (for example chunks of ' + maxInFlight + ' in a loop).';
        sync('overflow', msg);
        throw makeError(msg, 'invalid_input');
      }
      pending[id] = entry;
      seq = queueTail++;
      queue[seq] = record;
      queuedLive++;
    }
    return /** @type {{ id: string, promise: Promise<unknown> | undefined, seq: number }} */ ({ __proto__: null, id: id, promise: promise, seq: seq });
  }

  /**
   * A request whose fields come from guest values: a value that cannot cross (cycle, depth, toJSON throwing) rejects it.
   * @param {string} op @param {FieldsJson} fields @param {(value: unknown) => unknown} [map]
   * @returns {Promise<unknown>}
   */
  function callOp(op, fields, map) {
    var fieldsJson;
    try {
      fieldsJson = fields();
    } catch (e) {
      return rejected(e);
    }
    // a request without a timer always has its promise
    return /** @type {Promise<unknown>} */ (request(op, fieldsJson, map).promise);
  }

  /** @param {GuestTimer} t */
  function runTimer(t) {
    // the logical clock: a timer fires at the time it was due, however long the host really took
    if (clockMode === 'logical' && t.dueMs > clockMs) clockMs = t.dueMs;
    var fn = t.fn;
    try {
      fn(t.a0, t.a1, t.a2);
    } catch (e) {
      reportUncaught(e);
    }
  }

  defineProperty(global, '__cm_deliver', /** @type {PropertyDescriptor} */ ({
    __proto__: null,
    /** @param {unknown} [repliesJson] */
    value: function (repliesJson) {
      // one reply, or a list of them (every reply of one host message: one entry into the VM); on Node the
      // executor calls this without one and the reply waits in the inbox (empty when the guest calls it)
      if (repliesJson === undefined && onNode) repliesJson = /** @type {() => string | undefined} */ (takeReply)();
      /** @type {unknown} */
      var parsed;
      try {
        parsed = JSONparse(/** @type {string} */ (repliesJson));
      } catch (e) {
        return;
      }
      if (!isArray(parsed)) return deliverOne(parsed);
      // a fresh array from JSON.parse: its length and elements are its own data properties
      for (var i = 0, n = parsed.length; i < n; i++) deliverOne(parsed[i]);
    },
  }));

  /** @param {unknown} reply */
  function deliverOne(reply) {
    // Guest code can run in here (a timer callback, a getter or `then` on the resolved value); it may
    // throw only into the guest, never out of this entry point.
    var id = own(reply, 'id');
    if (typeof id !== 'string') return;
    var entry = pending[id];
    if (!entry) return;
    delete pending[id];
    inFlight--;
    if (own(reply, 'ok') === true) {
      if (entry.timer) {
        var t = timers[entry.timer];
        if (t) {
          delete timers[entry.timer];
          runTimer(t);
        }
      } else {
        var value = own(reply, 'value');
        if (entry.map) {
          try {
            value = entry.map(value);
          } catch (e) {
            entry.reject(e);
            pump();
            return;
          }
        }
        entry.resolve(value);
      }
    } else {
      var error = own(reply, 'error');
      var code = own(reply, 'code');
      var name = own(reply, 'name');
      var err;
      try {
        err = makeError(
          typeof error === 'string' && error ? error : 'tool failed',
          typeof code === 'string' && code ? code : 'tool_error',
          typeof name === 'string' && name ? name : 'ToolError',
        );
      } catch (e) {
        err = e; // a guest Error.prepareStackTrace threw: the guest gets its own error
      }
      entry.reject(err);
    }
    pump();
  }

  defineProperty(global, '__cm_queued', /** @type {PropertyDescriptor} */ ({
    __proto__: null,
    value: function () {
      var out = '[';
      for (var i = queueHead; i < queueTail; i++) {
        var record = queue[i];
        if (record) out += (out === '[' ? '' : ',') + record.json;
      }
      return out + ']';
    },
  }));

  // ---- output -----------------------------------------------------------------------------------
  /** @param {unknown} v @returns {string} */
  function formatValue(v) {
    if (typeof v === 'string') return v;
    if (v === undefined) return 'undefined';
    if (typeof v === 'function') return '[Function ' + (v.name || 'anonymous') + ']';
    if (typeof v === 'bigint') return StringCtor(v) + 'n';
    if (typeof v === 'symbol') return StringCtor(v);
    if (v !== null && typeof v === 'object' && isPrototypeOf(ErrorProto, v)) return (/** @type {Error} */ (v).name || 'Error') + ': ' + /** @type {Error} */ (v).message;
    try {
      var s = JSONstringify(v);
      return s === undefined ? StringCtor(v) : s;
    } catch (e) {
      return '[unserializable ' + typeof v + ']';
    }
  }
  /** formatValue that always returns a string: a guest getter, proxy or toString that throws cannot escape. @param {unknown} v */
  function safeFormat(v) {
    try {
      var s = formatValue(v);
      return typeof s === 'string' ? s : '[unprintable ' + typeof v + ']';
    } catch (e) {
      return '[unprintable ' + typeof v + ']';
    }
  }
  /** @param {string} kind @param {string} text */
  function emitLine(kind, text) {
    sync('emit', '{"kind":' + quote(kind) + ',"text":' + quote(text) + '}');
  }
  /** @param {string} kind @param {ArrayLike<unknown>} args */
  function emit(kind, args) {
    var text = '';
    for (var i = 0; i < args.length; i++) text += (i === 0 ? '' : ' ') + safeFormat(args[i]);
    emitLine(kind, text);
  }
  /** @type {Record<string, (...args: unknown[]) => void>} */
  var consoleObj = ObjectCreate(null);
  var consoleKinds = ['log', 'info', 'warn', 'error', 'debug'];
  for (var c = 0; c < consoleKinds.length; c++) {
    (function (/** @type {string} */ kind) {
      consoleObj[kind] = function () {
        emit(kind, arguments);
      };
    })(/** @type {string} */ (consoleKinds[c]));
  }

  /** @param {unknown} e */
  function reportUncaught(e) {
    emitLine('error', 'Uncaught ' + safeFormat(e));
  }

  // ---- final value ------------------------------------------------------------------------------
  var started = false;
  var settled = false;

  /** @param {string} outcomeJson */
  function settleWith(outcomeJson) {
    if (settled) return;
    settled = true;
    sync('settle', outcomeJson);
  }

  // Building an outcome can itself fail (a string past the engine's length limit while escaping a huge
  // value or message). These run as promise reactions, where a throw would be swallowed and the cell
  // would never settle, so each falls back to a short outcome that always fits.
  var UNREPORTABLE_VALUE = '{"ok":false,"error":"the final value is too large to report; return a smaller value or results.save it in parts","code":"invalid_input"}';
  var UNREPORTABLE_ERROR = '{"ok":false,"error":"Uncaught error (too large to report)"}';

  /** @param {unknown} value */
  function settleValue(value) {
    if (settled) return;
    var outcome;
    try {
      var json = serialize(value === undefined ? null : value, 'the final value');
      outcome = '{"ok":true,"json":' + quote(json === undefined ? 'null' : json) + '}';
    } catch (e) {
      try {
        outcome = '{"ok":false,"error":' + quote(safeFormat(e)) + ',"code":"invalid_input"}';
      } catch (e2) {
        outcome = UNREPORTABLE_VALUE;
      }
    }
    settleWith(outcome);
  }

  /** @param {unknown} err */
  function settleError(err) {
    if (settled) return;
    var message = safeFormat(err);
    var stack;
    var toolCode;
    try {
      // guest getters may run here; only strings cross
      if (err !== null && (typeof err === 'object' || typeof err === 'function')) {
        stack = /** @type {{ stack?: unknown }} */ (err).stack;
        toolCode = /** @type {{ code?: unknown }} */ (err).code;
      }
    } catch (e) {
      // an error whose fields throw still fails the cell with its message
    }
    var outcome;
    try {
      outcome =
        '{"ok":false,"error":' + quote(message) +
        (typeof stack === 'string' ? ',"stack":' + quote(stack) : '') +
        (typeof toolCode === 'string' ? ',"toolCode":' + quote(toolCode) : '') +
        '}';
    } catch (e) {
      outcome = UNREPORTABLE_ERROR;
    }
    settleWith(outcome);
  }

  defineProperty(global, '__cm_run', /** @type {PropertyDescriptor} */ ({
    __proto__: null,
    /** @param {() => unknown} fn */
    value: function (fn) {
      // the executor calls this once, before the cell's first line runs; a second call is the guest's
      if (started) throw makeError('__cm_run belongs to the code mode executor and runs once per cell', 'invalid_input');
      started = true;
      var p;
      try {
        p = fn();
      } catch (e) {
        settleError(e);
        return;
      }
      try {
        // An own `constructor` makes `then` skip the species lookup on Promise.prototype.constructor
        // (guest-writable), so the settle callbacks are always registered on the cell's own promise.
        // (not a promise: defineProperty or then throws, and the catch below settles with the value itself)
        defineProperty(p, 'constructor', /** @type {PropertyDescriptor} */ ({ __proto__: null, value: undefined }));
        promiseThen(/** @type {Promise<unknown>} */ (p), settleValue, settleError);
      } catch (e) {
        settleValue(p); // not a promise: the function's value is the cell's value
      }
    },
  }));

  // ---- boot: globals from the catalog -----------------------------------------------------------
  var booted = false;
  defineProperty(global, '__cm_boot', /** @type {PropertyDescriptor} */ ({
    __proto__: null,
    /** @param {string} configJson */
    value: function (configJson) {
      if (booted) throw makeError('__cm_boot belongs to the code mode executor and runs once per cell', 'invalid_input');
      booted = true;
      /** @type {GuestBootConfig} */
      var cfg = JSONparse(configJson);
      if (numberIsFinite(cfg.maxPendingToolCalls) && cfg.maxPendingToolCalls > 0) maxInFlight = cfg.maxPendingToolCalls;
      installClock(cfg.seed, cfg.clock);

      /** @type {Record<string, Function>} */
      var handles = ObjectCreate(null); // callableName -> handle

      /** @param {GuestBootConfig['tools'][number]} meta */
      function makeHandle(meta) {
        var toolField = ',"tool":' + quote(meta.callableName);
        var label = 'the input of ' + meta.callableName + '()';
        /**
         * A tool's handle, with its metadata as own properties (frozen below).
         * @type {((input: unknown) => Promise<unknown>) & { callableName?: string, description?: string, source?: string, describe?: () => Promise<unknown> }}
         */
        var handle = function (input) {
          // a bigint input would cross as its string (serialize), and the host would name the wrong type
          if (typeof input === 'bigint') {
            return rejected(makeError(meta.callableName + ': "input" must be one object, got a bigint; call it as ' + meta.callableName + '({ ...input })', 'invalid_input'));
          }
          return callOp('call', function () {
            return toolField + ',"input":' + (input === undefined ? '{}' : serializeData(input, label));
          });
        };
        // `name` is the exact tool name (as declared); `callableName` the guest global
        defineProperty(handle, 'name', /** @type {PropertyDescriptor} */ ({ __proto__: null, value: meta.name }));
        handle.callableName = meta.callableName;
        handle.description = meta.description;
        handle.source = meta.source;
        handle.describe = function () {
          return callOp('describe', function () {
            return toolField;
          });
        };
        return freeze(handle);
      }

      var tools = cfg.tools || [];
      for (var i = 0; i < tools.length; i++) {
        var meta = /** @type {GuestBootConfig['tools'][number]} */ (tools[i]);
        var h = makeHandle(meta);
        handles[meta.callableName] = h;
        defineProperty(global, meta.callableName, /** @type {PropertyDescriptor} */ ({ __proto__: null, value: h, writable: true, configurable: true, enumerable: false }));
      }

      /**
       * Catalog metadata from the host (a JSON array of { callableName, name, description, source }, from the run's
       * own catalog) -> this cell's handles. A cell boots with globals only for the tools its source names
       * (catalog/boot-tools.ts); a handle for any other tool is made here, from the host's metadata, the first time a
       * search or catalog.all() returns it, and is the same handle every later time.
       * @param {unknown} list
       */
      function toHandles(list) {
        /** @type {Function[]} */
        var out = [];
        if (!isArray(list)) return out;
        for (var j = 0; j < list.length; j++) {
          var item = list[j];
          var name = own(item, 'callableName');
          if (typeof name !== 'string') continue;
          var hh = handles[name];
          if (!hh) {
            var metaName = own(item, 'name');
            var metaDescription = own(item, 'description');
            var metaSource = own(item, 'source');
            if (typeof metaName !== 'string' || typeof metaDescription !== 'string' || typeof metaSource !== 'string') continue;
            hh = handles[name] = makeHandle({ callableName: name, name: metaName, description: metaDescription, source: metaSource });
          }
          append(out, hh);
        }
        return out;
      }

      /** @type {Record<string, Function>} */
      var catalog = ObjectCreate(null);
      /** @param {unknown} query @param {unknown} opts */
      catalog.search = function (query, opts) {
        return callOp(
          'search',
          function () {
            var limit = opts !== null && typeof opts === 'object' ? /** @type {{ limit?: unknown }} */ (opts).limit : undefined;
            // the host reads only a number; anything else means the default limit
            var limitField = typeof limit === 'number' && numberIsFinite(limit) ? ',"limit":' + JSONstringify(limit) : '';
            var queryText = query === undefined ? '' : StringCtor(query);
            if (queryText.length > MAX_QUERY_CHARS) throw tooLong('catalog.search(query): the query', queryText, MAX_QUERY_CHARS, 'search with a few keywords');
            return ',"query":' + quote(queryText) + limitField;
          },
          toHandles,
        );
      };
      catalog.all = function () {
        return callOp(
          'all',
          function () {
            return '';
          },
          toHandles,
        );
      };

      /** @param {string} op @param {string} arg @returns {unknown} */
      function apiCall(op, arg) {
        // the host answers API requests at once (an undefined answer fails the parse: a SyntaxError for the cell)
        return JSONparse(/** @type {string} */ (sync('api', '{"op":' + quote(op) + ',"arg":' + quote(arg) + '}')));
      }
      /** @type {Record<string, Function>} */
      var API = ObjectCreate(null);
      /** @param {unknown} [prefix] */
      API.list = function (prefix) {
        return apiCall('list', prefix === undefined ? '' : StringCtor(prefix));
      };
      /** @param {unknown} path */
      API.read = function (path) {
        var r = apiCall('read', StringCtor(path));
        var error = own(r, 'error');
        if (typeof error === 'string') throw makeError(error, 'invalid_input');
        return own(r, 'text');
      };

      /** @type {Record<string, unknown>} */
      var MCP = ObjectCreate(null);
      var servers = cfg.mcp || [];
      for (var s = 0; s < servers.length; s++) {
        (function (/** @type {GuestBootConfig['mcp'][number]} */ server) {
          if (server.unavailable) {
            // a configured server that is down: every member rejects with why, instead of a TypeError
            var down = function () {
              return rejected(makeError('MCP server "' + server.name + '" is unavailable (' + server.unavailable + '); try again later or use other tools', 'mcp_unavailable'));
            };
            MCP[server.name] = new ProxyCtor(ObjectCreate(null), /** @type {ProxyHandler<object>} */ ({
              __proto__: null,
              get: function (/** @type {object} */ _t, /** @type {PropertyKey} */ key) {
                return typeof key === 'string' && key !== 'then' ? down : undefined;
              },
            }));
            return;
          }
          /** @type {Record<string, Function>} */
          var ns = ObjectCreate(null);
          var serverJson = quote(server.name);
          for (var k = 0; k < server.tools.length; k++) {
            (function (/** @type {string} */ toolName) {
              var path = 'MCP.' + server.name + '.' + toolName;
              var mcpField = ',"mcp":[' + serverJson + ',' + quote(toolName) + ']';
              ns[toolName] = function (/** @type {unknown} */ input) {
                if (input !== undefined && (typeof input !== 'object' || input === null || isArray(input))) {
                  return rejected(makeError(path + ' takes one object input: ' + path + '({ ...input })', 'invalid_input'));
                }
                return callOp('call', function () {
                  return mcpField + ',"input":' + (input === undefined ? '{}' : serializeData(input, 'the input of ' + path + '()'));
                });
              };
            })(/** @type {string} */ (server.tools[k]));
          }
          ns.$api = function () {
            return callOp('describe', function () {
              return ',"mcpServer":' + serverJson;
            });
          };
          MCP[server.name] = freeze(ns);
        })(/** @type {GuestBootConfig['mcp'][number]} */ (servers[s]));
      }

      /** @type {Record<string, Function>} */
      var results = ObjectCreate(null);
      /** @param {unknown} value */
      results.save = function (value) {
        return callOp('results', function () {
          return ',"action":"save","json":' + quote(serializeData(value, 'the value passed to results.save'));
        });
      };
      /** A ref as the request carries it; one past the limit is no ref results.save made. @param {string} action @param {unknown} ref */
      function refField(action, ref) {
        var refText = StringCtor(ref);
        if (refText.length > MAX_NAME_CHARS) {
          throw tooLong('results.' + action + '(ref): ref', refText, MAX_NAME_CHARS, 'pass the ref that results.save returned');
        }
        return ',"action":' + quote(action) + ',"ref":' + quote(refText);
      }
      results.load = function (/** @type {unknown} */ ref) {
        return callOp('results', function () {
          return refField('load', ref);
        });
      };
      results.delete = function (/** @type {unknown} */ ref) {
        return callOp('results', function () {
          return refField('delete', ref);
        });
      };

      /** Why `key` cannot be a store key, or undefined when it can. @param {string} call @param {unknown} key */
      function keyProblem(call, key) {
        if (typeof key !== 'string' || key === '') return makeError(call + ': key must be a non-empty string', 'invalid_input');
        if (key.length > MAX_NAME_CHARS) return tooLong(call + ': key', key, MAX_NAME_CHARS, 'use a shorter key (a short name, or a hash of the long one)');
        return undefined;
      }

      /** @param {unknown} key @param {unknown} value */
      function store(key, value) {
        var keyError = keyProblem('store(key, value)', key);
        if (keyError) return rejected(keyError);
        return callOp('store', function () {
          // undefined deletes the key; anything else must be JSON data
          var json = value === undefined ? '' : ',"json":' + quote(serializeData(value, 'the value passed to store("' + key + '")'));
          // keyProblem passed: the key is a string
          return ',"action":"set","key":' + quote(/** @type {string} */ (key)) + json;
        });
      }
      /** @param {unknown} key */
      function load(key) {
        var keyError = keyProblem('load(key)', key);
        if (keyError) return rejected(keyError);
        return callOp('store', function () {
          return ',"action":"get","key":' + quote(/** @type {string} */ (key));
        });
      }

      /** @param {unknown} [reason] */
      function yield_control(reason) {
        return callOp('yield', function () {
          return ',"reason":' + quote(reason === undefined ? '' : StringCtor(reason));
        });
      }

      var nextTimer = 1;
      /** @param {unknown} fn @param {unknown} [ms] @returns {number} */
      function setTimeoutImpl(fn, ms) {
        if (typeof fn !== 'function') throw makeError('setTimeout(fn, ms): fn must be a function', 'invalid_input');
        // unary plus converts whatever the guest passed, as a browser's setTimeout does
        var delay = +(/** @type {number} */ (ms));
        // NaN, negative and Infinity fire at once, as in a browser; a finite delay past the cap waits the cap
        if (!(delay >= 0) || !numberIsFinite(delay)) delay = 0;
        else if (delay > MAX_TIMER_MS) delay = MAX_TIMER_MS;
        var n = arguments.length;
        var timerId = nextTimer++;
        timers[timerId] = /** @type {GuestTimer} */ ({
          __proto__: null,
          fn: fn,
          a0: n > 2 ? arguments[2] : undefined,
          a1: n > 3 ? arguments[3] : undefined,
          a2: n > 4 ? arguments[4] : undefined,
          requestId: null,
          sent: false,
          queueSeq: -1,
          dueMs: clockMs + delay,
        });
        var r = request('timer', ',"ms":' + JSONstringify(delay) + ',"timer":' + JSONstringify(timerId), null, timerId);
        /** @type {GuestTimer} */ (timers[timerId]).requestId = r.id;
        /** @type {GuestTimer} */ (timers[timerId]).queueSeq = r.seq;
        return timerId;
      }
      /** @param {unknown} timerId */
      function clearTimeoutImpl(timerId) {
        var t = timers[/** @type {number} */ (timerId)];
        if (!t) return;
        delete timers[/** @type {number} */ (timerId)];
        // a timer's request id is set as soon as setTimeout made its request
        var reqId = /** @type {string} */ (t.requestId);
        if (t.sent) {
          // in flight: the host clears its timer and the slot frees when the cancel is acknowledged
          sync('cancel', reqId);
        } else {
          // queued: drop it without ever starting a host timer; its place in the queue is free at once
          var seq = t.queueSeq;
          if (seq >= 0 && queue[seq]) {
            delete queue[seq];
            queuedLive--;
            trimQueue();
          }
          delete pending[reqId];
        }
      }

      /** @param {unknown} v */
      function text(v) {
        emitLine('text', safeFormat(v));
      }
      /** @param {unknown} v */
      function json(v) {
        var s;
        try {
          s = JSONstringify(v, null, 2);
          if (typeof s !== 'string') s = 'undefined';
        } catch (e) {
          s = safeFormat(v);
        }
        emitLine('json', s);
      }

      /** @type {Record<string, unknown>} */
      var fixed = {
        catalog: freeze(catalog),
        API: freeze(API),
        MCP: freeze(MCP),
        results: freeze(results),
        store: store,
        load: load,
        yield_control: yield_control,
        setTimeout: setTimeoutImpl,
        clearTimeout: clearTimeoutImpl,
        text: text,
        json: json,
        console: freeze(consoleObj),
      };
      var names = ObjectKeys(fixed);
      for (var n = 0; n < names.length; n++) {
        // names are the own keys of `fixed`, one per index
        defineProperty(global, /** @type {string} */ (names[n]), /** @type {PropertyDescriptor} */ ({ __proto__: null, value: fixed[/** @type {string} */ (names[n])], writable: false, configurable: false, enumerable: false }));
      }
    },
  }));
})(globalThis);
