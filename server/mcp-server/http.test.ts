// The MCP face over Streamable HTTP: an SDK Client against the real playground server on port 0 (a real Gateway), through the request checks.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SERVER_OPTIONS, resolveMcpServerOptions } from '../config/schema.ts';
import type { McpServerOptions } from '../config/types.ts';
import type { Gateway } from '../gateway.ts';
import { startPlaygroundServer, type PlaygroundServer } from '../http/server.ts';
import { sendRaw, type RawReply, type RawRequest } from '../http/testing.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { MSG_WRONG_SESSION } from '../runs/messages.ts';
import { APPROVAL_PROGRESS } from './surface.ts';
import { UNTRUSTED_BEGIN } from '../runs/model-text.ts';
import { runReaches, testGateway, until } from '../testing.ts';
import { GUARDED_ECHO } from './testing.ts';

const TOKEN = 't'.repeat(40);
const MCP_TOKEN = 'm'.repeat(40);
const CLIENT_NAME = 'test-agent';
const LONG_BUDGET_MS = 10 * 60 * 1000;

let gateway: Gateway;

beforeAll(async () => {
  gateway = await testGateway({
    config: { agents: { defaults: { model: 'demo/coder', models: {} }, list: [{ id: 'main' }, { id: 'second' }] } },
    // no run of these tests reaches the budget (waits park with yield_control); a long one means a run that is
    // aborted did not merely park at its deadline
    codeMode: { timeoutMs: LONG_BUDGET_MS },
    tools: [
      GUARDED_ECHO,
    ],
  });
});
afterAll(async () => {
  await gateway.close();
});

async function start(host: string, opts: { accessToken?: string; mcpServer?: Partial<McpServerOptions> } = {}): Promise<PlaygroundServer> {
  return startPlaygroundServer({
    gateway,
    host,
    port: 0,
    server: DEFAULT_SERVER_OPTIONS,
    accessToken: opts.accessToken,
    mcpServer: { ...resolveMcpServerOptions(undefined), ...opts.mcpServer },
    handlePage: async (_req, res) => void res.end('<p>the page</p>'),
  });
}

function stop(s: PlaygroundServer): Promise<void> {
  return new Promise<void>((resolve) => {
    s.server.closeAllConnections();
    s.server.close(() => resolve());
  });
}

