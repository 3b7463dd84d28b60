// Refreshes the docs' screenshots from a running playground with the shipped config: the README's hero
// (public/playground.png), and docs/sources.md's Sources tab confirming a stdio command and Test plan tab (docs/screenshots/).
// Usage: `npm start` (or PORT=... npm start), then `node scripts/screenshots.mjs [http://127.0.0.1:3000]`.
// The other images in docs/screenshots come from the E2E suite (e2e-artifacts/panels, see docs/test-plan.md);
// sources-github.png is rewritten by `UPDATE_SCREENSHOTS=1 npx playwright test -c playwright.sources.config.ts e2e/sources.spec.ts`.
import { chromium } from '@playwright/test';

const base = process.argv[2] ?? 'http://127.0.0.1:3000';
const VIEWPORT = { width: 1440, height: 900 };
/** Limits for a hung page, not timings: the Monaco chunk and the test plan's 16 steps are slow on a loaded machine. */
const PAGE_LOAD_TIMEOUT_MS = 90_000;
const TEST_PLAN_TIMEOUT_MS = 300_000;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/** @param {'light' | 'dark'} colorScheme */
async function openPage(colorScheme) {
  const context = await browser.newContext({ viewport: VIEWPORT, colorScheme });
  const page = await context.newPage();
  await page.goto(base);
  await page.getByTestId('connection').and(page.locator('[data-state=live]')).waitFor({ timeout: PAGE_LOAD_TIMEOUT_MS });
  await page.locator('.monaco-editor .view-lines').waitFor({ timeout: PAGE_LOAD_TIMEOUT_MS });
  await page.getByRole('button', { name: 'Run ▸', exact: true }).and(page.locator(':enabled')).waitFor({ timeout: PAGE_LOAD_TIMEOUT_MS });
  return page;
}

try {
  // the hero: the first example run, its trajectory, the replay lab with its seed, the detail tabs
  const hero = await openPage('dark');
  await hero.getByRole('button', { name: 'Run ▸', exact: true }).click();
  await hero.locator('[data-testid=result-status][data-status=completed]').waitFor({ timeout: PAGE_LOAD_TIMEOUT_MS });
  await hero.getByTestId('run-seed').waitFor();
  await hero.mouse.move(0, VIEWPORT.height - 1);
  await hero.screenshot({ path: 'public/playground.png' });
  await hero.context().close();

  // the Sources tab asking before it runs a stdio command (nothing runs: the shot is taken at the question)
  const sources = await openPage('light');
  await sources.getByRole('tab', { name: 'Sources' }).click();
  await sources.getByTestId('source-name').fill('everything');
  await sources.getByTestId('source-command').fill('npx');
  await sources.getByTestId('source-args').fill('-y\n@modelcontextprotocol/server-everything');
  await sources.getByTestId('source-add').click();
  await sources.getByRole('alertdialog', { name: 'confirm the command line' }).waitFor();
  await sources.screenshot({ path: 'docs/screenshots/sources-confirm.png' });
  await sources.context().close();

  // the Test plan tab after a run of the 16 steps
  const plan = await openPage('light');
  await plan.getByRole('tab', { name: 'Test plan' }).click();
  await plan.getByRole('button', { name: 'run the spec plan' }).click();
  await plan.getByTestId('testplan-summary').waitFor({ timeout: TEST_PLAN_TIMEOUT_MS });
  await plan.screenshot({ path: 'docs/screenshots/test-plan.png' });
  console.log(`test plan: ${await plan.getByTestId('testplan-summary').innerText()}`);
  await plan.context().close();
} finally {
  await browser.close();
}
