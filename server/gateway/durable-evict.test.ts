// Parked durable runs need no memory: past runs.parkedInMemory a quiescent parked run is evicted once its row is written, and wait, abort, its turn's end and its TTL serve it from the row.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsConfig } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import type { Gateway } from '../gateway.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { createExecutor } from '../guest/testing.ts';
import { MAX_SLOTS_PER_TURN, MAX_SUSPENDED_RUNS } from '../runs/runs.ts';
import { openSessionDatabase } from '../sessions/db.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { expectCompleted, expectFailed, expectWaiting, until } from '../testing.ts';
import { createEdgeState } from '../trpc/context.ts';
import { callerFor, clientAccess, clientOwner } from '../trpc/testing.ts';
import { durableGateway, durableTools, newSnapshotKey } from './durable-runs.testing.ts';

const YIELD = (n: number) => `await yield_control("x");\nreturn ${n}`;

/** A tool whose reply the test releases: a run that calls it and parks is not quiescent until the reply lands. */
function gatedTool(): { tool: ToolDefinition; release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    tool: { name: 'gated', description: 'answers when the test says so', source: 'core', inputSchema: { type: 'object' }, execute: async () => (await gate, { ok: 1 }) },
    release: () => release(),
  };
}

const APPROVED: ToolDefinition = { name: 'guarded', description: 'needs the operator', source: 'core', approval: 'required', inputSchema: { type: 'object' }, execute: async () => ({ allowed: true }) };

