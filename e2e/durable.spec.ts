// Durable runs on the page: a run parked with runs.durable on a SQLite file shows "store" on its card, survives a
// restart of the playground on the board (restored from store, not yet resumed), and the page's Wait resumes it to its
// value without a turn token (the page is the operator). The spec starts and restarts its own playground: run it with
// `playwright test -c playwright.sources.config.ts e2e/durable.spec.ts`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { openPlayground, panelShot, resultRunId, resultValue, runCell, settle, waitingRun } from './helpers.ts';
import { E2E_SOURCES_PORT } from './ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const ORIGIN = `http://127.0.0.1:${E2E_SOURCES_PORT}`;
/** One key for both starts: the second must open the rows the first sealed. */
const SNAPSHOT_KEY = randomBytes(32).toString('base64');

let dir: string;
let configFile: string;
let server: ChildProcess | undefined;

async function startPlayground(): Promise<void> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--config', configFile], {
    cwd: ROOT,
    // the first start builds the UI when the build is stale (like npm start); the restart reuses it
    env: { ...process.env, PORT: String(E2E_SOURCES_PORT), HOST: '127.0.0.1', CODEMODE_SNAPSHOT_KEY: SNAPSHOT_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = child;
  const log: string[] = [];
  child.stdout?.on('data', (c: Buffer) => log.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => log.push(c.toString()));
  // ready when the API answers (polled; the server prints nothing we could wait on more precisely)
  await expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`the playground exited (${child.exitCode}): ${log.join('')}`);
        return fetch(`${ORIGIN}/api/trpc/config.agents`).then((r) => r.status, () => 0);
      },
      { timeout: 300_000 },
    )
    .toBe(200);
}

/** A graceful stop (SIGTERM): the Gateway closing keeps its durable rows, as a deploy's restart would. */
async function stopPlayground(): Promise<void> {
  const child = server;
  server = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'codemode-e2e-durable-'));
  configFile = join(dir, 'codemode.config.json');
  writeFileSync(
    configFile,
    JSON.stringify(
      {
        tools: { codeMode: { enabled: true, executor: 'quickjs', timeoutMs: 2500, snapshotTtlSeconds: 600 } },
        runs: { durable: true },
        workspace: join(ROOT, 'demo/workspace'),
        sessions: { path: join(dir, 'sessions.db') },
      },
      null,
      2,
    ),
  );
  await startPlayground();
});

test.afterAll(async () => {
  await stopPlayground();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a durable run parked before a restart is on the board as "store", and Wait resumes it to its value', async ({ page }, testInfo) => {
  await openPlayground(page, ORIGIN);
  expect(await runCell(page, 'const before = 40;\nawait yield_control("park across a restart");\nreturn before + 2;')).toBe('waiting');
  const runId = await resultRunId(page);
  const card = waitingRun(page, runId);
  await expect(card.getByTestId('waiting-snapshot-in')).toHaveText('store');
  await expect(card.getByTestId('waiting-snapshot-in')).toHaveAttribute('title', /session database/);

  await stopPlayground();
  await startPlayground();
  await openPlayground(page, ORIGIN);

  // the page's new turn is not the run's: the row is listed anyway, from its metadata only
  const restored = waitingRun(page, runId);
  await expect(restored.getByTestId('waiting-snapshot-in')).toHaveText('store');
  await expect(restored.getByTestId('waiting-summary')).toHaveText('restored from store · not yet resumed');
  await expect(restored.getByTestId('waiting-snapshot-bytes')).toHaveText(/\d/);
  await expect(restored.getByTestId('abort-button')).toHaveCount(0);
  await restored.getByTestId('waiting-run-toggle').click();
  await expect(restored.getByTestId('waiting-durable-row')).toContainText('Wait restores it here');
  await panelShot(page, 'waiting-board', 'durable-restored-card', testInfo);

  // the page is the operator: its Wait needs no turn token
  expect(await settle(page, () => restored.getByTestId('wait-button').click())).toBe('completed');
  expect(await resultValue(page)).toBe(42);
  await expect(waitingRun(page, runId)).toHaveCount(0);
});
