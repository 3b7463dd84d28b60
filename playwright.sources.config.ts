// Playwright for the specs that start and restart their own playground (ports E2E_PORT_BASE+2 and +3, one spec after
// the other): e2e/sources.spec.ts (saves its config) and e2e/durable.spec.ts (durable runs across a restart). No
// webServer here; they run apart from playwright.config.ts.
import { defineConfig } from '@playwright/test';
import base from './playwright.config.ts';

export default defineConfig({
  ...base,
  testMatch: ['sources.spec.ts', 'durable.spec.ts'],
  testIgnore: [],
  webServer: undefined,
  outputDir: 'e2e-artifacts/sources-results',
  reporter: [['list'], ['html', { outputFolder: 'e2e-artifacts/sources-report', open: 'never' }]],
  // one test walks the whole flow (two playground starts, 16 plan steps with real cells): a cap for a hung page, beside a loaded machine
  timeout: 600_000,
  // a page that connects, lists its sources or renders 16 verdicts slowly on a loaded machine is not a failure
  expect: { timeout: 60_000 },
});
