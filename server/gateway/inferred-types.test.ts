// Inferred output types end to end: results of tools that declare no output are merged per turn, listed as an
// overlay (never on the model surface), and used by the server typecheck only when the caller opts in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { expectCompleted, expectFailed, testGateway } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';

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
});
