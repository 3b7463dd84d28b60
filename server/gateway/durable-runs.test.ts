// Durable runs end to end: a Gateway parks a run (and dies: closed, or killed with SIGKILL in a child process), a new Gateway on the same database completes it through `wait` with the pre-crash turn token.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionsConfig } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import { createExecutor } from '../guest/testing.ts';
import { bytesColumn } from '../sessions/database.ts';
import { openSessionDatabase } from '../sessions/db.ts';
import { DurableRunStore } from '../sessions/durable-runs.ts';
import { MAX_SUSPENDED_RUNS } from '../runs/runs.ts';
import { freshSchema } from '../sessions/postgres.testing.ts';
import { expectCompleted, expectFailed, expectWaiting } from '../testing.ts';
import { createEdgeState } from '../trpc/context.ts';
import { callerFor, clientAccess, clientOwner } from '../trpc/testing.ts';
import { durableGateway, durableTools, HELD_SECRET, newSnapshotKey, PARKING_CELL } from './durable-runs.testing.ts';
import { firstLineThenKill } from './child-gateway.testing.ts';

const CHILD = fileURLToPath(new URL('./fixtures/durable-park-child.ts', import.meta.url));

/** What the completed cell returns after a restart: the secret it held, the lookup sent again, the transfer settled as unknown_outcome. */
function expectResumedValue(value: unknown): void {
  expect(value).toMatchObject({ held: HELD_SECRET, slow: { rate: 7 }, risky: { code: 'unknown_outcome' } });
  expect((value as { risky: { message: string } }).risky.message).toContain('outcome is unknown');
}

/** A child Gateway starts (tsx, the executor, the database), parks and is killed: a limit for a hung child on a loaded machine, not a timing. */
const CHILD_GATEWAY_TEST_MS = 180_000;

/** Parks PARKING_CELL in a child Gateway on `sessions`, kills it with SIGKILL once the run is parked, and gives its ids. */
async function parkInChildAndKill(sessions: SessionsConfig, key: string): Promise<{ agentRunId: string; turnToken: string; runId: string }> {
  const line = await firstLineThenKill(CHILD, [JSON.stringify(sessions)], { CODEMODE_SNAPSHOT_KEY: key });
  const parked = JSON.parse(line) as { agentRunId?: string; turnToken?: string; runId?: string; error?: unknown };
  if (!parked.runId || !parked.agentRunId || !parked.turnToken) throw new Error(`the child did not park: ${line}`);
  return { agentRunId: parked.agentRunId, turnToken: parked.turnToken, runId: parked.runId };
}

/** Every file of the SQLite database (the file, its WAL and shared memory) as one buffer. */
function databaseBytes(dir: string): Buffer {
  return Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
}

describe('durable runs: a parked run survives a Gateway killed with SIGKILL', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'codemode-durable-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite: the file holds no secret the cell held and no token; a new Gateway completes the run through wait with the pre-crash turn token (lookup sent again, transfer settled as unknown_outcome)', async () => {
    const key = newSnapshotKey();
    const sessions = { path: join(dir, 'sessions.db') };
    const parked = await parkInChildAndKill(sessions, key);
    const bytes = databaseBytes(dir);
    expect(bytes.includes(HELD_SECRET)).toBe(false);
    expect(bytes.includes(parked.turnToken)).toBe(false);
    // the control: the transcript keeps the cell's source in the clear, so the grep does see plain text
    expect(bytes.includes('yield_control')).toBe(true);

    const transfers = { count: 0 };
    const gw = await durableGateway(sessions, key, durableTools('answer', transfers));
    try {
      expect(await gw.diagnostics.durableRuns()).toMatchObject([{ ok: true, run: { runId: parked.runId, agentRunId: parked.agentRunId, state: 'parked' } }]);
      // without the token, or with another, the turn stays unknown here
      expectFailed(await gw.wait(parked.agentRunId, { runId: parked.runId }), 'invalid_input');
      expectFailed(await gw.wait(parked.agentRunId, { runId: parked.runId }, { turnToken: 'tt_not_the_token' }), 'invalid_input');
      const done = expectCompleted(await gw.wait(parked.agentRunId, { runId: parked.runId }, { turnToken: parked.turnToken }));
      expectResumedValue(done.value);
      expect(transfers.count).toBe(0);
      expect(await gw.diagnostics.durableRuns()).toEqual([]);
      expect(gw.diagnostics.leaks()).toEqual([]);
      // the turn is this Gateway's now: its token opens it as if issued here
      expect(gw.ownership.checkTurn(parked.agentRunId, parked.turnToken)).toBe('held');
    } finally {
      await gw.close();
    }
  }, CHILD_GATEWAY_TEST_MS);

  it('PostgreSQL: the same, on the suite cluster', async () => {
    const schema = await freshSchema();
    try {
      const key = newSnapshotKey();
      const sessions = { url: schema.url };
      const parked = await parkInChildAndKill(sessions, key);
      const gw = await durableGateway(sessions, key, durableTools('answer'));
      try {
        const done = expectCompleted(await gw.wait(parked.agentRunId, { runId: parked.runId }, { turnToken: parked.turnToken }));
        expectResumedValue(done.value);
        expect(await gw.diagnostics.durableRuns()).toEqual([]);
      } finally {
        await gw.close();
      }
    } finally {
      await schema.drop();
    }
  }, CHILD_GATEWAY_TEST_MS);
});

