// The real HTTP server on port 0 (a real Gateway, a plain page handler in place of Next): checks, operator cookie, login, API ownership.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../gateway.ts';
import type { Gateway } from '../gateway.ts';
import { DEFAULT_SERVER_OPTIONS } from '../config/schema.ts';
import { demoConfig } from '../trpc/testing.ts';
import { ExposureError, LOGIN_PATH, operatorCookieName } from './request-checks.ts';
import { startPlaygroundServer, type PageHandler, type PlaygroundServer } from './server.ts';
import { NAVIGATION_HEADERS, sendRaw, type RawReply, type RawRequest } from './testing.ts';
import { MAX_BATCH_CALLS } from '../trpc/init.ts';

const TOKEN = 't'.repeat(40);

/** Stands in for Next's handler: the page's own content is not under test here. */
const plainPageHandler: PageHandler = async (_req, res) => {
  res.setHeader('content-type', 'text/html');
  res.end('<p>the page</p>');
};

type Reply = RawReply;

/** One raw request, GET unless told (fetch does not let a test set Host). */
function send(port: number, opts: Omit<RawRequest, 'method'> & { method?: RawRequest['method'] }): Promise<Reply> {
  return sendRaw(port, { ...opts, method: opts.method ?? 'GET' });
}

function cookieOf(reply: Reply): string | undefined {
  const set = reply.headers['set-cookie'];
  const first = Array.isArray(set) ? set[0] : set;
  return first?.split(';')[0];
}

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const data = (reply: Reply) => (JSON.parse(reply.body) as { result: { data: unknown } }).result.data;

let gateway: Gateway;

beforeAll(async () => {
  gateway = await createGateway({ config: { ...demoConfig(), mcp: { servers: {} } } });
});

afterAll(async () => {
  await gateway.close();
});

async function start(host: string, accessToken?: string): Promise<PlaygroundServer> {
  return startPlaygroundServer({ gateway, host, port: 0, server: DEFAULT_SERVER_OPTIONS, accessToken, handlePage: plainPageHandler });
}

