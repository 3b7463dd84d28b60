// Issue 19 end to end: add the demo MCP server and the shipped OpenAPI document from the page, call a tool of
// each in a cell, save both to the config file, restart the playground, see them loaded from the config, and
// run the Test plan tab to 16 verdicts. The spec starts its own playground (it rewrites its config file and
// restarts it): run it with `playwright test -c playwright.sources.config.ts`.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { startInventoryServer, type InventoryServer } from '../demo/openapi/server.mjs';
import { startGitHubFixture } from '../demo/openapi/github/server.mjs';
import { openPlayground, runCell } from './helpers.ts';
import { OwnPlayground } from './own-playground.ts';
import { E2E_INVENTORY_PORT, E2E_SOURCES_PORT } from './ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const ORIGIN = `http://127.0.0.1:${E2E_SOURCES_PORT}`;
const DEMO_MCP = join(ROOT, 'demo/mcp/server.mjs');
const INVENTORY_YAML = join(ROOT, 'demo/openapi/inventory.yaml');
const GITHUB_DOCUMENT = join(ROOT, 'node_modules/@octokit/openapi/generated/api.github.com.json');

let dir: string;
let configFile: string;
let inventory: InventoryServer;

const playground = new OwnPlayground(() => configFile, { env: { CODEMODE_SKIP_BUILD: '1' }, readyTimeoutMs: 120_000 });

async function openSources(page: Page): Promise<void> {
  await page.getByTestId('tab-sources').click();
  await expect(page.getByTestId('sources-panel')).toBeVisible();
}

function row(page: Page, name: string) {
  return page.locator(`[data-testid="source-row"][data-name="${name}"]`);
}

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'codemode-e2e-sources-'));
  configFile = join(dir, 'codemode.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({ tools: { codeMode: { enabled: true, executor: 'quickjs' } }, workspace: join(ROOT, 'demo/workspace'), sessions: { path: ':memory:' } }, null, 2),
  );
  inventory = await startInventoryServer({ port: E2E_INVENTORY_PORT });
  await playground.start();
});

test.afterAll(async () => {
  await playground.stop();
  await inventory?.close();
});

test('add an MCP server and an OpenAPI document from the page, call both, save, restart, run the test plan', async ({ page }) => {
  await openPlayground(page, ORIGIN);
  await openSources(page);
  await expect(page.getByTestId('sources-panel')).toContainText('No MCP servers or OpenAPI documents yet');

  // the demo MCP server by stdio: the exact command line is shown before anything runs
  await page.getByTestId('source-kind').selectOption('mcp-stdio');
  await page.getByTestId('source-name').fill('demo');
  await page.getByTestId('source-command').fill('node');
  await page.getByTestId('source-args').fill(DEMO_MCP);
  await page.getByTestId('source-add').click();
  await expect(page.getByTestId('source-command-line')).toHaveText(`node ${DEMO_MCP}`);
  await expect(row(page, 'demo')).toHaveCount(0);
  await page.getByTestId('source-confirm-run').click();
  await expect(row(page, 'demo')).toHaveAttribute('data-state', 'connected');
  await expect(row(page, 'demo').getByTestId('source-state')).toHaveText(/^connected with \d+ tools$/);

  // the shipped OpenAPI document, uploaded, calling the inventory server
  await page.getByTestId('source-kind').selectOption('openapi');
  await page.getByTestId('source-name').fill('inventory');
  await page.getByTestId('source-file').setInputFiles(INVENTORY_YAML);
  await page.getByTestId('source-base-url').fill(inventory.url);
  await page.getByTestId('source-add').click();
  await expect(row(page, 'inventory')).toHaveAttribute('data-state', 'connected');
  await expect(row(page, 'inventory').getByTestId('source-state')).toHaveText('connected with 5 tools');

  // the catalog (and the editor's declarations) follow at once; a cell of the new turn calls both
  await expect(page.locator('[data-testid="catalog-tool"][data-name="listItems"]')).toHaveCount(1);
  await expect(page.getByTestId('run-button')).toBeEnabled();
  const status = await runCell(
    page,
    'const sum = await MCP.demo.add({ a: 2, b: 3 });\nconst items = await listItems({ category: "tools" });\nreturn { sum: sum.structuredContent.sum, item: items[0].name };',
  );
  expect(status).toBe('completed');
  await expect(page.getByTestId('result-panel')).toContainText('Hammer');
  expect(inventory.requests.some((r) => r.path === '/items?category=tools')).toBe(true);

  // save both to the config file (the previous one kept as .bak)
  await row(page, 'demo').getByTestId('source-save').click();
  await expect(page.getByTestId('source-notice')).toContainText(`saved "demo" to ${configFile}`);
  await row(page, 'inventory').getByTestId('source-save').click();
  await expect(page.getByTestId('source-notice')).toContainText(`saved "inventory" to ${configFile}`);
  const saved = JSON.parse(readFileSync(configFile, 'utf8')) as { mcp: { servers: Record<string, unknown> }; sources: { openapi: Record<string, unknown> } };
  expect(saved.mcp.servers['demo']).toEqual({ command: 'node', args: [DEMO_MCP] });
  expect(saved.sources.openapi['inventory']).toEqual({ document: 'sources/inventory.openapi.yaml', baseUrl: inventory.url });
  expect(JSON.parse(readFileSync(`${configFile}.bak`, 'utf8'))).not.toHaveProperty('sources');

  // restart: both come back from the config file
  await playground.stop();
  await playground.start();
  await openPlayground(page, ORIGIN);
  await openSources(page);
  await expect(row(page, 'demo')).toHaveAttribute('data-state', 'connected');
  await expect(row(page, 'inventory')).toHaveAttribute('data-state', 'connected');
  await expect(row(page, 'demo')).toContainText('in config');
  await expect(row(page, 'inventory')).toContainText('in config');

  // the Test plan tab: 16 verdicts against this catalog
  await page.getByTestId('tab-testplan').click();
  await page.getByTestId('testplan-run').click();
  await expect(page.getByTestId('plan-step')).toHaveCount(16, { timeout: 240_000 });
  await expect(page.locator('[data-testid="plan-step"][data-verdict="fail"]')).toHaveCount(0);
  await expect(page.locator('[data-testid="plan-step"][data-step="10"]')).toHaveAttribute('data-verdict', 'pass');
  await expect(page.locator('[data-testid="plan-step"][data-step="11"] [data-testid="plan-step-detail"]')).toHaveText(/^not applicable: add a denied tool/);
  await expect(page.getByTestId('testplan-summary')).toHaveText(/^15 passed, 0 failed, 1 not applicable/);
  // a step's trajectory link selects its run
  await page.locator('[data-testid="plan-step"][data-step="16"] [data-testid="plan-step-run"]').click();
  await expect(page.getByTestId('tab-trajectory')).toHaveAttribute('aria-selected', 'true');
});

