// Durable runs as the client comes back: after a restart (or on another Gateway on the database) it joins its session with its session token, and its restored run and later cells call the turn's client tools.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionsConfig } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import type { Gateway } from '../gateway.ts';
import { createExecutor } from '../guest/testing.ts';
import { integerColumn } from '../sessions/database.ts';
import { openSessionDatabase } from '../sessions/db.ts';
import { freshSchema } from '../sessions/postgres.testing.ts';
import { expectCompleted, expectWaiting, until } from '../testing.ts';
import { createEdgeState } from '../trpc/context.ts';
import { callerFor, clientAccess, clientOwner, rejection, type RouterCaller } from '../trpc/testing.ts';
import { ASK, ASK_THEN_PARK, PARK_THEN_ASK, SESSION_ID, type Parked } from './durable-rejoin.testing.ts';
import { durableGateway, newSnapshotKey } from './durable-runs.testing.ts';
import { firstLineThenKill } from './child-gateway.testing.ts';

/** An exec or wait answers `waiting` with the client call pending once its budget ends: a short one, so the test does not sit out the default. */
const FAST = { timeoutMs: 2_000 };
/** A child Gateway starts (tsx, the executor, the database), parks and is killed: a limit for a hung child on a loaded machine, not a timing. */
const CHILD_GATEWAY_TEST_MS = 180_000;
const CHILD = fileURLToPath(new URL('./fixtures/rejoin-park-child.ts', import.meta.url));

/** The API as the client with key "rejoin" calls it on `gw`. */
function clientOf(gw: Gateway): RouterCaller {
  return callerFor(gw, clientAccess(clientOwner('rejoin')), createEdgeState(gw.config.server));
}

/** Over the API on `gw`: a turn with the client tool in SESSION_ID, and PARK_THEN_ASK parked in it. */
async function parkOn(gw: Gateway): Promise<Parked> {
  const api = clientOf(gw);
  const turn = await api.turns.prepare({ sessionId: SESSION_ID, clientTools: [ASK] });
  const w = expectWaiting(await api.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: PARK_THEN_ASK } }));
  return { agentRunId: turn.agentRunId, turnToken: turn.turnToken, sessionToken: turn.sessionToken, runId: w.runId };
}

/** The pending client call of `runId` on `gw`, once it is there. */
async function clientCallOf(gw: Gateway, runId: string): Promise<{ callId: string; tool: string; input: unknown }> {
  await until(() => (gw.run(runId)?.clientCalls.length ?? 0) > 0, { what: `a client call of run ${runId}` });
  return gw.run(runId)!.clientCalls[0]!;
}

/**
 * On `gw` (a restarted Gateway, or another on the database), as the client holding `parked`'s tokens: it joins its
 * session with its session token (a wrong or missing one refused), waits on its run with its turn token, and answers
 * the client-tool call the restored run makes; then a new cell of the turn calls the client tool too.
 */
