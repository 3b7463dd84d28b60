// Run views across two Gateways on one session database (PostgreSQL, and SQLite where two share one file): B lists A's live runs with their approvals and client calls, acts on them through A (forwarded requests), and drops them when they end or A is gone.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConfig, SessionsConfig } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import { Gateway } from '../gateway.ts';
import { createExecutor } from '../guest/testing.ts';
import type { RunEvent } from '../runs/types.ts';
import { openSessionDatabase } from '../sessions/db.ts';
import { DurableRunStore } from '../sessions/durable-runs.ts';
import { GatewayPresenceStore, PRESENCE_STALE_MS } from '../sessions/gateway-presence.ts';
import { RunViewStore } from '../sessions/run-views.ts';
import { freshSchema, type TestSchema } from '../sessions/postgres.testing.ts';
import { expectCompleted, expectFailed, expectWaiting, until } from '../testing.ts';
import { loadToolSources } from '../tools/registry.ts';
import { testCodeModeOptions, testConfig } from '../tools/testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { durableGateway, newSnapshotKey } from './durable-runs.testing.ts';
import { boundedView, MAX_VIEW_CALLS } from './run-view-shape.ts';

/**
 * What the cell asks the user about, built at run time (the source never holds it). The model's waiting result names
 * its pending calls' inputs, so the transcript holds it by design: the run views row must not.
 */
const ASKED_SECRET = 'canary_77_asked_by_the_cell';
const BUILD_SECRET = 'const secret = ["canary", 7 * 11, "asked", "by", "the", "cell"].join("_");';
/** What the cell asks the operator to approve, built at run time: only the approval holds it, so no database file may show it. */
const PAID_SECRET = 'canary_88_paid_by_the_cell';
const BUILD_PAID_SECRET = 'const memo = ["canary", 8 * 11, "paid", "by", "the", "cell"].join("_");';
/** Asks the user (a client call) and parks; the answer completes it. */
const ASKING_CELL = `${BUILD_SECRET}\nconst asked = ask_user({ q: secret });\nawait yield_control("ask the user");\nreturn await asked;`;
/** Pays after the operator approves: the run is running while the approval is pending. */
const PAYING_CELL = `${BUILD_PAID_SECRET}\nreturn await pay({ memo });`;
const ASK_USER = { name: 'ask_user', description: 'asks the user', inputSchema: { type: 'object' } };
const GONE_GATEWAY = 'gw_GGGGGGGGGGGGGGGG';

const PAY: ToolDefinition = {
  name: 'pay',
  description: 'pays (needs the operator approval)',
  source: 'core',
  approval: 'required',
  inputSchema: { type: 'object', properties: { memo: { type: 'string' } } },
  execute: async () => ({ paid: true }),
};

/** A Gateway over `sessions` without runs.durable (no key: views are ids, state and counts only). */
async function plainGateway(sessions: SessionsConfig, executor: Executor): Promise<Gateway> {
  const base = testConfig({ sessions });
  const config: GatewayConfig = { ...base, tools: { ...base.tools, codeMode: testCodeModeOptions({ executor: 'quickjs' }) } };
  const sources = await loadToolSources(config);
  sources.tools.push(PAY);
  return new Gateway(config, sources, { executors: { quickjs: executor } });
}

/** Every remote event B's pages would hear. */
function listen(gw: Gateway): RunEvent[] {
  const heard: RunEvent[] = [];
  gw.subscribe((event) => {
    if (event.type === 'remote.run' || event.type === 'remote.gone') heard.push(event);
  });
  return heard;
}

/** Whether B has shown run `runId` (the last remote event of it is a remote.run that `accepts`). */
function shows(heard: RunEvent[], runId: string, accepts: (e: Extract<RunEvent, { type: 'remote.run' }>) => boolean = () => true): boolean {
  const last = heard.filter((e) => e.runId === runId).at(-1);
  return last?.type === 'remote.run' && accepts(last);
}

function gone(heard: RunEvent[], runId: string): boolean {
  return heard.filter((e) => e.runId === runId).at(-1)?.type === 'remote.gone';
}

/** Run `runId`'s row in the run views table, read on a connection of its own. */
async function storedView(sessions: SessionsConfig, runId: string): Promise<unknown> {
  const db = openSessionDatabase(sessions);
  try {
    return await new RunViewStore(db).get(runId);
  } finally {
    await db.close();
  }
}

