// Playwright: the E2E suite against the real server (npm start equivalent), with Debian's Chromium; never downloads a browser.
import { readFileSync, writeFileSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import { E2E_DISABLED_PORT, e2eGatewayPort } from './e2e/ports.ts';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * One worker by default: on the project's 2-core machine a page load and Monaco are CPU-bound, and two tests at
 * once ran slower (353 s against 201 s for the same 11 tests, the machine otherwise loaded) and one missed its
 * editor marker. E2E_WORKERS=n runs n at once, each against a Gateway of its own, for a machine with more cores.
 */
const WORKERS = Number(process.env.E2E_WORKERS ?? 1);
if (!Number.isInteger(WORKERS) || WORKERS < 1) throw new Error(`E2E_WORKERS must be a whole number from 1, got ${process.env.E2E_WORKERS}`);

const PLAYGROUND_CONFIG = 'e2e/configs/playground.json';

/**
 * The config file of worker `index`'s Gateway: worker 0 uses e2e/configs/playground.json; the others a copy of it
 * (written next to it, so its relative paths hold; git ignores it) with a session database of their own.
 */
function gatewayConfigFile(index: number): string {
  if (index === 0) return PLAYGROUND_CONFIG;
  const file = `e2e/configs/playground.worker${index}.json`;
  const config = { ...(JSON.parse(readFileSync(PLAYGROUND_CONFIG, 'utf8')) as object), sessions: { path: `data/worker${index}.db` } };
  const text = `${JSON.stringify(config, null, 2)}\n`;
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // not written yet
  }
  if (current !== text) writeFileSync(file, text);
  return file;
}

/** One Gateway per worker (e2e/fixtures.ts points each test's baseURL at its worker's), in worker order. */
const workerGateways = Array.from({ length: WORKERS }, (_, index) => ({
  // the first builds the UI when .next is missing or stale, exactly like npm start; the others reuse that build
  command: `node scripts/start.mjs --config ${gatewayConfigFile(index)}`,
  url: `http://127.0.0.1:${e2eGatewayPort(index)}/api/trpc/config.agents`,
  env: { PORT: String(e2eGatewayPort(index)), HOST: '127.0.0.1', ...(index === 0 ? {} : { CODEMODE_SKIP_BUILD: '1' }) },
  reuseExistingServer: false,
  timeout: index === 0 ? 240_000 : 60_000,
  stdout: 'pipe' as const,
  stderr: 'pipe' as const,
}));

export default defineConfig({
  testDir: 'e2e',
  // need their own server (they write a config file and restart it): playwright.sources.config.ts runs them
  testIgnore: ['sources.spec.ts', 'durable.spec.ts'],
  outputDir: 'e2e-artifacts/test-results',
  // Each worker has its own Gateway (its waiting board and runs): the tests of a file run in order on one worker.
  fullyParallel: false,
  workers: WORKERS,
  retries: 0,
  // Roomy: these are limits for a hung page, not timings; the suite must pass beside CPU-bound load, with two
  // tests at once.
  timeout: 180_000,
  expect: { timeout: 20_000 },
  reporter: [['list'], ['html', { outputFolder: 'e2e-artifacts/report', open: 'never' }]],
  use: {
    // baseURL: e2e/fixtures.ts, the Gateway of the test's worker
    viewport: { width: 1600, height: 1000 },
    // Cells are pasted into Monaco (typing goes through auto-indent and bracket auto-closing).
    permissions: ['clipboard-read', 'clipboard-write'],
    screenshot: 'only-on-failure',
    // A failed test keeps its trace (every action with the DOM before and after it) but not the screencast:
    // recording frames all along cost the suite a quarter of its E2E time (130 s against 104 s for the same two
    // files, quiet), and the failure screenshot above shows the final page.
    trace: { mode: 'retain-on-failure', screenshots: false },
    launchOptions: {
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: [
    ...workerGateways,
    {
      // A Gateway with code mode disabled (spec E2E plan steps 1-3), shared: its tests only read it; the build above is reused.
      command: 'node scripts/start.mjs --config e2e/configs/disabled.json',
      url: `http://127.0.0.1:${E2E_DISABLED_PORT}/api/trpc/config.agents`,
      env: { PORT: String(E2E_DISABLED_PORT), HOST: '127.0.0.1', CODEMODE_SKIP_BUILD: '1' },
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'pipe',
      stderr: 'pipe',
    },
  ],
});
