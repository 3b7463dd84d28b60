// End-to-end MCP through a real Gateway: cells call MCP.<server>.<tool>() on real stdio servers, including faults.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { createGateway, type Gateway } from '../../gateway.ts';
import type { CodeModeResult } from '../../runs/types.ts';
import { expectCompleted, until } from '../../testing.ts';
import { REPO_ROOT, testConfig } from '../testing.ts';
import { createEdgeState, createInnerContext } from '../../trpc/context.ts';
import { OPERATOR } from '../../trpc/testing.ts';
import { createCallerFactory } from '../../trpc/init.ts';
import { appRouter } from '../../trpc/routers/_app.ts';
import { McpManager } from './manager.ts';
import {
  childProcessesRunning,
  DEMO_SERVER_SCRIPT,
  demoServer,
  FAST_MCP_OPTIONS,
  FAULTY_SERVER_SCRIPT,
  faultyServer,
  SLOW_START_DELAY_MS,
  SLOW_START_SERVER_SCRIPT,
  slowStartServer,
} from './testing.ts';

async function run(gateway: Gateway, agentRunId: string, code: string): Promise<CodeModeResult> {
  return gateway.exec(agentRunId, { code });
}

describe('MCP through the Gateway with the shipped config', () => {
  let gateway: Gateway;
  let agentRunId: string;

  beforeAll(async () => {
    gateway = await createGateway({ configPath: join(REPO_ROOT, 'codemode.config.json') });
    await until(() => gateway.mcpServers()[0]?.state === 'connected', { what: 'the demo MCP server to connect' });
    agentRunId = gateway.prepareTurn({}).agentRunId;
  });

  afterAll(async () => {
    await gateway?.close();
    await until(() => childProcessesRunning(DEMO_SERVER_SCRIPT).length === 0, { what: 'the demo server process to exit', timeoutMs: 5_000 });
  });

  it('on MCP.demo.echo({ text }): the cell gets the native MCP result', async () => {
    const value = expectCompleted(await run(gateway, agentRunId, 'return await MCP.demo.echo({ text: "hi" })')).value;
    expect(value).toEqual({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('on a tool with an output schema: structuredContent reaches the cell', async () => {
    const value = expectCompleted(await run(gateway, agentRunId, 'const r = await MCP.demo.add({ a: 2, b: 3 }); return r.structuredContent.sum')).value;
    expect(value).toBe(5);
  });

  it('on MCP.demo.$api(): lists every tool with its callable name, exact name and schemas', async () => {
    const value = expectCompleted(await run(gateway, agentRunId, 'return await MCP.demo.$api()')).value as {
      tools: Array<{ callableName: string; name: string; inputSchema: { properties?: Record<string, unknown> }; outputSchema?: unknown }>;
    };
    const byName = new Map(value.tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(['echo', 'add', 'lookup-user', 'slow', 'crash']);
    expect(byName.get('lookup-user')?.callableName).toBe('lookup_user');
    expect(byName.get('echo')?.inputSchema.properties).toHaveProperty('text');
    expect(byName.get('add')?.outputSchema).toMatchObject({ properties: { sum: { type: 'number' } } });
  });

  it('on MCP.demo.$api() (checklist "$api() remains available as an inline fallback for schemas"): each tool carries its schemas and declaration, and the whole declaration file', async () => {
    const code = 'return { api: await MCP.demo.$api(), file: API.read("mcp/demo.d.ts") }';
    const { api, file } = expectCompleted(await run(gateway, agentRunId, code)).value as {
      api: { server: string; declarations: string; tools: Array<{ name: string; declaration: string; inputSchema: { properties?: Record<string, unknown>; required?: string[] }; outputSchema?: unknown }> };
      file: string;
    };
    const add = api.tools.find((t) => t.name === 'add');
    expect(api.server).toBe('demo');
    expect(add?.inputSchema).toMatchObject({ properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
    expect(add?.outputSchema).toMatchObject({ properties: { sum: { type: 'number' } } });
    expect(add?.declaration).toMatch(/add\(input: \{[^}]*a: number;[^}]*b: number;?[^}]*\}\): Promise<McpCallToolResult<\{[^}]*sum: number/);
    for (const t of api.tools) expect(t.declaration.length, t.name).toBeGreaterThan(0);
    expect(api.declarations).toBe(file);
  });

  it('on an MCP call with a non-object input (checklist "MCP namespace calls work ... with one object input"): a catchable invalid_input saying to pass one object, before any call', async () => {
    const code = `
      const caught = [];
      for (const input of ["hi", ["hi"], null, 42]) {
        try { await MCP.demo.echo(input) } catch (e) { caught.push({ code: e.code, message: e.message }) }
      }
      return caught;`;
    const r = expectCompleted(await run(gateway, agentRunId, code));
    expect(r.value).toEqual(Array(4).fill({ code: 'invalid_input', message: 'MCP.demo.echo takes one object input: MCP.demo.echo({ ...input })' }));
    expect(r.telemetry.nestedCalls).toBe(0);
    expect(expectCompleted(await run(gateway, agentRunId, 'return (await MCP.demo.echo({ text: "one object" })).content[0].text')).value).toBe('one object');
  });

  it('on API.list("mcp") and API.read("mcp/demo.d.ts"): declarations without any bridge or tool call', async () => {
    const result = await run(gateway, agentRunId, 'return { paths: API.list("mcp"), index: API.read("mcp/index.d.ts"), demo: API.read("mcp/demo.d.ts") }');
    const value = expectCompleted(result).value as { paths: string[]; index: string; demo: string };
    expect(value.paths).toEqual(['mcp/demo.d.ts', 'mcp/index.d.ts']);
    expect(value.index).toContain('demo: McpServer_demo');
    expect(value.demo).toMatch(/echo\(input: \{[\s\S]*text: string;/);
    expect(value.demo).toContain('lookup_user(');
    expect(value.demo).toContain('McpCallToolResult<{');
    expect(result.telemetry.counters).toEqual({ search: 0, describe: 0, call: 0 });
    expect(result.telemetry.nestedCalls).toBe(0);
  });

  it('on catalog.search() and catalog.all(): no MCP entries', async () => {
    const code = `
      const all = await catalog.all();
      const found = [...(await catalog.search("echo")), ...(await catalog.search("demo user lookup")), ...(await catalog.search("add numbers"))];
      return { all: all.map((h) => [h.source, h.name]), found: found.map((h) => [h.source, h.name]) };`;
    const value = expectCompleted(await run(gateway, agentRunId, code)).value as { all: string[][]; found: string[][] };
    expect(value.all.length).toBeGreaterThan(0);
    const mcpNames = new Set(['echo', 'add', 'lookup-user', 'slow', 'crash']);
    for (const [source, name] of [...value.all, ...value.found]) {
      expect(source).not.toBe('mcp');
      expect(mcpNames.has(name ?? '')).toBe(false);
    }
  });

  it('on the hyphenated tool name: escaped to lookup_user the same way in every turn, the raw name is no member', async () => {
    const code = 'return { raw: typeof MCP.demo["lookup-user"], escaped: typeof MCP.demo.lookup_user, r: await MCP.demo.lookup_user({ id: "u2" }) }';
    const value = expectCompleted(await run(gateway, agentRunId, code)).value as { raw: string; escaped: string; r: { structuredContent: { name: string } } };
    expect(value).toMatchObject({ raw: 'undefined', escaped: 'function' });
    expect(value.r.structuredContent.name).toBe('Grace Hopper');
    const paths = (id: string) => gateway.catalog({}).tools.filter((t) => t.name === id).map((t) => t.mcpPath);
    expect(paths('lookup-user')).toEqual(['MCP.demo.lookup_user']);
    expect(paths('lookup-user')).toEqual(paths('lookup-user'));
  });

  it('on the operator views: the server is listed with its state and counts', () => {
    expect(gateway.catalog({}).mcpServers).toEqual([expect.objectContaining({ name: 'demo', callableName: 'demo', transport: 'stdio', state: 'connected', toolCount: 5 })]);
  });

  it('on a crash mid-call: the cell catches a clear error, the server reconnects and a later cell calls it again', async () => {
    const code = 'try { await MCP.demo.crash({}); return "no error" } catch (e) { return { code: e.code, message: e.message } }';
    const caught = expectCompleted(await run(gateway, agentRunId, code)).value as { code: string; message: string };
    expect(caught.code).toBe('mcp_connection_lost');
    expect(caught.message).toContain('MCP server "demo", tool "crash"');
    await until(() => gateway.mcpServers()[0]?.state === 'connected', { what: 'the demo server to reconnect' });
    const value = expectCompleted(await run(gateway, agentRunId, 'return await MCP.demo.echo({ text: "again" })')).value;
    expect(value).toEqual({ content: [{ type: 'text', text: 'again' }] });
  });
});

describe('MCP faults through the Gateway', () => {
  let gateway: Gateway;
  let agentRunId: string;

  beforeAll(async () => {
    const config = testConfig({
      mcp: { servers: { faulty: faultyServer(), down: { command: 'definitely-not-an-mcp-server-xyz', cwd: REPO_ROOT }, 'demo-2': demoServer() } },
    });
    // One attempt, no backoff wait: "down" fails at once and a crash of demo-2 is final.
    const mcp = new McpManager(config, { ...FAST_MCP_OPTIONS, maxConnectAttempts: 1 }).start();
    await mcp.settled();
    gateway = await createGateway({ config, mcp });
    agentRunId = gateway.prepareTurn({}).agentRunId;
  });

  afterAll(async () => {
    await gateway?.close();
    await until(() => childProcessesRunning(DEMO_SERVER_SCRIPT).length + childProcessesRunning(FAULTY_SERVER_SCRIPT).length === 0, { what: 'MCP server processes to exit', timeoutMs: 5_000 });
  });

  it('on a server whose command does not exist: failed with the reason, calls reject with it, and the gateway keeps serving', async () => {
    const down = gateway.mcpServers().find((s) => s.name === 'down');
    expect(down).toMatchObject({ state: 'failed', toolCount: 0 });
    expect(down?.error).toContain('ENOENT');
    const value = expectCompleted(
      await run(
        gateway,
        agentRunId,
        'let down; try { await MCP.down.anything({}) } catch (e) { down = e.code + ": " + e.message }\nreturn { down, other: (await MCP.demo_2.echo({ text: "up" })).content[0].text }',
      ),
    ).value as { down: string; other: string };
    expect(value.down).toMatch(/^mcp_unavailable: MCP server "down" is unavailable \(failed: .*ENOENT/);
    expect(value.other).toBe('up');
  });

  it('on a server name with a hyphen: its namespace is escaped (MCP.demo_2)', () => {
    expect(gateway.mcpServers().find((s) => s.name === 'demo-2')?.callableName).toBe('demo_2');
    expect(gateway.catalog({}).tools.find((t) => t.owner === 'demo-2' && t.name === 'echo')?.mcpPath).toBe('MCP.demo_2.echo');
  });

  it('on a tool whose schema nests 1000 levels: left out of the catalog with the reason in the server view; its other tools and every listing still work', async () => {
    expect(gateway.mcpServers().find((s) => s.name === 'faulty')).toMatchObject({
      state: 'connected',
      toolCount: 5,
      skipped: ['"too-deep": its schema nests deeper than 128 levels (or contains itself); flatten it'],
    });
    const value = expectCompleted(await run(gateway, agentRunId, 'return { deep: typeof MCP.faulty.too_deep, ok: (await MCP.faulty.ok({})).content[0].text }')).value;
    expect(value).toEqual({ deep: 'undefined', ok: 'ok' });
    expect(gateway.runs().length).toBeGreaterThan(0);
  });

  it('on a malformed result: a catchable error with a clear message, and the server keeps serving', async () => {
    const code = `
      let caught;
      try { await MCP.faulty.bad_content({}) } catch (e) { caught = { code: e.code, message: e.message } }
      return { caught, ok: await MCP.faulty.ok({}) };`;
    const value = expectCompleted(await run(gateway, agentRunId, code)).value as { caught: { code: string; message: string }; ok: unknown };
    expect(value.caught.code).toBe('mcp_malformed_result');
    expect(value.caught.message).toContain('MCP server "faulty", tool "bad-content"');
    expect(value.ok).toEqual({ content: [{ type: 'text', text: 'ok' }] });
  });

  it('on an uncaught malformed result: the exec fails with the message, and the next exec runs', async () => {
    const failed = await run(gateway, agentRunId, 'return await MCP.faulty.bad_content({})');
    expect(failed.status).toBe('failed');
    if (failed.status === 'failed') expect(failed.error).toContain('malformed result');
    expect(expectCompleted(await run(gateway, agentRunId, 'return 1 + 1')).value).toBe(2);
  });

  it('on structuredContent that contradicts the outputSchema (02: "existing runtime input and output validation"): the call fails with invalid_output naming the field; the cell never receives it', async () => {
    const code = `
      const caught = [];
      for (const call of [() => MCP.faulty.bad_structured({}), () => MCP.faulty.no_structured({})]) {
        try { caught.push({ received: await call() }) } catch (e) { caught.push({ code: e.code, message: e.message }) }
      }
      return caught;`;
    const [bad, missing] = expectCompleted(await run(gateway, agentRunId, code)).value as Array<{ code?: string; message?: string; received?: unknown }>;
    expect(bad).toEqual({ code: 'invalid_output', message: expect.stringContaining('MCP server "faulty", tool "bad-structured": invalid output') });
    expect(bad?.message).toContain('structuredContent.sum must be number');
    expect(missing).toEqual({ code: 'invalid_output', message: expect.stringContaining('did not return structured content') });
  });

  it('on a server that crashed and may not reconnect: its tools stay, and a call gives a clear catchable error', async () => {
    const crash = 'try { await MCP.demo_2.crash({}) } catch (e) { return e.code }';
    expect(expectCompleted(await run(gateway, agentRunId, crash)).value).toBe('mcp_connection_lost');
    await until(() => gateway.mcpServers().find((s) => s.name === 'demo-2')?.state === 'failed', { what: 'demo-2 to be failed' });
    const turn = gateway.prepareTurn({});
    const code = 'try { await MCP.demo_2.echo({ text: "x" }); return "no error" } catch (e) { return { code: e.code, message: e.message } }';
    const value = expectCompleted(await run(gateway, turn.agentRunId, code)).value as { code: string; message: string };
    expect(value.code).toBe('mcp_unavailable');
    expect(value.message).toContain('MCP server "demo-2", tool "echo"');
    expect(value.message).toContain('mcp.servers.demo-2');
  });
});

describe('MCP readiness at turn start', () => {
  it('on the first turn after createGateway (the API): a server slow to answer initialize is in the turn, and the first cell calls it', async () => {
    const lines: string[] = [];
    const gateway = await createGateway({ config: testConfig({ mcp: { servers: { slow: slowStartServer() } } }), log: (line) => lines.push(line) });
    try {
      // the Gateway itself starts without waiting: the server is still in its first attempt
      expect(gateway.mcpServers()[0]?.state).toBe('connecting');
      const caller = createCallerFactory(appRouter)(createInnerContext({ gateway, access: OPERATOR, edge: createEdgeState(gateway.config.server) }));
      const turn = await caller.turns.prepare({});
      expect(turn.surface.tools.find((t) => t.name === 'exec')?.description).toContain('MCP.slow.ping');
      const result = await caller.exec({ agentRunId: turn.agentRunId, input: { code: 'return (await MCP.slow.ping({})).content[0].text' } });
      expect(result).toMatchObject({ status: 'completed', value: `pong after ${SLOW_START_DELAY_MS} ms` });
      expect(lines).toContainEqual(expect.stringMatching(/^mcp: ready after \d+ ms: slow connected \(1 tools\)$/));
    } finally {
      await gateway.close();
    }
    await until(() => childProcessesRunning(SLOW_START_SERVER_SCRIPT).length === 0, { what: 'the slow server process to exit', timeoutMs: 5_000 });
  });

  it('on the API catalog and surface right after start: they wait for the first attempt too', async () => {
    const gateway = await createGateway({ config: testConfig({ mcp: { servers: { slow: slowStartServer() } } }) });
    try {
      const caller = createCallerFactory(appRouter)(createInnerContext({ gateway, access: OPERATOR, edge: createEdgeState(gateway.config.server) }));
      const [catalog, surface] = await Promise.all([caller.catalog.list({}), caller.config.surface({})]);
      expect(catalog.tools.find((t) => t.owner === 'slow')?.mcpPath).toBe('MCP.slow.ping');
      expect(surface.tools.find((t) => t.name === 'exec')?.description).toContain('MCP.slow.ping');
    } finally {
      await gateway.close();
    }
  });
});