/** How many forwarded requests the database holds. */
async function requestRows(sessions: SessionsConfig): Promise<number> {
  const db = openSessionDatabase(sessions);
  try {
    const [row] = await db.all('SELECT COUNT(*) AS n FROM run_requests');
    return Number(row?.n);
  } finally {
    await db.close();
  }
}

/** Every column of run `runId`'s row in the run views table, as bytes (the row exists). */
async function viewRowBytes(sessions: SessionsConfig, runId: string): Promise<Buffer> {
  const db = openSessionDatabase(sessions);
  try {
    const [row] = await db.all('SELECT * FROM run_views WHERE run_id = ?', [runId]);
    if (!row) throw new Error(`run ${runId} has no view row`);
    return Buffer.concat(Object.values(row).map((v) => (v instanceof Uint8Array ? Buffer.from(v) : Buffer.from(String(v)))));
  } finally {
    await db.close();
  }
}

const backends: Array<{ name: string; place: () => Promise<{ sessions: SessionsConfig; bytes?: () => Buffer; drop: () => Promise<void> }> }> = [
  {
    name: 'PostgreSQL',
    place: async () => {
      const schema: TestSchema = await freshSchema();
      return { sessions: { url: schema.url }, drop: () => schema.drop() };
    },
  },
  {
    name: 'SQLite (two Gateways on one file)',
    place: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'codemode-views-'));
      return {
        sessions: { path: join(dir, 'sessions.db') },
        bytes: () => Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f)))),
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
];

