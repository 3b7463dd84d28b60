// Several Gateways on one PostgreSQL database with runs.durable: a run parked on one completes through `wait` on another, a stale copy is never resumed, a lease holder is named, and a Gateway killed with SIGKILL loses none of its parked runs.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionsConfig } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import type { Gateway } from '../gateway.ts';
import { createExecutor } from '../guest/testing.ts';
import { openSessionDatabase } from '../sessions/db.ts';
import { DurableRunStore } from '../sessions/durable-runs.ts';
import { freshSchema, type TestSchema } from '../sessions/postgres.testing.ts';
import { expectCompleted, expectFailed, expectWaiting, until } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { durableGateway, durableTools, HELD_SECRET, newSnapshotKey } from './durable-runs.testing.ts';
import { firstLineThenKill } from './child-gateway.testing.ts';

const CHILD = fileURLToPath(new URL('./fixtures/multi-park-child.ts', import.meta.url));

/** What the tools saw, across both Gateways: which Gateway ran each step, and how often the gate was entered. */
interface Calls {
  steps: Array<{ n: number; by: string }>;
  gateEntered: number;
  openGate?: () => void;
}

/** `step` (not replay-safe: a second call would be a second effect) and `gate` (blocks until the test opens it), as Gateway `by` runs them. */
function sharedTools(by: string, calls: Calls): ToolDefinition[] {
  return [
    {
      name: 'step',
      description: 'one effect per call (not replay-safe)',
      source: 'core',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      execute: async (input) => {
        const n = (input as { n: number }).n;
        calls.steps.push({ n, by });
        return { n, by };
      },
    },
    {
      name: 'gate',
      description: 'answers once the test opens it',
      source: 'core',
      inputSchema: { type: 'object', properties: {} },
      execute: async () => {
        calls.gateEntered++;
        await new Promise<void>((resolve) => (calls.openGate = resolve));
        return { opened: true };
      },
    },
  ];
}

/** Parks at "one", takes a step, parks at "two", takes another: a resume from a stale copy would take step 1 twice. */
const TWO_YIELDS = 'await yield_control("one"); const a = await step({ n: 1 }); await yield_control("two"); const b = await step({ n: 2 }); return [a.by, b.by];';

