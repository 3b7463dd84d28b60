// The build's static files served by the edge: the compile hint on the page's scripts only, gzip once, everything else left to Next.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILE_HINT, createNextStaticHandler, type NextStaticHandler } from './next-static.ts';

const SCRIPT = `(globalThis.TURBOPACK||[]).push([${'"x",'.repeat(600)}()=>1]);\n`;
const STYLE = 'body{color:red}';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One request answered by `serve` on a server of its own (closed after). */
async function serveOnce(serve: NextStaticHandler, path: string, headers: Record<string, string>): Promise<Reply> {
  const own = createServer((req, res) => void serve(req, res));
  await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', () => resolve()));
  try {
    const address = own.address();
    return await get(typeof address === 'object' && address ? address.port : 0, path, headers);
  } finally {
    await new Promise<void>((resolve) => own.close(() => resolve()));
  }
}

let dir: string;
let handler: NextStaticHandler;
let server: Server;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'next-static-'));
  mkdirSync(join(dir, 'static', 'chunks'), { recursive: true });
  writeFileSync(join(dir, 'static', 'chunks', 'page.js'), SCRIPT);
  writeFileSync(join(dir, 'static', 'chunks', 'style.css'), STYLE);
  writeFileSync(join(dir, 'static', 'chunks', 'notes.txt'), 'not a served type');
  writeFileSync(join(dir, 'secret.js'), 'outside the static folder');
  handler = createNextStaticHandler(join(dir, 'static'));
  server = createServer((req, res) => {
    void handler(req, res).then((served) => {
      if (served) return;
      res.statusCode = 418;
      res.end('next');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('a script of the build', () => {
  it('requested by the page: served with the compile hint first, immutable', async () => {
    const reply = await get(port, '/_next/static/chunks/page.js', { referer: `http://127.0.0.1:${port}/` });
    expect(reply.status).toBe(200);
    expect(reply.body.toString()).toBe(COMPILE_HINT + SCRIPT);
    expect(reply.headers['content-type']).toMatch(/^application\/javascript/);
    expect(reply.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(reply.headers['content-length']).toBe(String(reply.body.length));
  });

  it('requested by a worker (Referer: a script of the build): served as built', async () => {
    const reply = await get(port, '/_next/static/chunks/page.js', { referer: `http://127.0.0.1:${port}/_next/static/chunks/turbopack-worker-1.js` });
    expect(reply.body.toString()).toBe(SCRIPT);
  });

  it('gzipped for a client that accepts it, from the first request after a start; identity for one that refuses it', async () => {
    // a fresh handler is a restarted server: nothing read or compressed yet
    const fresh = createNextStaticHandler(join(dir, 'static'));
    const first = await serveOnce(fresh, '/_next/static/chunks/page.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(first.body).toString()).toBe(COMPILE_HINT + SCRIPT);
    const zipped = await get(port, '/_next/static/chunks/page.js', { 'accept-encoding': 'br, gzip, deflate' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(zipped.body).toString()).toBe(COMPILE_HINT + SCRIPT);
    expect(zipped.body.length).toBeLessThan(SCRIPT.length);
    const refused = await get(port, '/_next/static/chunks/page.js', { 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.toString()).toBe(COMPILE_HINT + SCRIPT);
  });

  it('HEAD: the headers without a body', async () => {
    const reply = await get(port, '/_next/static/chunks/page.js', {}, 'HEAD');
    expect(reply.status).toBe(200);
    expect(reply.body.length).toBe(0);
    expect(Number(reply.headers['content-length'])).toBe(COMPILE_HINT.length + SCRIPT.length);
  });
});

describe('other files', () => {
  it('a stylesheet: served as built with its type', async () => {
    const reply = await get(port, '/_next/static/chunks/style.css?v=1');
    expect(reply.status).toBe(200);
    expect(reply.body.toString()).toBe(STYLE);
    expect(reply.headers['content-type']).toMatch(/^text\/css/);
  });

  it.each([
    ['a missing file', '/_next/static/chunks/missing.js'],
    ['a type it does not serve', '/_next/static/chunks/notes.txt'],
    ['a path out of the folder', '/_next/static/../secret.js'],
    ['an encoded way out', '/_next/static/%2e%2e/secret.js'],
    ['a path that is not the build', '/chunks/page.js'],
  ])('%s: left to Next', async (_name, path) => {
    const reply = await get(port, path);
    expect(reply.status).toBe(418);
    expect(reply.body.toString()).toBe('next');
  });

  it('a POST: left to Next', async () => {
    const reply = await get(port, '/_next/static/chunks/page.js', {}, 'POST');
    expect(reply.status).toBe(418);
  });
});
