import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInventoryServer, type InventoryServer } from '../../../demo/openapi/server.mjs';
import { ToolError } from '../../errors.ts';
import { callTool, findTool, REPO_ROOT, testContext } from '../testing.ts';
import { loadOpenApiSource, type LoadedOpenApiSource } from './source.ts';
import { noteOwnListener } from '../../util/own-listeners.ts';

const DOCUMENT = 'demo/openapi/inventory.yaml';

let api: InventoryServer;

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const port = (probe.address() as { port: number }).port;
  await new Promise((done) => probe.close(done));
  return port;
}
let source: LoadedOpenApiSource;

/** A loopback server that serves `document` at any path: a document fetched by URL. */
async function serveDocuments(): Promise<{ url: string; document: string; close: () => Promise<void> }> {
  const state = { url: '', document: '', close: async () => {} };
  const server = createServer((_req, res) => res.end(state.document));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  state.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  state.close = () => new Promise<void>((done) => server.close(() => done()));
  return state;
}

beforeAll(async () => {
  api = await startInventoryServer({ token: 'demo-token' });
  source = await loadOpenApiSource(
    'inventory',
    { document: DOCUMENT, baseUrl: api.url, auth: { env: 'INVENTORY_TEST_TOKEN' } },
    { baseDir: REPO_ROOT, env: { INVENTORY_TEST_TOKEN: 'Bearer demo-token' } },
  );
});
afterAll(async () => {
  await api.close();
});

