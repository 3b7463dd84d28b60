// p2's floor with the editor made: Monaco alone on a blank page (bench/monaco-floor.entry.ts, bundled and minified by
// esbuild), served by a small HTTP server of the bench's own on a free port with the compile hint the Gateway's edge
// adds to the playground's scripts. What it leaves out of p2 is the playground's own part: Next and React's bootstrap
// and hydration, the page's queries, the editor's React wrapper and its language-service set-up.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { COMPILE_HINT } from '../server/http/next-static.ts';

const ENTRY = fileURLToPath(new URL('./monaco-floor.entry.ts', import.meta.url));
/** About the cell editor's size in the playground at Playwright's default 1280x720 viewport. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>Monaco alone</title><link rel="stylesheet" href="/floor.css"><div id="editor" style="width:640px;height:480px"></div><script type="module" src="/floor.js"></script>`;

export interface MonacoFloor {
  url: string;
  /** Bytes of script the page loads (the playground's editor chunks are ~3.6 MiB). */
  scriptBytes: number;
  close(): Promise<void>;
}

export async function startMonacoFloor(): Promise<MonacoFloor> {
  const out = await build({
    entryPoints: { floor: ENTRY },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    outdir: '/floor',
    loader: { '.ttf': 'dataurl' },
    logLevel: 'error',
  });
  const files = new Map<string, { type: string; body: Buffer }>([['/', { type: 'text/html; charset=utf-8', body: Buffer.from(PAGE) }]]);
  for (const file of out.outputFiles) {
    const name = file.path.slice(file.path.lastIndexOf('/'));
    if (name.endsWith('.js')) files.set(name, { type: 'text/javascript', body: Buffer.concat([Buffer.from(COMPILE_HINT), file.contents]) });
    else if (name.endsWith('.css')) files.set(name, { type: 'text/css', body: Buffer.from(file.contents) });
  }
  if (!files.has('/floor.js') || !files.has('/floor.css')) throw new Error(`esbuild's output for ${ENTRY} lacks floor.js or floor.css: ${[...files.keys()].join(', ')}`);
  const server: Server = createServer((req, res) => {
    const file = files.get(req.url ?? '');
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    scriptBytes: files.get('/floor.js')?.body.length ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
