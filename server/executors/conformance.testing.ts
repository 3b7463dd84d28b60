// The executor conformance suite: one Vitest suite, run once per executor, through a real Gateway.
// One file on purpose (over 400 lines): one suite per contract, so every executor is held to the same cases.
//
// Everything both executors must do the same is asserted here; the documented differences
// (snapshot bytes vs an estimate of retained bytes, out-of-memory behaviour) are explicit hooks.
// A test helper (*.testing.ts): it drives a real Gateway, which sits above the executors, so only tests import it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CodeModeOptions, ExecutorKind } from '../config/types.ts';
import type { Gateway } from '../gateway.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { testCodeModeOptions } from '../tools/testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { ToolError } from '../errors.ts';
import type { Executor } from './types.ts';
import { MAX_SUSPENDED_RUNS } from '../runs/runs.ts';
import { expectCompleted as completed, expectFailed as failed, expectWaiting as waiting, testGateway, until } from '../testing.ts';

export interface ExecutorTestOptions {
  /** Guest code run before the prelude: a cell that keeps the raw host primitive, as a fully subverted prelude would. */
  preludePrefix?: string;
  /** Do not wait for warm-up (a cold executor, as the first cell after a start sees it). */
  cold?: boolean;
}

export interface ConformanceOptions {
  kind: ExecutorKind;
  createExecutor: (o?: ExecutorTestOptions) => Executor | Promise<Executor>;
  /** Workers whose guest is computing right now, when the executor shares workers between cells (QuickJS). */
  computingWorkers?: (executor: Executor) => number;
  /** What a parked run reports about its continuation's size. */
  expectParkedBytes: (result: Extract<CodeModeResult, { status: 'waiting' }>) => void;
}

/** Probe tools that record when each call really ran, to check scheduling without timing asserts. */
export function probeTools() {
  const log: Array<{ tool: string; label: string; start: number; end: number }> = [];
  const counts = new Map<string, number>();
  const make = (name: string, mode: 'parallel' | 'sequential'): ToolDefinition => ({
    name,
    description: `test probe (${mode}): waits ms, records its interval`,
    source: 'core',
    executionMode: mode,
    inputSchema: { type: 'object', properties: { label: { type: 'string' }, ms: { type: 'number' }, fail: { type: 'boolean' } } },
    execute: async (input) => {
      const { label = '', ms = 0, fail = false } = (input ?? {}) as { label?: string; ms?: number; fail?: boolean };
      counts.set(label, (counts.get(label) ?? 0) + 1);
      const start = Date.now();
      await new Promise((r) => setTimeout(r, ms));
      log.push({ tool: name, label, start, end: Date.now() });
      if (fail) throw new ToolError(`probe ${label} failed on purpose`, 'probe_failed');
      return { label, ms };
    },
  });
  return { tools: [make('probe', 'parallel'), make('probe_seq', 'sequential')], log, counts };
}