describe('on loopback', () => {
  let s: PlaygroundServer;
  let port: number;
  beforeAll(async () => {
    s = await start('127.0.0.1');
    port = s.exposure.port;
  });
  afterAll(() => new Promise<void>((resolve) => s.server.close(() => resolve())));

  it("a browser's navigation to the page is served with the HttpOnly operator cookie; API replies set none", async () => {
    const page = await send(port, { path: '/', headers: NAVIGATION_HEADERS });
    expect(page.status).toBe(200);
    expect(page.body).toContain('the page');
    expect(cookieOf(page)).toBe(`codemode_operator_${port}=${s.operatorToken}`);
    expect(String(page.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    expect(String(page.headers['set-cookie'])).not.toContain('Secure');
    const behindTls = await send(port, { path: '/?cell=abc', headers: { ...NAVIGATION_HEADERS, 'x-forwarded-proto': 'https' } });
    expect(String(behindTls.headers['set-cookie'])).toMatch(/; Secure$/);
    // a browser that sends no Fetch Metadata (older ones) but asks for HTML is still a navigation
    expect(cookieOf(await send(port, { path: '/', headers: { accept: 'text/html' } }))).toBe(`codemode_operator_${port}=${s.operatorToken}`);
    expect((await send(port, { path: '/api/trpc/config.agents' })).headers['set-cookie']).toBeUndefined();
  });

  it('the operator cookie is never handed to anything but that navigation: HEAD, other paths, API paths, a fetch or image from a page, curl', async () => {
    const notNavigations: Array<{ what: string; method?: RawRequest['method']; path: string; headers?: Record<string, string> }> = [
      { what: 'curl (Accept: */*)', path: '/', headers: { accept: '*/*', 'user-agent': 'curl/8.5.0' } },
      { what: 'no Accept at all', path: '/' },
      { what: 'HEAD of the page', method: 'HEAD', path: '/', headers: NAVIGATION_HEADERS },
      { what: 'a path that is not the page (404)', path: '/no/such/page', headers: NAVIGATION_HEADERS },
      { what: 'a static file path', path: '/icon.svg', headers: NAVIGATION_HEADERS },
      { what: 'the login path', path: LOGIN_PATH, headers: NAVIGATION_HEADERS },
      { what: 'an API path asked for as a document', path: '/api/trpc/config.agents', headers: NAVIGATION_HEADERS },
      { what: "a page's fetch()", path: '/', headers: { ...NAVIGATION_HEADERS, 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' } },
      { what: 'an iframe', path: '/', headers: { ...NAVIGATION_HEADERS, 'sec-fetch-dest': 'iframe' } },
      { what: 'an <img>', path: '/', headers: { accept: 'image/avif,image/webp,*/*', 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors' } },
    ];
    for (const { what, method, path, headers } of notNavigations) {
      const reply = await send(port, { ...(method ? { method } : {}), path, ...(headers ? { headers } : {}) });
      expect(reply.headers['set-cookie'], what).toBeUndefined();
    }
  });

  it('an API client sees only its own runs; the cookie holder (the page) sees every run', async () => {
    const prepared = data(await send(port, { method: 'POST', path: '/api/trpc/turns.prepare', ...json({}) })) as { agentRunId: string; turnToken: string };
    const exec = await send(port, { method: 'POST', path: '/api/trpc/exec', ...json({ agentRunId: prepared.agentRunId, turnToken: prepared.turnToken, input: { code: 'return 1' } }) });
    const runId = (data(exec) as { telemetry: { runId: string } }).telemetry.runId;
    const noToken = await send(port, { method: 'POST', path: '/api/trpc/exec', ...json({ agentRunId: prepared.agentRunId, input: { code: 'return 1' } }) });
    expect(noToken.status).toBe(401);
    expect(noToken.body).toContain('turnToken');

    const anonymous = data(await send(port, { path: '/api/trpc/runs.list' })) as Array<{ runId: string }>;
    expect(anonymous).toEqual([]);
    const cookie = cookieOf(await send(port, { path: '/', headers: NAVIGATION_HEADERS })) ?? '';
    const asOperator = data(await send(port, { path: '/api/trpc/runs.list', headers: { cookie } })) as Array<{ runId: string }>;
    expect(asOperator.map((r) => r.runId)).toContain(runId);
  });

  it('a GET query takes its tokens from the x-codemode-turn-token header, so none travel in the URL; a malformed header is a 400 naming it', async () => {
    const prepared = data(await send(port, { method: 'POST', path: '/api/trpc/turns.prepare', ...json({}) })) as { agentRunId: string; turnToken: string };
    const exec = await send(port, { method: 'POST', path: '/api/trpc/exec', ...json({ agentRunId: prepared.agentRunId, turnToken: prepared.turnToken, input: { code: 'return 2' } }) });
    const runId = (data(exec) as { telemetry: { runId: string } }).telemetry.runId;
    const input = encodeURIComponent(JSON.stringify({ runId }));

    const withoutHeader = await send(port, { path: `/api/trpc/runs.get?input=${input}` });
    expect(withoutHeader.status).toBe(401);
    expect(withoutHeader.body).toContain('x-codemode-turn-token');
    const viaHeader = await send(port, { path: `/api/trpc/runs.get?input=${input}`, headers: { 'x-codemode-turn-token': prepared.turnToken } });
    expect(viaHeader.status).toBe(200);
    expect((data(viaHeader) as { runId: string }).runId).toBe(runId);
    // Several turns in one header, comma-separated: the listing shows this turn's run.
    const listed = await send(port, { path: '/api/trpc/runs.list', headers: { 'x-codemode-turn-token': `tt_unknown, ${prepared.turnToken}` } });
    expect((data(listed) as Array<{ runId: string }>).map((r) => r.runId)).toContain(runId);

    const tooLong = await send(port, { path: '/api/trpc/runs.list', headers: { 'x-codemode-turn-token': 'x'.repeat(10_000) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toContain('x-codemode-turn-token');
  });

  it('on a rebound Host (evil.example): 421 with a message naming it, for the page and the API', async () => {
    for (const path of ['/', '/api/trpc/runs.list']) {
      const reply = await send(port, { path, headers: { host: `evil.example:${port}` } });
      expect(reply.status).toBe(421);
      expect(reply.body).toContain('Host "evil.example');
      expect(reply.headers['set-cookie']).toBeUndefined();
    }
  });

  it('on a foreign Origin: 403, and nothing runs', async () => {
    const reply = await send(port, { method: 'POST', path: '/api/trpc/turns.prepare', ...json({}), headers: { 'content-type': 'application/json', origin: 'https://evil.example' } });
    expect(reply.status).toBe(403);
    expect(reply.body).toContain('server.allowedOrigins');
  });

  it(`on a batch of more than ${MAX_BATCH_CALLS} calls: 400 saying to split it, before any runs; ${MAX_BATCH_CALLS} are served`, async () => {
    const batch = (n: number) => {
      const inputs = Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), {}]));
      return send(port, { method: 'POST', path: `/api/trpc/${Array(n).fill('turns.prepare').join(',')}?batch=1`, ...json(inputs) });
    };
    const over = await batch(MAX_BATCH_CALLS + 1);
    expect(over.status).toBe(400);
    expect(over.body).toContain(`a batch may hold at most ${MAX_BATCH_CALLS} calls; split it into several requests`);
    const served = await batch(MAX_BATCH_CALLS);
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toHaveLength(MAX_BATCH_CALLS);
  });

  it('on a POST to the API that is not JSON (form data, bytes, text): 415 saying to send JSON; on an absolute-form target: 400, never a redirect or a cookie', async () => {
    for (const type of ['multipart/form-data; boundary=x', 'application/octet-stream', 'text/plain']) {
      const reply = await send(port, { method: 'POST', path: '/api/trpc/turns.prepare', body: '{}', headers: { 'content-type': type } });
      expect(reply.status, type).toBe(415);
      expect(reply.body).toContain(`send the input with content-type: application/json (got "${type.split(';')[0]}")`);
    }
    for (const path of ['http://evil.example/api/trpc/config.agents', 'http://evil.example/']) {
      const reply = await send(port, { path });
      expect(reply.status, path).toBe(400);
      expect(reply.body).toContain('the request target must be a path');
      expect(reply.headers['location']).toBeUndefined();
      expect(reply.headers['set-cookie']).toBeUndefined();
    }
  });

  it('on a body over maxRequestBodyBytes: 413 naming the limit, declared or streamed', async () => {
    const big = JSON.stringify({ agentRunId: 'ar_x', input: { code: 'x'.repeat(DEFAULT_SERVER_OPTIONS.maxRequestBodyBytes) } });
    const declared = await send(port, { method: 'POST', path: '/api/trpc/exec', body: big, headers: { 'content-type': 'application/json' } });
    expect(declared.status).toBe(413);
    expect(declared.body).toContain('server.maxRequestBodyBytes');
    const streamed = await send(port, { method: 'POST', path: '/api/trpc/exec', body: big, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
    expect(streamed.status).toBe(413);
    expect(streamed.body).toContain('server.maxRequestBodyBytes');
  });
});

describe('exposed (non-loopback bind)', () => {
  it('refuses to start without an access token, before binding', async () => {
    await expect(start('0.0.0.0')).rejects.toBeInstanceOf(ExposureError);
  });

  it('with a token: 401 without it, the API with the bearer, the page after logging in with it', async () => {
    const s = await start('0.0.0.0', TOKEN);
    const port = s.exposure.port;
    try {
      expect(s.exposure.exposed).toBe(true);
      const bare = await send(port, { path: '/api/trpc/config.agents' });
      expect(bare.status).toBe(401);
      expect(bare.body).toContain('Authorization: Bearer');
      expect((await send(port, { path: '/api/trpc/config.agents', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);

      const page = await send(port, { path: '/', headers: NAVIGATION_HEADERS });
      expect(page.status).toBe(401);
      expect(page.body).toContain(LOGIN_PATH);
      // the bearer opens the page for a script, but only the login makes anyone the operator
      const withBearer = await send(port, { path: '/', headers: { ...NAVIGATION_HEADERS, authorization: `Bearer ${TOKEN}` } });
      expect(withBearer.status).toBe(200);
      expect(withBearer.headers['set-cookie']).toBeUndefined();
      const wrong = await send(port, { method: 'POST', path: LOGIN_PATH, body: 'token=nope', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(wrong.status).toBe(401);
      expect(wrong.headers['set-cookie']).toBeUndefined();
      const login = await send(port, { method: 'POST', path: LOGIN_PATH, body: `token=${TOKEN}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(login.status).toBe(303);
      const cookie = cookieOf(login) ?? '';
      expect(cookie).toBe(`${operatorCookieName(port)}=${s.operatorToken}`);
      expect((await send(port, { path: '/', headers: { cookie } })).body).toContain('the page');
      expect((await send(port, { path: '/api/trpc/runs.list', headers: { cookie } })).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => s.server.close(() => resolve()));
    }
  });
});
