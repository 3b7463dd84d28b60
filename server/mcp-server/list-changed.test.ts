// tools/list_changed is pushed: a tool source that changes while an MCP client sits idle is announced at once (a growing source in code, and a real MCP server through the MCP manager).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createGateway, Gateway } from '../gateway.ts';
import type { PlaygroundServer } from '../http/server.ts';
import type { CodeModeResult } from '../runs/types.ts';
import type { McpToolSource } from '../tools/mcp/manager.ts';
import { McpManager } from '../tools/mcp/manager.ts';
import { FAST_MCP_OPTIONS, growingServer } from '../tools/mcp/testing.ts';
import { loadToolSources } from '../tools/registry.ts';
import { testConfig, testContext } from '../tools/testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { until } from '../testing.ts';
import { startMcpTestServer, stopMcpTestServer } from './testing.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An SDK client on /mcp counting tools/list_changed notifications (no auto refresh: the test lists when it wants). */
async function listeningClient(s: PlaygroundServer): Promise<{ client: Client; changes: () => number }> {
  let changes = 0;
  const client = new Client({ name: 'list-changed-test', version: '1.0.0' }, { listChanged: { tools: { autoRefresh: false, onChanged: () => void changes++ } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${s.exposure.port}/mcp`)));
  cleanups.push(() => client.close());
  return { client, changes: () => changes };
}

async function serve(gw: Gateway): Promise<PlaygroundServer> {
  const s = await startMcpTestServer(gw);
  cleanups.push(() => stopMcpTestServer(s));
  return s;
}

const execDescription = async (client: Client) => (await client.listTools()).tools.find((t) => t.name === 'exec')?.description ?? '';

async function exec(client: Client, code: string): Promise<CodeModeResult> {
  return (await client.callTool({ name: 'exec', arguments: { code } })).structuredContent as CodeModeResult;
}

describe('tools/list_changed (pushed)', () => {
  it('a source that adds a tool while the client is idle: list_changed arrives with no call, a new list shows it; nothing is rebuilt while nothing moves', async () => {
    // a tool source that grows while the session is open (as an MCP source that connects late does)
    const extra: ToolDefinition[] = [];
    let revision = 0;
    const listeners = new Set<() => void>();
    const source: McpToolSource = {
      ready: async () => {},
      tools: () => extra,
      revision: () => revision,
      onToolsChanged: (listener) => (listeners.add(listener), () => void listeners.delete(listener)),
      views: () => [],
      close: async () => {},
    };
    const config = testConfig();
    const gw = new Gateway(config, await loadToolSources(config), { mcp: source, extraTools: () => source.tools() });
    cleanups.push(() => gw.close());
    const rebuilds = vi.spyOn(gw, 'updateClientTools');
    const { client, changes } = await listeningClient(await serve(gw));

    expect(await execDescription(client)).not.toContain('late_arrival');
    expect(await exec(client, 'return 1;')).toMatchObject({ status: 'completed', value: 1 });
    expect(changes()).toBe(0);
    expect(rebuilds).not.toHaveBeenCalled();
    expect(listeners.size).toBe(1);

    extra.push({
      name: 'late_arrival',
      description: 'A tool that appeared after the session listed its tools.',
      inputSchema: { type: 'object', properties: {} },
      source: 'bundled_plugin',
      execute: async () => 'here',
    });
    revision++;
    for (const listener of listeners) listener();
    await until(() => changes() === 1, { what: 'notifications/tools/list_changed' });
    expect(rebuilds).toHaveBeenCalledTimes(1);
    expect(await execDescription(client)).toContain('late_arrival');
    expect(await exec(client, 'return await late_arrival({});')).toMatchObject({ status: 'completed', value: 'here' });
    // told once per change: nothing new since the list
    expect(changes()).toBe(1);

    // the session ends (the client deletes it): it stops listening
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await until(() => listeners.size === 0, { what: 'the ended session to unsubscribe' });
  });

  it('a real MCP server adds a tool (its own list_changed, through the MCP manager): the idle client hears list_changed once; a reconnect with the same tools sends nothing', async () => {
    const manager = new McpManager({ baseDir: testConfig().baseDir, mcp: { servers: { growing: growingServer() } } }, FAST_MCP_OPTIONS).start();
    const gw = await createGateway({ config: testConfig(), mcp: manager });
    cleanups.push(() => gw.close());
    cleanups.push(() => manager.close());
    const rebuilds = vi.spyOn(gw, 'updateClientTools');
    const { client, changes } = await listeningClient(await serve(gw));
    expect(await execDescription(client)).toContain('MCP.growing');
    const listed = await client.listTools();

    // a reconnect lists the same tools again: the revision moves, the surface the client listed does not
    const before = manager.revision();
    expect(manager.reconnect('growing')).toBe(true);
    await until(() => manager.revision() > before && rebuilds.mock.calls.length === 1, { what: 'the reconnect to list its tools and the session to rebuild' });

    // the change comes from outside the MCP session: the server's own tool, called directly
    const grow = manager.tools().find((t) => t.name === 'grow');
    expect(await grow?.execute?.({}, testContext())).toEqual({ content: [{ type: 'text', text: 'grown_1' }] });
    await until(() => changes() >= 1, { what: 'notifications/tools/list_changed' });
    const relisted = await client.listTools();
    expect(relisted).not.toEqual(listed);
    expect(await exec(client, 'return await MCP.growing.grown_1({});')).toMatchObject({ status: 'completed' });
    expect(changes()).toBe(1);
  });
});
