// HTTP MCP sessions are bounded: at most mcpServer.maxSessions at once (503 with a clear JSON-RPC error past it), and a session idle for mcpServer.sessionIdleSeconds is closed, ending its turn.
import { connect as connectSocket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_SERVER_LIMIT_BOUNDS } from '../config/schema.ts';
import type { Gateway } from '../gateway.ts';
import { TURN_IDLE_MS } from '../gateway/turns.ts';
import type { PlaygroundServer } from '../http/server.ts';
import { sendRaw } from '../http/testing.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { runReaches, testGateway, until } from '../testing.ts';
import { GUARDED_ECHO, startMcpTestServer, stopMcpTestServer } from './testing.ts';

const MAX_SESSIONS = 2;
const IDLE_SECONDS = 600;
const LONG_BUDGET_MS = 10 * 60 * 1000;

let gateway: Gateway;
beforeAll(async () => {
  gateway = await testGateway({
    codeMode: { timeoutMs: LONG_BUDGET_MS },
    tools: [
      GUARDED_ECHO,
    ],
  });
});
afterAll(() => gateway.close());

async function connect(s: PlaygroundServer): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'sessions-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${s.exposure.port}/mcp`));
  await client.connect(transport);
  return { client, transport };
}

async function exec(client: Client, code: string): Promise<CodeModeResult> {
  return (await client.callTool({ name: 'exec', arguments: { code } })).structuredContent as CodeModeResult;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('mcpServer.maxSessions', () => {
  let s: PlaygroundServer;
  beforeAll(async () => {
    s = await startMcpTestServer(gateway, { mcpServer: { maxSessions: MAX_SESSIONS, sessionIdleSeconds: IDLE_SECONDS } });
  });
  afterAll(() => stopMcpTestServer(s));

  it('past the cap an initialize is refused with 503 and a JSON-RPC error naming the setting; once a session ends a new one opens', async () => {
    const open = [await connect(s), await connect(s)];
    expect(s.mcp!.sessionCount()).toBe(MAX_SESSIONS);

    const raw = await sendRaw(s.exposure.port, {
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: INITIALIZE,
    });
    expect(raw.status).toBe(503);
    const body = JSON.parse(raw.body) as { jsonrpc: string; error: { code: number; message: string } };
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    expect(body.error.message).toContain(`already has ${MAX_SESSIONS} MCP sessions open or opening (mcpServer.maxSessions)`);

    // the SDK client shows the same message
    const refused = await connect(s).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(refused?.message).toContain('mcpServer.maxSessions');
    // the sessions already open still work
    expect(await exec(open[0]!.client, 'return "still here";')).toMatchObject({ status: 'completed', value: 'still here' });

    await open[1]!.transport.terminateSession();
    await until(() => s.mcp!.sessionCount() === MAX_SESSIONS - 1, { what: 'the deleted session to go' });
    const next = await connect(s);
    expect(await exec(next.client, 'return "in";')).toMatchObject({ status: 'completed', value: 'in' });
    for (const { client } of [...open, next]) await client.close();
    await s.mcp!.close();
  });
});

describe('mcpServer.maxSessions against stalled bodies', () => {
  let s: PlaygroundServer;
  beforeAll(async () => {
    s = await startMcpTestServer(gateway, { mcpServer: { maxSessions: MAX_SESSIONS, sessionIdleSeconds: IDLE_SECONDS } });
  });
  afterAll(() => stopMcpTestServer(s));

  it('initializes whose body never finishes (headers, then a stall) take no place: with more of them held open than the cap, a client still connects', async () => {
    let seen = 0;
    s.server.on('request', (req: { url?: string }) => {
      if (req.url?.startsWith('/mcp')) seen++;
    });
    const stalled = Array.from({ length: MAX_SESSIONS + 1 }, () => {
      const socket = connectSocket(s.exposure.port, '127.0.0.1');
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${s.exposure.port}\r\nContent-Type: application/json\r\n` +
          'Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":"2.0",',
      );
      return socket;
    });
    await until(() => seen === MAX_SESSIONS + 1, { what: 'the server to take the stalled requests' });
    const { client } = await connect(s);
    expect(await exec(client, 'return "in";')).toMatchObject({ status: 'completed', value: 'in' });
    await client.close();
    for (const socket of stalled) socket.destroy();
  });
});

describe('mcpServer.sessionIdleSeconds', () => {
  it('cannot outlast the Gateway\'s own idle limit for turns (the turn would end under an open session)', () => {
    expect(MCP_SERVER_LIMIT_BOUNDS.sessionIdleSeconds.max * 1000).toBe(TURN_IDLE_MS);
  });

  let s: PlaygroundServer;
  beforeAll(async () => {
    s = await startMcpTestServer(gateway, { mcpServer: { maxSessions: MAX_SESSIONS, sessionIdleSeconds: IDLE_SECONDS } });
  });
  afterAll(() => stopMcpTestServer(s));

  it('an idle session is closed: its parked run is aborted, its slot frees, and its next request hears why', async () => {
    const { client } = await connect(s);
    const parked = await exec(client, 'await yield_control("park");\nreturn 1;');
    if (parked.status !== 'waiting') throw new Error(`expected waiting, got ${JSON.stringify(parked)}`);
    const before = s.mcp!.sessionCount();

    // not yet idle long enough: nothing closes
    expect(await s.mcp!.closeIdle(Date.now())).toBe(0);
    expect(await s.mcp!.closeIdle(Date.now() + IDLE_SECONDS * 1000 + 1)).toBe(1);
    expect(s.mcp!.sessionCount()).toBe(before - 1);
    await runReaches(gateway, parked.runId, 'aborted');

    const late = await client.callTool({ name: 'wait', arguments: { runId: parked.runId } }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(late?.message).toContain('mcpServer.sessionIdleSeconds');
    await client.close();
  });

  it('a session with a call in flight (a cell waiting on an approval) is not idle; once the call has answered, it can be', async () => {
    const { client } = await connect(s);
    const pending = client.callTool({ name: 'exec', arguments: { code: 'return await guarded_echo({ text: "approved late" });' } });
    await until(() => gateway.approvals().some((a) => a.tool === 'guarded_echo'), { what: 'the approval request' });
    const farFuture = () => Date.now() + 10 * IDLE_SECONDS * 1000;
    expect(await s.mcp!.closeIdle(farFuture())).toBe(0);

    const approval = gateway.approvals().find((a) => a.tool === 'guarded_echo')!;
    gateway.decideApproval({ approvalId: approval.approvalId, approve: true });
    expect((await pending).structuredContent).toMatchObject({ status: 'completed', value: 'approved late' });
    // the client has the answer; the server counts the call done when the response closes, a moment later
    let closed = 0;
    let asking = false;
    await until(() => {
      if (!asking) {
        asking = true;
        void s.mcp!.closeIdle(farFuture()).then((n) => {
          closed += n;
          asking = false;
        });
      }
      return closed === 1;
    }, { what: 'the session to be idle once its call answered' });
    expect(s.mcp!.sessionCount()).toBe(0);
    await client.close();
  });

  it('pings are not activity: a session that only pings is closed as idle; a request that does something (tools/list) keeps it', async () => {
    const pinging = await connect(s);
    const listing = await connect(s);
    const connectedAt = Date.now();
    // the clock moves past the connections, so any request from here on would mark a later activity
    await until(() => Date.now() > connectedAt + 5, { what: 'the clock to move' });
    for (let i = 0; i < 3; i++) await pinging.client.ping();
    await listing.client.listTools();
    const idleSinceConnect = connectedAt + IDLE_SECONDS * 1000 + 1;
    expect(await s.mcp!.closeIdle(idleSinceConnect)).toBe(1);
    expect(await listing.client.ping()).toEqual({});
    const late = await pinging.client.ping().then(() => undefined, (err: unknown) => err as Error);
    expect(late?.message).toContain('without a request other than ping (mcpServer.sessionIdleSeconds)');
    await Promise.all([pinging.client.close(), listing.client.close()]);
  });

  it('the sweep runs on its own: with a 1 s idle limit an unused session goes without anyone asking', async () => {
    const quick = await startMcpTestServer(gateway, { mcpServer: { sessionIdleSeconds: 1 } });
    try {
      const { client } = await connect(quick);
      expect(quick.mcp!.sessionCount()).toBe(1);
      await until(() => quick.mcp!.sessionCount() === 0, { what: 'the idle sweep' });
      await client.close();
    } finally {
      await quick.mcp!.close();
      await stopMcpTestServer(quick);
    }
  });
});