async function comeBack(gw: Gateway, parked: Parked): Promise<void> {
  const api = clientOf(gw);
  // the turn token opens its session's reads, as before: this Gateway finds it among the stored digests
  expect((await api.sessions.transcript({ sessionId: SESSION_ID, turnToken: parked.turnToken })).total).toBeGreaterThan(0);
  expect((await rejection(api.sessions.store({ sessionId: SESSION_ID, turnToken: `tt_${'y'.repeat(43)}` }))).code).toBe('UNAUTHORIZED');
  const wrong = await rejection(api.turns.prepare({ sessionId: SESSION_ID, sessionToken: `st_${'x'.repeat(43)}` }));
  expect(wrong.code).toBe('FORBIDDEN');
  expect(wrong.message).toContain(`the sessionToken given does not open session ${SESSION_ID}`);
  const missing = await rejection(api.turns.prepare({ sessionId: SESSION_ID }));
  expect(missing.code).toBe('UNAUTHORIZED');
  expect(missing.message).toContain('needs its sessionToken');
  // a turn token is not the session's token either
  expect((await rejection(api.turns.prepare({ sessionId: SESSION_ID, sessionToken: parked.turnToken }))).code).toBe('FORBIDDEN');

  const joined = await api.turns.prepare({ sessionId: SESSION_ID, sessionToken: parked.sessionToken });
  expect(joined.sessionId).toBe(SESSION_ID);
  // the session keeps its token: the one the client holds is handed back, not a new one
  expect(joined.sessionToken).toBe(parked.sessionToken);
  expect(expectCompleted(await api.exec({ agentRunId: joined.agentRunId, turnToken: joined.turnToken, input: { code: 'return 41 + 1' } })).value).toBe(42);
  // the session's reads open with it too
  expect((await api.sessions.transcript({ sessionId: SESSION_ID, sessionToken: parked.sessionToken })).total).toBeGreaterThan(0);

  // the run parked before: restored by the wait, it calls the client tool, and the client answers
  expectWaiting(await api.wait({ agentRunId: parked.agentRunId, turnToken: parked.turnToken, runId: parked.runId }));
  const call = await clientCallOf(gw, parked.runId);
  expect(call).toMatchObject({ tool: 'ask_user', input: { q: 'colour?' } });
  await api.answerClientCall({ runId: parked.runId, callId: call.callId, turnToken: parked.turnToken, result: 'teal' });
  expect(expectCompleted(await api.wait({ agentRunId: parked.agentRunId, turnToken: parked.turnToken, runId: parked.runId })).value).toEqual({ answer: 'teal' });

  // a later cell of the turn opened again has the client tool as well
  const later = expectWaiting(await api.exec({ agentRunId: parked.agentRunId, turnToken: parked.turnToken, input: { code: 'return await ask_user({ q: "again?" })' } }));
  const again = await clientCallOf(gw, later.runId);
  await api.answerClientCall({ runId: later.runId, callId: again.callId, turnToken: parked.turnToken, result: 'yes' });
  expect(expectCompleted(await api.wait({ agentRunId: parked.agentRunId, turnToken: parked.turnToken, runId: later.runId })).value).toBe('yes');
}

/** The stored session token's expiry (ms since the epoch), set to `to` first when given. */
async function sessionTokenExpiry(sessions: SessionsConfig, to?: number): Promise<number | undefined> {
  const db = openSessionDatabase(sessions);
  try {
    if (to !== undefined) await db.run("UPDATE access_tokens SET expires_at = ? WHERE kind = 'session'", [to]);
    const [row] = await db.all("SELECT expires_at FROM access_tokens WHERE kind = 'session'", []);
    return integerColumn(row?.expires_at);
  } finally {
    await db.close();
  }
}

