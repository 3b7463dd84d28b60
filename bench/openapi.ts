// Section (o): GitHub's whole REST API description as one OpenAPI source: load time, memory and event-loop block (fresh
// processes), the catalog build, the quick index and catalog.search at 1,200 tools, and what a turn and a cell cost with
// those tools beside a Gateway without them. Targets from the OpenAPI-at-scale issue and the big-catalog one.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildCatalog } from '../server/catalog/build.ts';
import { renderQuickIndex } from '../server/catalog/quick-index.ts';
import { searchCatalog } from '../server/catalog/search.ts';
import { loadOpenApiSource } from '../server/tools/openapi/source.ts';
import type { Gateway } from '../server/gateway.ts';
import { pairBytes, pairMs, type BenchContext, type Section } from './cases.ts';
import { expectStatus, openGateway } from './harness.ts';
import { collectInterleaved, formatBytes, formatMs, measure, measureInterleaved, median } from './stats.ts';
import { withTarget, type BenchRow } from './table.ts';
import type { ToolDefinition } from '../server/tools/types.ts';

/** Load time target: GitHub's description (13 MB, about 1,200 operations) on this 2-core machine. */
export const OPENAPI_LOAD_TARGET_MS = 3000;
/** Memory the loaded source may add to the process. */
export const OPENAPI_RSS_TARGET_BYTES = 300 * 1024 * 1024;
/** A turn's first catalog.search builds the index over every tool; later ones only rank. */
export const OPENAPI_FIRST_SEARCH_TARGET_MS = 50;
export const OPENAPI_SEARCH_TARGET_MS = 10;
/** The loop may stop this long while the document loads: a Gateway loading a source keeps answering its pages. */
export const OPENAPI_LOAD_BLOCK_TARGET_MS = 100;
/** A turn over the loaded tools, once one was prepared: its catalog, quick index and API files are the earlier turn's. */
export const OPENAPI_TURN_TARGET_MS = 10;
/** A cell's round trip with 1,200 more tools in the catalog, beside the same cell without them: the catalog is not its cost. */
export const OPENAPI_CELL_RATIO_TARGET = 1.3;
/** A parked trivial cell's stored snapshot with the big catalog: the trivial cell's target in (c). */
export const OPENAPI_SNAPSHOT_TARGET_BYTES = 32 * 1024;
/** Fresh processes for the load rows: each parses 13 MB, about 2-3 s with the process start. */
const LOAD_RUNS = 3;
const QUERY = 'create an issue in a repository';

export async function openApiAtScale(ctx: BenchContext): Promise<Section> {
  const { counts } = ctx;
  const document = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
  const script = fileURLToPath(new URL('./openapi-load.ts', import.meta.url));
  const loads: Array<{ loadMs: number; rssExtraBytes: number; tools: number; blockedMs: number }> = [];
  for (let i = 0; i < LOAD_RUNS; i++) {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, document], { encoding: 'utf8', maxBuffer: 1 << 20 });
    loads.push(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { loadMs: number; rssExtraBytes: number; tools: number; blockedMs: number });
  }
  const loadMs = median(loads.map((l) => l.loadMs));
  const blockedMs = median(loads.map((l) => l.blockedMs));
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
  const turns = await turnsAndCells(ctx, source.tools);
  return {
    rows: [
      withTarget({ id: 'o1', measure: `GitHub's REST description (13 MB, ${tools} operations): loaded as a source, fresh process (median of ${LOAD_RUNS})`, a: formatMs(loadMs) }, '≤ 3 s', loadMs, OPENAPI_LOAD_TARGET_MS),
      withTarget({ id: 'o2', measure: 'the same: extra RSS with the source held, after GC', a: formatBytes(rss) }, '≤ 300 MiB', rss, OPENAPI_RSS_TARGET_BYTES),
      { id: 'o3', measure: `a turn's catalog over ${tools} tools (declarations kept per tool; names, entries, files)`, a: formatMs(build.median) },
      { id: 'o4', measure: `the quick index over ${tools} tools (catalog build + render; the source summarised by tag)`, a: formatMs(quick.median) },
      withTarget({ id: 'o5', measure: `catalog.search("${QUERY}") at ${tools} tools: a turn's first query (builds the index)`, a: formatMs(firstMs) }, `≤ ${OPENAPI_FIRST_SEARCH_TARGET_MS} ms`, firstMs, OPENAPI_FIRST_SEARCH_TARGET_MS),
      withTarget({ id: 'o6', measure: 'the same query again (index kept with the catalog)', a: formatMs(warm.median) }, `≤ ${OPENAPI_SEARCH_TARGET_MS} ms`, warm.median, OPENAPI_SEARCH_TARGET_MS),
      withTarget({ id: 'o7', measure: 'the same load (o1): the event loop\'s longest stop while it runs (median of the processes)', a: formatMs(blockedMs) }, `≤ ${OPENAPI_LOAD_BLOCK_TARGET_MS} ms`, blockedMs, OPENAPI_LOAD_BLOCK_TARGET_MS),
      ...turns,
    ],
    notes: ['(o) GitHub\'s description from the devDependency @octokit/openapi; o1 and o2 in child processes (node --expose-gc), so earlier sections\' heap does not count.'],
  };
}

