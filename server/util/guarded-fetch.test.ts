// Outbound hops against loopback servers only: every spelling of loopback refused under a public reach, names resolved once and pinned, redirects checked, this process's own server never reached.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { lookup } from 'node:dns/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AddressRefusedError, guardedFetch as fetchWith, type GuardedInit, type Reach } from './guarded-fetch.ts';
import { noteOwnListener } from './own-listeners.ts';

// the resolver is the test's: a name answers what the test says (each later lookup the next address: rebinding),
// other names go to the system resolver; every lookup is counted
const answers = new Map<string, string[]>();
const lookups: string[] = [];
const resolver = async (host: string): Promise<string[]> => {
  lookups.push(host);
  const queue = answers.get(host);
  if (!queue) return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  return [queue.length > 1 ? queue.shift()! : queue[0]!];
};

/** guardedFetch with the test's resolver. */
const guardedFetch = (url: URL, init: GuardedInit, reach: Reach) => fetchWith(url, { ...init, resolver }, reach);

interface Seen {
  path: string;
  host: string | undefined;
}

async function listen(handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', host: req.headers.host });
    handler(req, res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as { port: number }).port, seen };
}

let api: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  api = await listen((req, res) => {
    if (req.url?.startsWith('/to/')) return void res.writeHead(302, { location: decodeURIComponent(req.url.slice(4)) }).end();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, path: req.url }));
  });
});
afterAll(() => new Promise<void>((done) => api.server.close(() => done())));
afterEach(() => {
  answers.clear();
  lookups.length = 0;
});

const refusedWith = async (promise: Promise<unknown>): Promise<string> => {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(AddressRefusedError);
  return (err as Error).message;
};

describe('guardedFetch', () => {
  it('under a public reach, loopback in every spelling is refused before any request: dotted, decimal, hex, short, IPv4-mapped IPv6, a name', async () => {
    answers.set('loopback.test', ['127.0.0.1']);
    const spellings = ['127.0.0.1', '2130706433', '0x7f000001', '127.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', 'loopback.test'];
    for (const host of spellings) {
      const message = await refusedWith(guardedFetch(new URL(`http://${host}:${api.port}/x`), {}, 'public'));
      expect(message, host).toContain('127.0.0.1 is a loopback address');
    }
    expect(await refusedWith(guardedFetch(new URL(`http://loopback.test:${api.port}/`), {}, 'public'))).toContain('(loopback.test resolves to it)');
    expect(api.seen).toEqual([]);
  });

  it('under an internal reach, the loopback server answers; unspecified and reserved addresses stay refused', async () => {
    const { response, hop } = await guardedFetch(new URL(`http://[::ffff:127.0.0.1]:${api.port}/items`), {}, 'internal');
    expect(await response.json()).toEqual({ ok: true, path: '/items' });
    expect(hop.pinned.address).toBe('127.0.0.1');
    for (const host of ['0.0.0.0', '0', '[::]', '224.0.0.1']) {
      await refusedWith(guardedFetch(new URL(`http://${host}:${api.port}/`), {}, 'internal'));
    }
  });

  it('resolves a name once and connects to that address: a second DNS answer (rebinding) is never used', async () => {
    // the first answer is the server's address; any later lookup would answer an address where nothing listens
    answers.set('rebind.test', ['127.0.0.1', '127.0.0.9']);
    const { response } = await guardedFetch(new URL(`http://rebind.test:${api.port}/pinned`), {}, 'internal');
    expect(response.status).toBe(200);
    expect(lookups).toEqual(['rebind.test']);
    // the Host header still names the name
    expect(api.seen.at(-1)).toEqual({ path: '/pinned', host: `rebind.test:${api.port}` });
  });

  it('a name answering a public and a loopback address is refused under a public reach (every answer is checked)', async () => {
    answers.set('mixed.test', ['127.0.0.1']);
    expect(await refusedWith(guardedFetch(new URL(`http://mixed.test:${api.port}/`), {}, 'public'))).toContain('loopback');
  });

  it('checks every redirect hop: beforeHop sees each URL, a hop to this process’s own server or a reserved address is refused', async () => {
    const own = await listen((_req, res) => res.end('the Gateway'));
    const forget = noteOwnListener('127.0.0.1', own.port);
    try {
      const hops: string[] = [];
      const followed = await guardedFetch(new URL(`http://127.0.0.1:${api.port}/to/${encodeURIComponent(`http://127.0.0.1:${api.port}/end`)}`), { maxRedirects: 2, beforeHop: (u) => void hops.push(u.pathname) }, 'internal');
      expect(await followed.response.json()).toEqual({ ok: true, path: '/end' });
      expect(hops).toEqual([`/to/${encodeURIComponent(`http://127.0.0.1:${api.port}/end`)}`, '/end']);

      for (const target of [`http://[::ffff:127.0.0.1]:${own.port}/api/trpc/turns.prepare`, `http://localhost:${own.port}/`, `http://0.0.0.0:${own.port}/`]) {
        const message = await refusedWith(guardedFetch(new URL(`http://127.0.0.1:${api.port}/to/${encodeURIComponent(target)}`), { maxRedirects: 2 }, 'internal'));
        expect(message, target).toMatch(/is this Gateway's own server|unspecified/);
      }
      expect(await refusedWith(guardedFetch(new URL(`http://127.1:${own.port}/`), {}, 'internal'))).toContain("this Gateway's own server");
      expect(own.seen).toEqual([]);
      // without maxRedirects a 3xx comes back as it is
      const unfollowed = await guardedFetch(new URL(`http://127.0.0.1:${api.port}/to/${encodeURIComponent('http://127.0.0.1:1/')}`), {}, 'internal');
      expect(unfollowed.response.status).toBe(302);
    } finally {
      forget();
      await new Promise<void>((done) => own.server.close(() => done()));
    }
  });

  it('a refused connection and an unknown name fail as fetch does (cause.code), an abort with the signal', async () => {
    const refused = await guardedFetch(new URL('http://127.0.0.1:1/'), {}, 'internal').catch((e: unknown) => e);
    expect((refused as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    const unknown = await guardedFetch(new URL('http://no-such-host.invalid/'), {}, 'public').catch((e: unknown) => e);
    expect((unknown as { cause?: { code?: string } }).cause?.code).toMatch(/ENOTFOUND|EAI_AGAIN/);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(guardedFetch(new URL(`http://127.0.0.1:${api.port}/`), { signal: controller.signal }, 'internal')).rejects.toThrow('stop');
  });
});