describe('durable runs: the client comes back with the tokens it holds (its session, its run, its client tools)', () => {
  let executor: Executor;
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    executor = await createExecutor('quickjs');
    dir = mkdtempSync(join(tmpdir(), 'codemode-rejoin-'));
  });
  afterAll(async () => {
    await executor.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A run parked over the API by a Gateway on a fresh SQLite file, which then closed (a graceful restart keeps its rows). */
  async function parkedAndClosed(key: string): Promise<{ sessions: SessionsConfig; parked: Parked }> {
    const sessions = { path: join(dir, `db-${++n}.db`) };
    const gw = await durableGateway(sessions, key, [], { executor, codeMode: FAST });
    try {
      return { sessions, parked: await parkOn(gw) };
    } finally {
      await gw.close();
    }
  }

  it('SQLite, after a restart: the client joins its session with its session token (a wrong or missing one refused), and its restored run calls the turn\'s client tool, answered by the client', async () => {
    const key = newSnapshotKey();
    const { sessions, parked } = await parkedAndClosed(key);
    // a session token an hour from its expiry (past the parked runs' TTL, so their parking does not move it): the turn
    // prepared in the session keeps it open for as long again as a new one
    const soon = Date.now() + 60 * 60 * 1000;
    await sessionTokenExpiry(sessions, soon);
    const gw = await durableGateway(sessions, key, [], { executor, codeMode: FAST });
    try {
      await comeBack(gw, parked);
    } finally {
      await gw.close();
    }
    expect(await sessionTokenExpiry(sessions)).toBeGreaterThan(soon);
  });

  it("SQLite, after a restart: a client call the run was waiting on is asked again under its call id, and the client's answer reaches the cell (not unknown_outcome)", async () => {
    const key = newSnapshotKey();
    const sessions = { path: join(dir, `db-${++n}.db`) };
    const first = await durableGateway(sessions, key, [], { executor, codeMode: FAST });
    const turn = first.prepareTurn({ sessionId: 'sess_asked', clientTools: [ASK] });
    let runId: string;
    let callId: string;
    try {
      runId = expectWaiting(await first.exec(turn.agentRunId, { code: ASK_THEN_PARK })).runId;
      const asked = first.run(runId)?.clientCalls ?? [];
      expect(asked.map((c) => c.tool)).toEqual(['ask_user']);
      callId = asked[0]!.callId;
    } finally {
      await first.close();
    }
    const gw = await durableGateway(sessions, key, [], { executor, codeMode: FAST });
    try {
      // an answer before the run is restored says to wait on it first
      expect(() => gw.answerClientCall({ runId, callId, result: 'early' })).toThrow('wait on it first');
      // the wait restores the run and resumes it past its yield: it waits on the client call again, under the same id
      expectWaiting(await gw.wait(turn.agentRunId, { runId }, { turnToken: turn.turnToken }));
      expect(gw.run(runId)?.clientCalls.map((c) => ({ callId: c.callId, input: c.input }))).toEqual([{ callId, input: { q: 'colour?' } }]);
      gw.answerClientCall({ runId, callId, result: 'teal' });
      expect(expectCompleted(await gw.wait(turn.agentRunId, { runId }, { turnToken: turn.turnToken })).value).toEqual({ answer: 'teal' });
    } finally {
      await gw.close();
    }
  });

  it('SQLite, after the Gateway was killed with SIGKILL: the same, with the tokens the client held before the crash', async () => {
    const key = newSnapshotKey();
    const sessions = { path: join(dir, `db-${++n}.db`) };
    const line = await firstLineThenKill(CHILD, [JSON.stringify(sessions)], { CODEMODE_SNAPSHOT_KEY: key });
    const parked = JSON.parse(line) as Partial<Parked>;
    if (!parked.agentRunId || !parked.turnToken || !parked.sessionToken || !parked.runId) throw new Error(`the child did not park: ${line}`);
    const gw = await durableGateway(sessions, key, [], { executor, codeMode: FAST });
    try {
      await comeBack(gw, parked as Parked);
    } finally {
      await gw.close();
    }
  }, CHILD_GATEWAY_TEST_MS);

  it('SQLite, after a restart: an expired session token opens nothing (refused as a session with history and no live token)', async () => {
    const key = newSnapshotKey();
    const { sessions, parked } = await parkedAndClosed(key);
    await sessionTokenExpiry(sessions, 1);
    const gw = await durableGateway(sessions, key, [], { executor, codeMode: FAST });
    try {
      const err = await rejection(clientOf(gw).turns.prepare({ sessionId: SESSION_ID, sessionToken: parked.sessionToken }));
      expect(err.code).toBe('FORBIDDEN');
      expect(err.message).toContain(`session ${SESSION_ID} has history from before this server started and no live token`);
    } finally {
      await gw.close();
    }
  });

  it('PostgreSQL, another Gateway on the database while the first is up: the same', async () => {
    const schema = await freshSchema();
    const other = await createExecutor('quickjs');
    const key = newSnapshotKey();
    let a: Gateway | undefined;
    let b: Gateway | undefined;
    try {
      a = await durableGateway({ url: schema.url }, key, [], { executor, codeMode: FAST });
      b = await durableGateway({ url: schema.url }, key, [], { executor: other, codeMode: FAST });
      await comeBack(b, await parkOn(a));
    } finally {
      await Promise.all([a?.close(), b?.close()]);
      await other.close();
      await schema.drop();
    }
  });
});
