// Tests for McpManager against real servers: the demo stdio server, a protocol-breaking stdio server and an HTTP server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it, expect } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { ConfigError, ToolError } from '../../errors.ts';
import type { McpServerConfig } from '../../config/types.ts';
import { REPO_ROOT } from '../testing.ts';
import type { ToolDefinition } from '../types.ts';
import { MCP_FAULT_CODES } from './faults.ts';
import { McpManager, type McpManagerOptions } from './manager.ts';
import { MAX_STDERR_LINE_CHARS } from './connection.ts';
import { until } from '../../testing.ts';
import { childProcessesRunning, DEMO_SERVER_SCRIPT, demoServer, FAST_MCP_OPTIONS, faultyServer, growingServer, slowStartServer } from './testing.ts';

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

function manager(servers: Record<string, McpServerConfig>, opts: McpManagerOptions = {}): McpManager {
  const m = new McpManager({ baseDir: REPO_ROOT, mcp: { servers } }, { ...FAST_MCP_OPTIONS, ...opts });
  managers.push(m);
  return m.start();
}

function tool(m: McpManager, name: string): ToolDefinition & { execute: NonNullable<ToolDefinition['execute']> } {
  const found = m.tools().find((t) => t.name === name);
  if (!found?.execute) throw new Error(`no MCP tool ${name}; have ${m.tools().map((t) => t.name).join(', ')}`);
  return found as ToolDefinition & { execute: NonNullable<ToolDefinition['execute']> };
}

const ctx = (signal: AbortSignal = new AbortController().signal) => ({
  agentId: 'main',
  agentRunId: 'ar_test',
  sessionId: 'sess_test',
  signal,
  invocationId: 'cell:1',
  workspaceDir: REPO_ROOT,
});

async function failure(p: Promise<unknown>): Promise<ToolError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ToolError)) throw new Error(`expected a ToolError, got ${String(err)}`);
  return err;
}

