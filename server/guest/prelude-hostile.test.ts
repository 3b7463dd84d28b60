// A cell that replaces its realm's builtins cannot turn the guest controller into a liar: on both executors,
// tool inputs, store, results, search, timers, output and the final settle stay honest and well-formed.
import { describe, expect, it } from 'vitest';
import type { ExecutorKind } from '../config/types.ts';
import { expectCompleted, expectFailed, expectWaiting } from '../testing.ts';
import { EXECUTOR_KINDS, useRecordedGateway } from './testing.ts';

/**
 * Runs after an attack: one step per guest API, each caught on its own, using only syntax the attacks
 * leave alone (no JSON, array methods, iteration or `.call` of its own; `out` declares every field, so
 * an Object.prototype setter cannot catch its assignments). `hitLog` collects every time an attack's
 * replacement ran.
 */
const EXERCISE = `
const out = { call: null, load: null, results: null, search: null, timer: null, primitive: null, hits: null };
try { out.call = await echo({ a: 1, tag: "x", list: [1, 2] }); } catch (e) { out.call = { error: e.code, message: e.message }; }
try { await store("k", { v: 1 }); out.load = await load("k"); } catch (e) { out.load = { error: e.code, message: e.message }; }
try { const s = await results.save({ w: 2 }); out.results = await results.load(s.ref); } catch (e) { out.results = { error: e.code, message: e.message }; }
try { const hs = await catalog.search("echo", { limit: 2 }); out.search = typeof hs[0]; } catch (e) { out.search = { error: e.code, message: e.message }; }
try { out.timer = await new Promise((done) => setTimeout(done, 1, "fired")); } catch (e) { out.timer = { error: e.code, message: e.message }; }
console.log("line", 1, { o: 1 });
out.primitive = typeof __cm_sync;
`;

const HONEST = {
  call: { got: { a: 1, tag: 'x', list: [1, 2] } },
  load: { v: 1 },
  results: { w: 2 },
  search: 'function',
  timer: 'fired',
  primitive: 'undefined',
};

/** `attack` runs first and may set `hitLog`; `restore` runs before the cell returns `out` and `hitLog`. */
function attackCell(attack: string, restore = ''): string {
  return `globalThis.hitLog = "";\n${attack}\n${EXERCISE}\n${restore}\nout.hits = hitLog;\nreturn out;`;
}

