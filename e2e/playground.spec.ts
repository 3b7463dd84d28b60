// E2E: the playground's own flows (issue 4) against the real server: load, marker, run, waiting + Wait, timeout.
import { expect, test } from './fixtures.ts';
import { openPlayground, panelShot, resultRunId, resultValue, runCell, setCell, settle, waitingRun, POLL_INTERVALS_MS } from './helpers.ts';

test('the page loads: surface, catalog, editor and live updates', async ({ page }, testInfo) => {
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await openPlayground(page);
  await expect(page.getByTestId('surface-codemode')).toHaveAttribute('data-codemode', 'on');
  await expect(page.getByTestId('surface-tool')).not.toHaveCount(0);
  await expect(page.getByTestId('catalog-source-core')).toBeVisible();
  await expect(page.getByTestId('waiting-empty')).toBeVisible();
  await panelShot(page, 'surface-panel', 'surface', testInfo);
  await panelShot(page, 'catalog-panel', 'catalog', testInfo);
  await panelShot(page, 'editor-panel', 'editor', testInfo);
  await page.screenshot({ path: 'e2e-artifacts/panels/page.png' });
  expect(consoleErrors, 'no console errors on load').toEqual([]);
});

test('a call with a wrong argument shows a Monaco marker', async ({ page }, testInfo) => {
  await openPlayground(page);
  await setCell(page, 'const hits = await web_search({ query: 42 });\nreturn hits;\n');
  await expect(page.locator('.monaco-editor .squiggly-error')).not.toHaveCount(0);
  await expect(page.getByTestId('editor-problem').first()).toContainText("not assignable to type 'string'");
  await panelShot(page, 'editor-panel', 'editor-marker', testInfo);
  // The fixed call has no marker.
  await setCell(page, 'const hits = await web_search({ query: "QuickJS" });\nreturn hits;\n');
  await expect(page.getByTestId('editor-problems')).toHaveAttribute('data-errors', '0');
});

test('a cell runs and its value appears', async ({ page }, testInfo) => {
  await openPlayground(page);
  const status = await runCell(page, 'const r = await web_search({ query: "QuickJS sandbox", limit: 2 });\nconsole.log("hits", r.results.length);\nreturn { sum: 1 + 2, hits: r.results.length };\n');
  expect(status).toBe('completed');
  await expect(page.getByTestId('result-value')).toContainText('sum');
  expect(await resultValue(page)).toEqual({ sum: 3, hits: 2 });
  // web_search is network content: the text a model receives is wrapped as untrusted
  await page.getByTestId('result-raw-toggle').click();
  await expect(page.getByTestId('result-raw')).toContainText('<<<EXTERNAL_UNTRUSTED_CONTENT>>>');
  await page.getByTestId('result-raw-toggle').click();
  await expect(page.getByTestId('result-output')).toContainText('hits 2');
  await expect(page.getByTestId('result-telemetry')).toContainText('quickjs');
  await panelShot(page, 'result-panel', 'result-completed', testInfo);
});

