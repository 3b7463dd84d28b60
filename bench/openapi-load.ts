// One load of an OpenAPI document as a source does it, in a fresh process: prints {loadMs, rssExtraBytes, tools} as JSON (bench/openapi.ts runs it).
import { loadOpenApiSource } from '../server/tools/openapi/source.ts';

const document = process.argv[2];
if (!document) throw new Error('usage: openapi-load.ts <document path>');
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const source = await loadOpenApiSource('bench', { document, baseUrl: 'http://127.0.0.1:9' }, { baseDir: process.cwd() });
const loadMs = performance.now() - started;
gc?.();
// the source stays referenced while RSS is read: what a Gateway holding it keeps
const rssExtraBytes = process.memoryUsage().rss - rssBefore;
process.stdout.write(`${JSON.stringify({ loadMs, rssExtraBytes, tools: source.tools.length })}\n`);
