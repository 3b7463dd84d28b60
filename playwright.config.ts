// Playwright: the E2E suite against the real server (npm start equivalent), with Debian's Chromium; never downloads a browser.
import { defineConfig } from '@playwright/test';
import { E2E_DISABLED_PORT, E2E_PORT } from './e2e/ports.ts';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e',
  // needs its own server (it writes the config file and restarts): playwright.sources.config.ts runs it
  testIgnore: ['sources.spec.ts'],
  outputDir: 'e2e-artifacts/test-results',
  // One Gateway for the suite: tests share its waiting board and runs, so they run one at a time.
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // Roomy: these are limits for a hung page, not timings; the suite must pass beside CPU-bound load.
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [['list'], ['html', { outputFolder: 'e2e-artifacts/report', open: 'never' }]],
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    viewport: { width: 1600, height: 1000 },
    // Cells are pasted into Monaco (typing goes through auto-indent and bracket auto-closing).
    permissions: ['clipboard-read', 'clipboard-write'],
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: [
    {
      // Builds the UI first when .next is missing or stale, exactly like npm start.
      command: 'node scripts/start.mjs --config e2e/configs/playground.json',
      url: `http://127.0.0.1:${E2E_PORT}/api/trpc/config.agents`,
      env: { PORT: String(E2E_PORT), HOST: '127.0.0.1' },
      reuseExistingServer: false,
      timeout: 240_000,
      stdout: 'pipe',
      stderr: 'pipe',
    },
    {
      // A second Gateway with code mode disabled (spec E2E plan steps 1-3); the build above is reused.
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