test('a cell that sleeps past the deadline waits on the board; Wait completes it; the trajectory shows the nested call', async ({ page }, testInfo) => {
  await openPlayground(page);
  const status = await runCell(page, 'console.log("before");\nawait sleep({ ms: 4000 });\nconsole.log("after restore");\nreturn "woke";\n');
  expect(status).toBe('waiting');
  const runId = await resultRunId(page);
  const card = waitingRun(page, runId);
  await expect(card).toBeVisible();
  await expect(card.getByTestId('waiting-reason')).toHaveText('pending_tools');
  await expect(card.getByTestId('pending-call')).toContainText('sleep');
  const stored = Number(await card.getByTestId('snapshot-stored').getAttribute('data-bytes'));
  const raw = Number(await card.getByTestId('snapshot-raw').getAttribute('data-bytes'));
  expect(stored).toBeGreaterThan(0);
  expect(raw).toBeGreaterThanOrEqual(stored);
  await expect(card.getByTestId('waiting-ttl')).toHaveText(/^\d+:\d\d$/);
  await panelShot(page, 'waiting-board', 'waiting-board', testInfo);

  expect(await settle(page, () => card.getByTestId('wait-button').click())).toBe('completed');
  expect(await resultValue(page)).toBe('woke');
  await expect(page.getByTestId('result-output')).toContainText('after restore');
  await expect(card).toHaveCount(0);

  const trajectory = page.getByTestId('trajectory-panel');
  await expect(trajectory.getByTestId('trajectory-run-state')).toHaveText('completed');
  const exec = trajectory.locator('[data-testid=trajectory-control][data-tool=exec]');
  await expect(exec.locator('[data-testid=trajectory-nested][data-tool=sleep]')).toHaveAttribute('data-status', 'ok');
  await expect(trajectory.locator('[data-testid=trajectory-control][data-tool=wait]')).toBeVisible();
  await expect(trajectory.getByTestId('trajectory-gap')).toHaveCount(1);
  await panelShot(page, 'trajectory-panel', 'trajectory', testInfo);
  await page.getByTestId('tab-snapshots').click();
  await expect(page.getByTestId('snapshot-row')).toHaveCount(1);
  await panelShot(page, 'snapshots-panel', 'snapshots', testInfo);
});

test('an infinite loop shows timeout, and the Gateway keeps serving', async ({ page }, testInfo) => {
  await openPlayground(page);
  const status = await runCell(page, 'let spins = 0;\nwhile (true) { spins++; }\n');
  expect(status).toBe('failed');
  await expect(page.getByTestId('result-error-code')).toHaveText('timeout');
  await panelShot(page, 'result-panel', 'result-timeout', testInfo);
  expect(await runCell(page, 'return 6 * 7;\n')).toBe('completed');
  expect(await resultValue(page)).toBe(42);
});

test('a share link reproduces the cell and its language', async ({ page }) => {
  await openPlayground(page);
  await page.getByTestId('language-ts').click();
  await setCell(page, 'const answer: number = 41 + 1;\nreturn answer;\n');
  // The hash follows the editor (debounced): wait until it holds the pasted code.
  const sharedCode = () =>
    page.evaluate(() => {
      const encoded = new URLSearchParams(location.hash.slice(1)).get('code') ?? '';
      return atob(encoded.replace(/-/g, '+').replace(/_/g, '/'));
    });
  await expect.poll(sharedCode, { intervals: POLL_INTERVALS_MS }).toContain('41 + 1');
  expect(page.url()).toContain('lang=ts');
  const url = page.url();
  const second = await page.context().newPage();
  await openPlayground(second, url.replace(/^https?:\/\/[^/]+/, ''));
  await expect(second.getByTestId('language-ts')).toHaveAttribute('aria-pressed', 'true');
  await expect(second.locator('.monaco-editor .view-lines')).toContainText('41 + 1');
  expect(await settle(second, () => second.getByTestId('run-button').click())).toBe('completed');
  expect(await resultValue(second)).toBe(42);
});

test('at 900 px the columns stack: the cell takes the full width above the panels, and a cell still runs', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 900 });
  await openPlayground(page);
  const editor = await page.getByTestId('editor').boundingBox();
  const catalog = await page.getByLabel('Filter the catalog by name or description').boundingBox();
  expect(editor).not.toBeNull();
  expect(catalog).not.toBeNull();
  // the editor keeps at least 60 % of the width (it was 246 px beside two side columns) and sits above the catalog
  expect(editor!.width).toBeGreaterThanOrEqual(900 * 0.6);
  expect(editor!.height).toBeGreaterThanOrEqual(300);
  expect(catalog!.y).toBeGreaterThan(editor!.y + editor!.height);
  expect(await runCell(page, 'return 6 * 7;\n')).toBe('completed');
  expect(await resultValue(page)).toBe(42);
});