/** Sessions the tests opened: each is ended (DELETE) after its test, as a client that is done does. */
const opened: Array<{ url: string; sessionId: string; headers: Record<string, string> }> = [];
afterEach(async () => {
  // client.close() only drops the connection; the server keeps the session (and its owner's share place) until it
  // is ended or idle, and every keyless client here is one owner, with a small share of /mcp sessions
  for (const { url, sessionId, headers } of opened.splice(0)) {
    await fetch(url, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': sessionId } }).catch(() => undefined);
  }
});

/** An SDK client connected to `url`; its session is ended when the test ends. */
async function connect(url: string, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: CLIENT_NAME, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  if (transport.sessionId !== undefined) opened.push({ url, sessionId: transport.sessionId, headers });
  return { client, transport };
}

interface CallOutcome {
  text: string;
  result: CodeModeResult;
  isError: boolean;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallOutcome> {
  const reply = await client.callTool({ name, arguments: args });
  const content = reply.content as Array<{ type: string; text?: string }>;
  return { text: content[0]?.text ?? '', result: reply.structuredContent as CodeModeResult, isError: reply.isError === true };
}

/** One raw request, POST unless told (the SDK client cannot send a malformed body or omit the token on purpose). */
function send(port: number, opts: Omit<RawRequest, 'method'> & { method?: RawRequest['method'] }): Promise<RawReply> {
  return sendRaw(port, { ...opts, method: opts.method ?? 'POST' });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('on loopback', () => {
  let s: PlaygroundServer;
  let url: string;
  beforeAll(async () => {
    s = await start('127.0.0.1');
    url = `http://127.0.0.1:${s.exposure.port}/mcp`;
  });
  afterAll(() => stop(s));

  it('lists exactly the model surface: exec (with its quick index), wait and direct-only tools, exec and wait with an output schema', async () => {
    const { client } = await connect(url);
    const { tools } = await client.listTools();
    const surface = gateway.surface({});
    expect(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual(surface.tools);
    expect(tools.find((t) => t.name === 'exec')?.description).toBe(surface.execDescription);
    for (const name of ['exec', 'wait']) expect(tools.find((t) => t.name === name)?.outputSchema?.required).toEqual(['status', 'telemetry']);
    await client.close();
  });

  it('exec of a cell that calls a core tool: the model text as text content, the result as structured content, the run labelled with the client', async () => {
    const { client } = await connect(url);
    const out = await call(client, 'exec', { code: 'const r = await sleep({ ms: 1 });\nreturn typeof r.sleptMs;' });
    expect(out.result).toMatchObject({ status: 'completed', value: 'number' });
    expect(out.isError).toBe(false);
    expect(out.text).toBe(gateway.modelText(out.result));
    const run = gateway.runs().find((r) => r.code.includes('sleep({ ms: 1 })'));
    expect(run?.client).toBe(CLIENT_NAME);
    await client.close();
  });

  it('spec 01 "network-controlled tool output and errors retain their untrusted-content wrapping": the structured content of such a result carries its data only inside the wrapped text', async () => {
    const { client } = await connect(url);
    const out = await call(client, 'exec', { code: 'const r = await web_search({ query: "QuickJS sandbox" });\nconsole.log(r.results[0].title);\nreturn r.results.map((h) => h.title);' });
    const structured = out.result as unknown as Record<string, unknown>;
    expect(structured).toMatchObject({ status: 'completed', telemetry: { networkContent: true } });
    for (const raw of ['value', 'output', 'warnings']) expect(structured).not.toHaveProperty(raw);
    expect(structured.untrustedContent).toBe(out.text);
    expect(out.text).toContain(UNTRUSTED_BEGIN);
    // a failure from a network tool: its error is wrapped too, its code stays a field
    const failed = await call(client, 'exec', { code: 'return await web_fetch({ url: "https://nowhere.example/x" })' });
    const failure = failed.result as unknown as Record<string, unknown>;
    expect(failure).toMatchObject({ status: 'failed', telemetry: { networkContent: true } });
    expect(failure).not.toHaveProperty('error');
    expect(failure.untrustedContent).toBe(failed.text);
    expect(failed.isError).toBe(true);
    // a result without network content is the result object itself, as before
    const plain = await call(client, 'exec', { code: 'return 7' });
    expect(plain.result).toMatchObject({ status: 'completed', value: 7 });
    expect(plain.result).not.toHaveProperty('untrustedContent');
    await client.close();
  });

  it('exec of a cell that yields returns waiting; wait resumes it to completion in the same session', async () => {
    const { client } = await connect(url);
    const parked = await call(client, 'exec', { code: 'await yield_control("park");\nreturn "resumed";' });
    expect(parked.result.status).toBe('waiting');
    if (parked.result.status !== 'waiting') return;
    const done = await call(client, 'wait', { runId: parked.result.runId });
    expect(done.result).toMatchObject({ status: 'completed', value: 'resumed' });
    expect(done.text).toBe(gateway.modelText(done.result));
    await client.close();
  });

  it('progress: each nested call started and finished is a progress notification; cancelling the call aborts its run', async () => {
    const { client } = await connect(url);
    const progress: Progress[] = [];
    const controller = new AbortController();
    const pending = client.callTool({ name: 'exec', arguments: { code: 'await sleep({ ms: 1 });\nawait sleep({ ms: 600000 });\nreturn 1;' } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => progress.push(p),
    });
    pending.catch(() => undefined);
    // the second sleep has started once three notifications came: started, ok, started
    await until(() => progress.length >= 3, { what: 'three progress notifications' });
    expect(progress.map((p) => p.message)).toEqual(['sleep started', 'sleep ok', 'sleep started']);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    const run = gateway.runs().find((r) => r.code.includes('sleep({ ms: 600000 })'));
    expect(run?.state).toBe('running');
    controller.abort('the user pressed stop');
    await expect(pending).rejects.toThrow();
    await runReaches(gateway, run!.runId, 'aborted');
    await client.close();
  });

  it('a session cannot wait on another session\'s run: the Gateway\'s wrong-session error (each MCP session is its own session)', async () => {
    const a = await connect(url);
    const b = await connect(url);
    const parked = await call(a.client, 'exec', { code: 'await yield_control("park");\nreturn 1;' });
    if (parked.result.status !== 'waiting') throw new Error(`expected waiting, got ${parked.text}`);
    const stolen = await call(b.client, 'wait', { runId: parked.result.runId });
    expect(stolen.isError).toBe(true);
    expect(stolen.result).toMatchObject({ status: 'failed', code: 'invalid_input' });
    expect(stolen.text).toContain(MSG_WRONG_SESSION);
    expect(gateway.run(parked.result.runId)?.state).toBe('waiting');
    await a.client.close();
    await b.client.close();
  });

  it('closing the session ends its turn: its parked run is aborted', async () => {
    const { client, transport } = await connect(url);
    const parked = await call(client, 'exec', { code: 'await yield_control("park");\nreturn 1;' });
    if (parked.result.status !== 'waiting') throw new Error(`expected waiting, got ${parked.text}`);
    const sessions = s.mcp!.sessionCount();
    await transport.terminateSession();
    await runReaches(gateway, parked.result.runId, 'aborted');
    expect(s.mcp!.sessionCount()).toBe(sessions - 1);
    await client.close();
  });

  it('?agent= picks the agent; an unknown agent is a 400 that names the known ones', async () => {
    const { client } = await connect(`${url}?agent=second`);
    await call(client, 'exec', { code: 'return "from second";' });
    expect(gateway.runs().find((r) => r.code.includes('from second'))?.agentId).toBe('second');
    await client.close();
    const reply = await send(s.exposure.port, { path: '/mcp?agent=nope', headers: MCP_HEADERS, body: INITIALIZE });
    expect(reply.status).toBe(400);
    expect(reply.body).toContain('unknown agent "nope"');
    expect(reply.body).toContain('main, second');
  });

  it('a nested call that needs approval waits for the playground\'s decision (the operator\'s approvals), and the client hears it as progress', async () => {
    const { client } = await connect(url);
    const progress: Progress[] = [];
    const pending = client.callTool({ name: 'exec', arguments: { code: 'return await guarded_echo({ text: "approved" });' } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    await until(() => gateway.approvals().some((a) => a.tool === 'guarded_echo'), { what: 'the approval request' });
    const approval = gateway.approvals().find((a) => a.tool === 'guarded_echo')!;
    gateway.decideApproval({ approvalId: approval.approvalId, approve: true });
    const reply = await pending;
    expect(reply.structuredContent).toMatchObject({ status: 'completed', value: 'approved' });
    expect(progress.map((p) => p.message)).toContain(`guarded_echo ${APPROVAL_PROGRESS}`);
    await client.close();
  });

  it('the body cap applies as for the API: a body over server.maxRequestBodyBytes is 413 before it is read', async () => {
    const reply = await send(s.exposure.port, {
      path: '/mcp',
      headers: { ...MCP_HEADERS, 'content-length': String(DEFAULT_SERVER_OPTIONS.maxRequestBodyBytes + 1) },
      // the declared length is refused before any of the body is read, so none is sent
      body: '',
    });
    expect(reply.status).toBe(413);
  });

  it('a malformed JSON-RPC body gets the SDK\'s parse error', async () => {
    const reply = await send(s.exposure.port, { path: '/mcp', headers: MCP_HEADERS, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });

  it('an unknown session id is a 404 (the client starts a new session)', async () => {
    const reply = await send(s.exposure.port, { path: '/mcp', headers: { ...MCP_HEADERS, 'mcp-session-id': 'no-such-session' }, body: INITIALIZE });
    expect(reply.status).toBe(404);
  });

  it('the Origin check applies as for the API: a foreign origin is refused', async () => {
    const reply = await send(s.exposure.port, { path: '/mcp', headers: { ...MCP_HEADERS, origin: 'http://evil.example' }, body: INITIALIZE });
    expect(reply.status).toBe(403);
  });
});

describe('exposed (non-loopback bind)', () => {
  let s: PlaygroundServer;
  let url: string;
  beforeAll(async () => {
    s = await start('0.0.0.0', { accessToken: TOKEN, mcpServer: { token: MCP_TOKEN } });
    url = `http://127.0.0.1:${s.exposure.port}/mcp`;
  });
  afterAll(() => stop(s));

  it('without the token: 401 with a Bearer challenge, before any MCP session starts', async () => {
    const reply = await send(s.exposure.port, { path: '/mcp', headers: MCP_HEADERS, body: INITIALIZE });
    expect(reply.status).toBe(401);
    expect(reply.headers['www-authenticate']).toBe('Bearer');
    expect(s.mcp!.sessionCount()).toBe(0);
  });

  it('the access token as a bearer opens /mcp', async () => {
    const { client } = await connect(url, { authorization: `Bearer ${TOKEN}` });
    expect((await call(client, 'exec', { code: 'return 2;' })).result).toMatchObject({ status: 'completed', value: 2 });
    await client.close();
  });

  it('mcpServer.token opens /mcp but not the playground API', async () => {
    const { client } = await connect(url, { authorization: `Bearer ${MCP_TOKEN}` });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    const api = await send(s.exposure.port, { method: 'GET', path: '/api/trpc/agents.list', headers: { authorization: `Bearer ${MCP_TOKEN}` } });
    expect(api.status).toBe(401);
  });
});

describe('mcpServer.enabled false', () => {
  it('serves nothing at the path: the request goes to the page handler', async () => {
    const s = await start('127.0.0.1', { mcpServer: { enabled: false } });
    try {
      expect(s.mcp).toBeUndefined();
      const reply = await send(s.exposure.port, { method: 'GET', path: '/mcp' });
      expect(reply.body).toBe('<p>the page</p>');
    } finally {
      await stop(s);
    }
  });
});