describe('McpManager with the demo stdio server', () => {
  it('on start: is connecting at once, then connected with the tools, resources and prompts the server lists', async () => {
    const m = manager({ demo: demoServer() });
    expect(m.views()[0]?.state).toBe('connecting');
    expect(m.revision()).toBe(0);
    await m.settled();
    // the tool list arrived: a surface built before is stale
    expect(m.revision()).toBe(1);
    const view = m.views()[0];
    expect(view).toMatchObject({ name: 'demo', transport: 'stdio', state: 'connected', toolCount: 5, resourceCount: 2, promptCount: 2 });
    expect(m.tools().map((t) => t.name)).toEqual(['echo', 'add', 'lookup-user', 'slow', 'crash']);
    const add = tool(m, 'add');
    expect(add).toMatchObject({ source: 'mcp', owner: 'demo', networkContent: true });
    expect(add.inputSchema).toMatchObject({ type: 'object', required: ['a', 'b'] });
    expect(add.outputSchema).toMatchObject({ properties: { sum: { type: 'number' } } });
    expect(tool(m, 'echo').outputSchema).toBeUndefined();
  });

  it('on networkContent: false in the server config: its tools are not marked as network content', async () => {
    const m = manager({ demo: demoServer({ networkContent: false }) });
    await m.settled();
    expect(tool(m, 'echo').networkContent).toBe(false);
  });

  it('on a call: returns the native MCP result (content, structuredContent, isError)', async () => {
    const m = manager({ demo: demoServer() });
    await m.settled();
    expect(await tool(m, 'echo').execute({ text: 'hi' }, ctx())).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(await tool(m, 'add').execute({ a: 2, b: 40 }, ctx())).toMatchObject({ structuredContent: { sum: 42 } });
    const miss = (await tool(m, 'lookup-user').execute({ id: 'nobody' }, ctx())) as { isError?: boolean; content: Array<{ text: string }> };
    expect(miss.isError).toBe(true);
    expect(miss.content[0]?.text).toContain('nobody');
  });

  it('on input that does not match the schema: invalid_input naming the field, before the server is asked', async () => {
    const m = manager({ demo: demoServer() });
    await m.settled();
    const err = await failure(tool(m, 'add').execute({ a: 'two', b: 3 }, ctx()));
    expect(err.code).toBe('invalid_input');
    expect(err.message).toContain('"a" must be a number');
    expect(err.message).toContain('MCP server "demo", tool "add"');
  });

  it('onToolsChanged: each replacement of a tool list (first list, the server\'s list_changed) is heard after revision() rose; a throwing listener stops no other; unsubscribed hears nothing', async () => {
    const m = manager({ growing: growingServer() });
    const heard: Array<{ revision: number; tools: string[] }> = [];
    m.onToolsChanged(() => {
      throw new Error('a broken listener');
    });
    const stop = m.onToolsChanged(() => heard.push({ revision: m.revision(), tools: m.tools().map((t) => t.name) }));
    await m.settled();
    expect(heard).toEqual([{ revision: 1, tools: ['grow'] }]);
    expect(await tool(m, 'grow').execute({}, ctx())).toEqual({ content: [{ type: 'text', text: 'grown_1' }] });
    await until(() => heard.length === 2, { what: 'the list_changed refresh' });
    expect(heard[1]).toEqual({ revision: 2, tools: ['grow', 'grown_1'] });
    stop();
    await tool(m, 'grow').execute({}, ctx());
    await until(() => m.revision() === 3, { what: 'the second refresh' });
    expect(heard).toHaveLength(2);
  });

  it('on a crash mid-call: the call fails with mcp_connection_lost, the server reconnects and a later call works', async () => {
    const m = manager({ demo: demoServer() });
    await m.settled();
    const listed = m.revision();
    const err = await failure(tool(m, 'crash').execute({}, ctx()));
    expect(err.code).toBe(MCP_FAULT_CODES.connectionLost);
    expect(err.message).toContain('MCP server "demo", tool "crash"');
    expect(m.views()[0]?.state).not.toBe('connected');
    // The call below waits for the reconnect rather than failing while it is in progress.
    expect(await tool(m, 'echo').execute({ text: 'back' }, ctx())).toEqual({ content: [{ type: 'text', text: 'back' }] });
    expect(m.views()[0]?.state).toBe('connected');
    // the reconnect listed the tools again
    expect(m.revision()).toBeGreaterThan(listed);
  });

  it('on a crash with no attempts left: failed, last tools kept, and a call says the server is down', async () => {
    const m = manager({ demo: demoServer() }, { maxConnectAttempts: 1 });
    await m.settled();
    await failure(tool(m, 'crash').execute({}, ctx()));
    await until(() => m.views()[0]?.state === 'failed', { what: 'state failed' });
    expect(m.tools().length).toBe(5);
    const err = await failure(tool(m, 'echo').execute({ text: 'x' }, ctx()));
    expect(err.code).toBe(MCP_FAULT_CODES.unavailable);
    expect(err.message).toContain('MCP server "demo", tool "echo"');
    expect(err.message).toContain('mcp.servers.demo');
  });

  it('on reconnect() after failing: connects again with a fresh budget', async () => {
    const m = manager({ demo: demoServer() }, { maxConnectAttempts: 1 });
    await m.settled();
    await failure(tool(m, 'crash').execute({}, ctx()));
    await until(() => m.views()[0]?.state === 'failed', { what: 'state failed' });
    expect(m.reconnect('demo')).toBe(true);
    expect(m.reconnect('nope')).toBe(false);
    await m.settled();
    expect(m.views()[0]).toMatchObject({ state: 'connected', attempts: 0 });
    expect(await tool(m, 'echo').execute({ text: 'again' }, ctx())).toMatchObject({ content: [{ text: 'again' }] });
  });

  it('on an aborted run: the in-flight call fails with aborted and the connection keeps serving', async () => {
    const m = manager({ demo: demoServer() });
    await m.settled();
    const abort = new AbortController();
    const pending = tool(m, 'slow').execute({ ms: 5_000 }, ctx(abort.signal));
    setTimeout(() => abort.abort(), 50);
    expect((await failure(pending)).code).toBe(MCP_FAULT_CODES.aborted);
    expect(m.views()[0]?.state).toBe('connected');
    expect(await tool(m, 'echo').execute({ text: 'still' }, ctx())).toMatchObject({ content: [{ text: 'still' }] });
  });

  it('on close(): stops every server process it started', async () => {
    const m = manager({ demo: demoServer(), other: demoServer() });
    await m.settled();
    expect(childProcessesRunning(DEMO_SERVER_SCRIPT).length).toBe(2);
    await m.close();
    await until(() => childProcessesRunning(DEMO_SERVER_SCRIPT).length === 0, { what: 'server processes to exit', timeoutMs: 5_000 });
    expect(m.views().every((v) => v.state === 'disconnected')).toBe(true);
  });
});