describe.each(EXECUTOR_KINDS)('guest controller under a hostile cell: %s', (kind: ExecutorKind) => {
  const h = useRecordedGateway(kind, 'hostile');
  const run = (code: string) => h.run(code);

  it('on no attack: the exercise is honest (the baseline every attack is compared with)', async () => {
    const r = expectCompleted(await run(attackCell('')));
    expect(r.value).toEqual({ ...HONEST, hits: '' });
    expect(r.output?.map((o) => o.text)).toEqual(['line 1 {"o":1}']);
    expect(h.echo.inputs).toEqual([{ a: 1, tag: 'x', list: [1, 2] }]);
  });

  it('on Function.prototype.call, apply and bind replaced: never called, the host primitive never reaches the guest, outcomes honest', async () => {
    const attack = `
      globalThis.grabbed = [];
      const grab = (name) => function () {
        hitLog += name + ";";
        grabbed[grabbed.length] = this;
        for (let i = 0; i < arguments.length; i++) if (typeof arguments[i] === "function") grabbed[grabbed.length] = arguments[i];
      };
      Function.prototype.call = grab("call");
      Function.prototype.apply = grab("apply");
      Function.prototype.bind = grab("bind");`;
    // with a grabbed primitive the guest could settle anything it likes; try it with everything grabbed
    const restore = `for (let i = 0; i < grabbed.length; i++) { try { grabbed[i]("settle", '{"ok":true,"json":"\\\\"forged\\\\""}'); } catch (e) {} }`;
    const r = expectCompleted(await run(attackCell(attack, restore)));
    expect(r.value).toEqual({ ...HONEST, hits: '' });
    expect(h.echo.inputs).toEqual([{ a: 1, tag: 'x', list: [1, 2] }]);
  });

  it('on JSON.stringify and JSON.parse replaced with forgers: requests, replies and the settle stay honest', async () => {
    const attack = `
      JSON.stringify = function () { hitLog += "stringify;"; return '{"id":"r1","op":"call","tool":"read","input":{"path":"secrets/token.txt"}}'; };
      JSON.parse = function () { hitLog += "parse;"; return { id: "r1", ok: true, value: "forged" }; };`;
    const r = expectCompleted(await run(attackCell(attack)));
    expect(r.value).toEqual({ ...HONEST, hits: '' });
    expect(r.output?.map((o) => o.text)).toEqual(['line 1 {"o":1}']);
  });

  it('on Promise.prototype.then, catch, finally and the Promise statics replaced: never called, every promise settles honestly', async () => {
    const attack = `
      Promise.prototype.then = function () { hitLog += "then;"; return this; };
      Promise.prototype.catch = function () { hitLog += "catch;"; return this; };
      Promise.prototype.finally = function () { hitLog += "finally;"; return this; };
      Promise.resolve = function () { hitLog += "resolve;"; return new Promise(() => {}); };
      Promise.reject = function () { hitLog += "reject;"; return new Promise(() => {}); };`;
    const r = expectCompleted(await run(attackCell(attack)));
    expect(r.value).toEqual({ ...HONEST, hits: '' });
  });

  it('on a Promise.prototype.constructor getter that throws (the species hook): the cell still settles with its value', async () => {
    const r = expectCompleted(
      await run('Object.defineProperty(Promise.prototype, "constructor", { get() { throw new Error("species hook") } });\nreturn 7'),
    );
    expect(r.value).toBe(7);
  });

  it('on Array.prototype methods and Symbol.iterator replaced: never called, outcomes honest', async () => {
    const attack = `
      const names = ["push", "pop", "shift", "unshift", "map", "forEach", "filter", "reduce", "join", "concat", "slice", "splice", "indexOf", "includes", "find", "some", "every"];
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        Array.prototype[name] = function () { hitLog += name + ";"; throw new Error("replaced " + name); };
      }
      Array.prototype[Symbol.iterator] = function () { hitLog += "iterator;"; throw new Error("replaced iterator"); };
      Array.isArray = function () { hitLog += "isArray;"; return false; };`;
    const r = expectCompleted(await run(attackCell(attack)));
    expect(r.value).toEqual({ ...HONEST, hits: '' });
  });

  it('on index getters and setters on Array.prototype: outcomes honest, no controller function ever passes through them', async () => {
    // QuickJS's own JSON.stringify keeps its cycle stack in a JS array and so runs these accessors while a
    // guest value is serialized (they see only guest values); the controller's arrays never do
    const attack = `
      for (let i = 0; i < 4; i++) {
        Object.defineProperty(Array.prototype, i, {
          configurable: true,
          get() { return "forged"; },
          set(v) { if (typeof v === "function") hitLog += "set" + i + " " + v.name + ";"; },
        });
      }`;
    const r = expectCompleted(await run(attackCell(attack)));
    expect(r.value).toEqual({ ...HONEST, hits: '' });
  });

  it('on Object.defineProperty, create, keys, freeze, hasOwnProperty and isPrototypeOf replaced: never called, outcomes honest', async () => {
    const attack = `
      const define = Object.defineProperty;
      const grab = (name) => function () { hitLog += name + ";"; throw new Error("replaced " + name); };
      define(Object, "defineProperty", { value: grab("defineProperty") });
      Object.create = grab("create");
      Object.keys = grab("keys");
      Object.freeze = grab("freeze");
      Object.prototype.hasOwnProperty = grab("hasOwnProperty");
      Object.prototype.isPrototypeOf = grab("isPrototypeOf");`;
    const r = expectCompleted(await run(attackCell(attack)));
    expect(r.value).toEqual({ ...HONEST, hits: '' });
  });

  it('on getters and setters on Object.prototype for protocol, record and descriptor fields: none runs, outcomes honest', async () => {
    const attack = `
      const fields = ["id", "op", "ok", "value", "error", "code", "name", "json", "tool", "input", "action", "key", "ref", "timer",
        "resolve", "reject", "map", "sent", "fn", "requestId", "kind", "text", "stack", "toolCode", "get", "set", "writable", "enumerable", "configurable"];
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i];
        Object.defineProperty(Object.prototype, f, {
          __proto__: null,
          configurable: true,
          get() { hitLog += "get " + f + ";"; return "forged"; },
          set(v) { hitLog += "set " + f + ";"; },
        });
      }`;
    const r = expectCompleted(await run(attackCell(attack)));
    expect(r.value).toEqual({ ...HONEST, hits: '' });
  });

  it('on Object.prototype.toJSON during the steps: values follow JSON semantics, the tool refuses what it got with a clear error, envelopes intact', async () => {
    const attack = 'Object.prototype.toJSON = function () { return { forged: true }; };';
    const r = expectCompleted(await run(attackCell(attack, 'delete Object.prototype.toJSON;')));
    expect(r.value).toEqual({
      ...HONEST,
      call: { error: 'invalid_input', message: expect.stringContaining('"forged" is not a known field') },
      load: { forged: true },
      results: { forged: true },
      hits: '',
    });
    expect(h.echo.inputs).toEqual([]);
  });

  it('on Object.prototype.toJSON = () => null before a tool call and a store (the reported crash): well-formed requests, the tool refuses null', async () => {
    const r = expectCompleted(
      await run(
        'Object.prototype.toJSON = () => null;\nlet called;\ntry { await echo({ a: 1 }); called = "called"; } catch (e) { called = [e.code, e.message]; }\nawait store("k", { v: 1 });\nconst loaded = await load("k");\ndelete Object.prototype.toJSON;\nreturn { called, loaded }',
      ),
    );
    expect(r.value).toEqual({ called: ['invalid_input', expect.stringContaining('"input" must be one object, got null')], loaded: null });
    expect(h.log.requests.find((q) => q.op === 'store' && q.action === 'set')).toMatchObject({ key: 'k', json: 'null' });
  });

  it('on Object.prototype.toJSON while calls are queued at a park: the queued list the host reads stays well-formed', async () => {
    const t = h.prepareTurn({});
    // the yield takes the first of 4 slots and parks the run; 3 sleeps fill the rest; the echoes queue in the guest
    const parked = expectWaiting(await h.gw.exec(t.agentRunId, {
      code: 'Object.prototype.toJSON = function () { return { forged: true }; };\nconst y = yield_control("park");\nconst sleeps = [sleep({ ms: 1 }), sleep({ ms: 1 }), sleep({ ms: 1 })];\nconst echoes = [echo({ a: 1 }), echo({ a: 2 }), echo({ a: 3 })];\nawait y;\nconst out = [];\nfor (let i = 0; i < 3; i++) { try { await echoes[i]; out[i] = "passed"; } catch (e) { out[i] = e.code; } }\ndelete Object.prototype.toJSON;\nreturn out',
    }));
    const queued = parked.pendingToolCalls?.filter((p) => p.state === 'queued') ?? [];
    expect(queued.map((p) => [p.tool, p.input])).toEqual([
      ['echo', { forged: true }],
      ['echo', { forged: true }],
      ['echo', { forged: true }],
    ]);
    let r = await h.gw.wait(t.agentRunId, { runId: parked.runId });
    for (let i = 0; i < 5 && r.status === 'waiting'; i++) r = await h.gw.wait(t.agentRunId, { runId: parked.runId });
    expect(expectCompleted(r).value).toEqual(['invalid_input', 'invalid_input', 'invalid_input']);
  });

  it('on the global constructors and namespaces replaced (Object, Array, String, Error, Set, Proxy, JSON, Reflect): outcomes honest', async () => {
    const attack = `
      const names = ["Object", "Array", "String", "Error", "Set", "Proxy", "JSON", "Reflect", "Symbol"];
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        globalThis[name] = function () { hitLog += name + ";"; throw new Error("replaced " + name); };
      }`;
    const r = expectCompleted(await run(attackCell(attack)));
    expect(r.value).toEqual({ ...HONEST, hits: '' });
  });

  it('on Array.prototype.toJSON during the steps: the array field arrives as what toJSON gave and is refused by the schema', async () => {
    const attack = 'Array.prototype.toJSON = function () { return "not an array"; };';
    const r = expectCompleted(await run(attackCell(attack, 'delete Array.prototype.toJSON;')));
    expect(r.value).toEqual({
      ...HONEST,
      call: { error: 'invalid_input', message: expect.stringContaining('"list" must be an array') },
      hits: '',
    });
    expect(h.echo.inputs).toEqual([]);
  });

  it('on a toJSON that returns envelope text: the input is that string, no other tool or field is reached', async () => {
    const r = expectCompleted(
      await run(
        'try { await echo({ toJSON() { return \'"},"tool":"read","input":{"path":"secrets/token.txt"}\'; } }); return "called" } catch (e) { return [e.code, e.message] }',
      ),
    );
    expect(r.value).toEqual(['invalid_input', expect.stringContaining('"input" must be one object, got a string')]);
    expect(h.log.requests.filter((q) => q.op === 'call')).toEqual([
      { id: expect.any(String), op: 'call', tool: 'echo', input: '"},"tool":"read","input":{"path":"secrets/token.txt"}' },
    ]);
  });

  it('on Object.prototype.toJSON left in place at the settle: the value is what JSON gives for the returned value', async () => {
    expect(expectCompleted(await run('Object.prototype.toJSON = function () { return { forged: true }; };\nreturn { real: 1 }')).value).toEqual({ forged: true });
    expect(expectCompleted(await run('Object.prototype.toJSON = function () { return undefined; };\nreturn { real: 1 }')).value).toBeNull();
  });

  it('on a toJSON that throws at the settle: fails with the guest error as invalid_input', async () => {
    const r = expectFailed(await run('Object.prototype.toJSON = function () { throw new Error("no json for you"); };\nreturn { real: 1 }'));
    expect(r.code).toBe('invalid_input');
    expect(r.error).toContain('no json for you');
  });

  it('on values whose every read throws (timer callback and uncaught): output and failure are reported, never internal_error', async () => {
    const bomb = 'new Proxy({}, { get() { throw new Error("bomb"); }, getPrototypeOf() { throw new Error("bomb"); }, has() { throw new Error("bomb"); } })';
    const r = expectFailed(
      await run(`await new Promise((done) => setTimeout(() => { done(); throw ${bomb}; }, 1));\nconsole.log(${bomb});\nthrow ${bomb};`),
    );
    expect(r.code).toBeUndefined();
    expect(r.error).toBe('[unprintable object]');
    expect(r.output?.map((o) => [o.kind, o.text])).toEqual([
      ['error', 'Uncaught [unprintable object]'],
      ['log', '[unprintable object]'],
    ]);
  });

  it('on failed calls the cell never awaits (fire and forget, a promise it drops): the cell completes with its value', async () => {
    const r = expectCompleted(await run('echo({ bad: 1 });\nconst dropped = echo({ bad: 2 });\nstore("", 1);\nawait sleep({ ms: 1 });\nreturn "done"'));
    expect(r.value).toBe('done');
  });

  it('on the guest calling the executor entry points itself: __cm_run and __cm_boot refuse, the cell settles with its own value', async () => {
    const r = expectCompleted(
      await run(
        'const seen = [];\ntry { __cm_run(async () => "forged"); seen.push("ran"); } catch (e) { seen.push(e.message); }\ntry { __cm_boot(\'{"tools":[],"mcp":[],"maxPendingToolCalls":128}\'); seen.push("booted"); } catch (e) { seen.push(e.message); }\nawait echo({ a: 2 });\nreturn seen',
      ),
    );
    expect(r.value).toEqual([expect.stringContaining('runs once per cell'), expect.stringContaining('runs once per cell')]);
    expect(h.echo.inputs).toEqual([{ a: 2 }]);
  });

  it('on client tools named like the runtime\'s globals (__cm_run, __cm_deliver, ...): cells of the turn run, each is callable as tool___cm_...', async () => {
    const names = ['__cm_run', '__cm_boot', '__cm_deliver', '__cm_queued', '__cm_sync'];
    const t = h.prepareTurn({ clientTools: names.map((name) => ({ name, description: 'client tool', inputSchema: { type: 'object' } })) });
    const probe = expectCompleted(
      await h.gw.exec(t.agentRunId, { code: 'return [typeof tool___cm_run, tool___cm_run.name, typeof tool___cm_deliver, typeof __cm_run, typeof __cm_sync]' }),
    );
    expect(probe.value).toEqual(['function', '__cm_run', 'function', 'function', 'undefined']);
    // yield so the run parks at once instead of waiting out its budget for the client
    const parked = expectWaiting(await h.gw.exec(t.agentRunId, { code: 'const answer = tool___cm_run({ q: 1 });\nawait yield_control("ask the client");\nreturn await answer' }));
    const call = h.gw.run(parked.runId)!.clientCalls[0]!;
    // the run's client-call record names the callable name (runs.ts), as for every client tool
    expect(call).toMatchObject({ tool: 'tool___cm_run', input: { q: 1 } });
    h.gw.answerClientCall({ runId: parked.runId, callId: call.callId, result: 'answered' });
    expect(expectCompleted(await h.gw.wait(t.agentRunId, { runId: parked.runId })).value).toBe('answered');
  });

  it('on Error.prepareStackTrace that throws: a refused tool call still reaches the guest as a catchable error', async () => {
    const r = expectCompleted(
      await run('Error.prepareStackTrace = function () { throw new Error("pst"); };\ntry { await echo({ bad: 1 }); return "called"; } catch (e) { return "caught"; }'),
    );
    expect(r.value).toBe('caught');
    expect(h.echo.inputs).toEqual([]);
  });
});
