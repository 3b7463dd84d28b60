// Durable runs on the board: a run view says where its snapshot lives, runs.list lists the rows of earlier processes, and the operator resumes one without a turn token.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionsConfig } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import { createExecutor } from '../guest/testing.ts';
import { expectCompleted, expectFailed, expectWaiting, testGateway } from '../testing.ts';
import { createEdgeState } from '../trpc/context.ts';
import { callerFor, clientAccess, clientOwner, OPERATOR } from '../trpc/testing.ts';
import { durableGateway, durableTools, HELD_SECRET, newSnapshotKey, PARKING_CELL } from './durable-runs.testing.ts';

describe('durable runs on the board', () => {
  let executor: Executor;
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    executor = await createExecutor('quickjs');
    dir = mkdtempSync(join(tmpdir(), 'codemode-durable-board-'));
  });
  afterAll(async () => {
    await executor.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a waiting run view says where its snapshot lives: memory without runs.durable, store with it; a settled run says nothing', async () => {
    const inMemory = await testGateway({ executor, codeMode: { executor: 'quickjs' } });
    const turn = inMemory.prepareTurn({});
    const parked = expectWaiting(await inMemory.exec(turn.agentRunId, { code: 'await yield_control("x"); return 1' }));
    expect(inMemory.run(parked.runId)?.snapshotIn).toBe('memory');
    expect(inMemory.runs().find((r) => r.runId === parked.runId)?.snapshotIn).toBe('memory');
    expectCompleted(await inMemory.wait(turn.agentRunId, { runId: parked.runId }));
    expect(inMemory.run(parked.runId)?.snapshotIn).toBeUndefined();
    expect(await inMemory.storedRuns()).toEqual([]);

    const durable = await durableGateway({ path: join(dir, `db-${++n}.db`) }, newSnapshotKey(), durableTools('answer'), { executor });
    try {
      const t = durable.prepareTurn({});
      const w = expectWaiting(await durable.exec(t.agentRunId, { code: 'await yield_control("x"); return 2' }));
      expect(durable.run(w.runId)?.snapshotIn).toBe('store');
      // a run this process holds is not listed again from its row
      expect(await durable.storedRuns()).toEqual([]);
    } finally {
      await durable.close();
    }
  });

  it('a live worker continuation (node) is `live`', async () => {
    const gw = await testGateway({ codeMode: { executor: 'node' } });
    const turn = gw.prepareTurn({});
    const w = expectWaiting(await gw.exec(turn.agentRunId, { code: 'await yield_control("x"); return 3' }));
    expect(gw.run(w.runId)?.snapshotIn).toBe('live');
    expectCompleted(await gw.wait(turn.agentRunId, { runId: w.runId }));
  });

  /** A run a client parked over the API on a durable Gateway that then closed (a restart keeps its rows). */
  async function parkedByClient(key: string): Promise<{ sessions: SessionsConfig; agentRunId: string; turnToken: string; runId: string }> {
    const sessions = { path: join(dir, `db-${++n}.db`) };
    const gw = await durableGateway(sessions, key, durableTools('hang'), { executor });
    try {
      const api = callerFor(gw, clientAccess(clientOwner('parker')), createEdgeState(gw.config.server));
      const turn = await api.turns.prepare({});
      const w = expectWaiting(await api.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: PARKING_CELL } }));
      return { sessions, agentRunId: turn.agentRunId, turnToken: turn.turnToken, runId: w.runId };
    } finally {
      await gw.close();
    }
  }

  it('after a restart: runs.list gives the operator the row (metadata only, store, not resumed); a client without the token sees nothing and cannot wait; the operator waits without a token and the run completes', async () => {
    const key = newSnapshotKey();
    const parked = await parkedByClient(key);
    const gw = await durableGateway(parked.sessions, key, durableTools('answer'), { executor });
    try {
      const operator = callerFor(gw, OPERATOR, createEdgeState(gw.config.server));
      const stranger = callerFor(gw, clientAccess(clientOwner('stranger')), createEdgeState(gw.config.server));
      const listed = (await operator.runs.list()).find((r) => r.runId === parked.runId);
      expect(listed).toMatchObject({ agentRunId: parked.agentRunId, agentId: 'main', state: 'waiting', executor: 'quickjs', snapshotIn: 'store', code: '', pendingToolCalls: [] });
      expect(listed?.durableRow).toMatchObject({ state: 'parked', parkedBy: expect.any(String) });
      expect(listed?.durableRow?.snapshotStoredBytes).toBeGreaterThan(0);
      expect(listed?.expiresAt).toBeGreaterThan(Date.now());
      // a list never opens the sealed row: nothing the cell held is in it
      expect(JSON.stringify(listed)).not.toContain(HELD_SECRET);
      expect((await stranger.runs.list()).map((r) => r.runId)).not.toContain(parked.runId);

      // the trust is the operator's only: another client without the turn token still gets "unknown agent run"
      expect(expectFailed(await stranger.wait({ agentRunId: parked.agentRunId, runId: parked.runId }), 'invalid_input').error).toContain('unknown agent run');
      expect((await operator.runs.list()).find((r) => r.runId === parked.runId)?.durableRow).toBeDefined();

      const done = expectCompleted(await operator.wait({ agentRunId: parked.agentRunId, runId: parked.runId }));
      expect(done.value).toMatchObject({ held: HELD_SECRET, slow: { rate: 7 }, risky: { code: 'unknown_outcome' } });
      const after = (await operator.runs.list()).find((r) => r.runId === parked.runId);
      expect(after?.state).toBe('completed');
      expect(after?.durableRow).toBeUndefined();
      expect(await gw.diagnostics.durableRuns()).toEqual([]);
      // the turn was opened from the stored digest: the client's token still opens it, and nothing else does
      expect(gw.ownership.checkTurn(parked.agentRunId, parked.turnToken)).toBe('held');
      expect(gw.ownership.checkTurn(parked.agentRunId, 'tt_not_the_token')).toBe('wrong');
    } finally {
      await gw.close();
    }
  });

  it('the operator flag is trusted only from the API edge: a gateway wait without token or operator still answers "unknown agent run", and the row stays', async () => {
    const key = newSnapshotKey();
    const parked = await parkedByClient(key);
    const gw = await durableGateway(parked.sessions, key, durableTools('answer'), { executor });
    try {
      expect(expectFailed(await gw.wait(parked.agentRunId, { runId: parked.runId }), 'invalid_input').error).toContain('unknown agent run');
      expect(await gw.storedRuns()).toHaveLength(1);
      expect(expectCompleted(await gw.wait(parked.agentRunId, { runId: parked.runId }, { operator: true })).value).toMatchObject({ held: HELD_SECRET });
      expect(await gw.storedRuns()).toEqual([]);
    } finally {
      await gw.close();
    }
  });
});