test("GitHub's whole REST API by path from the Sources tab: grouped as an OpenAPI source, a cell calls it against the loopback fixture", async ({ page }, testInfo) => {
  const github = await startGitHubFixture();
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await openPlayground(page, ORIGIN);
    await openSources(page);
    await page.getByTestId('source-kind').selectOption('openapi');
    await page.getByTestId('source-name').fill('github');
    await page.getByTestId('source-document-url').fill(GITHUB_DOCUMENT);
    await page.getByTestId('source-base-url').fill(github.url);
    await page.getByTestId('source-add').click();
    await expect(row(page, 'github')).toHaveAttribute('data-state', 'connected');
    await expect(row(page, 'github').getByTestId('source-state')).toHaveText(/^connected with 1\d{3} tools$/);

    // the catalog groups its tools as what they are, and the next turn's cell calls one against the fixture
    await expect(page.getByTestId('catalog-source-openapi')).toContainText('OpenAPI sources');
    await expect(page.locator('[data-testid="catalog-tool"][data-name="issues/create"]')).toHaveCount(1);
    await expect(page.getByTestId('run-button')).toBeEnabled();
    const status = await runCell(
      page,
      'const issue = await issues_create({ owner: "octo-org", repo: "demo", body: { title: "Filed from a cell" } });\nconst open = await issues_list_for_repo({ owner: "octo-org", repo: "demo" });\nreturn { created: issue.number, titles: open.map((i) => i.title) };',
    );
    expect(status).toBe('completed');
    await expect(page.getByTestId('result-panel')).toContainText('Filed from a cell');
    expect(github.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /repos/octo-org/demo/issues', 'GET /repos/octo-org/demo/issues']);
    // docs/sources.md shows this state: the file there is rewritten only when asked (UPDATE_SCREENSHOTS=1), so a test
    // run leaves the working tree as it found it; otherwise the picture goes with the test's output
    const shot = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs/screenshots/sources-github.png') : testInfo.outputPath('sources-github.png');
    await page.screenshot({ path: shot });
    await row(page, 'github').getByTestId('source-remove').click();
    await expect(row(page, 'github')).toHaveCount(0);
  } finally {
    await github.close();
  }
});