describe('durable runs: rows follow the run, and a row that cannot be used is refused clearly', () => {
  let executor: Executor;
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    executor = await createExecutor('quickjs');
    dir = mkdtempSync(join(tmpdir(), 'codemode-durable-'));
  });
  afterAll(async () => {
    await executor.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A run parked by a Gateway that closed (a graceful restart keeps its rows), on a fresh database file. */
  async function parkedAndClosed(key: string): Promise<{ sessions: SessionsConfig; agentRunId: string; turnToken: string; runId: string }> {
    const sessions = { path: join(dir, `db-${++n}.db`) };
    const gw = await durableGateway(sessions, key, durableTools('hang'), { executor });
    try {
      const turn = gw.prepareTurn({ sessionId: `durable-${n}` });
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: PARKING_CELL }));
      expect(await gw.diagnostics.durableRuns()).toHaveLength(1);
      return { sessions, agentRunId: turn.agentRunId, turnToken: turn.turnToken, runId: w.runId };
    } finally {
      await gw.close();
    }
  }

  async function rowCount(sessions: SessionsConfig): Promise<number> {
    const db = openSessionDatabase(sessions);
    try {
      return (await db.all('SELECT run_id FROM durable_runs', [])).length;
    } finally {
      await db.close();
    }
  }

  async function updateRow(sessions: SessionsConfig, sql: string, params: Array<string | number | Uint8Array>): Promise<void> {
    const db = openSessionDatabase(sessions);
    try {
      await db.run(sql, params);
    } finally {
      await db.close();
    }
  }

  it('in one process: parked, resumed by wait (row claimed), parked again (row rewritten), completed (row deleted)', async () => {
    const key = newSnapshotKey();
    const gw = await durableGateway({ path: join(dir, `db-${++n}.db`) }, key, durableTools('answer'), { executor });
    try {
      const turn = gw.prepareTurn({});
      const code = 'const a = await lookup({ q: "a" }); await yield_control("one"); await yield_control("two"); return a.rate';
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code }));
      const [first] = await gw.diagnostics.durableRuns();
      expect(first).toMatchObject({ ok: true, run: { runId: w.runId, state: 'parked', fence: 0 } });
      expectWaiting(await gw.wait(turn.agentRunId, { runId: w.runId }));
      const [second] = await gw.diagnostics.durableRuns();
      expect(second).toMatchObject({ ok: true, run: { runId: w.runId, state: 'parked' } });
      expect(second?.ok && second.run.fence).toBeGreaterThan(0);
      expect(expectCompleted(await gw.wait(turn.agentRunId, { runId: w.runId })).value).toBe(7);
      expect(await gw.diagnostics.durableRuns()).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('an aborted run: its row is deleted (the Gateway closing first finishes its row writes)', async () => {
    const sessions = { path: join(dir, `db-${++n}.db`) };
    const gw = await durableGateway(sessions, newSnapshotKey(), durableTools('answer'), { executor });
    try {
      const turn = gw.prepareTurn({});
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: 'await yield_control("x"); return 1' }));
      expect(await gw.diagnostics.durableRuns()).toHaveLength(1);
      expect(gw.abortRun(w.runId)).toBe(true);
    } finally {
      await gw.close();
    }
    expect(await rowCount(sessions)).toBe(0);
  });

  it('after a graceful restart: the run completes on the new Gateway with the turn token', async () => {
    const key = newSnapshotKey();
    const parked = await parkedAndClosed(key);
    const gw = await durableGateway(parked.sessions, key, durableTools('answer'), { executor });
    try {
      expectResumedValue(expectCompleted(await gw.wait(parked.agentRunId, { runId: parked.runId }, { turnToken: parked.turnToken })).value);
    } finally {
      await gw.close();
    }
  });

  it('over the API: the client that parked the run waits on it after the restart with its turn token; a caller without it, or with another turn\'s, gets "unknown agent run"', async () => {
    const key = newSnapshotKey();
    const sessions = { path: join(dir, `db-${++n}.db`) };
    const access = clientAccess(clientOwner('durable'));
    const first = await durableGateway(sessions, key, durableTools('hang'), { executor });
    let parked: { agentRunId: string; turnToken: string; runId: string };
    let otherToken: string;
    try {
      const api = callerFor(first, access, createEdgeState(first.config.server));
      const turn = await api.turns.prepare({});
      otherToken = (await api.turns.prepare({})).turnToken;
      const w = expectWaiting(await api.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: PARKING_CELL } }));
      parked = { agentRunId: turn.agentRunId, turnToken: turn.turnToken, runId: w.runId };
    } finally {
      await first.close();
    }
    const gw = await durableGateway(sessions, key, durableTools('answer'), { executor });
    try {
      const api = callerFor(gw, access, createEdgeState(gw.config.server));
      const anonymous = callerFor(gw, clientAccess(clientOwner('stranger')), createEdgeState(gw.config.server));
      expect(expectFailed(await anonymous.wait({ agentRunId: parked.agentRunId, runId: parked.runId }), 'invalid_input').error).toContain('unknown agent run');
      expectFailed(await anonymous.wait({ agentRunId: parked.agentRunId, runId: parked.runId, turnToken: otherToken }), 'invalid_input');
      expectResumedValue(expectCompleted(await api.wait({ agentRunId: parked.agentRunId, turnToken: parked.turnToken, runId: parked.runId })).value);
    } finally {
      await gw.close();
    }
  });

  it('a tampered row: a failed result saying it failed authentication, never a throw; the row is removed', async () => {
    const key = newSnapshotKey();
    const parked = await parkedAndClosed(key);
    const db = openSessionDatabase(parked.sessions);
    let sealed: Uint8Array | undefined;
    try {
      const [row] = await db.all('SELECT sealed FROM durable_runs WHERE run_id = ?', [parked.runId]);
      sealed = bytesColumn(row?.sealed);
    } finally {
      await db.close();
    }
    if (!sealed) throw new Error('no sealed row');
    const tampered = new Uint8Array(sealed);
    tampered[tampered.length - 40] = (tampered[tampered.length - 40] ?? 0) ^ 1;
    await updateRow(parked.sessions, 'UPDATE durable_runs SET sealed = ? WHERE run_id = ?', [tampered, parked.runId]);
    const gw = await durableGateway(parked.sessions, key, durableTools('answer'), { executor });
    try {
      const r = expectFailed(await gw.wait(parked.agentRunId, { runId: parked.runId }, { turnToken: parked.turnToken }), 'runtime_unavailable');
      expect(r.error).toContain(`the stored snapshot of run "${parked.runId}" failed authentication`);
      expect(await gw.diagnostics.durableRuns()).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('another snapshot key: refused naming both key ids; the row is kept for a Gateway with the right key', async () => {
    const parked = await parkedAndClosed(newSnapshotKey());
    const gw = await durableGateway(parked.sessions, newSnapshotKey(), durableTools('answer'), { executor });
    try {
      const r = expectFailed(await gw.wait(parked.agentRunId, { runId: parked.runId }, { turnToken: parked.turnToken }), 'runtime_unavailable');
      expect(r.error).toMatch(/was sealed with snapshot key [0-9a-f]{16}, but CODEMODE_SNAPSHOT_KEY here is key [0-9a-f]{16}/);
      expect(await gw.diagnostics.durableRuns()).toMatchObject([{ ok: true, run: { runId: parked.runId, state: 'parked' } }]);
    } finally {
      await gw.close();
    }
  });

  it('another base image: refused naming both images; the row is kept', async () => {
    const key = newSnapshotKey();
    const parked = await parkedAndClosed(key);
    const { QuickJsExecutor } = await import('../executors/quickjs/executor.ts');
    const other = new QuickJsExecutor({ workers: 1, preludePrefix: 'globalThis.__other_base = 1;' });
    const gw = await durableGateway(parked.sessions, key, durableTools('answer'), { executor: other });
    try {
      const r = expectFailed(await gw.wait(parked.agentRunId, { runId: parked.runId }, { turnToken: parked.turnToken }), 'runtime_unavailable');
      expect(r.error).toContain(`but this Gateway runs base image ${other.baseImageId}`);
      expect(await gw.diagnostics.durableRuns()).toHaveLength(1);
    } finally {
      await gw.close();
      await other.close();
    }
  });

  it('maxSnapshotBytes holds across a restart: a Gateway whose limit the stored snapshot is over refuses it naming both sizes', async () => {
    const key = newSnapshotKey();
    const parked = await parkedAndClosed(key);
    const gw = await durableGateway(parked.sessions, key, durableTools('answer'), { executor, codeMode: { maxSnapshotBytes: 1024 } });
    try {
      const r = expectFailed(await gw.wait(parked.agentRunId, { runId: parked.runId }, { turnToken: parked.turnToken }), 'snapshot_limit_exceeded');
      expect(r.error).toMatch(/is \d+ bytes, over this Gateway's maxSnapshotBytes \(1024\)/);
    } finally {
      await gw.close();
    }
  });

  it(`the suspended-run cap counts the rows of earlier processes: with ${MAX_SUSPENDED_RUNS} rows parked, a new run fails with the spec message and does not wait`, async () => {
    const sessions = { path: join(dir, `db-${++n}.db`) };
    const db = openSessionDatabase(sessions);
    try {
      const store = new DurableRunStore(db);
      for (let i = 0; i < MAX_SUSPENDED_RUNS; i++) {
        const id = `run_earlier_${i}`;
        await store.park({ runId: id, sessionId: 's', agentRunId: `ar_earlier_${i}`, ownerId: 'local', baseImageId: 'quickjs-wasi@0+0', sealed: new Uint8Array([1]), snapshotRawBytes: 1, snapshotStoredBytes: 1, expiresAt: Date.now() + 3_600_000, parkedBy: 'gw_earlier' });
      }
    } finally {
      await db.close();
    }
    const gw = await durableGateway(sessions, newSnapshotKey(), durableTools('answer'), { executor });
    try {
      const turn = gw.prepareTurn({});
      const r = expectFailed(await gw.exec(turn.agentRunId, { code: 'await yield_control("x"); return 1' }), 'runtime_unavailable');
      expect(r.error).toContain('too many suspended code mode runs.');
      expect(r.error).toContain(`the limit of ${MAX_SUSPENDED_RUNS} across every Gateway on it and across restarts`);
      expect(gw.runs().filter((v) => v.state === 'waiting')).toEqual([]);
      expect(await gw.diagnostics.durableRuns()).toHaveLength(MAX_SUSPENDED_RUNS);
      expect(gw.diagnostics.leaks()).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('a run whose TTL passed while the Gateway was down: answers as expired, and its row is deleted', async () => {
    const key = newSnapshotKey();
    const parked = await parkedAndClosed(key);
    await updateRow(parked.sessions, 'UPDATE durable_runs SET expires_at = ? WHERE run_id = ?', [1, parked.runId]);
    const gw = await durableGateway(parked.sessions, key, durableTools('answer'), { executor });
    try {
      const r = expectFailed(await gw.wait(parked.agentRunId, { runId: parked.runId }, { turnToken: parked.turnToken }), 'timeout');
      expect(r.error).toContain(`run ${parked.runId} expired`);
      expect(await gw.diagnostics.durableRuns()).toEqual([]);
    } finally {
      await gw.close();
    }
  });
});
