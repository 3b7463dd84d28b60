// One load of an OpenAPI document as a source does it, in a fresh process: prints {loadMs, rssExtraBytes, tools, blockedMs} as JSON (bench/openapi.ts runs it).
import { loadOpenApiSource } from '../server/tools/openapi/source.ts';

const document = process.argv[2];
if (!document) throw new Error('usage: openapi-load.ts <document path>');
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const rssBefore = process.memoryUsage().rss;
// the longest gap between ticks of a 5 ms timer while the load ran, the last one up to its end included: how long a
// Gateway loading the source stops answering (perf_hooks' monitor records nothing before its first tick, so not that)
let lastTick = performance.now();
let blockedMs = 0;
const tick = (): void => {
  const now = performance.now();
  blockedMs = Math.max(blockedMs, now - lastTick);
  lastTick = now;
};
const ticker = setInterval(tick, 5);
const started = performance.now();
const source = await loadOpenApiSource('bench', { document, baseUrl: 'http://127.0.0.1:9' }, { baseDir: process.cwd() });
const loadMs = performance.now() - started;
tick();
clearInterval(ticker);
gc?.();
// the source stays referenced while RSS is read: what a Gateway holding it keeps
const rssExtraBytes = process.memoryUsage().rss - rssBefore;
process.stdout.write(`${JSON.stringify({ loadMs, rssExtraBytes, tools: source.tools.length, blockedMs })}\n`);
