// Vitest: unit and integration tests next to the code; E2E lives in e2e/ (Playwright).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'bench/**/*.test.ts', 'components/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
