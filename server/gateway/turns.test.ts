// Saved-data lifetime of a turn through the Gateway: client-tool appends keep the result store, restriction and replacement clear it, parked cells keep the store they captured, the turn's abort clears it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ownership } from '../access/ownership.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { Gateway } from '../gateway.ts';
import type { ClientToolSpec } from '../gateway-types.ts';
import { expectCompleted, expectWaiting, testGateway, until } from '../testing.ts';
import { testConfig } from '../tools/testing.ts';
import { isAppend, TurnRegistry } from './turns.ts';

let executor: QuickJsExecutor;
let gw: Gateway;

beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 1 });
  await executor.ready();
  gw = await testGateway({ executor, codeMode: { maxOutputBytes: 1024 } });
});

afterAll(async () => {
  await gw.close();
  await executor.close();
});

const ask: ClientToolSpec = { name: 'ask_user', description: 'ask the user', inputSchema: { type: 'object' } };
const pick: ClientToolSpec = { name: 'pick_color', description: 'pick a color', inputSchema: { type: 'object' } };

/** A cell that reports what results.* does for it instead of failing: `{ ok, value }` or `{ ok: false, code, error }`. */
const attempt = (expr: string) => `(async () => { try { return { ok: true, value: await ${expr} } } catch (e) { return { ok: false, code: e.code, error: e.message } } })()`;

async function saveRef(agentRunId: string, value: unknown): Promise<string> {
  return expectCompleted(await gw.exec(agentRunId, { code: `return (await results.save(${JSON.stringify(value)})).ref` })).value as string;
}

/** Answer the one client-tool call of a parked run (once the Gateway has handed it to the client). */
async function answer(runId: string, result: unknown): Promise<void> {
  await until(() => gw.run(runId)?.clientCalls.length === 1, { what: `run ${runId}'s client-tool call` });
  gw.answerClientCall({ runId, callId: gw.run(runId)!.clientCalls[0]!.callId, result });
}

async function loadIn(agentRunId: string, ref: string) {
  return expectCompleted(await gw.exec(agentRunId, { code: `return await ${attempt(`results.load(${JSON.stringify(ref)})`)}` })).value;
}

describe('spec 02: "Appended client tools preserve the same result-store lifetime, including for cells already parked in wait"', () => {
  it('on an update that adds a tool: new cells and a cell parked before it load the earlier reference, and share what either saves', async () => {
    const t = gw.prepareTurn({ clientTools: [ask] });
    const before = await saveRef(t.agentRunId, { kept: 1 });
    // parks at once (yield_control); the references to try reach it as its client tool's answer
    const parked = expectWaiting(
      await gw.exec(t.agentRunId, {
        code: `const asked = ask_user({});\nawait yield_control("ask");\nconst refs = await asked;\nconst out = [];\nfor (const r of refs) out.push(await ${attempt('results.load(r)')});\nout.push(await ${attempt('results.save({ later: true })')});\nreturn out`,
      }),
    );
    gw.updateClientTools(t.agentRunId, [pick, ask]);
    expect(await loadIn(t.agentRunId, before)).toEqual({ ok: true, value: { kept: 1 } });
    const after = await saveRef(t.agentRunId, { appended: 2 });
    await answer(parked.runId, [before, after]);
    const out = expectCompleted(await gw.wait(t.agentRunId, { runId: parked.runId })).value as Array<{ ok: boolean; value: unknown }>;
    expect(out.slice(0, 2)).toEqual([
      { ok: true, value: { kept: 1 } },
      { ok: true, value: { appended: 2 } },
    ]);
    // what the parked cell saved lives in the same store: a new cell loads it
    const laterRef = (out[2]!.value as { ref: string }).ref;
    expect(await loadIn(t.agentRunId, laterRef)).toEqual({ ok: true, value: { later: true } });
  });

  it('spec 01 "Catalog description refreshes ... do not close the owner": a client tool whose description changed keeps the reference, for new cells and a parked one', async () => {
    const t = gw.prepareTurn({ clientTools: [ask, pick] });
    const ref = await saveRef(t.agentRunId, { kept: 'through a refresh' });
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code: `await yield_control("refresh");\nreturn await ${attempt(`results.load(${JSON.stringify(ref)})`)}` }));
    gw.updateClientTools(t.agentRunId, [{ ...ask, description: 'ask the person at the keyboard, briefly' }, pick]);
    expect(await loadIn(t.agentRunId, ref)).toEqual({ ok: true, value: { kept: 'through a refresh' } });
    expect(expectCompleted(await gw.wait(t.agentRunId, { runId: parked.runId })).value).toEqual({ ok: true, value: { kept: 'through a refresh' } });
    // new cells see the new description
    expect(expectCompleted(await gw.exec(t.agentRunId, { code: 'return ask_user.description' })).value).toBe('ask the person at the keyboard, briefly');
  });

  it('on the same tools sent again, in another order and key order: nothing is restricted, the reference stays', async () => {
    const t = gw.prepareTurn({ clientTools: [ask, pick] });
    const ref = await saveRef(t.agentRunId, 'same');
    gw.updateClientTools(t.agentRunId, [{ inputSchema: { type: 'object' }, description: 'pick a color', name: 'pick_color' }, ask]);
    expect(await loadIn(t.agentRunId, ref)).toEqual({ ok: true, value: 'same' });
  });
});

