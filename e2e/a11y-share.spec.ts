// E2E: the page by keyboard and by name (labels, roving tab stops, tabs), and its state in the URL (share links, reload, examples menu).
import { expect, test } from './fixtures.ts';
import type { Page } from '@playwright/test';
import { EXAMPLES } from '../components/playground/examples.ts';
import { openPlayground, pickAgent, playgroundReady, resultRunId, runCell, setCell, settle, POLL_INTERVALS_MS } from './helpers.ts';

/** Roles a user operates; each needs an accessible name (the aria snapshot prints it in quotes after the role). */
const CONTROL_ROLES = ['button', 'checkbox', 'combobox', 'searchbox', 'textbox', 'tab', 'radio', 'switch', 'slider', 'spinbutton'];

/** Lines of the page's accessibility tree that are controls without a name. */
async function unnamedControls(page: Page): Promise<string[]> {
  const tree = await page.locator('body').ariaSnapshot();
  const unnamed = new RegExp(`^\\s*- (${CONTROL_ROLES.join('|')})(?! ")\\b`);
  return tree.split('\n').filter((line) => unnamed.test(line));
}

/** Presses Tab from the focused control until `target` has focus; the number of presses (focus stops crossed). */
async function tabStopsTo(page: Page, target: ReturnType<Page['getByRole']>, max = 60): Promise<number> {
  for (let presses = 1; presses <= max; presses++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement)) return presses;
  }
  throw new Error(`${max} Tab presses did not reach the target`);
}

/** Reloads the page and waits, as openPlayground does, until a turn is ready and live updates flow. */
async function reloadPlayground(page: Page): Promise<void> {
  await page.reload();
  await playgroundReady(page);
}

function exampleTitle(id: string): string {
  return EXAMPLES.find((x) => x.id === id)?.title ?? id;
}