describe.each(backends)('run views on $name (runs.durable: sealed)', ({ place }) => {
  let at: Awaited<ReturnType<(typeof backends)[number]['place']>>;
  let execA: Executor;
  let execB: Executor;
  let a: Gateway;
  let b: Gateway;
  let heard: RunEvent[];
  const key = newSnapshotKey();

  beforeAll(async () => {
    at = await place();
    [execA, execB] = await Promise.all([createExecutor('quickjs'), createExecutor('quickjs')]);
    a = await durableGateway(at.sessions, key, [PAY], { executor: execA });
    b = await durableGateway(at.sessions, key, [PAY], { executor: execB });
    heard = listen(b);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([execA?.close(), execB?.close()]);
    await at?.drop();
  });

  it("B lists A's waiting run with its client call (sealed, opened with the key), read-only: answering it on B names A; when A completes it, B hears it go", async () => {
    const turn = a.prepareTurn({ sessionId: 'views-1', clientTools: [ASK_USER] });
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: ASKING_CELL }));
    await until(() => shows(heard, w.runId, (e) => e.view.clientCalls.length === 1), { what: "B to show A's waiting run with its client call" });
    const listed = (await b.heldElsewhere()).runs.find((r) => r.runId === w.runId);
    expect(listed).toMatchObject({ state: 'waiting', sessionId: 'views-1', agentRunId: turn.agentRunId, heldBy: { gatewayId: a.instanceId, detail: 'sealed', clientCalls: 1, approvals: 0 } });
    expect(listed?.clientCalls[0]).toMatchObject({ tool: 'ask_user', input: { q: ASKED_SECRET } });
    expect(listed?.code).toContain('ask_user');
    // B holds no copy: an answer there is refused naming the holder, and the run is untouched
    const callId = listed!.clientCalls[0]!.callId;
    expect(() => b.answerClientCall({ runId: w.runId, callId, result: 'no' })).toThrow(`which Gateway ${a.instanceId} holds`);
    // no guest string of the view is stored in plain text
    expect((await viewRowBytes(at.sessions, w.runId)).includes(ASKED_SECRET)).toBe(false);
    a.answerClientCall({ runId: w.runId, callId, result: 'yes' });
    expect(expectCompleted(await a.wait(turn.agentRunId, { runId: w.runId })).value).toBe('yes');
    await until(() => gone(heard, w.runId), { what: "B to hear A's run end" });
    expect((await b.heldElsewhere()).runs.some((r) => r.runId === w.runId)).toBe(false);
    expect(await storedView(at.sessions, w.runId)).toBeUndefined();
  });

  it("B lists A's pending approval with its input; deciding it on B is refused naming A; decided on A, the run completes and its approval and listing leave B", async () => {
    const turn = a.prepareTurn({ sessionId: 'views-2' });
    const paying = a.exec(turn.agentRunId, { code: PAYING_CELL });
    await until(() => a.approvals().length === 1, { what: 'A to ask for the approval' });
    const runId = a.approvals()[0]!.runId;
    await until(() => shows(heard, runId, (e) => e.approvals.length === 1), { what: "B to show A's approval" });
    const { runs, approvals } = await b.heldElsewhere();
    expect(runs.find((r) => r.runId === runId)).toMatchObject({ state: 'running', heldBy: { gatewayId: a.instanceId, approvals: 1 } });
    expect(approvals).toEqual([expect.objectContaining({ runId, tool: 'pay', input: { memo: PAID_SECRET }, heldBy: a.instanceId })]);
    expect(() => b.decideApproval({ approvalId: approvals[0]!.approvalId, approve: true })).toThrow(`approval ${approvals[0]!.approvalId} belongs to run ${runId}, which Gateway ${a.instanceId} holds`);
    expect((await viewRowBytes(at.sessions, runId)).includes(PAID_SECRET)).toBe(false);
    if (at.bytes) {
      // the whole file (SQLite, its WAL and shared memory): the approval's input is nowhere in plain text, the cell's source is
      const bytes = at.bytes();
      expect(bytes.includes(PAID_SECRET)).toBe(false);
      expect(bytes.includes('8 * 11')).toBe(true);
    }
    a.decideApproval({ approvalId: approvals[0]!.approvalId, approve: true });
    expect(expectCompleted(await paying).value).toEqual({ paid: true });
    await until(() => gone(heard, runId), { what: "B to hear A's run end" });
    expect((await b.heldElsewhere()).approvals).toEqual([]);
  });

  it("acting from B: an approval decided on B is forwarded to A, which resumes the run", async () => {
    const turn = a.prepareTurn({ sessionId: 'views-5' });
    const paying = a.exec(turn.agentRunId, { code: PAYING_CELL });
    await until(() => a.approvals().length === 1, { what: 'A to ask for the approval' });
    const { approvalId, runId } = a.approvals()[0]!;
    await until(() => shows(heard, runId, (e) => e.approvals.length === 1), { what: "B to show A's approval" });
    expect(await b.actElsewhere({ kind: 'approval', approvalId, approve: true })).toEqual({ forwardedTo: a.instanceId });
    expect(expectCompleted(await paying).value).toEqual({ paid: true });
    await until(() => gone(heard, runId), { what: "B to hear A's run end" });
    // the request rows are gone once answered
    expect(await requestRows(at.sessions)).toBe(0);
  });

  it('acting from B: a client call answered on B is forwarded to A, and the run A holds completes with it; an answer for no call of a run B knows is not forwarded', async () => {
    const turn = a.prepareTurn({ sessionId: 'views-6', clientTools: [ASK_USER] });
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: ASKING_CELL }));
    await until(() => shows(heard, w.runId, (e) => e.view.clientCalls.length === 1), { what: "B to show A's client call" });
    const callId = a.run(w.runId)!.clientCalls[0]!.callId;
    await expect(b.actElsewhere({ kind: 'client-call', runId: w.runId, callId: 'no_such_call', result: 1 })).rejects.toThrow(`Gateway ${a.instanceId}, which holds run ${w.runId}, refused client call no_such_call`);
    expect(await b.actElsewhere({ kind: 'client-call', runId: w.runId, callId, result: 'from B' })).toEqual({ forwardedTo: a.instanceId });
    expect(expectCompleted(await a.wait(turn.agentRunId, { runId: w.runId })).value).toBe('from B');
    expect(await b.actElsewhere({ kind: 'client-call', runId: 'run_nobody_holds', callId, result: 1 })).toBeUndefined();
    expect(await requestRows(at.sessions)).toBe(0);
  });

  it("aborting from B: a run A holds is aborted there (forwarded); a durable row no Gateway holds live is aborted from its row, one another Gateway is resuming is refused naming it", async () => {
    const YIELDING = 'await yield_control("park"); return 1';
    const turn = a.prepareTurn({ sessionId: 'views-abort' });
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: YIELDING }));
    await until(() => shows(heard, w.runId), { what: "B to show A's waiting run" });
    expect(await b.actElsewhere({ kind: 'abort', runId: w.runId })).toEqual({ forwardedTo: a.instanceId });
    expect(a.run(w.runId)?.state).toBe('aborted');
    await until(() => gone(heard, w.runId), { what: "B to hear A's run end" });
    // aborted on A: a wait there finds it unavailable, as after the page's own Abort
    expect(expectFailed(await a.wait(turn.agentRunId, { runId: w.runId })).error).toContain('unavailable');
    expect(await requestRows(at.sessions)).toBe(0);

    // two runs parked by a Gateway that closed since (a closing Gateway keeps its rows): no Gateway holds them live
    const c = await durableGateway(at.sessions, key, [PAY], { executor: execA });
    const cTurn = c.prepareTurn({ sessionId: 'views-abort-stored' });
    const [free, leased] = [expectWaiting(await c.exec(cTurn.agentRunId, { code: YIELDING })), expectWaiting(await c.exec(cTurn.agentRunId, { code: YIELDING }))];
    await c.close();
    expect(await b.actElsewhere({ kind: 'abort', runId: free.runId })).toBeUndefined();
    const onA = listen(a);
    expect(await b.abortStored(free.runId)).toEqual({ aborted: true });
    // no Run announces it: B's pages drop the stored row at once, and A's on B's notice
    expect(gone(heard, free.runId)).toBe(true);
    await until(() => gone(onA, free.runId), { what: 'A to hear the stored run was aborted on B' });
    expect((await b.diagnostics.durableRuns()).some((r) => r.ok && r.run.runId === free.runId)).toBe(false);
    // nothing resumes it any more: its client's wait with the turn token fails
    expectFailed(await b.wait(cTurn.agentRunId, { runId: free.runId }, { turnToken: cTurn.turnToken }), 'invalid_input');
    const db = openSessionDatabase(at.sessions);
    try {
      const store = new DurableRunStore(db);
      const claim = await store.claim(leased.runId, GONE_GATEWAY);
      if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
      const refused = await b.abortStored(leased.runId);
      expect(refused).toEqual({ aborted: false, why: expect.stringContaining(`Gateway ${GONE_GATEWAY} is resuming run ${leased.runId}`) });
      expect((await store.get(leased.runId))?.ok).toBe(true);
      expect(await store.release(claim.lease)).toEqual({ kind: 'ok' });
      expect(await b.abortStored(leased.runId)).toEqual({ aborted: true });
      expect(await store.get(leased.runId)).toBeUndefined();
    } finally {
      await db.close();
    }
    expect(await b.abortStored('run_nobody_parked')).toBeUndefined();
  });

  it("a Gateway presence says is gone leaves no live views: B lists a live holder's view, and once that holder's beat is stale, neither lists it nor keeps its row", async () => {
    const turn = a.prepareTurn({ sessionId: 'views-3', clientTools: [ASK_USER] });
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: ASKING_CELL }));
    await until(() => shows(heard, w.runId), { what: "B to show A's run" });
    // another Gateway (on another host) held a run and stopped beating without closing: its row is A's, moved to it
    const db = openSessionDatabase(at.sessions);
    try {
      const presence = (now: number) => new GatewayPresenceStore(db, { now: () => now });
      await presence(Date.now()).beat(GONE_GATEWAY, { startedAt: Date.now(), durable: true, host: 'another host', pid: 1 });
      const store = new RunViewStore(db);
      const read = await store.get(w.runId);
      if (!read?.ok) throw new Error(`A's view of run ${w.runId} is not stored`);
      await store.put({ ...read.row, runId: 'run_of_the_gone_gateway', holder: GONE_GATEWAY });
      // the sealed view is bound to its run: moved to another, it is refused and shown as ids only
      expect((await b.heldElsewhere()).runs.find((r) => r.runId === 'run_of_the_gone_gateway')?.heldBy).toMatchObject({ gatewayId: GONE_GATEWAY, detail: 'ids' });
      await presence(Date.now() - PRESENCE_STALE_MS - 1_000).beat(GONE_GATEWAY, { startedAt: Date.now(), durable: true, host: 'another host', pid: 1 });
      expect((await b.heldElsewhere()).runs.map((r) => r.runId)).not.toContain('run_of_the_gone_gateway');
      expect(gone(heard, 'run_of_the_gone_gateway')).toBe(true);
      expect(await store.get('run_of_the_gone_gateway')).toBeUndefined();
      // A's own view stays: A beats
      expect((await b.heldElsewhere()).runs.map((r) => r.runId)).toContain(w.runId);
    } finally {
      await db.close();
    }
    a.abortRun(w.runId);
    await until(() => gone(heard, w.runId), { what: "B to hear A's run aborted" });
  });

  it("A closing removes its views: B hears its waiting run go (the durable row stays for a wait to resume)", async () => {
    const execC = await createExecutor('quickjs');
    const c = await durableGateway(at.sessions, key, [PAY], { executor: execC });
    try {
      const turn = c.prepareTurn({ sessionId: 'views-4', clientTools: [ASK_USER] });
      const w = expectWaiting(await c.exec(turn.agentRunId, { code: ASKING_CELL }));
      await until(() => shows(heard, w.runId), { what: "B to show C's run" });
      await c.close();
      await until(() => gone(heard, w.runId), { what: "B to hear C's views go" });
      expect(await storedView(at.sessions, w.runId)).toBeUndefined();
      expect((await b.heldElsewhere()).runs.some((r) => r.runId === w.runId)).toBe(false);
      expect((await b.storedRuns()).some((r) => r.runId === w.runId)).toBe(true);
    } finally {
      await c.close();
      await execC.close();
    }
  });
});