describe('two Gateways on one PostgreSQL database (runs.durable)', () => {
  let schema: TestSchema;
  let execA: Executor;
  let execB: Executor;
  let a: Gateway;
  let b: Gateway;
  let calls: Calls;
  const key = newSnapshotKey();

  beforeAll(async () => {
    schema = await freshSchema();
    [execA, execB] = await Promise.all([createExecutor('quickjs'), createExecutor('quickjs')]);
    calls = { steps: [], gateEntered: 0 };
    a = await durableGateway({ url: schema.url }, key, sharedTools('A', calls), { executor: execA });
    b = await durableGateway({ url: schema.url }, key, sharedTools('B', calls), { executor: execB });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([execA?.close(), execB?.close()]);
    await schema?.drop();
  });

  function reset(): void {
    calls.steps.length = 0;
    calls.gateEntered = 0;
    delete calls.openGate;
  }

  it('a run parked on A goes on through wait on B with the turn token, then completes through wait on A: A resumes from the row, never from its stale copy (each step runs once)', async () => {
    reset();
    const turn = a.prepareTurn({ sessionId: 'multi-1' });
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: TWO_YIELDS }));
    // on B: the turn is opened from its stored token, the row claimed and restored; step 1 runs there
    expectWaiting(await b.wait(turn.agentRunId, { runId: w.runId }, { turnToken: turn.turnToken }));
    expect(calls.steps).toEqual([{ n: 1, by: 'B' }]);
    expect(b.ownership.checkTurn(turn.agentRunId, turn.turnToken)).toBe('held');
    // back on A, which still holds its copy parked at "one": the claim's fence shows B resumed it, so A restores B's state
    const done = expectCompleted(await a.wait(turn.agentRunId, { runId: w.runId }));
    expect(done.value).toEqual(['B', 'A']);
    expect(calls.steps).toEqual([
      { n: 1, by: 'B' },
      { n: 2, by: 'A' },
    ]);
    // B's copy (parked at "two") is stale now: a wait there is refused, it never takes step 2 again
    expectFailed(await b.wait(turn.agentRunId, { runId: w.runId }), 'invalid_input');
    expect(calls.steps).toHaveLength(2);
    expect(await a.diagnostics.durableRuns()).toEqual([]);
    expect(a.diagnostics.leaks()).toEqual([]);
    expect(b.diagnostics.leaks()).toEqual([]);
  });

  it('B resumes a run from its row under one claim: the restore does not park the row again before the run goes on (a claim from A in between would resume it twice)', async () => {
    reset();
    const turn = a.prepareTurn({ sessionId: 'multi-claim-once' });
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: TWO_YIELDS }));
    const fenceOf = async () => {
      const row = (await a.diagnostics.durableRuns()).find((r) => r.ok && r.run.runId === w.runId);
      if (!row?.ok) throw new Error(`run ${w.runId} has no readable row`);
      return row.run;
    };
    const parkedOnA = await fenceOf();
    // B claims the row (fence + 1), restores, takes step 1 and parks again under that same lease: one claim, no repark between
    expectWaiting(await b.wait(turn.agentRunId, { runId: w.runId }, { turnToken: turn.turnToken }));
    const parkedOnB = await fenceOf();
    expect(parkedOnB.state).toBe('parked');
    expect(parkedOnB.fence).toBe(parkedOnA.fence + 1);
    expect(expectCompleted(await b.wait(turn.agentRunId, { runId: w.runId })).value).toEqual(['B', 'B']);
    expect(calls.steps).toEqual([
      { n: 1, by: 'B' },
      { n: 2, by: 'B' },
    ]);
  });

  it('a wait on A while B holds the lease is refused naming B, and A drops its copy; B completes the run once', async () => {
    reset();
    const turn = a.prepareTurn({ sessionId: 'multi-2' });
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: 'await yield_control("x"); return await gate({})' }));
    const onB = b.wait(turn.agentRunId, { runId: w.runId }, { turnToken: turn.turnToken });
    try {
      await until(() => calls.gateEntered === 1, { what: 'B to resume the run and enter the gate' });
      const refused = expectFailed(await a.wait(turn.agentRunId, { runId: w.runId }), 'runtime_unavailable');
      expect(refused.error).toContain(`being resumed by Gateway ${b.instanceId}`);
      expect(a.run(w.runId)?.state).toBe('aborted');
    } finally {
      // B's run is never left holding its leg, whatever failed above
      await until(() => calls.openGate !== undefined, { what: 'the gate to be entered' });
      calls.openGate?.();
    }
    expect(expectCompleted(await onB).value).toEqual({ opened: true });
    expect(calls.gateEntered).toBe(1);
    expect(await b.diagnostics.durableRuns()).toEqual([]);
    expect(a.diagnostics.leaks()).toEqual([]);
  });

  it('a run completed on B: a wait on A, which still holds its copy, says it ended on another Gateway and runs nothing', async () => {
    reset();
    const turn = a.prepareTurn({ sessionId: 'multi-3' });
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: 'await yield_control("x"); return (await step({ n: 1 })).by' }));
    expect(expectCompleted(await b.wait(turn.agentRunId, { runId: w.runId }, { turnToken: turn.turnToken })).value).toBe('B');
    const r = expectFailed(await a.wait(turn.agentRunId, { runId: w.runId }), 'invalid_input');
    expect(r.error).toContain('ended there');
    expect(calls.steps).toEqual([{ n: 1, by: 'B' }]);
    expect(a.diagnostics.leaks()).toEqual([]);
  });

  it("a copy that ends on A does not delete the row B parked again (whether A's copy ended by an abort or was dropped on B's notice)", async () => {
    reset();
    // its own A, closed in the test: closing waits for the row writes A queued, so the row is read after A's end is applied
    const a2 = await durableGateway({ url: schema.url }, key, sharedTools('A', calls), { executor: execA });
    let runId: string;
    let turn: { agentRunId: string; turnToken: string };
    try {
      turn = a2.prepareTurn({ sessionId: 'multi-4' });
      runId = expectWaiting(await a2.exec(turn.agentRunId, { code: TWO_YIELDS })).runId;
      expectWaiting(await b.wait(turn.agentRunId, { runId }, { turnToken: turn.turnToken }));
      a2.abortRun(runId);
    } finally {
      await a2.close();
    }
    expect(await b.diagnostics.durableRuns()).toMatchObject([{ ok: true, run: { runId, state: 'parked' } }]);
    expect(expectCompleted(await b.wait(turn.agentRunId, { runId })).value).toEqual(['B', 'B']);
  });

  it('the store: a parked copy\'s end deletes the row only at the fence it left (discardParked), so a row resumed elsewhere stays', async () => {
    const db = openSessionDatabase({ url: schema.url });
    try {
      const store = new DurableRunStore(db);
      const run = { runId: 'run_discard_fence', sessionId: 's', agentRunId: 'ar', ownerId: 'local', baseImageId: 'base', sealed: new Uint8Array([1, 2, 3]), snapshotRawBytes: 3, snapshotStoredBytes: 3, expiresAt: Date.now() + 60_000, parkedBy: a.instanceId };
      expect(await store.park(run)).toEqual({ kind: 'parked', fence: 0 });
      const claim = await store.claim(run.runId, b.instanceId);
      if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
      expect(await store.repark(claim.lease, { sealed: new Uint8Array([4, 5]), snapshotRawBytes: 2, snapshotStoredBytes: 2, expiresAt: run.expiresAt, baseImageId: 'base' })).toEqual({ kind: 'ok' });
      expect(await store.discardParked(run.runId, 0)).toBe(false);
      expect((await store.get(run.runId))?.ok).toBe(true);
      expect(await store.discardParked(run.runId, 1)).toBe(true);
      expect(await store.get(run.runId)).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it("a lost notice changes nothing: A's wait still claims first, and the fence tells it another Gateway resumed the run (it restores from the row)", async () => {
    reset();
    const log: string[] = [];
    const a3 = await durableGateway({ url: schema.url }, key, sharedTools('A', calls), { executor: execA, log: (line) => log.push(line) });
    try {
      const turn = a3.prepareTurn({ sessionId: 'multi-6' });
      const w = expectWaiting(await a3.exec(turn.agentRunId, { code: 'await yield_control("x"); return (await step({ n: 1 })).by' }));
      // another Gateway claims the row and gives it back, sending no notice (the store alone): the fence moves on
      const db = openSessionDatabase({ url: schema.url });
      try {
        const claim = await new DurableRunStore(db).claim(w.runId, 'gw_ZZZZZZZZZZZZZZZZ');
        if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
        expect(await new DurableRunStore(db).release(claim.lease)).toEqual({ kind: 'ok' });
      } finally {
        await db.close();
      }
      expect(a3.run(w.runId)?.state).toBe('waiting');
      expect(expectCompleted(await a3.wait(turn.agentRunId, { runId: w.runId })).value).toBe('A');
      expect(log.some((line) => line.includes(`run ${w.runId}: Gateway ${a3.instanceId} dropped its copy (another Gateway resumed it since`))).toBe(true);
      expect(calls.steps).toEqual([{ n: 1, by: 'A' }]);
      expect(a3.diagnostics.leaks()).toEqual([]);
    } finally {
      await a3.close();
    }
  });

  it("run notices: B hears of the run A parked (ids only); when B resumes it, A drops its stale copy without a wait on A (its slot back at once)", async () => {
    reset();
    const turn = a.prepareTurn({ sessionId: 'multi-5' });
    const slotsBefore = a.diagnostics.suspendedSlots();
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: TWO_YIELDS }));
    expect(a.diagnostics.suspendedSlots()).toBe(slotsBefore + 1);
    await until(() => b.diagnostics.remoteRuns().some((r) => r.runId === w.runId && r.kind === 'parked' && r.from === a.instanceId), {
      what: "B to hear of the run parked on A",
    });
    expect(b.diagnostics.remoteRuns().find((r) => r.runId === w.runId)).toEqual({ runId: w.runId, sessionId: 'multi-5', kind: 'parked', from: a.instanceId, at: expect.any(Number) });
    expectWaiting(await b.wait(turn.agentRunId, { runId: w.runId }, { turnToken: turn.turnToken }));
    // B's notices about the run tell A its copy is stale: A drops it against the row, no wait on A needed
    await until(() => a.run(w.runId)?.state === 'aborted', { what: "A to drop its copy of the run B resumed" });
    expect(a.diagnostics.suspendedSlots()).toBe(slotsBefore);
    expect(a.diagnostics.remoteRuns().find((r) => r.runId === w.runId)).toMatchObject({ from: b.instanceId, kind: 'parked' });
    // the row is B's, untouched by A's dropping its copy; the run completes on A from it
    expect(expectCompleted(await a.wait(turn.agentRunId, { runId: w.runId })).value).toEqual(['B', 'A']);
    await until(() => !b.diagnostics.remoteRuns().some((r) => r.runId === w.runId), { what: 'B to hear the run settled' });
    expect(a.diagnostics.leaks()).toEqual([]);
  });
});

