// Page timings for the bench (issue 14), measured with Playwright and the system Chromium: navigation
// -> editor ready with the Gateway's declarations, and Run pressed -> value shown for a trivial cell.
// Runs only when a UI build exists (.next/BUILD_ID); starts its own server on BENCH_PAGE_PORT (default
// 3225) and stops it. Prints rows for the table; nothing is asserted. Breakdown rows (p1a, p1b, p2a, p2b) read the
// page's own clock (resource timing, a MutationObserver) to say where the time goes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright';
import { formatMs, median, ratio } from './stats.ts';
import { withTarget, type BenchRow } from './table.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** Samples per page measure: the issue's "median of 10". */
const SAMPLES = 10;

export type PageTimingProbe = { available: true; rows: () => Promise<BenchRow[]> } | { available: false; reason: string };

export function probePageTiming(): PageTimingProbe {
  if (!existsSync(`${ROOT}.next/BUILD_ID`)) return { available: false, reason: 'no UI build (.next/BUILD_ID); run `node node_modules/next/dist/bin/next build --webpack` first' };
  if (!existsSync(CHROMIUM)) return { available: false, reason: `no Chromium at ${CHROMIUM}` };
  return { available: true, rows: pageRows };
}

async function startServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [`${ROOT}scripts/start.mjs`], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), CODEMODE_SKIP_BUILD: '1' },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      if (res.ok) return child;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`the page server exited (code ${child.exitCode}) before listening on ${port}`);
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`the page server did not answer on ${port} within 120 s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface EditorReady {
  /** Navigation -> both below, as Playwright sees it (the p2 row). */
  totalMs: number;
  /** In the page, from its navigation start: the catalog.list response (the declarations) received. */
  catalogMs: number;
  /** In the page: Monaco's chunk received (the largest script). */
  monacoChunkMs: number;
}

/** Navigation -> the editor shows and the catalog (with the declarations the editor gets) has arrived. */
async function editorReady(browser: Browser, url: string): Promise<EditorReady> {
  const page = await browser.newPage();
  try {
    const t0 = performance.now();
    const declarations = page.waitForResponse((r) => r.url().includes('catalog.list') && r.ok(), { timeout: 60_000 });
    await page.goto(url);
    await Promise.all([declarations, page.locator('.monaco-editor .view-lines').waitFor({ timeout: 60_000 })]);
    const totalMs = performance.now() - t0;
    const inPage = await page.evaluate(() => {
      const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const catalog = entries.find((e) => e.name.includes('catalog.list'));
      const scripts = entries.filter((e) => e.initiatorType === 'script' || e.name.endsWith('.js'));
      const largest = scripts.reduce<PerformanceResourceTiming | undefined>((big, e) => (!big || e.encodedBodySize > big.encodedBodySize ? e : big), undefined);
      return { catalogMs: catalog?.responseEnd ?? Number.NaN, monacoChunkMs: largest?.responseEnd ?? Number.NaN };
    });
    return { totalMs, ...inPage };
  } finally {
    await page.close();
  }
}

async function callSeq(page: Page): Promise<number> {
  return Number((await page.getByTestId('result-seq').getAttribute('data-seq')) ?? '0');
}

interface RunToValue {
  /** Run pressed -> completed result shown, as Playwright sees it (the p1 row). */
  totalMs: number;
  /** In the page: the click event -> the exec response received (the request, the Gateway, the network). */
  clickToResponseMs: number;
  /** In the page: the exec response received -> the completed result in the DOM (parsing, React). */
  responseToShownMs: number;
}

/**
 * The scripts of the editor's dynamic import (Monaco and the cell editor), from the build's loadable manifest for the
 * page: what p2 cannot show the editor without. Empty when the manifest is missing or unreadable.
 */
function editorScripts(): string[] {
  try {
    const manifest = JSON.parse(readFileSync(`${ROOT}.next/server/app/page/react-loadable-manifest.json`, 'utf8')) as Record<string, { files?: unknown }>;
    const files = Object.values(manifest).flatMap((entry) => (Array.isArray(entry.files) ? entry.files : []));
    return [...new Set(files.filter((f): f is string => typeof f === 'string' && f.endsWith('.js')))];
  } catch {
    return [];
  }
}

/**
 * p2's floor: a blank page of the same origin whose only content is `<script async>` tags for the editor's chunks.
 * Its load event fires once every chunk is downloaded, compiled (with the same compile hint the edge adds to a page's
 * scripts) and run (a Turbopack chunk only registers its modules). Nothing of the app, no editor made.
 */
async function editorChunksOnlyMs(browser: Browser, origin: string, scripts: string[]): Promise<number> {
  const page = await browser.newPage();
  try {
    const blank = `${origin}/__bench/editor-chunks-only`;
    const body = `<!doctype html><title>editor chunks only</title>${scripts.map((s) => `<script async src="/_next/${s}"></script>`).join('')}`;
    await page.route(blank, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body }));
    const t0 = performance.now();
    await page.goto(blank, { waitUntil: 'load', timeout: 60_000 });
    return performance.now() - t0;
  } finally {
    await page.close();
  }
}

/** Run pressed -> the result panel shows a completed result for the new call. */
async function runToValue(page: Page): Promise<RunToValue> {
  const before = await callSeq(page);
  // in-page clock: the click event, and the first DOM change that shows the new completed result
  await page.evaluate((prev) => {
    performance.clearResourceTimings();
    const probe = { clickAt: 0, shownAt: 0 };
    (window as unknown as { __pageTiming: typeof probe }).__pageTiming = probe;
    document.querySelector('[data-testid=run-button]')?.addEventListener('click', () => (probe.clickAt = performance.now()), { once: true, capture: true });
    const observer = new MutationObserver(() => {
      const seq = Number(document.querySelector('[data-testid=result-seq]')?.getAttribute('data-seq') ?? '0');
      if (seq > prev && document.querySelector('[data-testid=result-status]')?.getAttribute('data-status') === 'completed') {
        probe.shownAt = performance.now();
        observer.disconnect();
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true });
  }, before);
  const t0 = performance.now();
  await page.getByTestId('run-button').click();
  await page.waitForFunction(
    (prev) => {
      const seq = Number(document.querySelector('[data-testid=result-seq]')?.getAttribute('data-seq') ?? '0');
      return seq > prev && document.querySelector('[data-testid=result-status]')?.getAttribute('data-status') === 'completed';
    },
    before,
    { timeout: 60_000, polling: 'raf' },
  );
  const totalMs = performance.now() - t0;
  const inPage = await page.evaluate(() => {
    const probe = (window as unknown as { __pageTiming: { clickAt: number; shownAt: number } }).__pageTiming;
    const exec = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((e) => e.name.includes('/api/trpc/exec')).at(-1);
    const responseAt = exec?.responseEnd ?? Number.NaN;
    return { clickToResponseMs: responseAt - probe.clickAt, responseToShownMs: probe.shownAt - responseAt };
  });
  return { totalMs, ...inPage };
}

/**
 * What the instrument itself costs: Playwright's click (its actionability checks) on a button that changes the DOM
 * in its own click handler, seen by the same raf-polled waitForFunction as p1. p1 minus this is the page's part.
 */
async function instrumentFloorMs(page: Page): Promise<number> {
  await page.evaluate(() => {
    const button = document.createElement('button');
    button.id = '__bench_noop';
    button.textContent = 'bench no-op';
    button.style.cssText = 'position:fixed;bottom:0;left:0;z-index:2147483647';
    button.addEventListener('click', () => button.setAttribute('data-n', String(Number(button.getAttribute('data-n') ?? '0') + 1)));
    document.body.append(button);
  });
  const clicks = () => page.evaluate(() => Number(document.getElementById('__bench_noop')?.getAttribute('data-n') ?? '0'));
  const samples: number[] = [];
  for (let i = 0; i <= SAMPLES; i++) {
    const before = await clicks();
    const t0 = performance.now();
    await page.locator('#__bench_noop').click();
    await page.waitForFunction((prev) => Number(document.getElementById('__bench_noop')?.getAttribute('data-n') ?? '0') > prev, before, { timeout: 60_000, polling: 'raf' });
    // the first click warms the path, as p1's first run does
    if (i > 0) samples.push(performance.now() - t0);
  }
  await page.evaluate(() => document.getElementById('__bench_noop')?.remove());
  return median(samples);
}

/** Median of the finite values (a sample whose in-page mark was missing is left out), NaN when none are. */
function medianOf(values: number[]): number {
  const finite = values.filter(Number.isFinite);
  return finite.length > 0 ? median(finite) : Number.NaN;
}

async function pageRows(): Promise<BenchRow[]> {
  const port = Number(process.env.BENCH_PAGE_PORT ?? 3225);
  const server = await startServer(port);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  try {
    const url = `http://127.0.0.1:${port}/`;
    await editorReady(browser, url); // warm-up: the server compiles and caches on the first visit
    const scripts = editorScripts();
    const ready: EditorReady[] = [];
    const chunksOnly: number[] = [];
    // alternating, so a change in the machine's load moves both
    for (let i = 0; i < SAMPLES; i++) {
      ready.push(await editorReady(browser, url));
      if (scripts.length > 0) chunksOnly.push(await editorChunksOnlyMs(browser, `http://127.0.0.1:${port}`, scripts));
    }
    const page = await browser.newPage();
    const runs: RunToValue[] = [];
    let floor = Number.NaN;
    try {
      await page.goto(url);
      await page.getByTestId('run-button').waitFor();
      await page.locator('.monaco-editor .view-lines').waitFor();
      // a trivial cell, typed as a user would; one run first to warm the path
      await page.locator('.monaco-editor .view-lines').click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      await page.keyboard.type('return 1');
      await page.locator('.monaco-editor .view-lines').getByText('return 1').waitFor();
      await runToValue(page);
      for (let i = 0; i < SAMPLES; i++) runs.push(await runToValue(page));
      floor = await instrumentFloorMs(page);
    } finally {
      await page.close();
    }
    const r = median(runs.map((x) => x.totalMs));
    const e = median(ready.map((x) => x.totalMs));
    const ms = (value: number) => (Number.isFinite(value) ? formatMs(value) : 'n/a');
    return [
      withTarget({ id: 'p1', measure: `page: Run pressed -> completed result shown, trivial cell \`return 1\` (median of ${SAMPLES})`, a: formatMs(r) }, '≤ 100 ms', r, 100),
      { id: 'p1a', measure: 'p1 breakdown, in the page: click event -> exec response received (request, Gateway, network)', a: ms(medianOf(runs.map((x) => x.clickToResponseMs))) },
      { id: 'p1b', measure: 'p1 breakdown, in the page: exec response received -> completed result in the DOM (parse, React)', a: ms(medianOf(runs.map((x) => x.responseToShownMs))) },
      { id: 'p1c', measure: "p1's instrument floor: the same Playwright click and raf-polled wait on a button that changes the DOM itself", a: ms(floor) },
      withTarget({ id: 'p2', measure: `page: navigation -> editor shown and the catalog with its declarations received (median of ${SAMPLES})`, a: formatMs(e) }, '≤ 1.5 s', e, 1500),
      { id: 'p2a', measure: 'p2 breakdown, in the page from navigation start: catalog.list (the declarations) received', a: ms(medianOf(ready.map((x) => x.catalogMs))) },
      { id: 'p2b', measure: "p2 breakdown, in the page from navigation start: Monaco's chunk (the largest script) received", a: ms(medianOf(ready.map((x) => x.monacoChunkMs))) },
      scripts.length > 0
        ? {
            id: 'p2c',
            measure: `p2 vs its floor: a blank page loading only the editor's ${scripts.length} chunks (download, compile with the same hint, register; no app, no editor made)`,
            a: formatMs(e),
            b: ms(medianOf(chunksOnly)),
            ratio: ratio(e, medianOf(chunksOnly)),
          }
        : { id: 'p2c', measure: "p2 vs its floor: not measured (the build's .next/server/app/page/react-loadable-manifest.json, which names the editor's chunks, is missing or unreadable)", a: 'n/a' },
    ];
  } finally {
    await browser.close();
    server.kill('SIGTERM');
  }
}
