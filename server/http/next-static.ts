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
// file is read and compressed once per process. A client that accepts gzip waits for that one compression (a
// fraction of a second, off the event loop) rather than get the file raw: served raw while it compressed, the first
// page load after every restart sent about 12 MB instead of 3.
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
  /** The body gzipped (the one compression per process); absent below MIN_GZIP_BYTES, undefined if gzip failed. */
  gzipped?: Promise<Buffer | undefined>;
}

/** Serves the request when it is for a file of the build and answers true; false leaves it to Next. */
export type NextStaticHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** `staticDir` is the build's `.next/static`. Files there never change under a running server (a build makes new names). */
export function createNextStaticHandler(staticDir: string): NextStaticHandler {
  const root = resolve(staticDir);
  const files = new Map<string, Promise<Served | undefined>>();

  const load = (path: string, hinted: boolean): Promise<Served | undefined> => {
    const key = `${hinted ? 'h' : 'p'}:${path}`;
    let served = files.get(key);
    if (!served) {
      served = readFile(path).then(
        (raw) => {
          const entry: Served = { body: hinted ? Buffer.concat([Buffer.from(COMPILE_HINT), raw]) : raw };
          if (entry.body.length >= MIN_GZIP_BYTES) {
            entry.gzipped = new Promise((settle) => gzip(entry.body, (err, zipped) => settle(err ? undefined : zipped)));
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

  return async (req, res) => {
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
    const gzipped = served.gzipped && acceptsGzip(req) ? await served.gzipped : undefined;
    const body = gzipped ?? served.body;
    res.statusCode = 200;
    res.setHeader('content-type', type);
    res.setHeader('cache-control', 'public, max-age=31536000, immutable');
    res.setHeader('vary', 'Accept-Encoding');
    if (gzipped) res.setHeader('content-encoding', 'gzip');
    res.setHeader('content-length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
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