describe('OpenAPI tool source against the demo inventory server', () => {
  it('offers one tool per operation, owned by the source, as network content', () => {
    expect(source.tools.map((t) => t.name)).toEqual(['listItems', 'createItem', 'getItem', 'delete_items_itemId', 'get_stats']);
    for (const tool of source.tools) expect(tool).toMatchObject({ source: 'openapi', owner: 'inventory', networkContent: true });
    expect(findTool(source.tools, 'createItem').executionMode).toBe('sequential');
    expect(source.allowedHosts).toEqual([new URL(api.url).host]);
  });

  it('sends query parameters and the auth header, and returns the decoded JSON', async () => {
    const result = await callTool(findTool(source.tools, 'listItems'), { category: 'tools', limit: 5 });
    expect(result).toEqual([{ id: 'i1', name: 'Hammer', category: 'tools', quantity: 12 }]);
    const seen = api.requests.at(-1);
    expect(seen?.path).toBe('/items?category=tools&limit=5');
    expect(seen?.headers['authorization']).toBe('Bearer demo-token');
  });

  it('fills path parameters (percent-encoded) and header parameters', async () => {
    expect(await callTool(findTool(source.tools, 'getItem'), { itemId: 'i2', 'X-Request-Id': 'req-7' })).toMatchObject({ id: 'i2', requestId: 'req-7' });
    const error = await callTool(findTool(source.tools, 'getItem'), { itemId: '../stats' }).catch((e: unknown) => e);
    // the value stays one path segment: no route climbs out of /items/
    expect(api.requests.at(-1)?.path).toBe('/items/..%2Fstats');
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('http_404');
    expect((error as ToolError).message).toMatch(/inventory getItem \(GET \/items\/\{itemId\}\): HTTP 404 Not Found: \{"error":"no item \\"..\/stats\\""\}/);
  });

  it('sends a JSON body and returns the created item', async () => {
    const created = await callTool(findTool(source.tools, 'createItem'), { body: { name: 'Tape measure', category: 'tools', quantity: 4 } });
    expect(created).toMatchObject({ id: expect.stringMatching(/^i\d+$/), name: 'Tape measure', quantity: 4 });
    expect(await callTool(findTool(source.tools, 'delete_items_itemId'), { itemId: (created as { id: string }).id })).toBeNull();
  });

  it('validates input against the mapped schema before any request', async () => {
    const before = api.requests.length;
    await expect(callTool(findTool(source.tools, 'listItems'), { category: 'food' })).rejects.toThrow(/category/);
    await expect(callTool(findTool(source.tools, 'createItem'), {})).rejects.toThrow(/body/);
    await expect(callTool(findTool(source.tools, 'getItem'), { itemId: 'i1', extra: 1 })).rejects.toThrow(/extra/);
    expect(api.requests.length).toBe(before);
  });

  it('refuses a base URL or redirect off the host allowlist', async () => {
    await expect(
      loadOpenApiSource('inv2', { document: DOCUMENT, baseUrl: api.url, allowedHosts: ['api.example.com'] }, { baseDir: REPO_ROOT }),
    ).rejects.toThrow(/the base URL's host 127\.0\.0\.1:\d+ is not in allowedHosts \(api\.example\.com\)/);

    const redirector = createServer((_req, res) => res.writeHead(302, { location: 'http://localhost:1/items' }).end());
    await new Promise<void>((done) => redirector.listen(0, '127.0.0.1', done));
    const port = (redirector.address() as { port: number }).port;
    try {
      const redirected = await loadOpenApiSource('redirect', { document: DOCUMENT, baseUrl: `http://127.0.0.1:${port}` }, { baseDir: REPO_ROOT });
      const error = await callTool(findTool(redirected.tools, 'get_stats'), {}).catch((e: unknown) => e);
      expect((error as ToolError).code).toBe('host_not_allowed');
      expect((error as ToolError).message).toMatch(/localhost:1 is not on this source's host allowlist \(127\.0\.0\.1:\d+\)/);
    } finally {
      await new Promise((done) => redirector.close(done));
    }
  });

  it('reports a refused connection as a network error naming the base URL', async () => {
    const port = await closedPort();
    const down = await loadOpenApiSource('down', { document: DOCUMENT, baseUrl: `http://127.0.0.1:${port}` }, { baseDir: REPO_ROOT });
    const error = await callTool(findTool(down.tools, 'get_stats'), {}).catch((e: unknown) => e);
    expect((error as ToolError).code).toBe('network_error');
    expect((error as ToolError).message).toMatch(new RegExp(`request to http://127\\.0\\.0\\.1:${port} failed \\(ECONNREFUSED\\)`));
  });

  it('aborts a call when its run is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await callTool(findTool(source.tools, 'get_stats'), {}, testContext({ signal: controller.signal })).catch((e: unknown) => e);
    expect((error as ToolError).code).toBe('aborted');
  });

  it('loads a document by URL (servers resolved against it) and from uploaded text', async () => {
    const byUrl = await loadOpenApiSource('byurl', { document: `${api.url}/openapi.yaml`, baseUrl: api.url, auth: { value: 'Bearer demo-token' } }, { baseDir: REPO_ROOT });
    expect(await callTool(findTool(byUrl.tools, 'get_stats'), {})).toMatchObject({ items: expect.any(Number) });
    const text = readFileSync(join(REPO_ROOT, DOCUMENT), 'utf8');
    const uploaded = await loadOpenApiSource('uploaded', { documentText: text, baseUrl: api.url }, { baseDir: REPO_ROOT });
    expect(uploaded.baseUrl).toBe(`${api.url}/`);
  });

  it('refuses a server the document picks on a link-local address, or (fetched by URL) on a loopback address of another port, unless the config sets baseUrl', async () => {
    const text = readFileSync(join(REPO_ROOT, DOCUMENT), 'utf8');
    const metadata = text.replace('http://127.0.0.1:4011', 'http://169.254.169.254');
    await expect(loadOpenApiSource('meta', { documentText: metadata }, { baseDir: REPO_ROOT })).rejects.toThrow(
      'OpenAPI source "meta": the document\'s server http://169.254.169.254 is a link-local address (where clouds serve instance metadata); set "baseUrl" (and "allowedHosts") in the source\'s config if calls should go there',
    );
    expect((await loadOpenApiSource('meta', { documentText: metadata, baseUrl: 'http://169.254.169.254' }, { baseDir: REPO_ROOT })).baseUrl).toBe('http://169.254.169.254/');
    // the demo server serves the document, which names 127.0.0.1:4011: another port of loopback than the one it came from
    const from = new URL(api.url).host;
    expect(from).not.toBe('127.0.0.1:4011');
    await expect(loadOpenApiSource('other-port', { document: `${api.url}/openapi.yaml` }, { baseDir: REPO_ROOT })).rejects.toThrow(
      `OpenAPI source "other-port": the document (from ${from}) names its server http://127.0.0.1:4011, a loopback or private address of another host or port`,
    );
  });

  it('holds a server the document picks to its normalized address: IPv4-mapped IPv6, decimal, hex, a name that resolves inward, in fetched, uploaded and file documents alike', async () => {
    const text = readFileSync(join(REPO_ROOT, DOCUMENT), 'utf8');
    const apiPort = new URL(api.url).port;
    // a document served by one loopback service that names another loopback port, in spellings the old literal check missed
    const served = await serveDocuments();
    try {
      for (const server of [`http://[::ffff:127.0.0.1]:${apiPort}`, `http://2130706433:${apiPort}`, `http://0x7f.1:${apiPort}`, `http://localhost:${apiPort}`]) {
        served.document = text.replace('http://127.0.0.1:4011', server);
        const error = await loadOpenApiSource('mapped', { document: `${served.url}/doc.yaml` }, { baseDir: REPO_ROOT }).catch((e: unknown) => e);
        expect((error as Error).message, server).toMatch(/names its server .*, a loopback or private address of another host or port/);
      }
      // the same document, uploaded or read from a file: no "came from" to match, so a loopback server is the operator's call (baseUrl)
      const uploaded = text.replace('http://127.0.0.1:4011', `http://[::ffff:127.0.0.1]:${apiPort}`);
      await expect(loadOpenApiSource('uploaded', { documentText: uploaded }, { baseDir: REPO_ROOT })).rejects.toThrow(
        /the uploaded document names its server http:\/\/\[::ffff:7f00:1\]:\d+, a loopback or private address; set "baseUrl"/,
      );
      await expect(loadOpenApiSource('file', { document: DOCUMENT }, { baseDir: REPO_ROOT })).rejects.toThrow(
        /the document \(file demo\/openapi\/inventory\.yaml\) names its server http:\/\/127\.0\.0\.1:4011, a loopback or private address; set "baseUrl"/,
      );
      // cloud metadata behind the mapped spelling is link-local too
      await expect(loadOpenApiSource('meta', { documentText: text.replace('http://127.0.0.1:4011', 'http://[::ffff:169.254.169.254]') }, { baseDir: REPO_ROOT })).rejects.toThrow(/link-local/);
      // a document describing its own service may name it (same address and port, any spelling)
      served.document = text.replace('http://127.0.0.1:4011', served.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'));
      const self = await loadOpenApiSource('self', { document: `${served.url}/doc.yaml` }, { baseDir: REPO_ROOT });
      expect(self.tools.length).toBeGreaterThan(0);
    } finally {
      await served.close();
    }
  });

  it("never lets a document's server be the Gateway's own: uploaded, named by baseUrl, or reached by a call's redirect", async () => {
    const own = createServer((_req, res) => res.end('{"turnToken":"tt_x"}'));
    await new Promise<void>((done) => own.listen(0, '127.0.0.1', done));
    const ownPort = (own.address() as { port: number }).port;
    const forget = noteOwnListener('127.0.0.1', ownPort);
    const redirector = createServer((_req, res) => res.writeHead(307, { location: `http://[::ffff:127.0.0.1]:${ownPort}/api/trpc/turns.prepare` }).end());
    await new Promise<void>((done) => redirector.listen(0, '127.0.0.1', done));
    const redirectorPort = (redirector.address() as { port: number }).port;
    let reached = 0;
    own.on('request', () => reached++);
    try {
      const text = readFileSync(join(REPO_ROOT, DOCUMENT), 'utf8').replace('http://127.0.0.1:4011', `http://127.0.0.1:${ownPort}`);
      await expect(loadOpenApiSource('own', { documentText: text }, { baseDir: REPO_ROOT })).rejects.toThrow(/is this Gateway's own server/);
      await expect(loadOpenApiSource('own', { documentText: text, baseUrl: `http://localhost:${ownPort}` }, { baseDir: REPO_ROOT })).rejects.toThrow(/is this Gateway's own server/);
      // allowlisted by the operator, and still refused: the redirect lands on the Gateway's own port
      const source = await loadOpenApiSource(
        'bounce',
        { document: DOCUMENT, baseUrl: `http://127.0.0.1:${redirectorPort}`, allowedHosts: [`127.0.0.1:${redirectorPort}`, `[::ffff:7f00:1]:${ownPort}`] },
        { baseDir: REPO_ROOT },
      );
      const error = await callTool(findTool(source.tools, 'get_stats'), {}).catch((e: unknown) => e);
      expect((error as ToolError).code).toBe('address_not_allowed');
      expect((error as ToolError).message).toContain(`127.0.0.1:${ownPort} is this Gateway's own server`);
      expect(reached).toBe(0);
    } finally {
      forget();
      await Promise.all([own, redirector].map((s) => new Promise((done) => s.close(done))));
    }
  });

  it('names a missing file, a missing auth variable and an unreachable document URL', async () => {
    await expect(loadOpenApiSource('x', { document: 'demo/openapi/nope.yaml' }, { baseDir: REPO_ROOT })).rejects.toThrow(/cannot read .*nope\.yaml \(ENOENT\)/);
    await expect(loadOpenApiSource('x', { document: DOCUMENT, baseUrl: api.url, auth: { env: 'NOPE_TOKEN' } }, { baseDir: REPO_ROOT, env: {} })).rejects.toThrow(
      /environment variable NOPE_TOKEN is not set/,
    );
    await expect(loadOpenApiSource('x', { document: `http://127.0.0.1:${await closedPort()}/openapi.yaml` }, { baseDir: REPO_ROOT })).rejects.toThrow(/fetching .* failed \(ECONNREFUSED\)/);
  });
});