describe('run views without runs.durable (no key: ids, state and counts only)', () => {
  let dir: string;
  let execA: Executor;
  let execB: Executor;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(async () => {
    [execA, execB] = await Promise.all([createExecutor('quickjs'), createExecutor('quickjs')]);
  });
  afterAll(async () => {
    await Promise.all([execA?.close(), execB?.close()]);
  });

  it("B lists A's waiting run with its holder and counts, no source or inputs; nothing of the cell is stored", async () => {
    dir = mkdtempSync(join(tmpdir(), 'codemode-views-plain-'));
    const sessions = { path: join(dir, 'sessions.db') };
    const a = await plainGateway(sessions, execA);
    const b = await plainGateway(sessions, execB);
    try {
      const heard = listen(b);
      const turn = a.prepareTurn({ sessionId: 'plain-1', clientTools: [ASK_USER] });
      const w = expectWaiting(await a.exec(turn.agentRunId, { code: ASKING_CELL }));
      await until(() => shows(heard, w.runId), { what: "B to show A's run" });
      const listed = (await b.heldElsewhere()).runs.find((r) => r.runId === w.runId);
      expect(listed).toMatchObject({ state: 'waiting', code: '', clientCalls: [], heldBy: { gatewayId: a.instanceId, detail: 'ids', clientCalls: 1, approvals: 0 } });
      expect((await viewRowBytes(sessions, w.runId)).includes(ASKED_SECRET)).toBe(false);
      // nothing to seal a forwarded answer with: B says to act on A's page
      await expect(b.actElsewhere({ kind: 'client-call', runId: w.runId, callId: 'c1', result: 1 })).rejects.toThrow(`without runs.durable this Gateway cannot forward to it`);
      a.abortRun(w.runId);
      await until(() => gone(heard, w.runId), { what: "B to hear A's run end" });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('a published view is bounded', () => {
  it(`keeps the latest ${MAX_VIEW_CALLS} calls, cuts long source and large inputs, and says what it cut`, () => {
    const call = (i: number) => ({ callId: `c${i}`, tool: 'exec' as const, startedAt: i });
    const view = {
      runId: 'run_1',
      agentRunId: 'ar_1',
      sessionId: 's',
      agentId: 'main',
      executor: 'quickjs' as const,
      state: 'waiting' as const,
      language: 'javascript' as const,
      code: 'x'.repeat(5_000),
      seed: 1,
      clock: 'real' as const,
      createdAt: 1,
      updatedAt: 2,
      maxSnapshotBytes: 1,
      pendingToolCalls: [],
      clientCalls: [{ callId: 'k1', tool: 'ask_user', input: { blob: 'y'.repeat(10_000) } }],
      snapshots: [],
      calls: Array.from({ length: 30 }, (_, i) => call(i)),
      nested: [],
    } as unknown as Parameters<typeof boundedView>[0];
    const bounded = boundedView(view, []);
    expect(bounded.view.calls).toHaveLength(MAX_VIEW_CALLS);
    expect(bounded.view.code).toHaveLength(1_000);
    expect(bounded.view.clientCalls[0]?.input).toMatchObject({ cut: expect.stringContaining('an input of') });
    expect(bounded.cut).toEqual(['4000 characters of the source', '10 earlier control calls', expect.stringMatching(/^an input of \d+ bytes$/)]);
  });
});
