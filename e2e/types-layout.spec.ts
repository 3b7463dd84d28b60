// E2E (issue 13, the rest): one type world in the editor, the layout at 1280x720 and 900 px with collapsible side
// panels, the session panel following the selected run, snapshot text true for the selected run, hook decisions in a span.
import { mkdirSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import type { Page } from '@playwright/test';
import { EXAMPLES } from '../components/playground/examples.ts';
import { callSeq, openPlayground, PANEL_SHOTS_DIR, pickAgent, resultRunId, runCell, setCell, settle, settledAfter, waitingRun, POLL_INTERVALS_MS, PAGE_LOAD_TIMEOUT_MS } from './helpers.ts';

// The editor's first check waits for Monaco's TypeScript worker to start and load its lib: on a loaded 2-core
// machine that took most of a minute. These are limits for a hung page, not timings.
test.describe.configure({ timeout: 240_000 });
const CHECK_TIMEOUT_MS = 150_000;

function problems(page: Page) {
  return page.getByTestId('editor-problems');
}

/** The number of checks the editor has published (each edit's check publishes once). */
async function checks(page: Page): Promise<number> {
  return Number((await problems(page).getAttribute('data-checks')) ?? '0');
}

/** Waits until a check newer than `before` has published markers for a cell of `code`'s length (not an earlier edit's). */
async function checkedAfter(page: Page, before: number, code: string): Promise<void> {
  await expect
    .poll(async () => (await checks(page)) > before && (await problems(page).getAttribute('data-checked-chars')) === String(code.length), {
      timeout: CHECK_TIMEOUT_MS,
      message: 'the editor checks the cell',
    })
    .toBe(true);
}

/** Replaces the cell and waits until the editor has checked the new text (not merely an earlier one). */
async function setCellChecked(page: Page, code: string): Promise<void> {
  const before = await checks(page);
  await setCell(page, code);
  await checkedAfter(page, before, code);
}

async function pickLanguage(page: Page, language: 'JS' | 'TS'): Promise<void> {
  const button = page.getByRole('button', { name: language, exact: true });
  await button.click();
  await expect(button).toHaveAttribute('aria-pressed', 'true');
}

test('the editor flags what the server typecheck rejects, with the same message; fixed, both accept it', async ({ page }) => {
  await openPlayground(page);
  await pickLanguage(page, 'TS');
  await setCellChecked(page, "const w = await weather_lookup({ city: 'Paris' });\nreturn w.temperature;\n");
  await expect(page.locator('.monaco-editor .squiggly-error')).not.toHaveCount(0);
  await expect(problems(page)).toHaveAttribute('data-errors', '1');
  const problem = page.getByTestId('editor-problem');
  await expect(problem).toContainText("2:10 Property 'temperature' does not exist on type");
  const message = (await problem.innerText()).replace(/^2:10 /, '').replace(/\s*ts\(2339\)$/, '');

  // the server's typecheck says the same, on the same line
  await page.getByRole('checkbox', { name: 'typecheck', exact: true }).check();
  expect(await settle(page, () => page.getByTestId('run-button').click(), CHECK_TIMEOUT_MS)).toBe('failed');
  await expect(page.getByTestId('result-error-code')).toHaveText('invalid_input');
  await expect(page.getByTestId('result-panel')).toContainText(`line 2: ${message}`);

  await setCellChecked(page, "const w = await weather_lookup({ city: 'Paris' });\nreturn w.tempC;\n");
  await expect(problems(page)).toHaveAttribute('data-errors', '0');
  await expect(page.locator('.monaco-editor .squiggly-error')).toHaveCount(0);
  expect(await settle(page, () => page.getByTestId('run-button').click())).toBe('completed');
});

test('every shipped example opens clean in the editor', async ({ page }) => {
  await openPlayground(page);
  // a cell with an error first: the check runs and would show red
  await setCellChecked(page, 'await web_search({ query: 42 });\n');
  await expect(problems(page)).toHaveAttribute('data-errors', '1');
  for (const example of EXAMPLES) {
    const before = await checks(page);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('combobox', { name: 'Examples' }).selectOption(example.id);
    await expect(page.locator('.monaco-editor .view-lines')).toContainText(example.code.split('\n')[0]?.slice(0, 40) ?? '');
    await checkedAfter(page, before, example.code);
    await expect(problems(page), `"${example.id}" opens clean`).toHaveAttribute('data-errors', '0');
    await expect(page.locator('.monaco-editor .squiggly-error')).toHaveCount(0);
  }
});

test('a call to a tool the agent\'s policy denies is flagged with the rule that denied it', async ({ page }) => {
  await openPlayground(page);
  await pickAgent(page, 'research');
  await setCellChecked(page, "const listing = await exec({ command: 'ls' });\nreturn listing;\n");
  const problem = page.getByTestId('editor-problem');
  await expect(problem).toContainText('exec is denied for this agent by policy rule agents.list[research].tools.deny: "exec"');
  await expect(page.locator('.monaco-editor .squiggly-error')).not.toHaveCount(0);
  // for an agent that may call it, the same cell is clean
  await pickAgent(page, 'main');
  await setCellChecked(page, "const listing = await exec({ command: 'ls' });\nreturn listing;\n");
  await expect(problems(page)).toHaveAttribute('data-errors', '0');
});

test('at 1280x720 the editor is tall enough, run ids are whole, and each side panel collapses and stays collapsed', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await openPlayground(page);
  const editor = page.getByTestId('editor');
  expect((await editor.boundingBox())?.height ?? 0).toBeGreaterThanOrEqual(360);

  expect(await runCell(page, 'return 1;\n')).toBe('completed');
  const runId = await resultRunId(page);
  const id = page.locator(`[data-testid=run-row][data-run-id="${runId}"] [data-testid=run-id]`);
  await expect(id).toHaveText(runId);
  expect(await id.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);

  const widthBefore = (await editor.boundingBox())?.width ?? 0;
  const hideTools = page.getByRole('button', { name: 'Hide the tools panel' });
  await expect(hideTools).toHaveAttribute('aria-expanded', 'true');
  await hideTools.click();
  const showTools = page.getByRole('button', { name: 'Show the tools panel' });
  await expect(showTools).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByTestId('catalog-panel')).toHaveCount(0);
  await page.getByRole('button', { name: 'Hide the runs panel' }).click();
  await expect(page.getByTestId('runs-panel')).toHaveCount(0);
  await expect.poll(async () => (await editor.boundingBox())?.width ?? 0, { intervals: POLL_INTERVALS_MS }).toBeGreaterThan(widthBefore + 400);
  mkdirSync(PANEL_SHOTS_DIR, { recursive: true });
  await page.screenshot({ path: `${PANEL_SHOTS_DIR}/layout-1280x720-collapsed.png` });

  // kept across a reload
  await page.reload();
  await expect(page.getByRole('button', { name: 'Show the tools panel' })).toBeVisible({ timeout: PAGE_LOAD_TIMEOUT_MS });
  await expect(page.getByRole('button', { name: 'Show the runs panel' })).toBeVisible();
  await page.getByRole('button', { name: 'Show the tools panel' }).click();
  await page.getByRole('button', { name: 'Show the runs panel' }).click();
  await expect(page.getByTestId('catalog-panel')).toBeVisible();
  await expect(page.getByTestId('runs-panel')).toBeVisible();
  await page.screenshot({ path: `${PANEL_SHOTS_DIR}/layout-1280x720.png` });
});

