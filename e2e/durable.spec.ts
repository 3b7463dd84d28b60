// Durable runs on the page: a run parked with runs.durable on a SQLite file shows "store" on its card, survives a
// restart of the playground on the board (restored from store, not yet resumed), and the page's Wait resumes it to its
// value without a turn token (the page is the operator). A run another Gateway process on the same file holds is on the
// board with a chip naming that Gateway; once that Gateway is killed, its card turns into the durable row any Gateway
// can resume, and Abort ends it from its row; a client call of another Gateway's run answered on this page is forwarded to it and completes
// the run there. The spec starts and restarts its own playground: run it with
// `playwright test -c playwright.sources.config.ts e2e/durable.spec.ts`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { openPlayground, panelShot, resultRunId, resultValue, runCell, settle, waitingRun } from './helpers.ts';
import { OwnPlayground } from './own-playground.ts';
import { E2E_SOURCES_PORT } from './ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const ORIGIN = `http://127.0.0.1:${E2E_SOURCES_PORT}`;
/** One key for both starts: the second must open the rows the first sealed. */
const SNAPSHOT_KEY = randomBytes(32).toString('base64');

let dir: string;
let configFile: string;

const playground = new OwnPlayground(() => configFile, { env: { CODEMODE_SNAPSHOT_KEY: SNAPSHOT_KEY }, readyTimeoutMs: 300_000 });

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
  await playground.start();
});

test.afterAll(async () => {
  await playground.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a durable run parked before a restart is on the board as "store", and Wait resumes it to its value', async ({ page }, testInfo) => {
  await openPlayground(page, ORIGIN);
  expect(await runCell(page, 'const before = 40;\nawait yield_control("park across a restart");\nreturn before + 2;')).toBe('waiting');
  const runId = await resultRunId(page);
  const card = waitingRun(page, runId);
  await expect(card.getByTestId('waiting-snapshot-in')).toHaveText('store');
  await expect(card.getByTestId('waiting-snapshot-in')).toHaveAttribute('title', /session database/);

  await playground.stop();
  await playground.start();
  await openPlayground(page, ORIGIN);

  // the page's new turn is not the run's: the row is listed anyway, from its metadata only
  const restored = waitingRun(page, runId);
  await expect(restored.getByTestId('waiting-snapshot-in')).toHaveText('store');
  await expect(restored.getByTestId('waiting-summary')).toHaveText('restored from store · not yet resumed');
  await expect(restored.getByTestId('waiting-snapshot-bytes')).toHaveText(/\d/);
  await expect(restored.getByTestId('abort-button')).toHaveCount(1);
  await restored.getByTestId('waiting-run-toggle').click();
  await expect(restored.getByTestId('waiting-durable-row')).toContainText('Wait restores it here');
  await panelShot(page, 'waiting-board', 'durable-restored-card', testInfo);

  // the page is the operator: its Wait needs no turn token
  expect(await settle(page, () => restored.getByTestId('wait-button').click())).toBe('completed');
  expect(await resultValue(page)).toBe(42);
  await expect(waitingRun(page, runId)).toHaveCount(0);
});

test("another Gateway's waiting run is on the board with a chip naming it; killed, its run stays as a durable row, and Abort ends it from its row", async ({ page }, testInfo) => {
  // a second Gateway process on the same database file and key (the crash tests' child): it parks one run and stays up
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/gateway/fixtures/multi-park-child.ts'), JSON.stringify({ path: join(dir, 'sessions.db') }), '1'], {
    cwd: ROOT,
    env: { ...process.env, CODEMODE_SNAPSHOT_KEY: SNAPSHOT_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((done) => child.once('exit', done));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.once('exit', (code) => reject(new Error(`the other Gateway exited (${code}) before parking: ${out}`)));
    });
    const parked = JSON.parse(line) as { instanceId: string; runs: Array<{ runId: string }> };
    const runId = parked.runs[0]?.runId ?? '';

    await openPlayground(page, ORIGIN);
    const card = waitingRun(page, runId);
    // listed from the run view the other Gateway published (sealed with the shared key): its pending calls are shown
    await expect(card.getByTestId('waiting-held-by')).toHaveAttribute('data-gateway', parked.instanceId);
    // its Abort would be forwarded to that Gateway (a sealed request): the page may act on another Gateway's run
    await expect(card.getByTestId('abort-button')).toHaveCount(1);
    await card.getByTestId('waiting-run-toggle').click();
    await expect(card.getByTestId('waiting-held-by-note')).toContainText(`held by Gateway ${parked.instanceId}`);
    await expect(card.getByTestId('pending-call')).toHaveCount(2);
    await panelShot(page, 'waiting-board', 'held-by-another-gateway', testInfo);

    // killed without closing: presence tells it gone, its view leaves the board without a reload, its durable row stays
    child.kill('SIGKILL');
    await exited;
    await expect(card.getByTestId('waiting-held-by')).toHaveCount(0);
    await expect(card.getByTestId('waiting-summary')).toHaveText('restored from store · not yet resumed');
    // no Gateway holds it live: Abort claims its row and deletes it, and the card leaves the board
    await card.getByTestId('abort-button').click();
    await expect(card).toHaveCount(0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
});

test("a client call of another Gateway's run, answered on this page, is forwarded to that Gateway and completes the run there", async ({ page }) => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/gateway/fixtures/ask-child.ts'), JSON.stringify({ path: join(dir, 'sessions.db') })], {
    cwd: ROOT,
    env: { ...process.env, CODEMODE_SNAPSHOT_KEY: SNAPSHOT_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((done) => child.once('exit', done));
  const lines: string[] = [];
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (let at = out.indexOf('\n'); at !== -1; at = out.indexOf('\n')) {
      lines.push(out.slice(0, at));
      out = out.slice(at + 1);
    }
  });
  try {
    await expect.poll(() => (child.exitCode === null ? lines.length : -1), { message: 'the other Gateway parks its run' }).toBeGreaterThan(0);
    const parked = JSON.parse(lines[0] ?? '{}') as { instanceId: string; runId: string };
    await openPlayground(page, ORIGIN);
    const card = waitingRun(page, parked.runId);
    await expect(card.getByTestId('waiting-held-by')).toHaveAttribute('data-gateway', parked.instanceId);
    const call = card.getByTestId('client-call');
    await expect(call).toContainText('which colour?');
    await expect(call.getByTestId('client-call-send-wait')).toHaveCount(0);
    await call.getByTestId('client-call-input').fill('"blue"');
    await call.getByTestId('client-call-send').click();
    await expect(call).toContainText(`answered on Gateway ${parked.instanceId}`);
    // the holder resumed the run with the answer; it ended there, so it leaves this board without a reload
    await expect.poll(() => lines[1], { message: 'the other Gateway completes the run' }).toBe(JSON.stringify({ value: 'blue' }));
    await expect(card).toHaveCount(0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
});