/** A cell that asks the catalog and returns the names: the handles it gets are made on return (the rest never are). */
const SEARCH_CELL = `return (await catalog.search(${JSON.stringify(QUERY)}, { limit: 3 })).map((h) => h.callableName)`;
const PARK_CELL = 'const n = 1;\nawait yield_control("bench");\nreturn n';

/**
 * o8-o12: a Gateway with GitHub's tools (A) beside one without them (B), over the same executor: the first turn after
 * the load, a later turn, a trivial cell, a cell that searches, and a parked cell's snapshot.
 */
async function turnsAndCells(ctx: BenchContext, tools: ToolDefinition[]): Promise<BenchRow[]> {
  const big = await openGateway('quickjs', ctx.quickjs, { timeoutMs: ctx.suspend.timeoutMs }, { extraTools: () => tools });
  const small = await openGateway('quickjs', ctx.quickjs, { timeoutMs: ctx.suspend.timeoutMs });
  try {
    const t0 = performance.now();
    big.endTurn(big.prepareTurn({}).agentRunId);
    const firstMs = performance.now() - t0;
    const prepare = await measureInterleaved({ big: () => big.endTurn(big.prepareTurn({}).agentRunId), small: () => small.endTurn(small.prepareTurn({}).agentRunId) }, ctx.counts.fast);
    const bigTurn = big.prepareTurn({}).agentRunId;
    const smallTurn = small.prepareTurn({}).agentRunId;
    const cell = (gw: Gateway, turn: string, code: string) => async () => expectStatus(await gw.exec(turn, { code }), 'completed', `(o) ${code.slice(0, 30)}`);
    const trivial = await measureInterleaved({ big: cell(big, bigTurn, 'return 1'), small: cell(small, smallTurn, 'return 1') }, ctx.counts.fast);
    const search = await measureInterleaved({ big: cell(big, bigTurn, SEARCH_CELL), small: cell(small, smallTurn, SEARCH_CELL) }, ctx.counts.fast);
    const parked = (gw: Gateway, turn: string) => async () => {
      const r = expectStatus(await gw.exec(turn, { code: PARK_CELL }), 'waiting', '(o) parked cell');
      const snap = r.telemetry.snapshot;
      if (!snap) throw new Error('(o) the waiting result carries no snapshot telemetry');
      expectStatus(await gw.wait(turn, { runId: r.runId }), 'completed', '(o) parked cell resumed');
      return { raw: snap.rawBytes, stored: snap.storedBytes };
    };
    const snaps = await collectInterleaved({ big: parked(big, bigTurn), small: parked(small, smallTurn) }, ctx.counts.suspend);
    const n = tools.length;
    return [
      { id: 'o8', measure: `the first turn after the load: prepareTurn with the ${n} tools (builds the catalog, quick index and API files)`, a: formatMs(firstMs) },
      withTarget(pairMs('o9', `a later turn: prepareTurn + endTurn, with the ${n} tools vs without`, prepare.big, prepare.small), `≤ ${OPENAPI_TURN_TARGET_MS} ms`, prepare.big.median, OPENAPI_TURN_TARGET_MS),
      withTarget(pairMs('o10', `a warm cell \`return 1\`, with the ${n} tools vs without`, trivial.big, trivial.small), `≤ ${OPENAPI_CELL_RATIO_TARGET}x`, trivial.big.median / trivial.small.median, OPENAPI_CELL_RATIO_TARGET),
      pairMs('o11', `a cell returning catalog.search("${QUERY}") names, with the ${n} tools vs without`, search.big, search.small),
      pairBytes('o12', `a parked trivial cell's snapshot with the ${n} tools: raw vs stored bytes`, snaps.big.raw.median, snaps.big.stored.median),
      withTarget(pairBytes('o13', `the same: stored bytes with the ${n} tools vs without`, snaps.big.stored.median, snaps.small.stored.median), '≤ 32 KiB', snaps.big.stored.median, OPENAPI_SNAPSHOT_TARGET_BYTES),
    ];
  } finally {
    await big.close();
    await small.close();
  }
}
