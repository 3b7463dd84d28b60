// Page timings for the bench (issue 14), measured with Playwright and the system Chromium: navigation
// -> editor ready with the Gateway's declarations, and Run pressed -> value shown for a trivial cell.
// Runs only when a UI build exists (.next/BUILD_ID); starts its own server on BENCH_PAGE_PORT (default
// 3225) and stops it. Prints rows for the table; nothing is asserted.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright';
import { formatMs, median } from './stats.ts';
import { withTarget, type BenchRow } from './table.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** Samples per page measure: the "median of 10". */
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

/** Navigation -> the editor shows and the catalog (with the declarations the editor gets) has arrived. */
async function editorReadyMs(browser: Browser, url: string): Promise<number> {
  const page = await browser.newPage();
  try {
    const t0 = performance.now();
    const declarations = page.waitForResponse((r) => r.url().includes('catalog.list') && r.ok(), { timeout: 60_000 });
    await page.goto(url);
    await Promise.all([declarations, page.locator('.monaco-editor .view-lines').waitFor({ timeout: 60_000 })]);
    return performance.now() - t0;
  } finally {
    await page.close();
  }
}

async function callSeq(page: Page): Promise<number> {
  return Number((await page.getByTestId('result-seq').getAttribute('data-seq')) ?? '0');
}

/** Run pressed -> the result panel shows a completed result for the new call. */
async function runToValueMs(page: Page): Promise<number> {
  const before = await callSeq(page);
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
  return performance.now() - t0;
}

async function pageRows(): Promise<BenchRow[]> {
  const port = Number(process.env.BENCH_PAGE_PORT ?? 3225);
  const server = await startServer(port);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  try {
    const url = `http://127.0.0.1:${port}/`;
    await editorReadyMs(browser, url); // warm-up: the server compiles and caches on the first visit
    const ready: number[] = [];
    for (let i = 0; i < SAMPLES; i++) ready.push(await editorReadyMs(browser, url));
    const page = await browser.newPage();
    const runs: number[] = [];
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
      await runToValueMs(page);
      for (let i = 0; i < SAMPLES; i++) runs.push(await runToValueMs(page));
    } finally {
      await page.close();
    }
    const r = median(runs);
    const e = median(ready);
    return [
      withTarget({ id: 'p1', measure: `page: Run pressed -> completed result shown, trivial cell \`return 1\` (median of ${SAMPLES})`, a: formatMs(r) }, '≤ 100 ms', r, 100),
      withTarget({ id: 'p2', measure: `page: navigation -> editor shown and the catalog with its declarations received (median of ${SAMPLES})`, a: formatMs(e) }, '≤ 1.5 s', e, 1500),
    ];
  } finally {
    await browser.close();
    server.kill('SIGTERM');
  }
}
