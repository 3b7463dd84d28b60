// Inferred output types end to end: results of tools that declare no output are merged per turn, listed as an
// overlay (never on the model surface), and used by the server typecheck only when the caller opts in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { expectCompleted, expectFailed, testGateway } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { createEdgeState } from '../trpc/context.ts';
import { callerFor, OPERATOR } from '../trpc/testing.ts';

let executor: QuickJsExecutor;
beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 1 });
  await executor.ready();
});
afterAll(() => executor.close());

const rows: ToolDefinition = {
  name: 'list_rows',
  description: 'Rows of a table (declares no output)',
  source: 'core',
  inputSchema: { type: 'object', properties: { table: { type: 'string' } }, required: ['table'] },
  execute: async (input) => ((input as { table: string }).table === 'b' ? { rows: [{ id: 2 }], next: 'c' } : { rows: [{ id: 1, label: 'one' }] }),
};
const declared: ToolDefinition = {
  name: 'count_rows',
  description: 'Counts rows (declares its output)',
  source: 'core',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
  execute: async () => ({ count: 3 }),
};
const echo: ToolDefinition = {
  name: 'echo',
  description: 'Echo text back as text content (an MCP tool without an outputSchema)',
  source: 'mcp',
  owner: 'demo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: async (input) => ({ content: [{ type: 'text', text: (input as { text: string }).text }] }),
};

// declares its output ({ count }) but returns more: the declared type wins, the extra key stays unknown to the typecheck
const stats: ToolDefinition = {
  name: 'row_stats',
  description: 'Row statistics (declares count only)',
  source: 'core',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
  execute: async () => ({ count: 2, note: 'extra' }),
};

// treats echo's text as a number: the declared McpContent union allows the cast (some kinds have no text);
// the inferred type (every item had string text) does not
const MISUSE = 'const r = await MCP.demo.echo({ text: "41" });\nconst first = r.content[0] as { text?: number };\nreturn (first.text ?? 0) + 1';
const INFERRED_ITEM = '{ type: string; text: string; }';

const OBSERVE = 'await list_rows({ table: "a" }); await list_rows({ table: "b" }); await count_rows({}); await MCP.demo.echo({ text: "hi" }); return 1';