test('every control has an accessible name: the selects, the catalog filter, the client-tools and answer editors', async ({ page }) => {
  await openPlayground(page);
  await expect(page.getByRole('combobox', { name: 'Examples' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Executor' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'agent' })).toBeVisible();
  await expect(page.getByRole('searchbox', { name: 'Filter the catalog by name or description' })).toBeVisible();
  await page.getByRole('button', { name: 'client tools…' }).click();
  await expect(page.getByLabel('client tools of this turn (JSON array)')).toBeVisible();
  // A client call on the board brings the answer editor.
  expect(await runCell(page, `const reply = await ask_user({ question: 'Labelled?' });\nreturn reply;\n`)).toBe('waiting');
  await expect(page.getByLabel('result (JSON) for client call ask_user').first()).toBeVisible();
  expect(await unnamedControls(page)).toEqual([]);
});

test('the keyboard crosses the page in a handful of stops: the catalog list is one, arrows and Home/End walk it', async ({ page }) => {
  await openPlayground(page);
  await page.getByRole('combobox', { name: 'agent' }).focus();
  const run = page.getByRole('button', { name: 'Run ▸', exact: true });
  const stops = await tabStopsTo(page, run);
  // agent, model, new turn, new session, the theme toggle, the surface's description toggle, client tools, the
  // filter, the catalog list, share, Run: about eleven, where every catalog row used to be a stop (29 in all).
  console.log(`Tab presses from the agent select to Run: ${stops}`);
  expect(stops).toBeLessThanOrEqual(12);

  const rows = page.getByTestId('catalog-tool').getByRole('button');
  const count = await rows.count();
  expect(count).toBeGreaterThan(3);
  await page.getByRole('searchbox', { name: 'Filter the catalog by name or description' }).focus();
  await page.keyboard.press('Tab');
  await expect(rows.first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press('End');
  await expect(rows.nth(count - 1)).toBeFocused();
  await page.keyboard.press('Home');
  await expect(rows.first()).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(rows.nth(count - 1)).toBeFocused();
  // The row focused last keeps the list's one stop: Shift+Tab out and Tab back lands on it.
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  await expect(rows.nth(count - 1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(rows.nth(count - 1)).toHaveAttribute('aria-expanded', 'true');
});

test('the detail tabs: one tab stop, arrows and Home/End select and focus a tab and show its panel', async ({ page }) => {
  await openPlayground(page);
  const tablist = page.getByRole('tablist', { name: 'run and session details' });
  const trajectory = tablist.getByRole('tab', { name: 'Trajectory' });
  const snapshots = tablist.getByRole('tab', { name: 'Snapshot sizes' });
  const session = tablist.getByRole('tab', { name: 'Session' });
  const sources = tablist.getByRole('tab', { name: 'Sources' });
  const testPlan = tablist.getByRole('tab', { name: 'Test plan' });
  await expect(trajectory).toHaveAttribute('aria-selected', 'true');
  await expect(snapshots).toHaveAttribute('tabindex', '-1');
  await trajectory.focus();
  await page.keyboard.press('ArrowRight');
  await expect(snapshots).toBeFocused();
  await expect(snapshots).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tabpanel', { name: 'Snapshot sizes' })).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await expect(session).toBeFocused();
  await expect(page.getByRole('tabpanel', { name: 'Session' })).toBeVisible();
  await expect(page.getByRole('tabpanel', { name: 'Trajectory' })).toBeHidden();
  await page.keyboard.press('End');
  await expect(testPlan).toBeFocused();
  await expect(page.getByRole('tabpanel', { name: 'Test plan' })).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(sources).toBeFocused();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowRight');
  await expect(trajectory).toBeFocused();
  await page.keyboard.press('End');
  await page.keyboard.press('Home');
  await expect(trajectory).toHaveAttribute('aria-selected', 'true');
  await expect(session).toHaveAttribute('tabindex', '-1');
});

test('a catalog filter that matches nothing says no tools match, and lists no MCP server', async ({ page }) => {
  await openPlayground(page);
  const catalog = page.getByTestId('catalog-panel');
  await expect(catalog.getByTestId('mcp-server')).not.toHaveCount(0);
  await page.getByRole('searchbox', { name: 'Filter the catalog by name or description' }).fill('zzz-no-such-tool');
  await expect(catalog.getByText('No tools match “zzz-no-such-tool”')).toBeVisible();
  await expect(catalog.getByTestId('mcp-server')).toHaveCount(0);
  await expect(catalog.getByTestId('catalog-tool')).toHaveCount(0);
});

test('a share link restores agent, model, executor, typecheck (and its inferred-types box), language, client tools and the example', async ({ page }) => {
  await openPlayground(page);
  await pickAgent(page, 'research');
  await page.getByRole('combobox', { name: 'Examples' }).selectOption('typescript');
  await page.getByRole('checkbox', { name: 'typecheck', exact: true }).check();
  await page.getByRole('checkbox', { name: 'typecheck uses "inferred" types' }).check();
  await page.getByRole('combobox', { name: 'Executor' }).selectOption('node');
  await page.getByRole('button', { name: 'client tools…' }).click();
  const toolsEditor = page.getByLabel('client tools of this turn (JSON array)');
  const tools = JSON.parse(await toolsEditor.inputValue()) as unknown[];
  tools.push({ name: 'pick_color', description: 'Ask the user to pick a color.', inputSchema: { type: 'object', properties: {} } });
  await toolsEditor.fill(JSON.stringify(tools, null, 2));
  await page.getByTestId('client-tools-apply').click();
  await expect(page.getByTestId('catalog-panel')).toContainText('pick_color');
  const before = await page.getByTestId('turn-info').innerText();
  await page.getByRole('combobox', { name: /^model/ }).fill('demo/coder');
  await expect(page.getByTestId('turn-info')).not.toHaveText(before);

  await page.getByRole('button', { name: 'share' }).click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(new URL(link).search).toBe('');

  const second = await page.context().newPage();
  await openPlayground(second, link.replace(/^https?:\/\/[^/]+/, ''));
  await expect(second.getByRole('combobox', { name: 'agent' })).toHaveValue('research');
  await expect(second.getByRole('combobox', { name: /^model/ })).toHaveValue('demo/coder');
  await expect(second.getByRole('combobox', { name: 'Executor' })).toHaveValue('node');
  await expect(second.getByRole('checkbox', { name: 'typecheck', exact: true })).toBeChecked();
  await expect(second.getByRole('checkbox', { name: 'typecheck uses "inferred" types' })).toBeChecked();
  await expect(second.getByTestId('language-ts')).toHaveAttribute('aria-pressed', 'true');
  await expect(second.getByRole('combobox', { name: 'Examples' })).toHaveValue('typescript');
  await expect(second.getByTestId('catalog-panel')).toContainText('pick_color');
  await expect(second.getByTestId('turn-info')).toContainText('turn ');
  // The restored turn is the research agent's: its policy denies exec, and the catalog says so.
  await expect(second.locator('[data-testid=catalog-tool][data-name=exec]')).toHaveAttribute('data-denied', 'true');
});

test('a reload keeps the turn and the selected run: its result is shown again and a waiting run can still be waited on', async ({ page }) => {
  await openPlayground(page);
  expect(await runCell(page, 'return 6 * 7;\n')).toBe('completed');
  await expect(page.getByTestId('result-value')).toContainText('42');
  const turn = await page.getByTestId('turn-info').innerText();
  await reloadPlayground(page);
  await expect(page.getByTestId('turn-info')).toHaveText(turn);
  await expect(page.getByTestId('result-status')).toHaveAttribute('data-status', 'completed');
  await expect(page.getByTestId('result-value')).toContainText('42');

  // A run parked on a client call: after a reload the same turn answers it and waits it to completion.
  expect(await runCell(page, `const reply = await ask_user({ question: 'Still there after a reload?' });\nreturn reply;\n`)).toBe('waiting');
  const runId = await resultRunId(page);
  await reloadPlayground(page);
  await expect(page.getByTestId('turn-info')).toHaveText(turn);
  await expect(page.getByTestId('result-status')).toHaveAttribute('data-status', 'waiting');
  const form = page.locator(`[data-testid=waiting-run][data-run-id="${runId}"]`).getByTestId('client-call');
  await form.getByLabel('result (JSON) for client call ask_user').fill('{"answer":"yes"}');
  expect(await settle(page, () => form.getByTestId('client-call-send-wait').click())).toBe('completed');
  await expect(page.getByTestId('result-value')).toContainText('yes');
});

test('the examples menu shows the loaded example, resets once the cell is edited, and asks before replacing an edited cell', async ({ page }) => {
  await openPlayground(page);
  const menu = page.getByRole('combobox', { name: 'Examples' });
  const editor = page.locator('.monaco-editor .view-lines');
  await menu.selectOption('read-grep');
  await expect(menu).toHaveValue('read-grep');
  await expect(page).toHaveURL(/example=read-grep/);
  // An untouched example is replaced without a question.
  let asked = false;
  page.on('dialog', (dialog) => {
    asked = true;
    void (dialog.message().includes('sleep-wait') || dialog.message().includes(exampleTitle('sleep-wait')) ? dialog.dismiss() : dialog.accept());
  });
  await menu.selectOption('search-describe');
  await expect(menu).toHaveValue('search-describe');
  expect(asked).toBe(false);

  await setCell(page, 'return "my own work";\n');
  // an edited cell is no longer the example: the menu says so
  await expect(menu).toHaveValue('');
  // Dismissed: the cell and the menu stay as they were.
  await menu.selectOption('sleep-wait');
  await expect.poll(() => asked, { intervals: POLL_INTERVALS_MS }).toBe(true);
  await expect(menu).toHaveValue('');
  await expect(editor).toContainText('my own work');
  // Accepted: the example replaces the cell.
  asked = false;
  await menu.selectOption('read-grep');
  await expect.poll(() => asked, { intervals: POLL_INTERVALS_MS }).toBe(true);
  await expect(menu).toHaveValue('read-grep');
  await expect(editor).toContainText('grep finds lines');
});

test('the theme follows the system preference until toggled; the pick survives a reload and Monaco follows it', async ({ page }) => {
  // The theme is set by a script in <head> before React hydrates: that must not cost a hydration error.
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await page.emulateMedia({ colorScheme: 'light' });
  await openPlayground(page);
  const html = page.locator('html');
  const monaco = page.locator('.monaco-editor').first();
  await expect(html).toHaveAttribute('data-theme', 'light');
  await expect(monaco).toHaveClass(/(^|\s)vs(\s|$)/);
  // The system changing its mind moves the page while the user has not picked.
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await expect(monaco).toHaveClass(/(^|\s)vs-dark(\s|$)/);
  // compared as computed values, whatever colour notation the CSS build emits (oklch, lab, rgb)
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const darkBackground = await background();
  await page.getByRole('button', { name: 'Switch to the light theme' }).click();
  await expect(html).toHaveAttribute('data-theme', 'light');
  await expect(monaco).toHaveClass(/(^|\s)vs(\s|$)/);
  await expect.poll(background, { intervals: POLL_INTERVALS_MS }).not.toBe(darkBackground);
  await reloadPlayground(page);
  // The pick wins over the (dark) system preference after a reload.
  await expect(html).toHaveAttribute('data-theme', 'light');
  await expect(page.getByRole('button', { name: 'Switch to the dark theme' })).toBeVisible();
  expect(consoleErrors).toEqual([]);
});

test('at 1440x900 the page renders in both themes (screenshots for review)', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await openPlayground(page);
  for (const theme of ['dark', 'light'] as const) {
    if ((await page.locator('html').getAttribute('data-theme')) !== theme) await page.getByTestId('theme-toggle').click();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    const body = await page.screenshot({ path: `e2e-artifacts/panels/page-1440x900-${theme}.png` });
    await testInfo.attach(`page-1440x900-${theme}`, { body, contentType: 'image/png' });
  }
});

test('a link with an unknown agent and a damaged cell says what was wrong and what is shown instead, with no failed requests', async ({ page }) => {
  const refused: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
  });
  await openPlayground(page, '/#agent=ghost&code=%25%25%25');
  const notice = page.getByRole('status').filter({ hasText: 'This link was not used in full' });
  await expect(notice).toContainText('agent=ghost is not an agent of this Gateway (main, research, ephemeral, patient), so Main is used');
  await expect(notice).toContainText('code= is damaged');
  await expect(notice).toContainText('the first example is shown instead');
  await expect(page.getByRole('combobox', { name: 'agent' })).toHaveValue('main');
  await expect(page.getByRole('combobox', { name: 'Examples' })).not.toHaveValue('');
  expect(refused).toEqual([]);
  await notice.getByRole('button', { name: 'dismiss' }).click();
  await expect(notice).toHaveCount(0);
});