test('at 900 px the cell takes the full row and the side panels still collapse', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 900 });
  await openPlayground(page);
  const box = await page.getByTestId('editor').boundingBox();
  expect(box?.width ?? 0).toBeGreaterThanOrEqual(900 * 0.6);
  const hide = page.getByRole('button', { name: 'Hide the tools panel' });
  await hide.click();
  await expect(page.getByTestId('catalog-panel')).toHaveCount(0);
  await page.getByRole('button', { name: 'Show the tools panel' }).click();
  await expect(page.getByTestId('catalog-panel')).toBeVisible();
  // the shot shows the top of the page (the toggle sits below the runs, the click scrolled there)
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${PANEL_SHOTS_DIR}/layout-900.png`, fullPage: false });
});

test('the session panel highlights the selected run\'s entries', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, "await store('first', 1);\nreturn 'first';\n")).toBe('completed');
  const first = await resultRunId(page);
  expect(await runCell(page, "return 'second';\n")).toBe('completed');
  const second = await resultRunId(page);
  await page.getByRole('tab', { name: 'Session' }).click();
  const calls = page.getByTestId('transcript-call');
  await expect(calls).toHaveCount(2);
  await expect(calls.nth(1)).toHaveAttribute('data-selected', 'true');
  await expect(calls.nth(0)).toHaveAttribute('data-selected', 'false');

  await page.locator(`[data-testid=run-row][data-run-id="${first}"]`).click();
  await expect(calls.nth(0)).toHaveAttribute('data-selected', 'true');
  await expect(calls.nth(0)).toContainText('(selected run)');
  await expect(calls.nth(1)).toHaveAttribute('data-selected', 'false');
  await expect(page.getByTestId('transcript-store-commit')).toHaveAttribute('data-selected', 'true');
  expect(second).not.toBe(first);
});

test('the snapshot panel tells the truth about the selected run: its restore as the result reports it, or that it never suspended', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, 'await sleep({ ms: 4000 });\nreturn "woke";\n')).toBe('waiting');
  const parked = await resultRunId(page);
  expect(await settle(page, () => waitingRun(page, parked).getByTestId('wait-button').click())).toBe('completed');
  const telemetry = page.getByTestId('result-telemetry');
  await expect(telemetry).toContainText('restore');
  const restore = await telemetry.locator('dt', { hasText: /^restore$/ }).locator('xpath=following-sibling::dd[1]').innerText();
  await page.getByRole('tab', { name: 'Snapshot sizes' }).click();
  const row = page.getByTestId('snapshot-row');
  await expect(row).toHaveCount(1);
  await expect(row.locator('td').last()).toHaveText(restore);

  expect(await runCell(page, 'return 2;\n')).toBe('completed');
  const quick = await resultRunId(page);
  await expect(page.getByTestId('snapshots-none')).toHaveText(`Run ${quick} never suspended, so none of the bars below are its own (they are 1 other run).`);
  await expect(page.getByTestId('snapshots-chart')).toHaveAttribute('aria-label', 'snapshot sizes of the runs in this turn');
});

test('a span shows what each before_tool_call hook decided', async ({ page }) => {
  await openPlayground(page);
  const before = await callSeq(page);
  await setCell(page, "try {\n  return await read({ path: 'secrets/token.txt' });\n} catch (error) {\n  return String(error.message);\n}\n");
  await page.getByTestId('run-button').click();
  expect(await settledAfter(page, before)).toBe('completed');
  const trajectory = page.getByTestId('trajectory-panel');
  await trajectory.getByRole('button', { name: 'show details of the read call' }).click();
  const fields = trajectory.getByTestId('span-detail').getByTestId('span-detail-fields');
  await expect(fields).toContainText(/hooks.*guard: blocked \(/s);
  await page.setViewportSize({ width: 1440, height: 900 });
  mkdirSync(PANEL_SHOTS_DIR, { recursive: true });
  await page.screenshot({ path: `${PANEL_SHOTS_DIR}/span-hooks.png` });
});
