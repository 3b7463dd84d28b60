// Vitest: unit and integration tests next to the code; E2E lives in e2e/ (Playwright).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'bench/**/*.test.ts', 'components/**/*.test.ts', 'scripts/**/*.test.ts', 'replays/**/*.test.ts'],
    environment: 'node',
    // PostgreSQL for the run: the first test that needs it starts a throwaway cluster, removed when the run ends
    globalSetup: ['server/sessions/postgres-setup.testing.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker per core minus one: a single file at a time on a 2-core machine. The
    // suite mostly waits (worker threads starting, MCP servers spawning, runs parked), so two files at once
    // roughly halve its wall time there; no test depends on how fast a cell runs (docs/test-plan.md).
    maxWorkers: 2,
    // Each worker process keeps its module cache across test files: re-importing the Gateway, tsx and the
    // TypeScript compiler per file was a third of the suite's CPU time. Modules do keep state across files
    // (the shared grep and typecheck threads), but no test depends on state another file left: each builds its
    // own Gateways and executors and closes them in afterAll, and a test about a singleton's start runs it in a
    // child process.
    isolate: false,
  },
});
