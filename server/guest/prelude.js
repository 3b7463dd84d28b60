// The guest controller: defines every guest global on top of two host primitives. Shared by all executors.
//
// This file is evaluated as a plain script inside the guest (QuickJS VM or node:vm context) before the
// cell. It must not rely on anything the cell can change later, so it captures the intrinsics it needs
// up front and keeps its tables in null-prototype objects (guest code cannot hook them with setters on
// Object.prototype or by replacing Array.prototype.push, JSON or Promise).
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
// Entry points the executor calls (non-writable, non-configurable globals):
//   __cm_boot(configJson)   once per cell: tool metadata, limits
//   __cm_run(asyncFn)       runs the cell function and settles it
//   __cm_deliver(replyJson) one bridge reply: { id, ok, value?, error?, code? }
//   __cm_queued()           JSON of queued (not yet sent) requests, for the waiting board
//
// Pending requests, the queue beyond maxPendingToolCalls, timers and buffered state all live in this
// heap, so a QuickJS snapshot carries them and a Node continuation keeps them alive.
(function (global) {
  'use strict';
  var sync = global.__cm_sync;
  var JSONstringify = JSON.stringify;
  var JSONparse = JSON.parse;
  var PromiseCtor = Promise;
  var ErrorCtor = Error;
  var StringCtor = String;
  var ObjectCreate = Object.create;
  var ObjectKeys = Object.keys;
  var defineProperty = Object.defineProperty;
  var freeze = Object.freeze;
  var isArray = Array.isArray;
  var numberIsFinite = Number.isFinite;
  var FunctionCall = Function.prototype.call;
  var call = function (fn, self, a, b, c) {
    return FunctionCall.call(fn, self, a, b, c);
  };
  var hostSync = function (op, payload) {
    return call(sync, undefined, op, payload);
  };

  delete global.__cm_sync;

  // Bounded by the executor config (maxPendingToolCalls), set in __cm_boot.
  var maxInFlight = 16;
  // Spec: "At most 128 ordinary requests can be queued, independently of the configured in-flight cap".
  var MAX_QUEUED = 128;

  var nextId = 1;
  var inFlight = 0;
  var pending = ObjectCreate(null); // id -> { resolve, reject, kind, timer? }
  var queue = ObjectCreate(null); // seq -> request
  var queueHead = 0;
  var queueTail = 0;
  var timers = ObjectCreate(null); // timer id -> { fn, args, requestId, sent }
  var failedFrontier = false;

  function queuedCount() {
    return queueTail - queueHead;
  }

  function makeError(message, code, name) {
    var err = new ErrorCtor(message);
    if (name) err.name = name;
    if (code) err.code = code;
    return err;
  }

  function send(req) {
    if (req.op === 'timer') timers[req.timer].sent = true;
    inFlight++;
    hostSync('send', JSONstringify(req));
  }

  function pump() {
    while (inFlight < maxInFlight && queueHead < queueTail) {
      var req = queue[queueHead];
      delete queue[queueHead];
      queueHead++;
      if (!req) continue; // a timer cleared while queued: never starts a host timer
      send(req);
    }
  }

  // Every bridge request goes through here: it is sent now when a slot is free, queued otherwise.
  function request(op, fields, kind) {
    if (failedFrontier) {
      throw makeError('code mode bridge refused this request: an earlier request in this cell overflowed the queue', 'invalid_input');
    }
    var id = 'r' + nextId++;
    var req = fields;
    req.id = id;
    req.op = op;
    var entry = { resolve: null, reject: null, kind: kind || op };
    var promise = new PromiseCtor(function (resolve, reject) {
      entry.resolve = resolve;
      entry.reject = reject;
    });
    if (inFlight < maxInFlight) {
      pending[id] = entry;
      send(req);
    } else {
      if (queuedCount() >= MAX_QUEUED) {
        failedFrontier = true;
        var msg =
          'too many concurrent code mode requests: ' + maxInFlight + ' may run and ' + MAX_QUEUED +
          ' may queue. Await smaller batches (for example chunks of ' + maxInFlight + ' in a loop).';
        hostSync('overflow', msg);
        throw makeError(msg, 'invalid_input');
      }
      pending[id] = entry;
      queue[queueTail++] = req;
    }
    return { id: id, promise: promise };
  }

  function callOp(op, fields) {
    return request(op, fields).promise;
  }

  defineProperty(global, '__cm_deliver', {
    value: function (replyJson) {
      var reply = JSONparse(replyJson);
      var entry = pending[reply.id];
      if (!entry) return;
      delete pending[reply.id];
      inFlight--;
      if (reply.ok) {
        if (entry.kind === 'timer') {
          var t = timers[entry.timer];
          if (t) {
            delete timers[entry.timer];
            try {
              call(t.fn, undefined, t.args[0], t.args[1], t.args[2]);
            } catch (e) {
              reportUncaught(e);
            }
          }
          entry.resolve(undefined);
        } else {
          entry.resolve(reply.value === undefined ? undefined : reply.value);
        }
      } else {
        entry.reject(makeError(reply.error || 'tool failed', reply.code || 'tool_error', reply.name || 'ToolError'));
      }
      pump();
    },
  });

  defineProperty(global, '__cm_queued', {
    value: function () {
      var out = [];
      for (var i = queueHead; i < queueTail; i++) {
        var q = queue[i];
        if (q) out[out.length] = q;
      }
      return JSONstringify(out);
    },
  });

  // ---- output ---------------------------------------------------------------------------------
  function formatValue(v) {
    if (typeof v === 'string') return v;
    if (v === undefined) return 'undefined';
    if (typeof v === 'function') return '[Function ' + (v.name || 'anonymous') + ']';
    if (typeof v === 'bigint') return StringCtor(v) + 'n';
    if (typeof v === 'symbol') return StringCtor(v);
    if (v instanceof ErrorCtor) return (v.name || 'Error') + ': ' + v.message;
    try {
      var s = JSONstringify(v);
      return s === undefined ? StringCtor(v) : s;
    } catch (e) {
      return '[unserializable ' + typeof v + ']';
    }
  }
  function emit(kind, args) {
    var parts = [];
    for (var i = 0; i < args.length; i++) parts[i] = formatValue(args[i]);
    hostSync('emit', JSONstringify({ kind: kind, text: parts.join(' ') }));
  }
  var consoleObj = ObjectCreate(null);
  ['log', 'info', 'warn', 'error', 'debug'].forEach(function (kind) {
    consoleObj[kind] = function () {
      emit(kind, arguments);
    };
  });

  function reportUncaught(e) {
    emit('error', ['Uncaught ' + formatValue(e)]);
  }

  // ---- final value ----------------------------------------------------------------------------
  function toJsonCompatible(value) {
    var seen = [];
    return JSONstringify(value === undefined ? null : value, function (key, v) {
      if (typeof v === 'bigint') return StringCtor(v);
      if (typeof v === 'object' && v !== null) {
        for (var i = 0; i < seen.length; i++) {
          if (seen[i] === v && key !== '') throw makeError('the final value contains a circular reference; return plain JSON data', 'invalid_input');
        }
        seen[seen.length] = v;
      }
      return v;
    });
  }

  var settled = false;
  defineProperty(global, '__cm_run', {
    value: function (fn) {
      var p;
      try {
        p = fn();
      } catch (e) {
        p = PromiseCtor.reject(e);
      }
      PromiseCtor.resolve(p).then(
        function (value) {
          if (settled) return;
          settled = true;
          var json;
          try {
            json = toJsonCompatible(value);
          } catch (e) {
            hostSync('settle', JSONstringify({ ok: false, error: formatValue(e), code: 'invalid_input' }));
            return;
          }
          hostSync('settle', JSONstringify({ ok: true, json: json === undefined ? 'null' : json }));
        },
        function (err) {
          if (settled) return;
          settled = true;
          var message = formatValue(err);
          var stack = err && typeof err.stack === 'string' ? err.stack : undefined;
          hostSync('settle', JSONstringify({ ok: false, error: message, stack: stack, toolCode: err && err.code }));
        },
      );
    },
  });

  // ---- boot: globals from the catalog ---------------------------------------------------------
  defineProperty(global, '__cm_boot', {
    value: function (configJson) {
      var cfg = JSONparse(configJson);
      if (numberIsFinite(cfg.maxPendingToolCalls) && cfg.maxPendingToolCalls > 0) maxInFlight = cfg.maxPendingToolCalls;

      var handles = ObjectCreate(null); // callableName -> handle

      function makeHandle(meta) {
        var handle = function (input) {
          return callOp('call', { tool: meta.callableName, input: input === undefined ? {} : input });
        };
        // `name` is the exact tool name (as declared); `callableName` the guest global
        defineProperty(handle, 'name', { value: meta.name });
        handle.callableName = meta.callableName;
        handle.description = meta.description;
        handle.source = meta.source;
        handle.describe = function () {
          return callOp('describe', { tool: meta.callableName });
        };
        return freeze(handle);
      }

      var tools = cfg.tools || [];
      for (var i = 0; i < tools.length; i++) {
        var meta = tools[i];
        var h = makeHandle(meta);
        handles[meta.callableName] = h;
        defineProperty(global, meta.callableName, { value: h, writable: true, configurable: true, enumerable: false });
      }

      function toHandles(list) {
        var out = [];
        for (var j = 0; j < list.length; j++) {
          var hh = handles[list[j].callableName];
          if (hh) out[out.length] = hh;
        }
        return out;
      }

      var catalog = ObjectCreate(null);
      catalog.search = function (query, opts) {
        var limit = opts && typeof opts === 'object' ? opts.limit : undefined;
        return callOp('search', { query: query === undefined ? '' : StringCtor(query), limit: limit }).then(toHandles);
      };
      catalog.all = function () {
        return callOp('all', {}).then(toHandles);
      };

      var API = ObjectCreate(null);
      API.list = function (prefix) {
        return JSONparse(hostSync('api', JSONstringify({ op: 'list', arg: prefix === undefined ? '' : StringCtor(prefix) })));
      };
      API.read = function (path) {
        var r = JSONparse(hostSync('api', JSONstringify({ op: 'read', arg: StringCtor(path) })));
        if (r.error) throw makeError(r.error, 'invalid_input');
        return r.text;
      };

      var MCP = ObjectCreate(null);
      var servers = cfg.mcp || [];
      var ProxyCtor = Proxy;
      for (var s = 0; s < servers.length; s++) {
        (function (server) {
          if (server.unavailable) {
            // a configured server that is down: every member rejects with why, instead of a TypeError
            var down = function () {
              return PromiseCtor.reject(makeError('MCP server "' + server.name + '" is unavailable (' + server.unavailable + '); try again later or use other tools', 'mcp_unavailable'));
            };
            MCP[server.name] = new ProxyCtor(ObjectCreate(null), {
              get: function (_t, key) {
                return typeof key === 'string' && key !== 'then' ? down : undefined;
              },
            });
            return;
          }
          var ns = ObjectCreate(null);
          for (var k = 0; k < server.tools.length; k++) {
            (function (toolName) {
              ns[toolName] = function (input) {
                if (input !== undefined && (typeof input !== 'object' || input === null || isArray(input))) {
                  return PromiseCtor.reject(
                    makeError('MCP.' + server.name + '.' + toolName + ' takes one object input: MCP.' + server.name + '.' + toolName + '({ ...input })', 'invalid_input'),
                  );
                }
                return callOp('call', { mcp: [server.name, toolName], input: input === undefined ? {} : input });
              };
            })(server.tools[k]);
          }
          ns.$api = function () {
            return callOp('describe', { mcpServer: server.name });
          };
          MCP[server.name] = freeze(ns);
        })(servers[s]);
      }

      var results = ObjectCreate(null);
      results.save = function (value) {
        var json = toJsonCompatible(value);
        return callOp('results', { action: 'save', json: json });
      };
      results.load = function (ref) {
        return callOp('results', { action: 'load', ref: StringCtor(ref) });
      };
      results.delete = function (ref) {
        return callOp('results', { action: 'delete', ref: StringCtor(ref) });
      };

      function store(key, value) {
        if (typeof key !== 'string' || key === '') {
          return PromiseCtor.reject(makeError('store(key, value): key must be a non-empty string', 'invalid_input'));
        }
        var json = value === undefined ? undefined : toJsonCompatible(value);
        return callOp('store', { action: 'set', key: key, json: json });
      }
      function load(key) {
        if (typeof key !== 'string' || key === '') {
          return PromiseCtor.reject(makeError('load(key): key must be a non-empty string', 'invalid_input'));
        }
        return callOp('store', { action: 'get', key: key });
      }

      function yield_control(reason) {
        return callOp('yield', { reason: reason === undefined ? '' : StringCtor(reason) });
      }

      var nextTimer = 1;
      function setTimeoutImpl(fn, ms) {
        if (typeof fn !== 'function') throw makeError('setTimeout(fn, ms): fn must be a function', 'invalid_input');
        var delay = +ms;
        if (!(delay >= 0)) delay = 0;
        var timerId = nextTimer++;
        timers[timerId] = { fn: fn, args: [arguments[2], arguments[3], arguments[4]], requestId: null, sent: false };
        var r = request('timer', { ms: delay, timer: timerId }, 'timer');
        pending[r.id].timer = timerId;
        timers[timerId].requestId = r.id;
        r.promise.then(undefined, function () {});
        return timerId;
      }
      function clearTimeoutImpl(timerId) {
        var t = timers[timerId];
        if (!t) return;
        delete timers[timerId];
        var reqId = t.requestId;
        if (t.sent) {
          // in flight: the host clears its timer and the slot frees when the cancel is acknowledged
          hostSync('cancel', reqId);
        } else {
          // queued: drop it without ever starting a host timer
          for (var i = queueHead; i < queueTail; i++) {
            var q = queue[i];
            if (q && q.id === reqId) {
              delete queue[i];
              if (i === queueHead) queueHead++;
            }
          }
          delete pending[reqId];
        }
      }

      function text(v) {
        emit('text', [typeof v === 'string' ? v : formatValue(v)]);
      }
      function json(v) {
        var s;
        try {
          s = JSONstringify(v, null, 2);
        } catch (e) {
          s = formatValue(v);
        }
        hostSync('emit', JSONstringify({ kind: 'json', text: s === undefined ? 'undefined' : s }));
      }

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
        defineProperty(global, names[n], { value: fixed[names[n]], writable: false, configurable: false, enumerable: false });
      }
    },
  });
})(globalThis);