export function executorConformance(opts: ConformanceOptions): void {
  describe(`executor conformance: ${opts.kind}`, () => {
    let executor: Executor;
    /** The default budget: no cell here depends on how fast a loaded machine runs it. */
    let gw: Gateway;
    /** A 1.5 s budget, for the tests about the deadline itself (a slow tool, an idle wait, an infinite loop). */
    let tight: Gateway;
    let probes: ReturnType<typeof probeTools>;
    const turns: Array<[Gateway, string]> = [];

    const codeMode = (o: Partial<CodeModeOptions> = {}): CodeModeOptions =>
      testCodeModeOptions({
        executor: opts.kind,
        memoryLimitBytes: 32 * 1024 * 1024,
        maxOutputBytes: 4 * 1024,
        maxPendingToolCalls: 4,
        ...o,
      });

    async function gateway(o: Partial<CodeModeOptions> = {}, ex: Executor = executor): Promise<Gateway> {
      probes = probeTools();
      return testGateway({
        executor: ex,
        codeMode: codeMode(o),
        config: { plugins: { bundled: ['llm-task', 'weather', 'notes', 'guard'], external: [] } },
        tools: probes.tools,
      });
    }

    function turn(g: Gateway = gw, req: Parameters<Gateway['prepareTurn']>[0] = {}) {
      const t = g.prepareTurn(req);
      turns.push([g, t.agentRunId]);
      return t;
    }

    async function run(code: string, g: Gateway = gw, t = turn(g)) {
      return g.exec(t.agentRunId, { code });
    }

    beforeAll(async () => {
      executor = await opts.createExecutor();
      tight = await gateway({ timeoutMs: 1_500 });
      gw = await gateway();
    });

    afterEach(() => {
      for (const [g, id] of turns.splice(0)) g.endTurn(id);
      // leak check: every run of the test released its slot, the run maps and the executor are sound
      expect(gw.diagnostics.suspendedSlots()).toBe(0);
      expect(tight.diagnostics.suspendedSlots()).toBe(0);
      expect(gw.diagnostics.leaks()).toEqual([]);
      expect(tight.diagnostics.leaks()).toEqual([]);
      expect(executor.leaks()).toEqual([]);
      expect(executor.stats().activeLegs).toBe(0);
    });

    afterAll(async () => {
      await tight.close();
      await gw.close();
      await executor.close();
    });

    describe('results and values', () => {
      it('on a returned value: completes with it as JSON', async () => {
        const r = completed(await run('const a = [1, 2, 3]; return { sum: a.reduce((x, y) => x + y, 0), s: "é" }'));
        expect(r.value).toEqual({ sum: 6, s: 'é' });
        expect(r.telemetry.executor).toBe(opts.kind);
      });

      it('on a final expression: completes with its value', async () => {
        expect(completed(await run('const x = 20;\nx + 22')).value).toBe(42);
      });

      it('on undefined: completes with null', async () => {
        expect(completed(await run('let y = 1;')).value).toBeNull();
      });

      it('on an uncaught guest error: fails with its message and line', async () => {
        const r = failed(await run('const a = 1;\nthrow new TypeError("bad thing")'));
        expect(r.error).toContain('TypeError: bad thing');
        expect(r.code).toBeUndefined();
      });

      it('on a TypeScript cell: strips types and runs it', async () => {
        const t = turn();
        const r = completed(await gw.exec(t.agentRunId, { code: 'const n: number = 2;\ninterface P { x: number }\nconst p: P = { x: n };\nreturn p.x * 3', language: 'typescript' }));
        expect(r.value).toBe(6);
      });

      it('on console and text/json helpers: returns output lines in order', async () => {
        const r = completed(await run('console.log("a", 1, { b: 2 }); console.warn("w"); text("t"); json({ j: 1 }); return 0'));
        expect(r.output?.map((o) => [o.kind, o.text])).toEqual([
          ['log', 'a 1 {"b":2}'],
          ['warn', 'w'],
          ['text', 't'],
          ['json', '{\n  "j": 1\n}'],
        ]);
      });
    });

    describe('nested calls', () => {
      it('on bare tool globals: calls them and returns their results', async () => {
        const r = completed(await run('const w = await weather_lookup({ city: "Oslo" });\nconst f = await read({ path: "README.md" });\nreturn { city: w.city, hasText: typeof f.content === "string" }'));
        expect(r.value).toEqual({ city: 'Oslo', hasText: true });
        expect(r.telemetry.counters.call).toBe(2);
      });

      it('on Promise.all over parallel tools: their executions overlap', async () => {
        completed(await run('return await Promise.all([probe({ label: "p1", ms: 150 }), probe({ label: "p2", ms: 150 })])'));
        const [a, b] = probes.log.filter((l) => l.label === 'p1' || l.label === 'p2');
        expect(a && b && a.start < b.end && b.start < a.end).toBe(true);
      });

      it('on sequential tools: each waits for earlier calls and blocks later ones', async () => {
        completed(
          await run('return await Promise.all([probe({ label: "s0", ms: 80 }), probe_seq({ label: "s1", ms: 40 }), probe({ label: "s2", ms: 10 })])'),
        );
        const by = (l: string) => probes.log.find((x) => x.label === l)!;
        expect(by('s1').start).toBeGreaterThanOrEqual(by('s0').end);
        expect(by('s2').start).toBeGreaterThanOrEqual(by('s1').end);
      });

      it('on a caught tool error: the guest sees a catchable error with a code', async () => {
        const r = completed(await run('try { await probe({ label: "c1", fail: true }); } catch (e) { return { name: e.name, code: e.code, msg: e.message } }'));
        expect(r.value).toEqual({ name: 'ToolError', code: 'probe_failed', msg: 'probe c1 failed on purpose' });
      });

      it('on an uncaught tool error after earlier calls: fails without replaying them', async () => {
        const r = failed(await run('await probe({ label: "once" });\nawait probe({ label: "boom", fail: true });\nreturn 1'));
        expect(r.error).toContain('probe boom failed on purpose');
        expect(probes.counts.get('once')).toBe(1);
        expect(probes.counts.get('boom')).toBe(1);
      });

      it('on catalog.search and describe: returns callable handles without ids', async () => {
        const r = completed(
          await run('const hs = await catalog.search("weather city", { limit: 3 });\nconst d = await hs[0].describe();\nconst v = await hs[0]({ city: "Rome" });\nreturn { names: hs.map(h => h.callableName), d, city: v.city, all: (await catalog.all()).length }'),
        );
        const v = r.value as { names: string[]; d: Record<string, unknown>; city: string; all: number };
        expect(v.names[0]).toBe('weather_lookup');
        expect(v.city).toBe('Rome');
        expect(v.d).toMatchObject({ callableName: 'weather_lookup', name: 'weather.lookup', source: 'bundled_plugin' });
        expect(JSON.stringify(r)).not.toMatch(/"t_[0-9a-f]{6,}/);
        expect(r.telemetry.counters).toMatchObject({ search: 2, describe: 1, call: 1 });
      });

      it('on API.list and API.read: serves declarations without a bridge request', async () => {
        const r = completed(await run('const files = API.list("tools/");\nreturn { files, decl: API.read("tools/read.d.ts") }'));
        const v = r.value as { files: string[]; decl: string };
        expect(v.files).toContain('tools/read.d.ts');
        expect(v.decl).toContain('declare function read(');
        expect(r.telemetry.nestedCalls).toBe(0);
      });

      it('on every file API.list lists: API.read returns it; every tool has its file, with the declaration the editor gets', async () => {
        const r = completed(
          await run(
            'const paths = API.list("");\nconst unread = paths.filter((p) => typeof API.read(p) !== "string");\nconst all = await catalog.all();\nconst noFile = all.filter((h) => !API.read("tools/" + h.callableName + ".d.ts").includes("declare function " + h.callableName + "(")).map((h) => h.callableName);\nreturn { n: paths.length, tools: API.list("tools/").length, all: all.length, unread, noFile, mcp: API.list("mcp/"), read: API.read("tools/read.d.ts") }',
          ),
        );
        const v = r.value as { n: number; tools: number; all: number; unread: string[]; noFile: string[]; mcp: string[]; read: string };
        expect(v).toMatchObject({ unread: [], noFile: [], tools: v.all });
        expect(v.n).toBeGreaterThan(v.tools);
        expect(v.mcp).toContain('mcp/index.d.ts');
        expect(gw.catalog({}).declarations).toContain(v.read.split('\n').slice(1).join('\n'));
      });

      it('on a tool the cell never names: catalog.search and catalog.all make its handle, a real one, the same object each time', async () => {
        const r = completed(
          await run(
            'const [h] = await catalog.search("weather city", { limit: 1 });\nconst again = (await catalog.search("weather city", { limit: 1 }))[0];\nconst inAll = (await catalog.all()).find((x) => x.callableName === h.callableName);\nconst d = await h.describe();\nconst v = await h({ city: "Lima" });\nreturn { meta: [h.callableName, h.name, h.source, typeof h.description, typeof h], same: h === again && h === inAll, frozen: Object.isFrozen(h), d: d.callableName, city: v.city }',
          ),
        );
        expect(r.value).toEqual({ meta: ['weather_lookup', 'weather.lookup', 'bundled_plugin', 'string', 'function'], same: true, frozen: true, d: 'weather_lookup', city: 'Lima' });
      });

      it('on a tool the cell names: its global is the handle catalog.search returns', async () => {
        const r = completed(await run('const h = (await catalog.search("weather city", { limit: 3 })).find((x) => x.callableName === "weather_lookup");\nreturn [typeof weather_lookup, weather_lookup === h, weather_lookup.callableName]'));
        expect(r.value).toEqual(['function', true, 'weather_lookup']);
      });

      it('on a cell that reaches the global object: every tool of catalog.all() is a global of it', async () => {
        const r = completed(
          await run('const names = (await catalog.all()).map((h) => h.callableName);\nconst own = Object.getOwnPropertyNames(globalThis);\nreturn { n: names.length, missing: names.filter((n) => !own.includes(n) || typeof globalThis[n] !== "function") }'),
        );
        expect(r.value).toMatchObject({ missing: [] });
        expect((r.value as { n: number }).n).toBeGreaterThan(5);
      });

      it('on a tool spelled with a unicode escape: its global is there', async () => {
        const r = completed(await run('return typeof weather\\u005flookup'));
        expect(r.value).toBe('function');
      });

      it('on an unknown tool name: there is no global for it', async () => {
        const r = completed(await run('return [typeof tool_that_does_not_exist, typeof globalThis["web-search"]]'));
        expect(r.value).toEqual(['undefined', 'undefined']);
      });

      it('on a before_tool_call hook denial: the guest gets a catchable error naming the reason', async () => {
        const r = completed(await run('try { await read({ path: "secrets/token.txt" }); return "read it" } catch (e) { return e.code + ": " + e.message }'));
        expect(String(r.value)).toMatch(/^blocked: .*secrets/);
      });

      it('on more requests than the in-flight cap plus the 128 queue: fails with invalid_input and dispatches none of that frontier', async () => {
        const r = failed(await run('const ps = []; for (let i = 0; i < 4 + 129; i++) ps.push(probe({ label: "flood" })); await Promise.all(ps)'));
        expect(r.code).toBe('invalid_input');
        expect(r.error).toMatch(/smaller batches/);
        expect(probes.counts.get('flood') ?? 0).toBe(0);
      });

      it('on a guest that forges deliveries to get past the in-flight cap: fails with invalid_input and dispatches none of that frontier', async () => {
        const r = failed(
          await run(
            'const first = [];\nfor (let i = 0; i < 4; i++) first.push(probe({ label: "held", ms: 300 }));\nfor (let i = 1; i <= 4; i++) __cm_deliver(JSON.stringify({ id: "r" + i, ok: true, value: "forged" }));\nconst more = [];\nfor (let i = 0; i < 4; i++) more.push(probe({ label: "over" }));\nawait Promise.all([...first, ...more])',
          ),
        );
        expect(r.code).toBe('invalid_input');
        expect(probes.counts.get('over') ?? 0).toBe(0);
      });

      it('on a batch larger than the in-flight cap: queues the rest and completes', async () => {
        const r = completed(await run('const ps = []; for (let i = 0; i < 20; i++) ps.push(probe({ label: "q" + i, ms: 5 })); return (await Promise.all(ps)).length'));
        expect(r.value).toBe(20);
      });
    });

    describe('timers', () => {
      it('on a timer queued behind the in-flight cap: its delay starts when it gets a slot', async () => {
        const r = completed(
          await run(
            'const order = [];\nconst held = [];\nfor (let i = 0; i < 4; i++) held.push(probe({ label: "slot" + i, ms: 200 }).then(() => order.push("probe")));\nawait new Promise((done) => setTimeout(() => { order.push("timer"); done(); }, 10));\nawait Promise.all(held);\nreturn order[0]',
          ),
        );
        // a 10 ms timer created while 4 slow calls fill the cap fires after one of them returns
        expect(r.value).toBe('probe');
      });

      it('on clearTimeout of a queued timer: no host timer ever starts', async () => {
        const r = completed(
          await run(
            'const held = [];\nfor (let i = 0; i < 4; i++) held.push(probe({ label: "c" + i, ms: 50 }));\nconst t = setTimeout(() => {}, 10);\nclearTimeout(t);\nawait Promise.all(held);\nreturn "done"',
          ),
        );
        expect(r.value).toBe('done');
        expect(gw.trajectory(r.telemetry.runId!)!.calls[0]!.nested.map((n) => n.tool)).not.toContain('setTimeout');
      });

      it('on clearTimeout of the whole queue, from its last timer: the cleared places are free again', async () => {
        // 4 timers fill the in-flight cap, 128 fill the queue and are cleared last first; the guest runs all of it
        // in one synchronous stretch, so no timer can fire in between however slow the machine is
        const r = completed(
          await run(
            'const held = [];\nfor (let i = 0; i < 4; i++) held.push(new Promise((done) => setTimeout(done, 1)));\nconst ids = [];\nfor (let i = 0; i < 128; i++) ids.push(setTimeout(() => {}, 1));\nfor (let i = ids.length - 1; i >= 0; i--) clearTimeout(ids[i]);\nconst later = [];\nfor (let i = 0; i < 128; i++) later.push(new Promise((done) => setTimeout(done, 1, i)));\nawait Promise.all(held);\nreturn (await Promise.all(later)).length',
          ),
        );
        expect(r.value).toBe(128);
      });

      it('on setTimeout: fires callbacks in delay order; clearTimeout cancels', async () => {
        const r = completed(
          await run('const seen = [];\nawait new Promise((done) => {\n  setTimeout(() => seen.push("b"), 40);\n  setTimeout(() => seen.push("a"), 10);\n  const t = setTimeout(() => seen.push("never"), 20);\n  clearTimeout(t);\n  setTimeout(done, 80);\n});\nreturn seen'),
        );
        expect(r.value).toEqual(['a', 'b']);
      });
    });

    describe('suspension and wait', () => {
      it('on a tool slower than the deadline: waits with pending_tools, and wait delivers the result', async () => {
        const t = turn(tight);
        const first = waiting(await tight.exec(t.agentRunId, { code: 'console.log("before");\nconst s = await sleep({ ms: 2000 });\nconsole.log("after restore", s.sleptMs >= 2000);\nreturn { slept: s.sleptMs >= 2000 }' }));
        expect(first.reason).toBe('pending_tools');
        expect(first.pendingToolCalls?.[0]).toMatchObject({ tool: 'sleep', input: { ms: 2000 } });
        expect(first.output?.[0]?.text).toBe('before');
        opts.expectParkedBytes(first);
        const second = completed(await tight.wait(t.agentRunId, { runId: first.runId }));
        expect(second.value).toEqual({ slept: true });
        expect(second.output?.map((o) => o.text)).toEqual(['after restore true']);
        const traj = tight.trajectory(first.runId)!;
        expect(traj.calls.map((c) => c.tool)).toEqual(['exec', 'wait']);
        expect(traj.calls[0]?.nested[0]).toMatchObject({ tool: 'sleep', status: 'ok' });
        expect(traj.calls[0]?.nested[0]?.invocationId).toMatch(/^cm_[0-9a-f]+:1$/);
      });

      it('on yield_control: waits with reason yield and continues on wait', async () => {
        const t = turn();
        const first = waiting(await gw.exec(t.agentRunId, { code: 'let n = 1;\nawait yield_control("checkpoint");\nn += 1;\nreturn n' }));
        expect(first.reason).toBe('yield');
        expect(completed(await gw.wait(t.agentRunId, { runId: first.runId })).value).toBe(2);
      });

      it('across a park and resume: a handle made before it is the same after, and tools touched only after it work', async () => {
        const t = turn();
        const first = waiting(
          await gw.exec(t.agentRunId, {
            code: 'const before = (await catalog.search("weather city", { limit: 1 }))[0];\nawait yield_control("checkpoint");\nconst after = (await catalog.search("weather city", { limit: 1 }))[0];\nconst note = (await catalog.search("note", { limit: 5 })).find((h) => h.source === "bundled_plugin");\nconst w = await after({ city: "Oslo" });\nconst f = await read({ path: "README.md" });\nreturn { same: before === after, city: w.city, note: typeof note, read: typeof f.content }',
          }),
        );
        opts.expectParkedBytes(first);
        expect(completed(await gw.wait(t.agentRunId, { runId: first.runId })).value).toEqual({ same: true, city: 'Oslo', note: 'function', read: 'string' });
      });

      it('on wait with nothing settled yet: waits again without losing the run', async () => {
        const t = turn(tight);
        const first = waiting(await tight.exec(t.agentRunId, { code: 'return (await sleep({ ms: 4000 })).sleptMs > 0' }));
        const second = waiting(await tight.wait(t.agentRunId, { runId: first.runId }));
        expect(second.runId).toBe(first.runId);
        let last = await tight.wait(t.agentRunId, { runId: first.runId });
        // a loaded machine may need one more wait before the 4 s sleep is over; the run is never lost
        if (last.status === 'waiting') last = await tight.wait(t.agentRunId, { runId: first.runId });
        expect(completed(last).value).toBe(true);
      });

      it('on wait from another session: fails with invalid_input', async () => {
        const t = turn();
        const first = waiting(await gw.exec(t.agentRunId, { code: 'await yield_control("park"); return 1' }));
        const other = turn(gw, { sessionId: 'another-session' });
        const r = failed(await gw.wait(other.agentRunId, { runId: first.runId }));
        expect(r.code).toBe('invalid_input');
        expect(r.error).toBe('code mode run belongs to a different session.');
      });

      it('on an unknown runId: fails with invalid_input', async () => {
        const t = turn();
        const r = failed(await gw.wait(t.agentRunId, { runId: 'run_missing' }));
        expect(r).toMatchObject({ code: 'invalid_input', error: 'code mode run is unavailable or expired.' });
      });

      it('on a second concurrent wait: fails with invalid_input', async () => {
        const t = turn();
        const first = waiting(await gw.exec(t.agentRunId, { code: 'await yield_control("park"); return 1' }));
        // the first wait marks the run as resuming before it returns its promise
        const a = gw.wait(t.agentRunId, { runId: first.runId });
        const b = failed(await gw.wait(t.agentRunId, { runId: first.runId }));
        expect(b.code).toBe('invalid_input');
        expect(completed(await a).value).toBe(1);
      });

      it('on abort of a waiting run: releases it and wait fails', async () => {
        const t = turn();
        const first = waiting(await gw.exec(t.agentRunId, { code: 'await yield_control("park"); return 1' }));
        expect(gw.diagnostics.suspendedSlots()).toBe(1);
        expect(gw.abortRun(first.runId)).toBe(true);
        expect(gw.diagnostics.suspendedSlots()).toBe(0);
        expect(failed(await gw.wait(t.agentRunId, { runId: first.runId })).code).toBe('invalid_input');
        expect(gw.run(first.runId)?.state).toBe('aborted');
      });

      it('on snapshot expiry: the run is released and wait fails', async () => {
        const g = await gateway({ snapshotTtlSeconds: 1 });
        try {
          const t = g.prepareTurn({});
          const first = waiting(await g.exec(t.agentRunId, { code: 'await yield_control("park"); return 1' }));
          await until(() => g.run(first.runId)?.state === 'expired');
          expect(failed(await g.wait(t.agentRunId, { runId: first.runId })).error).toBe('code mode run is unavailable or expired.');
          expect(g.diagnostics.suspendedSlots()).toBe(0);
        } finally {
          await g.close();
        }
      });

      it('on the end of the owning agent run: releases its waiting runs', async () => {
        const t = gw.prepareTurn({});
        const first = waiting(await gw.exec(t.agentRunId, { code: 'await yield_control("park"); return 1' }));
        gw.endTurn(t.agentRunId);
        expect(gw.run(first.runId)?.state).toBe('aborted');
      });
    });

    describe('session store and results', () => {
      it('on a completed cell: commits store() writes that a later cell loads', async () => {
        const t = turn(gw, { sessionId: `store-${opts.kind}` });
        completed(await gw.exec(t.agentRunId, { code: 'await store("k", { v: 1 });\nreturn await load("k")' }));
        const r = completed(await gw.exec(t.agentRunId, { code: 'return await load("k")' }));
        expect(r.value).toEqual({ v: 1 });
      });

      it('on a failed cell: discards its store() writes', async () => {
        const t = turn(gw, { sessionId: `store-fail-${opts.kind}` });
        failed(await gw.exec(t.agentRunId, { code: 'await store("lost", 1);\nthrow new Error("no")' }));
        expect(completed(await gw.exec(t.agentRunId, { code: 'return await load("lost")' })).value).toBeNull();
      });

      it('on results.save: a later cell of the turn loads a detached copy; delete frees it', async () => {
        const t = turn();
        const saved = completed(await gw.exec(t.agentRunId, { code: 'return await results.save({ big: [1, 2, 3] })' }));
        const ref = (saved.value as { ref: string }).ref;
        const r = completed(await gw.exec(t.agentRunId, { code: `const v = await results.load(${JSON.stringify(ref)});\nreturn { v, deleted: await results.delete(${JSON.stringify(ref)}) }` }));
        expect(r.value).toEqual({ v: { big: [1, 2, 3] }, deleted: true });
      });
    });

    describe('limits and hostile cells', () => {
      it('on an infinite loop: fails with timeout and the gateway keeps serving', async () => {
        const r = failed(await run('while (true) {}', tight));
        expect(r.code).toBe('timeout');
        // the same executor serves the other gateway's next cell
        expect(completed(await run('return "still serving"')).value).toBe('still serving');
      });

      it('on an infinite loop after an await: fails with timeout', async () => {
        expect(failed(await run('await probe({ label: "pre" });\nfor (;;) {}', tight)).code).toBe('timeout');
      });

      it('on a memory bomb (arrays of a million elements held in a loop): fails with memory_limit_exceeded, also on a loaded machine', async () => {
        const r = failed(await run('const hold = [];\nwhile (true) hold.push(new Array(1e6).fill(7))'));
        expect(r.code).toBe('memory_limit_exceeded');
        expect(completed(await run('return 1')).value).toBe(1);
      });

      it('on a string bomb (distinct strings held in a loop): fails with memory_limit_exceeded', async () => {
        const r = failed(await run('const a = [];\nfor (;;) a.push("x".repeat(1 << 16) + a.length)'));
        // Engine limit (quickjs-emscripten, Bellard QuickJS 2025-09): repeats and concatenations are ropes that
        // share their parts, so this cell holds little memory and may reach its budget before its limit: then its
        // true outcome is timeout. Every other engine copies the strings and reaches the limit first.
        if (opts.kind === 'quickjs-emscripten') expect(['memory_limit_exceeded', 'timeout']).toContain(r.code);
        else expect(r.code).toBe('memory_limit_exceeded');
        expect(completed(await run('return 1')).value).toBe(1);
      });

      it('on a rejection the cell makes and never handles (at once or in a timer): the cell still completes', async () => {
        expect(completed(await run('Promise.reject(new Error("mine"));\nreturn 1')).value).toBe(1);
        const r = completed(
          await run('setTimeout(() => { Promise.reject(new Error("in a timer")) }, 1);\nawait new Promise((done) => setTimeout(done, 20));\nreturn 2'),
        );
        expect(r.value).toBe(2);
        expect(completed(await run('return 3')).value).toBe(3);
      });

      it('on endless recursion: throws a catchable RangeError, by that name', async () => {
        const r = completed(await run('function f(n) { return f(n + 1) + 1 }\ntry { f(0) } catch (e) { return [e.name, e instanceof RangeError, String(e).startsWith("RangeError: ")] }'));
        expect(r.value).toEqual(['RangeError', true, true]);
      });

      it('on huge output: keeps maxOutputBytes and adds a truncation marker', async () => {
        const r = completed(await run('for (let i = 0; i < 2000; i++) console.log("line " + i + " " + "x".repeat(50));\nreturn "done"'));
        const bytes = (r.output ?? []).slice(0, -1).reduce((n, o) => n + o.text.length, 0);
        expect(bytes).toBeLessThanOrEqual(4 * 1024);
        expect(r.output?.at(-1)?.text).toMatch(/output truncated: \d+ bytes omitted/);
        expect(r.telemetry.truncated).toBe(true);
      });

      it('on a value over maxOutputBytes: returns a preview and retains the whole value', async () => {
        const t = turn();
        const r = completed(await gw.exec(t.agentRunId, { code: 'return Array.from({ length: 2000 }, (_, i) => ({ i }))' }));
        const v = r.value as { truncated: boolean; bytes: number; preview: string; ref: string };
        expect(v.truncated).toBe(true);
        expect(v.preview.length).toBeLessThan(4 * 1024);
        const back = completed(await gw.exec(t.agentRunId, { code: `return (await results.load(${JSON.stringify(v.ref)})).length` }));
        expect(back.value).toBe(2000);
      });

      it('on probing for host capabilities: finds none', async () => {
        const r = completed(
          await run(
            'const g = (() => { try { return Function("return this")() } catch (e) { return globalThis } })();\nconst rq = ["req", "uire"].join("");\nreturn { require: typeof g[rq], process: typeof process, fetch: typeof fetch, wasm: typeof WebAssembly, gproc: typeof g.process, module: typeof module, wait: typeof wait, execIsTool: typeof exec === "function" && exec.source === "core" }',
          ),
        );
        expect(r.value).toEqual({ require: 'undefined', process: 'undefined', fetch: 'undefined', wasm: 'undefined', gproc: 'undefined', module: 'undefined', wait: 'undefined', execIsTool: true });
      });

      it('on import or require in the cell: fails with invalid_input before running', async () => {
        expect(failed(await run('const fs = require("fs")')).code).toBe('invalid_input');
        expect(failed(await run('const m = await import("fs")')).code).toBe('invalid_input');
      });

      it('on a guest that replaces JSON and Promise: tool replies are not forged', async () => {
        const r = completed(
          await run('JSON.parse = () => ({ forged: true });\nJSON.stringify = () => "{}";\nObject.defineProperty(Object.prototype, "r9", { set() {} });\nconst real = await weather_lookup({ city: "Lima" });\nreturn real.city'),
        );
        expect(r.value).toBe('Lima');
      });
    });

    describe('approvals and client tools', () => {
      it('on a client tool: the run waits for the client and wait delivers its answer', async () => {
        const t = turn(gw, { clientTools: [{ name: 'ask_user', description: 'ask the user', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }] });
        const first = waiting(await gw.exec(t.agentRunId, { code: 'const asked = ask_user({ q: "color?" });\nawait yield_control("ask the user");\nconst a = await asked;\nreturn "user said " + a.answer' }));
        expect(first.pendingToolCalls?.[0]).toMatchObject({ tool: 'ask_user', state: 'awaiting_client' });
        const view = gw.run(first.runId)!;
        gw.answerClientCall({ runId: first.runId, callId: view.clientCalls[0]!.callId, result: { answer: 'blue' } });
        expect(() => gw.answerClientCall({ runId: first.runId, callId: view.clientCalls[0]!.callId, result: {} })).toThrow(/no pending client tool call/);
        expect(completed(await gw.wait(t.agentRunId, { runId: first.runId })).value).toBe('user said blue');
      });

      it('on an approval granted after the deadline: the exec stays in flight with its budget paused and completes', async () => {
        const g = await gateway({ timeoutMs: 600 });
        try {
          const t = g.prepareTurn({});
          let settled = false;
          const pending = g.exec(t.agentRunId, { code: 'const r = await exec({ command: "echo", args: ["approved"] });\nreturn r.stdout.trim()' }).finally(() => (settled = true));
          await until(() => g.approvals().length > 0);
          // decide well after the 600 ms budget would have run out: the exec must still be in flight
          await new Promise((r) => setTimeout(r, 900));
          expect(settled, 'the exec must pause its budget for the decision').toBe(false);
          const [approval] = g.approvals();
          expect(approval).toMatchObject({ tool: 'exec', input: { command: 'echo', args: ['approved'] } });
          expect(approval?.code).toContain('exec({ command: "echo"');
          g.decideApproval({ approvalId: approval!.approvalId, approve: true });
          // once decided the budget runs again; a slow engine on a loaded machine may park the rest (timeout), which wait resumes
          let result = await pending;
          for (let i = 0; i < 20 && result.status === 'waiting'; i++) result = await g.wait(t.agentRunId, { runId: result.runId });
          expect(completed(result).value).toBe('approved');
        } finally {
          await g.close();
        }
      });

      it('on an approval denied: the guest gets a catchable error', async () => {
        const t = turn();
        const pending = gw.exec(t.agentRunId, { code: 'try { await exec({ command: "ls" }); return "ran" } catch (e) { return e.code }' });
        await until(() => gw.approvals().length > 0);
        const [approval] = gw.approvals();
        gw.decideApproval({ approvalId: approval!.approvalId, approve: false, reason: 'not now' });
        expect(completed(await pending).value).toBe('approval_denied');
      });
    });

    describe('hostile bridge traffic', () => {
      // A cell that holds the raw host primitive, as one would after fully subverting the prelude.
      let raw: Executor;
      let rg: Gateway;

      beforeAll(async () => {
        raw = await opts.createExecutor({ preludePrefix: 'globalThis.__cm_raw = globalThis.__cm_sync;' });
        rg = await gateway({}, raw);
      });

      afterEach(() => {
        expect(rg.diagnostics.suspendedSlots()).toBe(0);
        expect(rg.diagnostics.leaks()).toEqual([]);
        expect(raw.leaks()).toEqual([]);
      });

      afterAll(async () => {
        await rg.close();
        await raw.close();
      });

      async function rawRun(code: string) {
        const t = rg.prepareTurn({});
        try {
          return await rg.exec(t.agentRunId, { code });
        } finally {
          rg.endTurn(t.agentRunId);
        }
      }

      const req = (o: Record<string, unknown>) => JSON.stringify(JSON.stringify(o));
      const forged: Array<[string, string, RegExp]> = [
        ['a null request', `__cm_raw("send", "null"); await sleep({ ms: 1 })`, /must be an object, got null/],
        ['a request that is not JSON', `__cm_raw("send", "{bad"); await sleep({ ms: 1 })`, /not valid JSON/],
        ['a request with an unknown op', `__cm_raw("send", ${req({ id: 'x1', op: 'exfiltrate' })}); await sleep({ ms: 1 })`, /unknown op/],
        ['a request with a wrong field type', `__cm_raw("send", ${req({ id: 'x1', op: 'timer', ms: 'soon', timer: 1 })}); await sleep({ ms: 1 })`, /ms must be a finite number/],
        ['a request id the prelude already used', `__cm_raw("send", ${req({ id: 'r1', op: 'timer', ms: 5, timer: 99 })}); await sleep({ ms: 1 })`, /request id r1 was already used by this run/],
        ['a request id longer than any real one', `__cm_raw("send", ${req({ id: 'x'.repeat(5000), op: 'all' })}); await sleep({ ms: 1 })`, /request id must be a string of 1 to/],
        ['a store value that is not JSON text', `__cm_raw("send", JSON.stringify({ id: "x1", op: "store", action: "set", key: "k", json: { not: "text" } })); await sleep({ ms: 1 })`, /stored value is object, not a JSON string/],
        ['a cancel of an id the run never sent', `__cm_raw("cancel", "r999"); await sleep({ ms: 1 })`, /never sent/],
        ['a settle that is not JSON', `await sleep({ ms: 1 }); __cm_raw("settle", "{bad"); await sleep({ ms: 1 })`, /outcome is not valid JSON/],
        ['a settle whose value is not JSON', `await sleep({ ms: 1 }); __cm_raw("settle", ${req({ ok: true, json: '{bad' })}); await sleep({ ms: 1 })`, /value is not valid JSON/],
        ['a settle that forges a host error code', `__cm_raw("settle", ${req({ ok: false, error: 'x', code: 'runtime_unavailable' })}); await sleep({ ms: 1 })`, /only the host may report/],
        ['an output line that is null', `__cm_raw("emit", "null"); return 1`, /output line must be an object/],
        ['an API request that is null', `__cm_raw("api", "null"); return 1`, /API request must be/],
        ['an unknown operation', `__cm_raw("nope", ""); return 1`, /unknown bridge operation/],
        ['an op that is not a string', `__cm_raw({ toString() { throw new Error("gotcha") } }, "x"); return 1`, /unknown bridge operation/],
      ];

      for (const [what, code, message] of forged) {
        it(`on ${what}: fails that run with invalid_input naming it, and releases its slot`, async () => {
          const r = failed(await rawRun(code));
          expect(r.code).toBe('invalid_input');
          expect(r.error).toMatch(message);
          expect(rg.diagnostics.suspendedSlots()).toBe(0);
        });
      }

      it(`on ${MAX_SUSPENDED_RUNS + 6} runs with forged settles: every later cell with a tool call still runs`, async () => {
        for (let i = 0; i < MAX_SUSPENDED_RUNS + 6; i++) {
          if (i % 2 === 0) {
            const forged = `await sleep({ ms: 1 }); __cm_raw("settle", ${req({ ok: true, json: '{bad' })}); await sleep({ ms: 1 })`;
            expect(failed(await rawRun(forged)).code).toBe('invalid_input');
          } else {
            // through the controller, toJSON is the guest's own JSON semantics: its value serializes as null
            expect(completed(await rawRun('await sleep({ ms: 1 }); Object.prototype.toJSON = () => null; return { a: 1 }')).value).toBeNull();
          }
        }
        expect(rg.diagnostics.suspendedSlots()).toBe(0);
        expect(completed(await rawRun('return (await weather_lookup({ city: "Oslo" })).city')).value).toBe('Oslo');
        // a hang guard, not a time limit: 71 runs one after another (a live executor starts a new worker after
        // each failed one) took over 20 s beside heavy CPU load
      }, 120_000);

      it('on Object.prototype.toJSON = () => null before a tool call: the run ends without a host crash, and the next cell calls tools', async () => {
        const r = await run('Object.prototype.toJSON = () => null;\nconst w = await weather_lookup({ city: "Lima" });\nreturn w.city');
        // honest: the guest's toJSON makes its own input null, and the tool refuses it as a catchable tool error
        const f = failed(r);
        expect(f.error).toMatch(/weather_lookup: "input" must be one object, got null/);
        expect(f.code).not.toBe('internal_error');
        expect(completed(await run('return (await weather_lookup({ city: "Oslo" })).city')).value).toBe('Oslo');
      });
    });

    describe('values past the engine limits', () => {
      /**
       * Engine limit (quickjs, quickjs-ng): its strings are flat copies and its out-of-memory cannot be caught, so a
       * string grown past the memory limit ends the cell (memory_limit_exceeded) before it reaches the length limit.
       * V8 (node) and Bellard QuickJS (quickjs-emscripten) share parts between strings (cons strings, ropes) and check
       * a string's length before allocating it: the cell gets a catchable RangeError.
       */
      const outcomePastLimits = async (code: string) => {
        const r = await run(code);
        if (opts.kind === 'quickjs') expect(failed(r).code).toBe('memory_limit_exceeded');
        else expect(completed(r).value).toBe(true);
      };

      it("on a string doubled past the engine's length limit: a catchable RangeError (quickjs: memory_limit_exceeded), never internal_error", async () => {
        await outcomePastLimits('let s = "x";\ntry { for (;;) s = s + s; } catch (e) { return e instanceof RangeError || String(e) }');
      });

      it("on String.prototype.repeat past the engine's length limit: a catchable RangeError (quickjs: memory_limit_exceeded)", async () => {
        await outcomePastLimits('try { "x".repeat(2 ** 29); return "built" } catch (e) { return e instanceof RangeError || String(e) }');
      });
    });

    describe('scheduling and start-up', () => {
      it("on two infinite loops: another turn's trivial cell completes while both still run", async () => {
        const g = await gateway({ timeoutMs: 20_000 });
        try {
          const a = g.prepareTurn({});
          const b = g.prepareTurn({});
          const settled: string[] = [];
          const loops = ['L1', 'L2'].map((label) =>
            g.exec(a.agentRunId, { code: `await probe({ label: "${label}" });\nfor (;;) {}` }).then((r) => {
              settled.push(label);
              return r;
            }),
          );
          await until(() => probes.counts.has('L1') && probes.counts.has('L2'));
          // the loops hold their workers once their guests compute (Node: every cell has its own worker)
          if (opts.computingWorkers) await until(() => opts.computingWorkers!(executor) >= 2);
          const trivial = completed(await g.exec(b.agentRunId, { code: 'return "served"' }));
          expect(trivial.value).toBe('served');
          // ordering, not milliseconds: both 20 s loops were still running when the trivial cell returned
          expect(settled).toEqual([]);
          g.endTurn(a.agentRunId);
          for (const r of await Promise.all(loops)) expect(failed(r).code).toBe('aborted');
        } finally {
          await g.close();
        }
      });

      it('on return 1 with the minimum timeoutMs on a cold executor: completes (worker start is not guest time)', async () => {
        const cold = await opts.createExecutor({ cold: true });
        const g = await gateway({ timeoutMs: 100 }, cold);
        try {
          const t = g.prepareTurn({});
          const r = completed(await g.exec(t.agentRunId, { code: 'return 1' }));
          expect(r.value).toBe(1);
          // the budget counts from the VM being ready: start-up and budget together fit in the call (1 ms of rounding each)
          expect(r.telemetry.startMs).toBeGreaterThanOrEqual(0);
          expect(r.telemetry.budgetUsedMs + r.telemetry.startMs!).toBeLessThanOrEqual(r.telemetry.durationMs + 2);
        } finally {
          await g.close();
          await cold.close();
        }
      });

      it('on a resumed run: reports its start-up time apart from the budget', async () => {
        const t = turn();
        const first = waiting(await gw.exec(t.agentRunId, { code: 'await yield_control("x");\nreturn 2' }));
        const second = completed(await gw.wait(t.agentRunId, { runId: first.runId }));
        expect(second.value).toBe(2);
        expect(second.telemetry.startMs).toBeGreaterThanOrEqual(0);
        if (opts.kind === 'quickjs') {
          expect(second.telemetry.restoreMs).toBeGreaterThan(0);
          // the worker reports the raw size of the snapshot it restored (the one the first leg took)
          expect(second.telemetry.snapshot?.rawBytes).toBeGreaterThan(0);
          expect(second.telemetry.snapshot?.rawBytes).toBe(first.telemetry.snapshot?.rawBytes);
        }
      });
    });
  });
}