describe('inferred output types', () => {
  it('merges the results of undeclared tools per turn (optional keys), skips declared ones, and lists them as an overlay', async () => {
    const gw = await testGateway({ executor, tools: [rows, declared, echo] });
    const turn = gw.prepareTurn({});
    expect(gw.inferredTypes(turn.agentRunId)?.tools).toEqual([]);
    expectCompleted(await gw.exec(turn.agentRunId, { code: OBSERVE }));
    const overlay = gw.inferredTypes(turn.agentRunId);
    const byTool = new Map(overlay?.tools.map((t) => [t.tool, t]));
    expect([...byTool.keys()].sort()).toEqual(['MCP.demo.echo', 'list_rows']);
    expect(byTool.get('list_rows')?.samples).toBe(2);
    expect(byTool.get('list_rows')?.type.replace(/\s+/g, ' ')).toBe('{ rows: Array<{ id: number; label?: string; }>; next?: string; }');
    expect(byTool.get('MCP.demo.echo')?.type.replace(/\s+/g, ' ')).toBe('{ content: Array<{ type: string; text: string; }>; }');
    expect(overlay?.leading).toContain('declare function list_rows(');
    expect(overlay?.leading).toContain('@inferred');
    expect(overlay?.trailing).toContain('interface McpServer_demo {');
    // never sent to the model: the surface and its quick index do not change
    expect(JSON.stringify(gw.surface({}))).not.toMatch(/[Ii]nferred/);
    expect(gw.catalog({}).declarations).not.toMatch(/[Ii]nferred/);
    // an unknown turn has none
    expect(gw.inferredTypes('ar_nope')).toBeUndefined();
  });

  it('the server typecheck uses them only when the caller opts in (plain and MCP tools)', async () => {
    const gw = await testGateway({ executor, tools: [rows, declared, echo] });
    const turn = gw.prepareTurn({});
    expectCompleted(await gw.exec(turn.agentRunId, { code: OBSERVE }));
    const cell = {
      code: 'const r = await list_rows({ table: "a" });\nconst id: number = r.rows[0].id;\nconst e = await MCP.demo.echo({ text: "x" });\nconst t: string = e.content[0].text;\nreturn [id, t]',
      language: 'typescript' as const,
      typecheck: true,
    };
    // declared: list_rows returns unknown, so the typed cell does not check
    expectFailed(await gw.exec(turn.agentRunId, cell), 'invalid_input');
    const optedIn = expectCompleted(await gw.exec(turn.agentRunId, cell, { typecheckInferred: true }));
    expect(optedIn.value).toEqual([1, 'x']);
    // inputs keep their declared type: a wrong argument is still an error with the overlay
    const wrong = await gw.exec(turn.agentRunId, { ...cell, code: 'const r = await list_rows({ table: 1 });\nreturn r.rows' }, { typecheckInferred: true });
    expect(expectFailed(wrong, 'invalid_input').error).toMatch(/'number' is not assignable to type 'string'/);
  });

  it('a cell that misuses an MCP result whose type is only inferred: passes the declared-only typecheck, fails with the opt-in naming the inferred type', async () => {
    const gw = await testGateway({ executor, tools: [echo] });
    const turn = gw.prepareTurn({});
    expectCompleted(await gw.exec(turn.agentRunId, { code: 'return await MCP.demo.echo({ text: "seen" })' }));
    const cell = { code: MISUSE, language: 'typescript' as const, typecheck: true };
    // off: the cell runs and silently concatenates ("41" + 1)
    expect(expectCompleted(await gw.exec(turn.agentRunId, cell)).value).toBe('411');
    const refused = expectFailed(await gw.exec(turn.agentRunId, cell, { typecheckInferred: true }), 'invalid_input');
    expect(refused.error).toContain('typecheck failed');
    expect(refused.error).toContain(INFERRED_ITEM);
    expect(refused.error).toMatch(/'string' is not comparable to type 'number'/);
    // before any echo result in a turn there is nothing inferred: the opt-in changes nothing
    const fresh = gw.prepareTurn({});
    expect(expectCompleted(await gw.exec(fresh.agentRunId, cell, { typecheckInferred: true })).value).toBe('411');
  });

  it('declared types win over what was observed: a declared output keeps its type with the opt-in', async () => {
    const gw = await testGateway({ executor, tools: [stats] });
    const turn = gw.prepareTurn({});
    expectCompleted(await gw.exec(turn.agentRunId, { code: 'await row_stats({}); return await row_stats({})' }));
    expect(gw.inferredTypes(turn.agentRunId)?.tools).toEqual([]);
    const cell = { code: 'const s = await row_stats({});\nconst n: number = s.count;\nreturn [n, s.note]', language: 'typescript' as const, typecheck: true };
    const refused = expectFailed(await gw.exec(turn.agentRunId, cell, { typecheckInferred: true }), 'invalid_input');
    expect(refused.error).toMatch(/Property 'note' does not exist/);
  });
});

describe('the opt-in through the API (the page sends it)', () => {
  it('exec and compare pass typecheckInferred to the server typecheck; without it the declared types alone apply', async () => {
    const gw = await testGateway({ executor, tools: [echo], codeMode: { allowExecutorOverride: 'operator' } });
    const operator = callerFor(gw, OPERATOR, createEdgeState(gw.config.server));
    const turn = await operator.turns.prepare({});
    expect((await operator.exec({ agentRunId: turn.agentRunId, input: { code: 'return await MCP.demo.echo({ text: "seen" })' } })).status).toBe('completed');
    const input = { code: MISUSE, language: 'typescript' as const, typecheck: true };
    expect(await operator.exec({ agentRunId: turn.agentRunId, input })).toMatchObject({ status: 'completed', value: '411' });
    const refused = await operator.exec({ agentRunId: turn.agentRunId, input, typecheckInferred: true });
    expect(refused).toMatchObject({ status: 'failed', code: 'invalid_input' });
    expect(refused.status === 'failed' ? refused.error : '').toContain(INFERRED_ITEM);
    const [plain] = await operator.compare({ agentRunId: turn.agentRunId, input, executors: ['quickjs'] });
    expect(plain).toMatchObject({ executor: 'quickjs', status: 'completed', valueJson: '"411"' });
    const [optedIn] = await operator.compare({ agentRunId: turn.agentRunId, input, executors: ['quickjs'], typecheckInferred: true });
    expect(optedIn).toMatchObject({ executor: 'quickjs', status: 'failed', code: 'invalid_input' });
    expect(optedIn?.error).toContain(INFERRED_ITEM);
  });
});
