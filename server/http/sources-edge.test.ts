// The sources API at the HTTP edge: operator cookie required, Origin checked, and stdio refused on an exposed server even for the operator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../gateway.ts';
import { DEFAULT_SERVER_OPTIONS } from '../config/schema.ts';
import { demoConfig } from '../trpc/testing.ts';
import { DEMO_SERVER_SCRIPT } from '../tools/mcp/testing.ts';
import { LOGIN_PATH } from './request-checks.ts';
import { startPlaygroundServer, type PageHandler, type PlaygroundServer } from './server.ts';
import { NAVIGATION_HEADERS, sendRaw, type RawReply } from './testing.ts';

const TOKEN = 's'.repeat(40);
const page: PageHandler = async (_req, res) => void res.end('<p>the page</p>');
const stdio = { kind: 'mcp-stdio', name: 'live', command: process.execPath, args: [DEMO_SERVER_SCRIPT], confirmCommandLine: `${process.execPath} ${DEMO_SERVER_SCRIPT}` };

let gateway: Gateway;
beforeAll(async () => {
  gateway = await createGateway({ config: { ...demoConfig(), mcp: { servers: {} } } });
});
afterAll(async () => {
  await gateway.close();
});

function cookieOf(reply: RawReply): string {
  const set = reply.headers['set-cookie'];
  return String(Array.isArray(set) ? set[0] : set).split(';')[0] ?? '';
}

const post = (port: number, path: string, body: unknown, headers: Record<string, string> = {}) =>
  sendRaw(port, { method: 'POST', path, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

async function withServer(host: string, token: string | undefined, run: (s: PlaygroundServer) => Promise<void>): Promise<void> {
  const s = await startPlaygroundServer({ gateway, host, port: 0, server: DEFAULT_SERVER_OPTIONS, accessToken: token, handlePage: page });
  try {
    await run(s);
  } finally {
    await new Promise<void>((resolve) => s.server.close(() => resolve()));
  }
}

describe('sources at the HTTP edge', () => {
  it('on loopback: 403 without the operator cookie, 403 from a foreign Origin with it, allowed from the page', async () => {
    await withServer('127.0.0.1', undefined, async (s) => {
      const port = s.exposure.port;
      const bare = await post(port, '/api/trpc/sources.add', stdio);
      expect(bare.status).toBe(403);
      expect(bare.body).toContain('sources.add is an operator action');
      const cookie = cookieOf(await sendRaw(port, { method: 'GET', path: '/', headers: NAVIGATION_HEADERS }));
      const foreign = await post(port, '/api/trpc/sources.add', stdio, { cookie, origin: 'https://evil.example' });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toContain('server.allowedOrigins');
      const list = await sendRaw(port, { method: 'GET', path: '/api/trpc/sources.list', headers: { cookie } });
      expect(list.status).toBe(200);
      expect(gateway.sources()).toEqual([]);
    });
  });

  it('exposed: the operator (logged in) is refused a stdio server unless the config allows it; an HTTP MCP server is accepted', async () => {
    await withServer('0.0.0.0', TOKEN, async (s) => {
      const port = s.exposure.port;
      const login = await sendRaw(port, { method: 'POST', path: LOGIN_PATH, body: `token=${TOKEN}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      const cookie = cookieOf(login);
      const bearerOnly = await post(port, '/api/trpc/sources.add', stdio, { authorization: `Bearer ${TOKEN}` });
      expect(bearerOnly.status).toBe(403);
      const refused = await post(port, '/api/trpc/sources.add', stdio, { cookie });
      expect(refused.status).toBe(400);
      expect(refused.body).toContain('exposed beyond loopback');
      expect(gateway.sources()).toEqual([]);
      const http = await post(port, '/api/trpc/sources.add', { kind: 'mcp-http', name: 'remote', url: 'http://127.0.0.1:9/mcp' }, { cookie });
      expect(http.status).toBe(200);
      expect(gateway.sources().map((v) => [v.name, v.kind])).toEqual([['remote', 'mcp-http']]);
      await gateway.removeSource('remote');
    });
  });
});
