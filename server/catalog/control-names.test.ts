// Spec (tool catalog): control tools are omitted by name from every source, through the real Gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../executors/types.ts';
import type { Gateway } from '../gateway.ts';
import { createExecutor, gatewayWith } from '../guest/testing.ts';
import { expectCompleted } from '../testing.ts';
import type { ToolDefinition, ToolSource } from '../tools/types.ts';

/** A tool named like a control, with a marker word so catalog.search would find it if it were cataloged. */
function impostor(name: string, source: ToolSource, owner?: string): ToolDefinition {
  return {
    name,
    description: `impostor ${source} tool zqxcontrol named ${name}`,
    source,
    ...(owner ? { owner } : {}),
    inputSchema: { type: 'object', properties: {} },
    execute: async () => ({ from: source }),
  };
}

/** Which source offers which control name (one name per source, so each source is proven on its own). */
const HOST_IMPOSTORS: ReadonlyArray<readonly [ToolSource, string, string | undefined]> = [
  ['core', 'wait', undefined],
  ['bundled_plugin', 'tool_call', 'bundled-impostor'],
  ['external_plugin', 'tool_search_code', 'external-impostor'],
];
const CLIENT_IMPOSTORS = ['tool_search', 'tool_describe'];

describe('spec "The catalog omits code-mode control tools (exec, wait, tool_search_code, tool_search, tool_describe, tool_call)"', () => {
  let executor: Executor;
  let gw: Gateway;
  let agentRunId: string;
  const request = {
    sessionId: 'control-names',
    clientTools: CLIENT_IMPOSTORS.map((name) => ({ name, description: `impostor client tool zqxcontrol named ${name}`, inputSchema: { type: 'object' as const, properties: {} } })),
  };

  beforeAll(async () => {
    executor = await createExecutor('quickjs');
    const tools = [...HOST_IMPOSTORS.map(([source, name, owner]) => impostor(name, source, owner)), impostor('wait', 'mcp', 'timer')];
    gw = await gatewayWith(executor, tools);
    agentRunId = gw.prepareTurn(request).agentRunId;
  });

  afterAll(async () => {
    gw.endTurn(agentRunId);
    await gw.close();
    await executor.close();
  });

  const everyName = [...HOST_IMPOSTORS.map(([source, name]) => [source, name] as const), ...CLIENT_IMPOSTORS.map((name) => ['client', name] as const)];

  it.each(everyName)('on a %s tool named %s: no guest global, not in catalog.search or catalog.all', async (_source, name) => {
    const r = expectCompleted(
      await gw.exec(agentRunId, {
        code: `const found = await catalog.search("zqxcontrol");
const all = await catalog.all();
return { type: typeof globalThis[${JSON.stringify(name)}], searched: found.map((h) => h.name), all: all.map((h) => h.name), files: API.list("tools/") }`,
      }),
    );
    const value = r.value as { type: string; searched: string[]; all: string[]; files: string[] };
    expect(value.type).toBe('undefined');
    expect(value.searched).toEqual([]);
    expect(value.all).not.toContain(name);
    expect(value.files).not.toContain(`tools/${name}.d.ts`);
  });

  it.each(everyName)('on a %s tool named %s: the catalog view marks it a control, with no declaration', (source, name) => {
    const view = gw.catalog(request).tools.find((t) => t.name === name && t.source === source);
    expect(view).toMatchObject({ control: true, declaration: '' });
    expect(gw.catalog(request).declarations).not.toMatch(new RegExp(`declare function ${name}\\(`));
  });

  it('on an MCP tool named wait: no global `wait`, and it stays callable as MCP.timer.wait (a namespaced name is not a control)', async () => {
    const r = expectCompleted(await gw.exec(agentRunId, { code: 'return { type: typeof wait, mcp: typeof MCP.timer.wait, out: await MCP.timer.wait({}) }' }));
    expect(r.value).toEqual({ type: 'undefined', mcp: 'function', out: { from: 'mcp' } });
    expect(gw.catalog(request).tools.find((t) => t.source === 'mcp' && t.name === 'wait')).toMatchObject({ control: false, mcpPath: 'MCP.timer.wait' });
  });

  it('on the shell exec tool: it stays cataloged as the exec(...) global (spec "cataloged like any other tool")', async () => {
    const r = expectCompleted(await gw.exec(agentRunId, { code: 'return { type: typeof exec, listed: (await catalog.all()).some((h) => h.name === "exec") }' }));
    expect(r.value).toEqual({ type: 'function', listed: true });
  });

  it('on a tool whose name only normalizes to a control name (tool-call): it is cataloged under another callable name', async () => {
    const gw2 = await gatewayWith(executor, [impostor('tool-call', 'external_plugin', 'dash')]);
    try {
      const t = gw2.prepareTurn({ sessionId: 'control-names-normalized' });
      const r = expectCompleted(await gw2.exec(t.agentRunId, { code: 'const h = (await catalog.all()).find((x) => x.name === "tool-call"); return { callable: h.callableName, control: typeof tool_call }' }));
      const value = r.value as { callable: string; control: string };
      expect(value.control).toBe('undefined');
      expect(value.callable).not.toBe('tool_call');
      expect(value.callable).toMatch(/^tool_call_/);
      gw2.endTurn(t.agentRunId);
    } finally {
      await gw2.close();
    }
  });
});
