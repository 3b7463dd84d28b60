// The demo inventory HTTP server behind demo/openapi/inventory.yaml (fixture data, kept in memory).
//
// `node demo/openapi/server.mjs [port]` serves it on 127.0.0.1 (default 4011) and prints "listening <url>".
// Tests import startInventoryServer() and get a fresh store on a free port. Requests that carry
// `Authorization` must carry the expected one (when the server was given a token), so auth headers are
// seen end to end. GET /openapi.yaml serves the document itself, for "add by URL".
/** @import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http' */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const INVENTORY_DOCUMENT = join(dirname(fileURLToPath(import.meta.url)), 'inventory.yaml');
const CATEGORIES = new Set(['tools', 'parts', 'supplies']);
const MAX_BODY_BYTES = 64 * 1024;

/**
 * A started server: its address, every request it saw (for tests) and how to stop it.
 * @typedef {{ url: string, port: number, requests: Array<{ method: string | undefined, path: string, headers: IncomingHttpHeaders }>, close(): Promise<void> }} InventoryServer
 */

function seed() {
  return new Map([
    ['i1', { id: 'i1', name: 'Hammer', category: 'tools', quantity: 12 }],
    ['i2', { id: 'i2', name: 'Hex bolt M6', category: 'parts', quantity: 500 }],
    ['i3', { id: 'i3', name: 'Duct tape', category: 'supplies', quantity: 30 }],
  ]);
}

/** @param {ServerResponse} res @param {number} status @param {unknown} [body] */
function send(res, status, body) {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

/** @param {IncomingMessage} req @returns {Promise<string>} */
function readBody(req) {
  return new Promise((resolveBody, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Starts the server on 127.0.0.1:`port` (0: a free port). Resolves { url, port, close, requests }.
 * @param {{ port?: number, token?: string | undefined }} [options]
 * @returns {Promise<InventoryServer>}
 */
export function startInventoryServer({ port = 0, token } = {}) {
  const items = seed();
  let next = items.size + 1;
  /** Every request seen, for tests: method, path (with query) and headers. @type {InventoryServer['requests']} */
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ method: req.method, path: url.pathname + url.search, headers: req.headers });
    try {
      if (url.pathname === '/openapi.yaml' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/yaml' }).end(readFileSync(INVENTORY_DOCUMENT, 'utf8'));
        return;
      }
      if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
        send(res, 401, { error: 'missing or wrong Authorization header' });
        return;
      }
      if (url.pathname === '/items' && req.method === 'GET') {
        const category = url.searchParams.get('category');
        const limit = Number(url.searchParams.get('limit') ?? 100);
        const list = [...items.values()].filter((item) => !category || item.category === category).slice(0, limit);
        send(res, 200, list);
        return;
      }
      if (url.pathname === '/items' && req.method === 'POST') {
        let body;
        try {
          body = JSON.parse(await readBody(req));
        } catch {
          send(res, 400, { error: 'the body must be JSON' });
          return;
        }
        if (!body || typeof body.name !== 'string' || !CATEGORIES.has(body.category) || !Number.isInteger(body.quantity)) {
          send(res, 400, { error: 'an item needs name (string), category (tools|parts|supplies) and quantity (integer)' });
          return;
        }
        const item = { id: `i${next++}`, name: body.name, category: body.category, quantity: body.quantity };
        items.set(item.id, item);
        send(res, 201, item);
        return;
      }
      if (url.pathname === '/stats' && req.method === 'GET') {
        const all = [...items.values()];
        send(res, 200, { items: all.length, units: all.reduce((sum, item) => sum + item.quantity, 0) });
        return;
      }
      const match = /^\/items\/([^/]+)$/.exec(url.pathname);
      if (match) {
        const id = decodeURIComponent(/** @type {string} */ (match[1]));
        const item = items.get(id);
        if (!item) {
          send(res, 404, { error: `no item ${JSON.stringify(id)}` });
          return;
        }
        if (req.method === 'GET') {
          const requestId = req.headers['x-request-id'];
          send(res, 200, typeof requestId === 'string' ? { ...item, requestId } : item);
          return;
        }
        if (req.method === 'DELETE') {
          items.delete(id);
          send(res, 204);
          return;
        }
      }
      send(res, 404, { error: `no route ${req.method} ${url.pathname}` });
    } catch (err) {
      send(res, 500, { error: String(/** @type {{ message?: unknown } | null | undefined} */ (err)?.message ?? err) });
    }
  });
  return new Promise((resolveStart, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      resolveStart({
        url: `http://127.0.0.1:${actual}`,
        port: actual,
        requests,
        close: () => new Promise((/** @type {() => void} */ done) => server.close(() => done())),
      });
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const port = Number(process.argv[2] ?? 4011);
  const started = await startInventoryServer({ port, token: process.env.INVENTORY_TOKEN });
  console.log(`listening ${started.url}`);
}
