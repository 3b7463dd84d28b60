// Page timings for the bench (issue 14), measured with Playwright and the system Chromium: navigation
// -> editor ready with the Gateway's declarations, and Run pressed -> value shown for a trivial cell.
// Runs only when a UI build exists (.next/BUILD_ID); starts its own server on BENCH_PAGE_PORT (default
// 3225) and stops it. Prints rows for the table; nothing is asserted. Playwright drives the page (it navigates, it
// clicks Run); the target rows read the page's own clock (navigation timing, the click event's timestamp, a
// MutationObserver and the animation frame after it), because Playwright's view of the same moments adds its own
// latency: its click's actionability checks before the press, and CDP round trips and polling on a renderer whose
// main thread is busy after it. That view is printed beside them (p1p, p2p).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright';
import { startMonacoFloor, type MonacoFloor } from './monaco-floor.ts';
import { formatBytes, formatMs, median, ratio } from './stats.ts';
import { withTarget, type BenchRow } from './table.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** Samples per page measure: the issue's "median of 10". */
const SAMPLES = 10;
/** The editor's lines: what p1's cell is typed into and what p2 waits for. */
const EDITOR_LINES = '.monaco-editor .view-lines';

export type PageTimingProbe = { available: true; rows: () => Promise<BenchRow[]> } | { available: false; reason: string };

export function probePageTiming(): PageTimingProbe {
  if (!existsSync(`${ROOT}.next/BUILD_ID`)) return { available: false, reason: 'no UI build (.next/BUILD_ID); run `npm run build` (or `npm start` once) first' };
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
  /**
   * In the page, from its navigation start: the later of the animation frame that first shows the editor's lines and
   * the catalog.list response (the declarations the editor gets) received. The p2 row.
   */
  pageMs: number;
  /** Navigation -> both, as Playwright sees them from the bench's process (the p2p row). */
  playwrightMs: number;
  /** In the page, from its navigation start: the catalog.list response received. */
  catalogMs: number;
  /** In the page: Monaco's chunk received (the largest script). */
  monacoChunkMs: number;
}

/**
 * Installed before the page's own scripts: once the document is parsed (the editor is made by a dynamic import after
 * hydration, never before), a MutationObserver waits for the editor's lines and records the animation frame after they
 * appear (the frame that paints them). Like every function the page runs, no named inner functions: tsx's keepNames
 * would wrap them in a helper the page does not have.
 */
function editorProbe(selector: string): void {
  const probe = { frameAt: 0 };
  (window as unknown as { __editorProbe: typeof probe }).__editorProbe = probe;
  document.addEventListener(
    'DOMContentLoaded',
    () => {
      const observer = new MutationObserver(() => {
        if (!document.querySelector(selector)) return;
        observer.disconnect();
        requestAnimationFrame(() => (probe.frameAt = performance.now()));
      });
      observer.observe(document.body, { subtree: true, childList: true });
    },
    { once: true },
  );
}

/** Waits for editorProbe's frame; returns it, in ms from the page's navigation start. */
async function editorFrameAt(page: Page): Promise<number> {
  await page.waitForFunction(() => (window as unknown as { __editorProbe: { frameAt: number } }).__editorProbe.frameAt > 0, null, { timeout: 60_000 });
  return page.evaluate(() => (window as unknown as { __editorProbe: { frameAt: number } }).__editorProbe.frameAt);
}

/** p2's floor with the editor made (bench/monaco-floor.ts): navigation start -> the frame that shows its lines. */
async function monacoAloneMs(browser: Browser, floor: MonacoFloor): Promise<number> {
  const page = await browser.newPage();
  try {
    await page.addInitScript(editorProbe, EDITOR_LINES);
    await page.goto(floor.url);
    return await editorFrameAt(page);
  } finally {
    await page.close();
  }
}