describe('McpManager readiness (what turn preparation awaits)', () => {
  it('on a server slow to answer initialize: ready() resolves once its first attempt connected, with its tools', async () => {
    const lines: string[] = [];
    // a roomy bound: on a loaded machine starting node and the SDK alone can take seconds
    const m = manager({ slow: slowStartServer() }, { connectTimeoutMs: 60_000, log: (line) => lines.push(line) });
    expect(m.views()[0]?.state).toBe('connecting');
    await m.ready();
    expect(m.views()[0]).toMatchObject({ state: 'connected', toolCount: 1 });
    expect(m.tools().map((t) => t.name)).toEqual(['ping']);
    expect(lines.find((l) => l.startsWith('ready after'))).toMatch(/^ready after \d+ ms: slow connected \(1 tools\)$/);
  });

  it('on a first attempt that fails: ready() resolves after it, without waiting for the retries', async () => {
    const lines: string[] = [];
    // the retry is 60 s away: ready() resolving now shows it waited for the first attempt only
    const m = manager({ down: { command: 'definitely-not-an-mcp-server-xyz', cwd: REPO_ROOT } }, { reconnectBaseDelayMs: 60_000, log: (line) => lines.push(line) });
    await m.ready();
    expect(m.views()[0]).toMatchObject({ state: 'disconnected', attempts: 1, toolCount: 0 });
    expect(lines.find((l) => l.startsWith('ready after'))).toMatch(/down disconnected: .*ENOENT.*; turns get its MCP namespace as unavailable until it connects/);
  });

  it('on a first attempt that stalls after initialize: ready() gives up at the connect timeout, the attempt goes on', async () => {
    // initialize is answered, tools/list never is: the list has its own connect timeout, started later than ready()'s bound
    const m = manager({ stall: faultyServer('--silent-tools-list') }, { connectTimeoutMs: 1_000, maxConnectAttempts: 1 });
    await m.ready();
    expect(m.views()[0]?.state).toBe('connecting');
    await m.settled();
    expect(m.views()[0]).toMatchObject({ state: 'failed', toolCount: 0 });
  });

  it('on a reconnect after the first attempt: ready() does not wait for it', async () => {
    const m = manager({ demo: demoServer() }, { reconnectBaseDelayMs: 60_000 });
    await m.settled();
    await tool(m, 'crash').execute({}, ctx()).catch(() => undefined);
    await until(() => m.views()[0]?.state !== 'connected', { what: 'the crash to be seen' });
    await m.ready();
    expect(m.views()[0]?.state).toBe('disconnected');
  });

  it('before start() and without servers: ready() resolves at once', async () => {
    const idle = new McpManager({ baseDir: REPO_ROOT, mcp: { servers: { demo: demoServer() } } }, FAST_MCP_OPTIONS);
    managers.push(idle);
    await idle.ready();
    expect(idle.views()[0]?.state).toBe('connecting');
    expect(childProcessesRunning(DEMO_SERVER_SCRIPT)).toEqual([]);
    await manager({}).ready();
  });
});

