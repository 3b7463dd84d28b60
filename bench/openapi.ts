// Section (o): GitHub's whole REST API description as one OpenAPI source: load time and memory (fresh processes), the
// per-turn catalog build, the quick index and catalog.search at 1,200 tools. Targets from the OpenAPI-at-scale issue.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildCatalog } from '../server/catalog/build.ts';
import { renderQuickIndex } from '../server/catalog/quick-index.ts';
import { searchCatalog } from '../server/catalog/search.ts';
import { loadOpenApiSource } from '../server/tools/openapi/source.ts';
import type { Section } from './cases.ts';
import { formatBytes, formatMs, measure, median, type MeasureOptions } from './stats.ts';
import { withTarget } from './table.ts';

/** Load time target: GitHub's description (13 MB, about 1,200 operations) on this 2-core machine. */
export const OPENAPI_LOAD_TARGET_MS = 3000;
/** Memory the loaded source may add to the process. */
export const OPENAPI_RSS_TARGET_BYTES = 300 * 1024 * 1024;
/** A turn's first catalog.search builds the index over every tool; later ones only rank. */
export const OPENAPI_FIRST_SEARCH_TARGET_MS = 50;
export const OPENAPI_SEARCH_TARGET_MS = 10;
/** Fresh processes for the load rows: each parses 13 MB, about 2-3 s with the process start. */
const LOAD_RUNS = 3;
const QUERY = 'create an issue in a repository';

export async function openApiAtScale(counts: { fast: MeasureOptions }): Promise<Section> {
  const document = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
  const script = fileURLToPath(new URL('./openapi-load.ts', import.meta.url));
  const loads: Array<{ loadMs: number; rssExtraBytes: number; tools: number }> = [];
  for (let i = 0; i < LOAD_RUNS; i++) {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, document], { encoding: 'utf8', maxBuffer: 1 << 20 });
    loads.push(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { loadMs: number; rssExtraBytes: number; tools: number });
  }
  const loadMs = median(loads.map((l) => l.loadMs));
  const rss = median(loads.map((l) => l.rssExtraBytes));
  const tools = loads[0]?.tools ?? 0;

  const source = await loadOpenApiSource('github', { document, baseUrl: 'http://127.0.0.1:9' }, { baseDir: process.cwd() });
  buildCatalog(source.tools); // the source's declaration file and its tools' declarations are rendered once, then kept
  const build = await measure(() => buildCatalog(source.tools), counts.fast);
  const quick = await measure(() => renderQuickIndex(buildCatalog(source.tools)), { warmup: 2, iterations: 9 });
  // a turn's first query: a new catalog each time, only the search timed (measure() would time the build too)
  const firstTimes: number[] = [];
  for (let i = 0; i < 11; i++) {
    const fresh = buildCatalog(source.tools);
    const t0 = performance.now();
    searchCatalog(fresh, QUERY, 8);
    if (i >= 2) firstTimes.push(performance.now() - t0);
  }
  const firstMs = median(firstTimes);
  const catalog = buildCatalog(source.tools);
  searchCatalog(catalog, QUERY, 8);
  const warm = await measure(() => searchCatalog(catalog, QUERY, 8), counts.fast);
  return {
    rows: [
      withTarget({ id: 'o1', measure: `GitHub's REST description (13 MB, ${tools} operations): loaded as a source, fresh process (median of ${LOAD_RUNS})`, a: formatMs(loadMs) }, '≤ 3 s', loadMs, OPENAPI_LOAD_TARGET_MS),
      withTarget({ id: 'o2', measure: 'the same: extra RSS with the source held, after GC', a: formatBytes(rss) }, '≤ 300 MiB', rss, OPENAPI_RSS_TARGET_BYTES),
      { id: 'o3', measure: `a turn's catalog over ${tools} tools (declarations kept per tool; names, entries, files)`, a: formatMs(build.median) },
      { id: 'o4', measure: `the quick index over ${tools} tools (catalog build + render; the source summarised by tag)`, a: formatMs(quick.median) },
      withTarget({ id: 'o5', measure: `catalog.search("${QUERY}") at ${tools} tools: a turn's first query (builds the index)`, a: formatMs(firstMs) }, `≤ ${OPENAPI_FIRST_SEARCH_TARGET_MS} ms`, firstMs, OPENAPI_FIRST_SEARCH_TARGET_MS),
      withTarget({ id: 'o6', measure: 'the same query again (index kept with the catalog)', a: formatMs(warm.median) }, `≤ ${OPENAPI_SEARCH_TARGET_MS} ms`, warm.median, OPENAPI_SEARCH_TARGET_MS),
    ],
    notes: ['(o) GitHub\'s description from the devDependency @octokit/openapi; o1 and o2 in child processes (node --expose-gc), so earlier sections\' heap does not count.'],
  };
}