/** Navigation -> the editor shows and the catalog (with the declarations the editor gets) has arrived. */
async function editorReady(browser: Browser, url: string): Promise<EditorReady> {
  const page = await browser.newPage();
  try {
    await page.addInitScript(editorProbe, EDITOR_LINES);
    const t0 = performance.now();
    const declarations = page.waitForResponse((r) => r.url().includes('catalog.list') && r.ok(), { timeout: 60_000 });
    await page.goto(url);
    await Promise.all([declarations, page.locator(EDITOR_LINES).waitFor({ timeout: 60_000 })]);
    const playwrightMs = performance.now() - t0;
    await editorFrameAt(page);
    // Playwright's response event comes with the headers; the resource entry only once the body has ended
    await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.includes('catalog.list')), null, { timeout: 60_000 });
    const inPage = await page.evaluate(() => {
      const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const catalog = entries.find((e) => e.name.includes('catalog.list'));
      const scripts = entries.filter((e) => e.initiatorType === 'script' || e.name.endsWith('.js'));
      const largest = scripts.reduce<PerformanceResourceTiming | undefined>((big, e) => (!big || e.encodedBodySize > big.encodedBodySize ? e : big), undefined);
      const frameAt = (window as unknown as { __editorProbe: { frameAt: number } }).__editorProbe.frameAt;
      const catalogMs = catalog?.responseEnd ?? Number.NaN;
      return { pageMs: Math.max(frameAt, catalogMs), catalogMs, monacoChunkMs: largest?.responseEnd ?? Number.NaN };
    });
    return { playwrightMs, ...inPage };
  } finally {
    await page.close();
  }
}

async function callSeq(page: Page): Promise<number> {
  return Number((await page.getByTestId('result-seq').getAttribute('data-seq')) ?? '0');
}

interface RunToValue {
  /** In the page: the Run button's click event (its timestamp) -> the animation frame that shows the completed result (the p1 row). */
  pageMs: number;
  /** Run pressed -> completed result shown, as Playwright sees it from the bench's process (the p1p row). */
  playwrightMs: number;
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
 * scripts) and run (a Turbopack chunk only registers its modules). Nothing of the app, no editor made. Read, like p2,
 * on the page's clock: navigation start -> the load event.
 */
async function editorChunksOnlyMs(browser: Browser, origin: string, scripts: string[]): Promise<number> {
  const page = await browser.newPage();
  try {
    const blank = `${origin}/__bench/editor-chunks-only`;
    const body = `<!doctype html><title>editor chunks only</title>${scripts.map((s) => `<script async src="/_next/${s}"></script>`).join('')}`;
    await page.route(blank, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body }));
    await page.goto(blank, { waitUntil: 'load', timeout: 60_000 });
    return await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.loadEventStart ?? Number.NaN);
  } finally {
    await page.close();
  }
}