describe('McpManager faults', () => {
  it('on a command that does not exist: failed after the bounded attempts, error names the command, no tools', async () => {
    const m = manager({ down: { command: 'definitely-not-an-mcp-server-xyz', cwd: REPO_ROOT } }, { maxConnectAttempts: 2 });
    await m.settled();
    const view = m.views()[0];
    expect(view).toMatchObject({ name: 'down', state: 'failed', toolCount: 0, attempts: 2 });
    expect(view?.error).toContain('definitely-not-an-mcp-server-xyz');
    expect(view?.error).toContain('ENOENT');
    expect(m.tools()).toEqual([]);
  });

  it('on a server that exits at start: failed, and the view shows its last stderr line', async () => {
    const m = manager({ broken: { command: process.execPath, args: ['-e', 'console.error("cannot open database"); process.exit(2)'], cwd: REPO_ROOT } }, { maxConnectAttempts: 2 });
    await m.settled();
    expect(m.views()[0]?.state).toBe('failed');
    expect(m.views()[0]?.error).toContain('cannot open database');
  });

  it('on a server that writes 8 MB of stderr without a newline, then a line, then exits: the log and the view keep each line cut to MAX_STDERR_LINE_CHARS', async () => {
    const script = 'process.stderr.write("E".repeat(8 << 20)); process.stderr.write("\\nthe real reason\\n", () => process.exit(2))';
    const logged: string[] = [];
    const m = manager({ noisy: { command: process.execPath, args: ['-e', script], cwd: REPO_ROOT } }, { maxConnectAttempts: 1, log: (line) => logged.push(line) });
    await m.settled();
    const view = m.views()[0];
    expect(view?.state).toBe('failed');
    expect(view?.error).toContain('the real reason');
    const stderrLines = logged.filter((l) => l.startsWith('[mcp:noisy] E'));
    expect(stderrLines).toEqual([`[mcp:noisy] ${'E'.repeat(MAX_STDERR_LINE_CHARS)}...`]);
  });

  it('on a server that never answers initialize: the attempt times out instead of hanging', async () => {
    const m = manager({ mute: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], cwd: REPO_ROOT } }, { maxConnectAttempts: 1, connectTimeoutMs: 300 });
    await m.settled();
    expect(m.views()[0]?.state).toBe('failed');
    expect(m.views()[0]?.error).toMatch(/timed out/i);
  });

  it('on a malformed result: mcp_malformed_result (invalid_output for structuredContent against its outputSchema), and the connection keeps serving', async () => {
    const m = manager({ faulty: faultyServer() });
    await m.settled();
    const bad = await failure(tool(m, 'bad-content').execute({}, ctx()));
    expect(bad.code).toBe(MCP_FAULT_CODES.malformedResult);
    expect(bad.message).toContain('MCP server "faulty", tool "bad-content"');
    expect(bad.message).toContain('result.content');
    const structured = await failure(tool(m, 'bad-structured').execute({}, ctx()));
    expect(structured.code).toBe('invalid_output');
    expect(structured.message).toContain('structuredContent.sum must be number');
    expect(m.views()[0]?.state).toBe('connected');
    expect(await tool(m, 'ok').execute({}, ctx())).toEqual({ content: [{ type: 'text', text: 'ok' }] });
  });

  it('on a server that never answers a call: fails with timeout after the per-call timeout', async () => {
    const m = manager({ faulty: faultyServer() }, { callTimeoutMs: 200 });
    await m.settled();
    const err = await failure(tool(m, 'silent').execute({}, ctx()));
    expect(err.code).toBe('timeout');
    expect(err.message).toContain('200 ms');
  });
});

describe('McpManager config', () => {
  it('on a server without command or url: ConfigError naming the field', () => {
    expect(() => new McpManager({ baseDir: REPO_ROOT, mcp: { servers: { x: { command: '' } } } })).toThrow(ConfigError);
    expect(() => new McpManager({ baseDir: REPO_ROOT, mcp: { servers: { x: { command: '' } } } })).toThrow(/mcp\.servers\.x\.command/);
    expect(() => new McpManager({ baseDir: REPO_ROOT, mcp: { servers: { x: { url: 'ftp://host/mcp' } } } })).toThrow(/mcp\.servers\.x\.url/);
  });

  it('on a bad option: ConfigError naming the option', () => {
    expect(() => new McpManager({ baseDir: REPO_ROOT, mcp: { servers: {} } }, { callTimeoutMs: 0 })).toThrow(/mcp\.callTimeoutMs/);
  });

  it('on no servers: no tools, no views, close() resolves', async () => {
    const m = new McpManager({ baseDir: REPO_ROOT, mcp: { servers: {} } }).start();
    expect(m.tools()).toEqual([]);
    expect(m.views()).toEqual([]);
    await m.settled();
    await m.close();
  });
});

describe('McpManager over streamable HTTP', () => {
  let http: Server | undefined;
  afterEach(async () => {
    // The client first, then any keep-alive sockets it left, or close() waits for them.
    await Promise.all(managers.splice(0).map((m) => m.close()));
    http?.closeAllConnections();
    await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
    http = undefined;
  });

  it('on a url server: connects over HTTP, lists its tools and calls them', async () => {
    http = createServer((req, res) => {
      // Stateless mode: one server and transport per request, as the SDK documents it.
      const server = new McpServer({ name: 'web', version: '1.0.0' });
      server.registerTool('shout', { description: 'Upper-case text', inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: 'text', text: text.toUpperCase() }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((r) => http?.listen(0, '127.0.0.1', () => r()));
    const port = (http.address() as AddressInfo).port;
    const m = manager({ web: { url: `http://127.0.0.1:${port}/mcp` } });
    await m.settled();
    expect(m.views()[0]).toMatchObject({ transport: 'http', state: 'connected', toolCount: 1 });
    expect(await tool(m, 'shout').execute({ text: 'hi' }, ctx())).toEqual({ content: [{ type: 'text', text: 'HI' }] });
  });
});