describe('spec 02: "Catalog teardown, replacement, restriction, and the admitted run\'s abort clear saved data"', () => {
  it('on an update that removes a client tool (restriction): the earlier reference is gone for new cells, which get a fresh store', async () => {
    const t = gw.prepareTurn({ clientTools: [ask, pick] });
    const ref = await saveRef(t.agentRunId, { secret: 1 });
    gw.updateClientTools(t.agentRunId, [ask]);
    // the new cell hears why the reference is gone (not "references expire when the reply ends": the reply goes on)
    expect(await loadIn(t.agentRunId, ref)).toEqual({
      ok: false,
      code: 'expired',
      error: expect.stringMatching(/^saved result "res_[0-9a-f]+" was cleared when this turn's client tools were restricted or replaced/),
    });
    const fresh = await saveRef(t.agentRunId, { fresh: 2 });
    expect(await loadIn(t.agentRunId, fresh)).toEqual({ ok: true, value: { fresh: 2 } });
  });

  it('on an update that redefines a client tool under the same name (replacement): the earlier reference is gone', async () => {
    const t = gw.prepareTurn({ clientTools: [ask] });
    const ref = await saveRef(t.agentRunId, 'old');
    gw.updateClientTools(t.agentRunId, [{ ...ask, inputSchema: { type: 'object', properties: { question: { type: 'string' } } } }]);
    expect(await loadIn(t.agentRunId, ref)).toMatchObject({ ok: false, code: 'expired', error: expect.stringContaining('restricted or replaced') });
    // a reference no store of the turn ever held is still not_found
    expect(await loadIn(t.agentRunId, 'res_000000000000')).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('on the admitted run\'s abort (the turn\'s abort signal, which turns.end fires): its saved data is cleared', () => {
    const registry = new TurnRegistry({
      config: testConfig(),
      tools: [],
      plugins: [],
      mcpServers: () => [],
      ownership: new Ownership(() => false),
      runs: { abortTurn: () => undefined, list: () => [] },
    });
    try {
      const aborted = registry.prepare({});
      const scope = registry.use(aborted.agentRunId)!.scope;
      const { ref } = scope.results.save('1', false);
      scope.abort.abort();
      expect(() => scope.results.load(ref)).toThrow(/this turn has ended; saved results expired with it/);
      expect(scope.results.size).toBe(0);

      const ended = registry.prepare({});
      const endedScope = registry.use(ended.agentRunId)!.scope;
      endedScope.results.save('2', false);
      registry.end(ended.agentRunId);
      expect(endedScope.results.clearedBy).toBe('turn_ended');
      expect(endedScope.results.size).toBe(0);
    } finally {
      registry.close();
    }
  });
});

describe('spec 02: "Each cell captures that store before execution, so stale cells cannot adopt a replacement store or retain references after a permission change"', () => {
  it('on a restriction while a cell is parked: the cell keeps its cleared store, so it loads neither the old nor the new reference and saves nothing', async () => {
    const t = gw.prepareTurn({ clientTools: [ask, pick] });
    const old = await saveRef(t.agentRunId, { before: 1 });
    const parked = expectWaiting(
      await gw.exec(t.agentRunId, {
        code: `const asked = ask_user({});\nawait yield_control("ask");\nconst refs = await asked;\nconst out = [];\nfor (const r of refs) out.push(await ${attempt('results.load(r)')});\nout.push(await ${attempt('results.save({ after: true })')});\nreturn out`,
      }),
    );
    gw.updateClientTools(t.agentRunId, [ask]);
    const replacement = await saveRef(t.agentRunId, { replacement: 2 });
    await answer(parked.runId, [old, replacement]);
    const out = expectCompleted(await gw.wait(t.agentRunId, { runId: parked.runId })).value as unknown[];
    const cleared = { ok: false, code: 'expired', error: expect.stringMatching(/^saved results were cleared when this turn's client tools were restricted or replaced, and this cell started before that/) };
    expect(out).toEqual([cleared, cleared, cleared]);
    // the stale cell touched nothing of the replacement store: a new cell still loads its reference
    expect(await loadIn(t.agentRunId, replacement)).toEqual({ ok: true, value: { replacement: 2 } });
  });

  it('on a restriction that removes a client tool while a cell is parked: the cell can no longer call it (a catchable not_found naming the removal); the tools still offered still work', async () => {
    const t = gw.prepareTurn({ clientTools: [ask, pick] });
    const parked = expectWaiting(
      await gw.exec(t.agentRunId, { code: `await yield_control("restrict");\nconst removed = await ${attempt('pick_color({})')};\nconst kept = await ask_user({});\nreturn { removed, kept }` }),
    );
    gw.updateClientTools(t.agentRunId, [ask]);
    const resumed = gw.wait(t.agentRunId, { runId: parked.runId });
    await answer(parked.runId, 'still asked');
    const out = expectCompleted(await resumed).value as { removed: { ok: boolean; code: string; error: string }; kept: unknown };
    expect(out.removed).toEqual({ ok: false, code: 'not_found', error: expect.stringMatching(/^pick_color was removed from this turn's client tools after this cell started/) });
    expect(out.kept).toBe('still asked');
    // nothing was handed to the client for the removed tool
    expect(gw.trajectory(parked.runId)?.calls.flatMap((c) => c.nested).filter((n) => n.tool === 'pick_color').map((n) => n.status)).toEqual(['error']);
  });

  it('on a restriction while a cell is parked: its oversized final value gets no ref, and the warning says the store was cleared', async () => {
    const t = gw.prepareTurn({ clientTools: [ask, pick] });
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code: 'const asked = ask_user({});\nawait yield_control("ask");\nawait asked;\nreturn "x".repeat(5000)' }));
    gw.updateClientTools(t.agentRunId, []);
    await answer(parked.runId, null);
    const done = expectCompleted(await gw.wait(t.agentRunId, { runId: parked.runId }));
    expect(done.value).toMatchObject({ truncated: true, bytes: 5002 });
    expect(done.value).not.toHaveProperty('ref');
    expect(done.warnings).toContainEqual(expect.stringMatching(/^the full value was not retained: saved results were cleared when this turn's client tools were restricted/));
  });
});

describe('isAppend', () => {
  it('on added tools in any order or a changed description: an append; on a removed tool or a changed schema: not one', () => {
    expect(isAppend([ask], [pick, ask])).toBe(true);
    expect(isAppend([], [ask])).toBe(true);
    expect(isAppend([ask, pick], [ask])).toBe(false);
    // a description refresh is not a replacement (spec 01)
    expect(isAppend([ask], [{ ...ask, description: 'ask someone else' }])).toBe(true);
    expect(isAppend([ask], [{ ...ask, outputSchema: { type: 'string' } }])).toBe(false);
  });
});

describe('token meter: the definitions a turn is counted with', () => {
  const meterOf = (runId: string | undefined) => (runId === undefined ? undefined : gw.run(runId)?.meter);

  it('on two turns of one agent: the same counts (shared, not recounted); another tool set is counted on its own', async () => {
    const runOf = async (agentRunId: string) => expectCompleted(await gw.exec(agentRunId, { code: 'return 1' })).telemetry.runId;
    const first = meterOf(await runOf(gw.prepareTurn({}).agentRunId));
    const second = meterOf(await runOf(gw.prepareTurn({}).agentRunId));
    const withClient = meterOf(await runOf(gw.prepareTurn({ clientTools: [ask] }).agentRunId));
    expect(first?.codeMode.definitions).toBeGreaterThan(0);
    expect(second?.codeMode.definitions).toBe(first?.codeMode.definitions);
    expect(second?.direct.definitions).toBe(first?.direct.definitions);
    // code mode lists the client tool in exec's quick index; direct calling defines it in full
    expect(withClient?.codeMode.definitions).toBeGreaterThan(first!.codeMode.definitions);
    expect(withClient?.direct.definitions).toBeGreaterThan(first!.direct.definitions);
  });
});

describe('what a turn\'s cells boot with', () => {
  const tools = [
    { name: 'read', source: 'core' as const, description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
    { name: 'web_search', source: 'core' as const, description: 'Search the web.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
  ];
  const registry = () =>
    new TurnRegistry({
      config: testConfig({ tools: { ...testConfig().tools, codeMode: { ...testConfig().tools.codeMode, enabled: true } } }),
      tools,
      plugins: [],
      mcpServers: () => [],
      ownership: new Ownership(() => false),
      runs: { abortTurn: () => undefined, list: () => [] },
    });

  it('on a turn over the same tools as an earlier one (client tools sent again as new objects): the earlier catalog and API files; other client tools get their own', () => {
    const turns = registry();
    try {
      const scopeOf = (req: Parameters<TurnRegistry['prepare']>[0]) => turns.use(turns.prepare(req).agentRunId)!.scope;
      const a = scopeOf({ clientTools: [{ ...ask }] });
      const b = scopeOf({ clientTools: [{ ...ask, inputSchema: { ...ask.inputSchema } }] });
      expect(b.catalog).toBe(a.catalog);
      expect(b.files).toBe(a.files);
      expect(turns.effective({ clientTools: [ask] }).surface).toEqual(turns.effective({ clientTools: [{ ...ask }] }).surface);
      const c = scopeOf({ clientTools: [ask, pick] });
      expect(c.catalog).not.toBe(a.catalog);
      expect(c.catalog.byCallable.has('pick_color')).toBe(true);
      const plain = scopeOf({});
      expect(plain.catalog.byCallable.has('ask_user')).toBe(false);
      // a changed schema is another client tool
      const changed = scopeOf({ clientTools: [{ ...ask, inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }] });
      expect(changed.catalog).not.toBe(a.catalog);
      expect(scopeOf({ clientTools: [ask] }).catalog).toBe(a.catalog);
    } finally {
      turns.close();
    }
  });

  it('on a turn boot: MCP namespaces and limits per turn, no tool list (each cell adds the tools its source names)', () => {
    const turns = registry();
    try {
      const scope = turns.use(turns.prepare({}).agentRunId)!.scope;
      expect(scope.boot).toEqual({ maxPendingToolCalls: scope.options.maxPendingToolCalls, mcp: [] });
    } finally {
      turns.close();
    }
  });
});
