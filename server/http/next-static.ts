// Serves the UI build's immutable static files (/_next/static/…) instead of Next, for the first view's speed (issue 14).
//
// A fresh browser context (every E2E test, every first visit) has no code cache, so V8 compiles every function the
// page runs. It compiles a script's top level in the background while it streams, but each function lazily, on the
// main thread, the first time it is called: for Monaco's 4 MiB that was about half of the main thread's time before
// the editor showed (Chromium traces, docs/decisions.md). V8's explicit compile hint, the magic comment
// `//# allFunctionsCalledOnLoad` at the top of a script (Chrome 136+; other engines ignore the comment), compiles
// all of a script's functions in the background while it streams. Bundlers drop comments, so it is added here.
// Scripts a worker loads (its Referer is a script of the build, not the page) keep lazy compilation: a worker's
// importScripts does not stream, and the TypeScript worker runs only part of the compiler.
//
// Next also gzips each response anew (4 MiB of Monaco on every cold load, on the CPU the browser needs); here each
// file is read and compressed once per process, and served compressed once that is ready.
import { readFile } from 'node:fs/promises';
import { gzip } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';

export const NEXT_STATIC_PATH = '/_next/static/';
/** V8's explicit compile hint: compile every function of this script eagerly, in the background. */
export const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';
/** Below this a response is not worth compressing. */
export const MIN_GZIP_BYTES = 1024;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'application/javascript; charset=UTF-8',
  '.css': 'text/css; charset=UTF-8',
  '.json': 'application/json; charset=UTF-8',
  '.svg': 'image/svg+xml',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=UTF-8',
};
/** Names under /_next/static/: the build's own (hashed names, folders); anything else goes to Next. */
const SAFE_PATH = /^[A-Za-z0-9_\-.~/]+$/;

interface Served {
  body: Buffer;
  /** The body gzipped, once the one compression per process has finished. */
  gzipped?: Buffer;
}

export interface NextStaticHandler {
  /** Serves the request when it is for a file of the build and answers true; false leaves it to Next. */
  (req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Resolves once every file served so far has its compressed form (tests). */
  settled(): Promise<void>;
}

/** `staticDir` is the build's `.next/static`. Files there never change under a running server (a build makes new names). */
export function createNextStaticHandler(staticDir: string): NextStaticHandler {
  const root = resolve(staticDir);
  const files = new Map<string, Promise<Served | undefined>>();
  const compressions = new Set<Promise<void>>();

  const load = (path: string, hinted: boolean): Promise<Served | undefined> => {
    const key = `${hinted ? 'h' : 'p'}:${path}`;
    let served = files.get(key);
    if (!served) {
      served = readFile(path).then(
        (raw) => {
          const entry: Served = { body: hinted ? Buffer.concat([Buffer.from(COMPILE_HINT), raw]) : raw };
          if (entry.body.length >= MIN_GZIP_BYTES) {
            const done = new Promise<void>((settle) =>
              gzip(entry.body, (err, zipped) => {
                if (!err) entry.gzipped = zipped;
                settle();
              }),
            );
            compressions.add(done);
            void done.then(() => compressions.delete(done));
          }
          return entry;
        },
        // not a file of the build (or unreadable): Next answers, and a later build's file is looked up again
        () => {
          files.delete(key);
          return undefined;
        },
      );
      files.set(key, served);
    }
    return served;
  };

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (!path.startsWith(NEXT_STATIC_PATH)) return false;
    const rel = path.slice(NEXT_STATIC_PATH.length);
    const type = CONTENT_TYPES[extname(rel)];
    if (!type || !SAFE_PATH.test(rel) || rel.split('/').some((part) => part === '' || part === '.' || part === '..')) return false;
    const file = resolve(root, rel);
    if (!file.startsWith(root + sep)) return false;
    const hinted = extname(rel) === '.js' && !requestedByBuildScript(req);
    const served = await load(file, hinted);
    if (!served) return false;
    res.statusCode = 200;
    res.setHeader('content-type', type);
    res.setHeader('cache-control', 'public, max-age=31536000, immutable');
    res.setHeader('vary', 'Accept-Encoding');
    const body = served.gzipped && acceptsGzip(req) ? served.gzipped : served.body;
    if (body === served.gzipped) res.setHeader('content-encoding', 'gzip');
    res.setHeader('content-length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
  return Object.assign(handler, {
    settled: async () => {
      await Promise.all([...files.values()]);
      await Promise.all([...compressions]);
    },
  });
}

/** A worker's scripts are fetched with the worker's script (a file of the build) as Referer; the page's with the page. */
function requestedByBuildScript(req: IncomingMessage): boolean {
  const referer = req.headers.referer;
  if (!referer) return false;
  try {
    return new URL(referer).pathname.startsWith(NEXT_STATIC_PATH);
  } catch {
    return false;
  }
}

function acceptsGzip(req: IncomingMessage): boolean {
  const accepted = req.headers['accept-encoding'];
  if (typeof accepted !== 'string') return false;
  return accepted.split(',').some((entry) => {
    const [coding, ...params] = entry.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return coding?.trim() === 'gzip' && (q === undefined || Number(q.slice(2)) > 0);
  });
}