describe('durable runs evicted to their rows (runs.parkedInMemory, runs.maxParked)', () => {
  let executor: Executor;
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    executor = await createExecutor('quickjs');
    dir = mkdtempSync(join(tmpdir(), 'codemode-evict-'));
  });
  afterAll(async () => {
    await executor.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function gateway(runs: Omit<RunsConfig, 'durable'>, tools: ToolDefinition[] = durableTools('answer'), opts: { log?: (line: string) => void } = {}): Promise<Gateway> {
    return durableGateway({ path: join(dir, `db-${++n}.db`) }, newSnapshotKey(), tools, { executor, runs, ...opts });
  }

  async function rowIds(gw: Gateway): Promise<string[]> {
    return (await gw.diagnostics.durableRuns()).flatMap((r) => (r.ok ? [r.run.runId] : []));
  }

  /** Until the store holds `count` rows (a row deleted after an abort or a turn's end goes in the background). */
  async function untilRows(gw: Gateway, count: number): Promise<void> {
    let seen = -1;
    const poll = async () => {
      seen = (await rowIds(gw)).length;
    };
    await poll();
    while (seen !== count) {
      await until(() => true);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await poll();
    }
  }

  it('parkedInMemory 0: a parked run is evicted once its row is written (no Run, no slot, listed from its row); a wait with the turn token completes it with its value', async () => {
    const gw = await gateway({ parkedInMemory: 0 });
    try {
      const turn = gw.prepareTurn({});
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: 'const held = { n: 41 };\nawait yield_control("x");\nreturn held.n + 1' }));
      await until(() => gw.diagnostics.evictedRuns() === 1);
      expect(gw.run(w.runId)).toBeUndefined();
      expect(gw.diagnostics.runRecord(w.runId)).toBeUndefined();
      expect(gw.diagnostics.suspendedSlots()).toBe(0);
      expect(gw.diagnostics.leaks()).toEqual([]);
      expect(await rowIds(gw)).toEqual([w.runId]);
      expect(await gw.storedRuns()).toMatchObject([{ runId: w.runId, state: 'waiting', snapshotIn: 'store', durableRow: { evictedHere: true } }]);
      const done = expectCompleted(await gw.wait(turn.agentRunId, { runId: w.runId }, { turnToken: turn.turnToken }));
      expect(done.value).toBe(42);
      expect(await rowIds(gw)).toEqual([]);
      expect(gw.diagnostics.evictedRuns()).toBe(0);
      expect(gw.diagnostics.leaks()).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('a page watching sees the run move from memory to the store (a run.updated with snapshotIn store)', async () => {
    const gw = await gateway({ parkedInMemory: 0 });
    const homes: Array<string | undefined> = [];
    const off = gw.subscribe((e) => {
      if (e.type === 'run.updated' || e.type === 'run.started') homes.push(e.view.state === 'waiting' ? e.view.snapshotIn : undefined);
    });
    try {
      const turn = gw.prepareTurn({});
      expectWaiting(await gw.exec(turn.agentRunId, { code: YIELD(1) }));
      await until(() => homes.at(-1) === 'store');
    } finally {
      off();
      await gw.close();
    }
  });

  it('parkedInMemory 2: the two most recently parked stay held, the older ones are evicted; every one completes', async () => {
    const gw = await gateway({ parkedInMemory: 2 });
    try {
      const turn = gw.prepareTurn({});
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(expectWaiting(await gw.exec(turn.agentRunId, { code: YIELD(i) })).runId);
      await until(() => gw.diagnostics.evictedRuns() === 2);
      expect(ids.map((id) => gw.run(id)?.state)).toEqual([undefined, undefined, 'waiting', 'waiting']);
      expect(gw.diagnostics.suspendedSlots()).toBe(2);
      for (let i = 0; i < 4; i++) expect(expectCompleted(await gw.wait(turn.agentRunId, { runId: ids[i] as string })).value).toBe(i);
      expect(await rowIds(gw)).toEqual([]);
      expect(gw.diagnostics.leaks()).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('a run whose call replies after it parked is evicted only once the reply is written to its row, and the wait delivers that reply', async () => {
    const gated = gatedTool();
    const gw = await gateway({ parkedInMemory: 0 }, [gated.tool]);
    try {
      const turn = gw.prepareTurn({});
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: 'const p = gated({});\nawait yield_control("x");\nreturn (await p).ok + 1' }));
      // its call is in flight: it lives in this process
      expect(gw.run(w.runId)?.state).toBe('waiting');
      expect(gw.diagnostics.evictedRuns()).toBe(0);
      gated.release();
      await until(() => gw.diagnostics.evictedRuns() === 1);
      expect(gw.run(w.runId)).toBeUndefined();
      expect(expectCompleted(await gw.wait(turn.agentRunId, { runId: w.runId })).value).toBe(2);
    } finally {
      await gw.close();
    }
  });

  it('a wait that comes as the reply lands (its write under way, the copy evicted when it lands) completes the run either way', async () => {
    const gated = gatedTool();
    const gw = await gateway({ parkedInMemory: 0 }, [gated.tool]);
    try {
      const turn = gw.prepareTurn({});
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: 'const p = gated({});\nawait yield_control("x");\nreturn (await p).ok + 1' }));
      // the wait starts on the event that announces the reply, when the row's write of it has just been queued
      let released = false;
      const waited = new Promise<CodeModeResult>((resolve, reject) => {
        const off = gw.subscribe((e) => {
          if (!released || e.type !== 'run.updated' || e.runId !== w.runId || e.view.state !== 'waiting') return;
          off();
          gw.wait(turn.agentRunId, { runId: w.runId }).then(resolve, reject);
        });
      });
      released = true;
      gated.release();
      expect(expectCompleted(await waited).value).toBe(2);
      expect(await rowIds(gw)).toEqual([]);
      expect(gw.diagnostics.leaks()).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('a run with a pending client-tool call stays held, and answering it still works (then it is evicted, and completes)', async () => {
    const gw = await gateway({ parkedInMemory: 0 });
    try {
      const ask = { name: 'ask_user', description: 'ask', inputSchema: { type: 'object' } };
      const turn = gw.prepareTurn({ clientTools: [ask] });
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: 'const asked = ask_user({});\nawait yield_control("ask");\nreturn await asked' }));
      expect(gw.run(w.runId)?.clientCalls).toHaveLength(1);
      expect(gw.diagnostics.evictedRuns()).toBe(0);
      gw.answerClientCall({ runId: w.runId, callId: gw.run(w.runId)!.clientCalls[0]!.callId, result: 'yes' });
      await until(() => gw.diagnostics.evictedRuns() === 1);
      expect(expectCompleted(await gw.wait(turn.agentRunId, { runId: w.runId })).value).toBe('yes');
    } finally {
      await gw.close();
    }
  });

  it('a run with a pending approval stays held, and deciding it still works', async () => {
    const gw = await gateway({ parkedInMemory: 0 }, [APPROVED]);
    try {
      const turn = gw.prepareTurn({});
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: 'const p = guarded({});\nawait yield_control("x");\nreturn (await p).allowed' }));
      await until(() => gw.approvals().length === 1);
      expect(gw.run(w.runId)?.state).toBe('waiting');
      expect(gw.diagnostics.evictedRuns()).toBe(0);
      gw.decideApproval({ approvalId: gw.approvals()[0]!.approvalId, approve: true });
      await until(() => gw.diagnostics.evictedRuns() === 1);
      expect(expectCompleted(await gw.wait(turn.agentRunId, { runId: w.runId })).value).toBe(true);
    } finally {
      await gw.close();
    }
  });

  it('abort of an evicted run (the page and the API): true, its row deleted; a wait on it then says it is unavailable', async () => {
    const gw = await gateway({ parkedInMemory: 0 });
    try {
      const turn = gw.prepareTurn({});
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: YIELD(1) }));
      await until(() => gw.diagnostics.evictedRuns() === 1);
      expect(gw.abortRun(w.runId)).toBe(true);
      await untilRows(gw, 0);
      expect(gw.diagnostics.evictedRuns()).toBe(0);
      expect(gw.abortRun(w.runId)).toBe(false);
      expectFailed(await gw.wait(turn.agentRunId, { runId: w.runId }), 'invalid_input');
    } finally {
      await gw.close();
    }
  });

  it('over the API: the client aborts its evicted run with its turn token (the row goes); another client is refused and the row stays', async () => {
    const gw = await gateway({ parkedInMemory: 0 });
    try {
      const api = callerFor(gw, clientAccess(clientOwner('durable')), createEdgeState(gw.config.server));
      const stranger = callerFor(gw, clientAccess(clientOwner('stranger')), createEdgeState(gw.config.server));
      const turn = await api.turns.prepare({});
      const w = expectWaiting(await api.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: YIELD(1) } }));
      await until(() => gw.diagnostics.evictedRuns() === 1);
      await expect(stranger.abort({ runId: w.runId })).rejects.toThrow(/turnToken/);
      expect(await rowIds(gw)).toEqual([w.runId]);
      expect(await api.abort({ runId: w.runId, turnToken: turn.turnToken })).toEqual({ aborted: true });
      await untilRows(gw, 0);
    } finally {
      await gw.close();
    }
  });

  it("ending the turn ends its evicted runs: their rows are deleted (not another turn's)", async () => {
    const gw = await gateway({ parkedInMemory: 0 });
    try {
      const a = gw.prepareTurn({});
      const b = gw.prepareTurn({});
      for (let i = 0; i < 3; i++) expectWaiting(await gw.exec(a.agentRunId, { code: YIELD(i) }));
      const kept = expectWaiting(await gw.exec(b.agentRunId, { code: YIELD(9) }));
      await until(() => gw.diagnostics.evictedRuns() === 4);
      gw.endTurn(a.agentRunId);
      await untilRows(gw, 1);
      expect(await rowIds(gw)).toEqual([kept.runId]);
      expect(gw.diagnostics.evictedRuns()).toBe(1);
    } finally {
      await gw.close();
    }
  });

  it('a turn whose runs are all evicted does not idle out while they wait', async () => {
    const gw = await durableGateway({ path: join(dir, `db-${++n}.db`) }, newSnapshotKey(), durableTools('answer'), { executor, runs: { parkedInMemory: 0 }, turnIdleMs: 1 });
    try {
      const turn = gw.prepareTurn({});
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: YIELD(5) }));
      await until(() => gw.diagnostics.evictedRuns() === 1);
      // an idle sweep runs every millisecond: had it ended the turn, the row would be deleted and the wait refused
      const other = gw.prepareTurn({});
      expectCompleted(await gw.exec(other.agentRunId, { code: 'return 0' }));
      expect(await rowIds(gw)).toEqual([w.runId]);
      expect(expectCompleted(await gw.wait(turn.agentRunId, { runId: w.runId })).value).toBe(5);
    } finally {
      await gw.close();
    }
  });

  it(`maxParked raised: more than ${MAX_SUSPENDED_RUNS} runs park across turns (the process holds only parkedInMemory of them), and the one over the cap is refused naming runs.maxParked`, async () => {
    const maxParked = MAX_SUSPENDED_RUNS + 6;
    const gw = await gateway({ parkedInMemory: 2, maxParked });
    try {
      const turns = Array.from({ length: Math.ceil(maxParked / MAX_SLOTS_PER_TURN) }, () => gw.prepareTurn({}));
      const parked: Array<{ agentRunId: string; runId: string }> = [];
      for (let i = 0; i < maxParked; i++) {
        const turn = turns[Math.floor(i / MAX_SLOTS_PER_TURN)]!;
        parked.push({ agentRunId: turn.agentRunId, runId: expectWaiting(await gw.exec(turn.agentRunId, { code: YIELD(i) })).runId });
      }
      await until(() => gw.diagnostics.evictedRuns() === maxParked - 2);
      expect(await rowIds(gw)).toHaveLength(maxParked);
      expect(gw.diagnostics.suspendedSlots()).toBe(2);
      const over = gw.prepareTurn({});
      const r = expectFailed(await gw.exec(over.agentRunId, { code: YIELD(-1) }), 'runtime_unavailable');
      expect(r.error).toContain(`the limit of ${maxParked} across every Gateway on it and across restarts`);
      expect(r.error).toContain('runs.maxParked');
      // the first and the last still complete
      for (const p of [parked[0]!, parked.at(-1)!]) expectCompleted(await gw.wait(p.agentRunId, { runId: p.runId }));
      expect(gw.diagnostics.leaks()).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('a TTL-expired evicted run: a wait on it says it expired, and its row is deleted', async () => {
    const sessions = { path: join(dir, `db-${++n}.db`) };
    const gw = await durableGateway(sessions, newSnapshotKey(), durableTools('answer'), { executor, runs: { parkedInMemory: 0 } });
    try {
      const turn = gw.prepareTurn({});
      const w = expectWaiting(await gw.exec(turn.agentRunId, { code: YIELD(1) }));
      await until(() => gw.diagnostics.evictedRuns() === 1);
      // the deadline passes (the store's clock, not the test's: the row is moved back)
      const db = openSessionDatabase(sessions);
      try {
        await db.run('UPDATE durable_runs SET expires_at = ? WHERE run_id = ?', [1, w.runId]);
      } finally {
        await db.close();
      }
      const r = expectFailed(await gw.wait(turn.agentRunId, { runId: w.runId }), 'timeout');
      expect(r.error).toContain(`run ${w.runId} expired`);
      expect(await rowIds(gw)).toEqual([]);
      expect(gw.diagnostics.evictedRuns()).toBe(0);
    } finally {
      await gw.close();
    }
  });
});
