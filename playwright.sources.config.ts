// Playwright for e2e/sources.spec.ts: the spec starts, saves the config of, and restarts its own playground
// (ports E2E_PORT_BASE+2 and +3), so it has no webServer here and runs apart from playwright.config.ts.
import { defineConfig } from '@playwright/test';
import base from './playwright.config.ts';

export default defineConfig({
  ...base,
  testMatch: 'sources.spec.ts',
  testIgnore: [],
  webServer: undefined,
  outputDir: 'e2e-artifacts/sources-results',
  reporter: [['list'], ['html', { outputFolder: 'e2e-artifacts/sources-report', open: 'never' }]],
  // the test plan runs 16 steps with real cells, beside a loaded machine
  timeout: 300_000,
});
