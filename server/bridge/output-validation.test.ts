// Output validation on the real Gateway path (02: "Tool calls still use the existing runtime input and output validation"), per tool source.
//
// MCP tools' structuredContent is covered against a real stdio server in server/tools/mcp/gateway.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { expectCompleted, expectFailed, expectWaiting, testGateway } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';

let executor: QuickJsExecutor;
beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 1 });
  await executor.ready();
});
afterAll(() => executor.close());

const COUNT_SCHEMA = { type: 'object', properties: { count: { type: 'integer' }, items: { type: 'array', items: { type: 'string' } } }, required: ['count'] };

/** A core tool that returns whatever the cell asks it to, under a declared output schema (or none). */
function echoTool(name: string, outputSchema?: ToolDefinition['outputSchema']): ToolDefinition {
  return {
    name,
    description: 'returns input.value as its result',
    source: 'core',
    inputSchema: { type: 'object', properties: { value: {} } },
    ...(outputSchema ? { outputSchema } : {}),
    execute: async (input) => (input as { value?: unknown }).value,
  };
}

/** Runs `call` in a cell and returns what it received or the error it caught. */
const catching = (call: string) => `try { return { received: await ${call} } } catch (e) { return { code: e.code, message: e.message } }`;

describe('output validation: core tools', () => {
  it('on a result that contradicts the declared output schema: the call fails with invalid_output naming the field and what was expected', async () => {
    const gw = await testGateway({ executor, tools: [echoTool('counter', COUNT_SCHEMA)] });
    const t = gw.prepareTurn({});
    const bad = expectCompleted(await gw.exec(t.agentRunId, { code: catching('counter({ value: { count: "many" } })') })).value;
    expect(bad).toEqual({ code: 'invalid_output', message: expect.stringContaining('counter: invalid output: "count" must be an integer; got string "many"') });
    const nested = expectCompleted(await gw.exec(t.agentRunId, { code: catching('counter({ value: { count: 1, items: ["a", 2] } })') })).value;
    expect(nested).toMatchObject({ code: 'invalid_output', message: expect.stringContaining('"items[1]" must be a string') });
    const missing = expectCompleted(await gw.exec(t.agentRunId, { code: catching('counter({ value: {} })') })).value;
    expect(missing).toMatchObject({ code: 'invalid_output', message: expect.stringContaining('"count" is required') });
  });

  it('on a result that matches: the cell receives it', async () => {
    const gw = await testGateway({ executor, tools: [echoTool('counter', COUNT_SCHEMA)] });
    const t = gw.prepareTurn({});
    expect(expectCompleted(await gw.exec(t.agentRunId, { code: 'return await counter({ value: { count: 2, items: ["a"] } })' })).value).toEqual({ count: 2, items: ['a'] });
  });

  it('on the shipped core tools with output schemas (web_search, web_fetch): real results pass their own declarations', async () => {
    const gw = await testGateway({ executor });
    const t = gw.prepareTurn({});
    const code = `
      const hits = await web_search({ query: "quickjs" });
      const page = await web_fetch({ url: hits.results[0].url });
      return { hits: hits.results.length > 0, title: typeof page.title }`;
    expect(expectCompleted(await gw.exec(t.agentRunId, { code })).value).toEqual({ hits: true, title: 'string' });
  });

  it('on a tool without an output schema: any result reaches the cell, typed unknown', async () => {
    const gw = await testGateway({ executor, tools: [echoTool('anything')] });
    const t = gw.prepareTurn({});
    const code = 'return [await anything({ value: "text" }), await anything({ value: [1, { a: null }] }), (await anything.describe()).declaration]';
    const [text, list, declaration] = expectCompleted(await gw.exec(t.agentRunId, { code })).value as [unknown, unknown, string];
    expect([text, list]).toEqual(['text', [1, { a: null }]]);
    expect(declaration).toContain('Promise<unknown>');
  });

  it('on an uncaught invalid output: the exec fails with the message, and the tool name and field in it', async () => {
    const gw = await testGateway({ executor, tools: [echoTool('counter', COUNT_SCHEMA)] });
    const t = gw.prepareTurn({});
    const failed = expectFailed(await gw.exec(t.agentRunId, { code: 'const r = await counter({ value: { count: 1.5 } }); return r.count' }));
    expect(failed.error).toContain('counter: invalid output: "count" must be an integer; got number 1.5');
  });
});