/** Run pressed -> the result panel shows a completed result for the new call. */
async function runToValue(page: Page): Promise<RunToValue> {
  const before = await callSeq(page);
  // in-page clock: the click event, the first DOM change that shows the new completed result, the frame after it
  await page.evaluate((prev) => {
    performance.clearResourceTimings();
    const probe = { clickAt: 0, shownAt: 0, frameAt: 0 };
    (window as unknown as { __pageTiming: typeof probe }).__pageTiming = probe;
    document.querySelector('[data-testid=run-button]')?.addEventListener('click', (event) => (probe.clickAt = event.timeStamp), { once: true, capture: true });
    const observer = new MutationObserver(() => {
      const seq = Number(document.querySelector('[data-testid=result-seq]')?.getAttribute('data-seq') ?? '0');
      if (seq > prev && document.querySelector('[data-testid=result-status]')?.getAttribute('data-status') === 'completed') {
        probe.shownAt = performance.now();
        observer.disconnect();
        requestAnimationFrame(() => (probe.frameAt = performance.now()));
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
  const playwrightMs = performance.now() - t0;
  await page.waitForFunction(() => (window as unknown as { __pageTiming: { frameAt: number } }).__pageTiming.frameAt > 0, null, { timeout: 60_000 });
  const inPage = await page.evaluate(() => {
    const probe = (window as unknown as { __pageTiming: { clickAt: number; shownAt: number; frameAt: number } }).__pageTiming;
    const exec = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((e) => e.name.includes('/api/trpc/exec')).at(-1);
    const responseAt = exec?.responseEnd ?? Number.NaN;
    // a click the probe did not see leaves clickAt 0: NaN, left out of the medians
    const clickAt = probe.clickAt > 0 ? probe.clickAt : Number.NaN;
    return { pageMs: probe.frameAt - clickAt, clickToResponseMs: responseAt - clickAt, responseToShownMs: probe.shownAt - responseAt };
  });
  return { playwrightMs, ...inPage };
}

/**
 * What Playwright's view costs: its click (its actionability checks) on a button that changes the DOM in its own
 * click handler, seen by the same raf-polled waitForFunction as p1p. p1p minus this is about the page's part.
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
    const alone: number[] = [];
    let floorError = '';
    const monaco = await startMonacoFloor().catch((err: unknown) => {
      floorError = err instanceof Error ? err.message : String(err);
      return undefined;
    });
    try {
      if (monaco) await monacoAloneMs(browser, monaco); // warm-up, as for p2
      // alternating, so a change in the machine's load moves all three
      for (let i = 0; i < SAMPLES; i++) {
        ready.push(await editorReady(browser, url));
        if (scripts.length > 0) chunksOnly.push(await editorChunksOnlyMs(browser, `http://127.0.0.1:${port}`, scripts));
        if (monaco) alone.push(await monacoAloneMs(browser, monaco));
      }
    } finally {
      await monaco?.close();
    }
    const page = await browser.newPage();
    const runs: RunToValue[] = [];
    let floor = Number.NaN;
    try {
      await page.goto(url);
      await page.getByTestId('run-button').waitFor();
      await page.locator(EDITOR_LINES).waitFor();
      // a trivial cell, typed as a user would; one run first to warm the path
      await page.locator(EDITOR_LINES).click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      await page.keyboard.type('return 1');
      await page.locator(EDITOR_LINES).getByText('return 1').waitFor();
      await runToValue(page);
      for (let i = 0; i < SAMPLES; i++) runs.push(await runToValue(page));
      floor = await instrumentFloorMs(page);
    } finally {
      await page.close();
    }
    const r = medianOf(runs.map((x) => x.pageMs));
    const e = medianOf(ready.map((x) => x.pageMs));
    const floorOfE = medianOf(chunksOnly);
    const ms = (value: number) => (Number.isFinite(value) ? formatMs(value) : 'n/a');
    return [
      withTarget(
        { id: 'p1', measure: `page: Run pressed -> completed result shown, trivial cell \`return 1\` (page's clock: click event -> the frame after it shows; median of ${SAMPLES})`, a: ms(r) },
        '≤ 100 ms',
        r,
        100,
      ),
      { id: 'p1a', measure: 'p1 breakdown, in the page: click event -> exec response received (request, Gateway, network)', a: ms(medianOf(runs.map((x) => x.clickToResponseMs))) },
      { id: 'p1b', measure: 'p1 breakdown, in the page: exec response received -> completed result in the DOM (parse, React)', a: ms(medianOf(runs.map((x) => x.responseToShownMs))) },
      { id: 'p1p', measure: "p1 as Playwright sees it from the bench's process: its click (actionability checks first) -> its raf-polled wait", a: ms(median(runs.map((x) => x.playwrightMs))) },
      { id: 'p1c', measure: "p1p's instrument floor: the same Playwright click and raf-polled wait on a button that changes the DOM itself", a: ms(floor) },
      withTarget(
        { id: 'p2', measure: `page: navigation -> editor shown and the catalog with its declarations received (page's clock from navigation start; median of ${SAMPLES})`, a: ms(e) },
        '≤ 1.5 s',
        e,
        1500,
      ),
      { id: 'p2a', measure: 'p2 breakdown, in the page from navigation start: catalog.list (the declarations) received', a: ms(medianOf(ready.map((x) => x.catalogMs))) },
      { id: 'p2b', measure: "p2 breakdown, in the page from navigation start: Monaco's chunk (the largest script) received", a: ms(medianOf(ready.map((x) => x.monacoChunkMs))) },
      { id: 'p2p', measure: "p2 as Playwright sees it from the bench's process: goto -> its response and locator waits both resolved", a: ms(median(ready.map((x) => x.playwrightMs))) },
      scripts.length > 0
        ? {
            id: 'p2c',
            measure: `p2 vs its floor: a blank page loading only the editor's ${scripts.length} chunks (navigation start -> load event: download, compile with the same hint, register; no app, no editor made)`,
            a: ms(e),
            b: ms(floorOfE),
            ratio: ratio(e, floorOfE),
          }
        : { id: 'p2c', measure: "p2 vs its floor: not measured (the build's .next/server/app/page/react-loadable-manifest.json, which names the editor's chunks, is missing or unreadable)", a: 'n/a' },
      monaco
        ? {
            id: 'p2f',
            measure: `p2 vs Monaco alone: a blank page with the same monaco-editor import bundled by esbuild (${formatBytes(monaco.scriptBytes)} of script, same hint), navigation start -> the frame showing a new editor's lines`,
            a: ms(e),
            b: ms(medianOf(alone)),
            ratio: ratio(e, medianOf(alone)),
          }
        : { id: 'p2f', measure: `p2 vs Monaco alone: not measured (bundling bench/monaco-floor.entry.ts failed: ${floorError})`, a: 'n/a' },
    ];
  } finally {
    await browser.close();
    server.kill('SIGTERM');
  }
}