/** Parks `count` runs in a child Gateway on `sessions`, kills it with SIGKILL once they are parked, and gives their ids. */
async function parkInChildAndKill(
  sessions: SessionsConfig,
  key: string,
  count: number,
): Promise<{ instanceId: string; runs: Array<{ sessionId: string; agentRunId: string; turnToken: string; runId: string }> }> {
  const line = await firstLineThenKill(CHILD, [JSON.stringify(sessions), String(count)], { CODEMODE_SNAPSHOT_KEY: key });
  const parked = JSON.parse(line) as { instanceId?: string; runs?: Array<{ sessionId: string; agentRunId: string; turnToken: string; runId: string }>; error?: unknown };
  if (!parked.instanceId || parked.runs?.length !== count) throw new Error(`the child did not park: ${line}`);
  return { instanceId: parked.instanceId, runs: parked.runs };
}

describe('a Gateway killed with SIGKILL beside a live one (runs.durable, PostgreSQL)', () => {
  it("its parked runs finish on the other Gateway at the next wait, with the pre-crash turn tokens; the killed Gateway's transcript rows are all there", async () => {
    const schema = await freshSchema();
    const key = newSnapshotKey();
    const sessions = { url: schema.url };
    const transfers = { count: 0 };
    // B is up before A parks and dies: it takes A's runs over, it is not a restart of A
    const b = await durableGateway(sessions, key, durableTools('answer', transfers));
    try {
      const killed = await parkInChildAndKill(sessions, key, 3);
      expect(killed.instanceId).not.toBe(b.instanceId);
      const rows = await b.diagnostics.durableRuns();
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(row).toMatchObject({ ok: true, run: { parkedBy: killed.instanceId, state: 'parked' } });
      for (const run of killed.runs) {
        const done = expectCompleted(await b.wait(run.agentRunId, { runId: run.runId }, { turnToken: run.turnToken }));
        expect(done.value).toMatchObject({ held: HELD_SECRET, slow: { rate: 7 }, risky: { code: 'unknown_outcome' } });
        // the exec call and its waiting result A committed before it died, then B's wait and its result
        const transcript = await b.transcript(run.sessionId);
        const kinds = transcript.filter((e) => e.type === 'tool-call' || e.type === 'tool-result').map((e) => `${e.type}:${(e.payload as { tool: string }).tool}:${'status' in e.payload ? e.payload.status : ''}`);
        expect(kinds).toEqual(['tool-call:exec:', 'tool-result:exec:waiting', 'tool-call:wait:', 'tool-result:wait:completed']);
      }
      expect(transfers.count).toBe(0);
      expect(await b.diagnostics.durableRuns()).toEqual([]);
      expect(b.diagnostics.leaks()).toEqual([]);
    } finally {
      await b.close();
      await schema.drop();
    }
  });
});