describe('output validation: plugin tools', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'codemode-liar-plugin-'));
    // an external plugin loaded from its folder by the registry, as plugins.external loads any plugin
    writeFileSync(
      join(dir, 'index.mjs'),
      `export default { id: 'liar', tools: [{
        name: 'forecast', description: 'declares { tempC: number, city: string }; answers tempC as text',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        outputSchema: { type: 'object', properties: { tempC: { type: 'number' }, city: { type: 'string' } }, required: ['tempC', 'city'] },
        execute: async ({ city }) => ({ tempC: city === 'Oslo' ? 'cold' : 21, city }),
      }] };\n`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('on an external plugin tool whose result contradicts its output schema: invalid_output; a matching result passes', async () => {
    const gw = await testGateway({ executor, config: { plugins: { bundled: [], external: [{ id: 'liar', path: dir }] } } });
    const t = gw.prepareTurn({});
    const code = `const out = [];
      for (const city of ["Oslo", "Rome"]) {
        try { out.push({ received: await forecast({ city }) }) } catch (e) { out.push({ code: e.code, message: e.message }) }
      }
      return out`;
    const [oslo, rome] = expectCompleted(await gw.exec(t.agentRunId, { code })).value as unknown[];
    expect(oslo).toEqual({ code: 'invalid_output', message: expect.stringContaining('forecast: invalid output: "tempC" must be a number; got string "cold"') });
    expect(rome).toEqual({ received: { tempC: 21, city: 'Rome' } });
  });

  it('on a bundled plugin tool (weather.lookup): its real result passes its declaration', async () => {
    const gw = await testGateway({ executor, config: { plugins: { bundled: ['weather'], external: [] } } });
    const t = gw.prepareTurn({});
    const value = expectCompleted(await gw.exec(t.agentRunId, { code: 'return await weather_lookup({ city: "Oslo" })' })).value;
    expect(value).toMatchObject({ city: expect.any(String) });
  });
});

describe('output validation: client tools', () => {
  const pick = { name: 'pick_count', description: 'the user picks a count', inputSchema: { type: 'object', properties: { max: { type: 'integer' } }, required: ['max'] }, outputSchema: COUNT_SCHEMA };

  async function answered(result: unknown): Promise<unknown> {
    const gw = await testGateway({ executor });
    const t = gw.prepareTurn({ clientTools: [pick] });
    const code = `const asked = pick_count({ max: 3 });\nawait yield_control("ask the user");\n${catching('asked')}`;
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code }));
    const callId = gw.run(parked.runId)!.clientCalls[0]!.callId;
    gw.answerClientCall({ runId: parked.runId, callId, result });
    return expectCompleted(await gw.wait(t.agentRunId, { runId: parked.runId })).value;
  }

  it("on a client's answer that contradicts the tool's output schema: the call fails with invalid_output naming the field", async () => {
    expect(await answered({ count: 'three' })).toEqual({ code: 'invalid_output', message: expect.stringContaining('pick_count: invalid output: "count" must be an integer; got string "three"') });
  });

  it("on a client's answer that matches: the cell receives it", async () => {
    expect(await answered({ count: 3 })).toEqual({ received: { count: 3 } });
  });

  it('on input that contradicts the client tool\'s input schema: invalid_input before the client is asked', async () => {
    const gw = await testGateway({ executor });
    const t = gw.prepareTurn({ clientTools: [pick] });
    const value = expectCompleted(await gw.exec(t.agentRunId, { code: catching('pick_count({ max: "three" })') })).value;
    expect(value).toEqual({ code: 'invalid_input', message: expect.stringContaining('"max" must be an integer') });
  });
});
