// Shares per owner over the real server (port 0, a real Gateway): one owner at its share of every resource, and another owner still parks a run, prepares a turn, subscribes and opens an MCP session.
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { newApiKey } from '../access/owners.ts';
import { resolveMcpServerOptions, resolveServerOptions } from '../config/schema.ts';
import type { Gateway } from '../gateway.ts';
import { testGateway } from '../testing.ts';
import { startPlaygroundServer, type PlaygroundServer } from './server.ts';
import { sendRaw } from './testing.ts';

const PARK = 'await yield_control("park"); return 1';
/** Small shares, so the test reaches each one in a few requests; the keyless clients get the smallest. */
const SHARES = {
  anonymous: { liveTurns: 3, eventStreams: 2, suspendedRuns: 4, mcpSessions: 2, queuedJobs: 2 },
  client: { liveTurns: 4, eventStreams: 3, suspendedRuns: 6, mcpSessions: 3, queuedJobs: 3 },
};

let gateway: Gateway;
let s: PlaygroundServer;
let port: number;
const key = newApiKey();
const open: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  gateway = await testGateway();
  const server = resolveServerOptions({ clients: { 'ci-agent': { keySha256: key.keySha256 } }, shares: SHARES });
  s = await startPlaygroundServer({
    gateway,
    host: '127.0.0.1',
    port: 0,
    server,
    accessToken: undefined,
    mcpServer: resolveMcpServerOptions(undefined),
    handlePage: async (_req, res) => void res.end('<p>the page</p>'),
  });
  port = s.exposure.port;
});
afterAll(async () => {
  for (const o of open.splice(0)) await o.close();
  await s.mcp?.close();
  s.server.closeAllConnections();
  await new Promise<void>((resolve) => s.server.close(() => resolve()));
  await gateway.close();
});

interface Turn {
  agentRunId: string;
  turnToken: string;
}

async function api<T>(path: string, input: unknown, auth?: string): Promise<{ status: number; data?: T; message?: string }> {
  const reply = await sendRaw(port, {
    method: 'POST',
    path: `/api/trpc/${path}`,
    body: JSON.stringify(input),
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
  });
  const body = JSON.parse(reply.body) as { result?: { data: T }; error?: { message: string } };
  return { status: reply.status, ...(body.result ? { data: body.result.data } : {}), ...(body.error ? { message: body.error.message } : {}) };
}

/**
 * An event stream held open (a subscriber that stays); resolves with the HTTP status and what the stream said once
 * it said `until` (a refusal arrives as an error event after the stream opened), else with its first chunk.
 */
function subscribe(turnToken: string, auth?: string, until?: string): Promise<{ status: number; req: ClientRequest; text: string }> {
  return new Promise((resolve, reject) => {
    const input = encodeURIComponent(JSON.stringify({ turnTokens: [turnToken] }));
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        agent: false,
        path: `/api/trpc/events?input=${input}`,
        headers: { host: `127.0.0.1:${port}`, accept: 'text/event-stream', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        const done = () => resolve({ status: res.statusCode ?? 0, req, text });
        res.on('data', (chunk: string) => {
          text += chunk;
          if (until === undefined || text.includes(until)) done();
        });
        res.on('end', done);
      },
    );
    req.on('error', reject);
    req.end();
    open.push({ close: () => req.destroy() });
  });
}

async function mcpSession(auth?: string): Promise<{ client: Client; sessionId: string }> {
  const client = new Client({ name: auth ? 'keyed-agent' : 'keyless-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), auth ? { requestInit: { headers: { authorization: `Bearer ${auth}` } } } : {});
  await client.connect(transport);
  open.push({ close: () => client.close() });
  return { client, sessionId: transport.sessionId ?? '' };
}

describe('one owner at its share of every resource', () => {
  it('the keyless clients fill their shares; a client with its own key still parks a run, prepares a turn, subscribes and opens an MCP session', async () => {
    // ---- the keyless clients (one owner, however many scripts) take their whole share of each resource
    const keyless: Turn[] = [];
    for (let i = 0; i < SHARES.anonymous.liveTurns; i++) keyless.push((await api<Turn>('turns.prepare', {})).data!);
    const refusedTurn = await api('turns.prepare', {});
    expect(refusedTurn.status).toBe(429);
    expect(refusedTurn.message).toContain('(server.shares.anonymous.liveTurns)');

    // suspended runs: spread over two turns, so the owner's share binds before any turn's
    const [t0, t1] = keyless as [Turn, Turn];
    for (let i = 0; i < SHARES.anonymous.suspendedRuns; i++) {
      const turn = i % 2 === 0 ? t0 : t1;
      const parked = await api<{ status: string }>('exec', { agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: PARK } });
      expect(parked.data?.status).toBe('waiting');
    }
    const overShare = await api<{ status: string; code?: string; error?: string }>('exec', { agentRunId: t1.agentRunId, turnToken: t1.turnToken, input: { code: PARK } });
    expect(overShare.data).toMatchObject({ status: 'failed', code: 'runtime_unavailable' });
    expect(overShare.data?.error).toContain("This turn's owner (the clients without a key) already has 4 runs in flight or waiting");
    expect(overShare.data?.error).toContain('(server.shares.anonymous.suspendedRuns)');

    for (let i = 0; i < SHARES.anonymous.eventStreams; i++) expect((await subscribe(t0.turnToken)).status).toBe(200);
    const refusedStream = await subscribe(t0.turnToken, undefined, 'eventStreams');
    expect(refusedStream.text).toContain('(server.shares.anonymous.eventStreams)');

    for (let i = 0; i < SHARES.anonymous.mcpSessions; i++) await mcpSession();
    const refusedSession = await mcpSession().catch((e: unknown) => e);
    expect(String(refusedSession)).toContain('server.shares.anonymous.mcpSessions');

    // ---- a client with a key is an owner of its own: nothing above holds it back
    const mine = await api<Turn>('turns.prepare', {}, key.key);
    expect(mine.status).toBe(200);
    const parked = await api<{ status: string }>('exec', { agentRunId: mine.data!.agentRunId, turnToken: mine.data!.turnToken, input: { code: PARK } }, key.key);
    expect(parked.data?.status).toBe('waiting');
    expect((await subscribe(mine.data!.turnToken, key.key)).status).toBe(200);
    const session = await mcpSession(key.key);
    expect((await session.client.listTools()).tools.map((t) => t.name)).toContain('exec');
    expect(s.mcp?.sessionsOf({ id: 'client:ci-agent' })).toBe(1);
  });

  it("an MCP session is bound to the credentials that opened it: its id without the key is refused", async () => {
    const { sessionId } = await mcpSession(key.key);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const stolen = await sendRaw(port, { method: 'POST', path: '/mcp', body: list, headers });
    expect(stolen.status).toBe(403);
    expect(stolen.body).toContain('was opened with other credentials');
    const own = await sendRaw(port, { method: 'POST', path: '/mcp', body: list, headers: { ...headers, authorization: `Bearer ${key.key}` } });
    expect(own.status).toBe(200);
  });
});
