// Ownership through createCaller: a client acts on and sees only its own turns, runs, approvals, sessions and events; the operator sees all.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway } from '../gateway.ts';
import type { McpToolSource } from '../tools/mcp/manager.ts';
import { Ownership } from '../access/ownership.ts';
import type { GatewayApi } from '../gateway-types.ts';
import { expectWaiting } from '../testing.ts';
import { createEdgeState } from './context.ts';
import { callerFor, wholeTranscript, clientAccess, clientOwner, OPERATOR, openRouterHarness, rejection, demoConfig, type RouterHarness, type RouterCaller } from './testing.ts';
import type { StreamedRunEvent } from './routers/events.ts';

let h: RouterHarness;
let a: RouterCaller;
let b: RouterCaller;

beforeAll(async () => {
  h = await openRouterHarness();
  a = h.client('client-a');
  b = h.client('client-b');
});

afterAll(async () => {
  await h.gateway.close();
});

/** A turn of client A with a run waiting on a client-tool call (yield_control parks it at once). */
async function waitingRunOfA() {
  const ask = { name: 'ask_user', description: 'ask', inputSchema: { type: 'object' } };
  const turn = await a.turns.prepare({ clientTools: [ask] });
  const result = expectWaiting(await a.exec({
    agentRunId: turn.agentRunId,
    turnToken: turn.turnToken,
    input: { code: 'const answer = ask_user({});\nawait yield_control("wait for the answer");\nreturn await answer' },
  }));
  return { turn, runId: result.runId };
}

describe('turn tokens', () => {
  it('turns.prepare returns a turn token and a session token, different for every turn', async () => {
    const one = await a.turns.prepare({});
    const two = await a.turns.prepare({});
    expect(one.turnToken).toMatch(/^tt_[A-Za-z0-9_-]{40,}$/);
    expect(one.sessionToken).toMatch(/^st_[A-Za-z0-9_-]{40,}$/);
    expect(two.turnToken).not.toBe(one.turnToken);
    expect(two.sessionToken).not.toBe(one.sessionToken);
  });

  it('exec, wait, updateClientTools and end of a turn without its token: UNAUTHORIZED naming turnToken; with another turn token: FORBIDDEN', async () => {
    const mine = await a.turns.prepare({});
    const theirs = await b.turns.prepare({});
    const calls = [
      (turnToken?: string) => b.exec({ agentRunId: mine.agentRunId, input: { code: 'return 1' }, ...(turnToken ? { turnToken } : {}) }),
      (turnToken?: string) => b.wait({ agentRunId: mine.agentRunId, runId: 'run_x', ...(turnToken ? { turnToken } : {}) }),
      (turnToken?: string) => b.turns.updateClientTools({ agentRunId: mine.agentRunId, clientTools: [], ...(turnToken ? { turnToken } : {}) }),
      (turnToken?: string) => b.turns.end({ agentRunId: mine.agentRunId, ...(turnToken ? { turnToken } : {}) }),
    ];
    for (const call of calls) {
      const without = await rejection(call());
      expect(without.code).toBe('UNAUTHORIZED');
      expect(without.message).toContain('turnToken');
      expect(without.message).toContain(mine.agentRunId);
      expect((await rejection(call(theirs.turnToken))).code).toBe('FORBIDDEN');
    }
    const own = await a.exec({ agentRunId: mine.agentRunId, turnToken: mine.turnToken, input: { code: 'return 20 + 22' } });
    expect(own).toMatchObject({ status: 'completed', value: 42 });
  });
});

describe('runs of another client', () => {
  it('B cannot abort, answer, get or read the trajectory of A run; A can, with its token', async () => {
    const { turn, runId } = await waitingRunOfA();
    const other = await b.turns.prepare({});
    for (const turnToken of [undefined, other.turnToken]) {
      const t = turnToken ? { turnToken } : {};
      const expected = turnToken ? 'FORBIDDEN' : 'UNAUTHORIZED';
      expect((await rejection(b.abort({ runId, ...t }))).code).toBe(expected);
      expect((await rejection(b.answerClientCall({ runId, callId: 'c1', result: 1, ...t }))).code).toBe(expected);
      expect((await rejection(b.runs.get({ runId, ...t }))).code).toBe(expected);
      expect((await rejection(b.runs.trajectory({ runId, ...t }))).code).toBe(expected);
      expect((await rejection(b.runs.otlp({ runId, ...t }))).code).toBe(expected);
    }
    // B's own turn and token do not reach A's run either: wait refuses a run of another turn
    const waitedByB = await b.wait({ agentRunId: other.agentRunId, turnToken: other.turnToken, runId });
    expect(waitedByB).toMatchObject({ status: 'failed', code: 'invalid_input', error: expect.stringMatching(/belongs to a different (session|agent run)/) });
    const view = await a.runs.get({ runId, turnToken: turn.turnToken });
    expect(view.state).toBe('waiting');
    const callId = view.clientCalls[0]?.callId ?? '';
    expect(await a.answerClientCall({ runId, callId, result: 'yes', turnToken: turn.turnToken })).toEqual({ answered: true });
    expect(await a.wait({ agentRunId: turn.agentRunId, runId, turnToken: turn.turnToken })).toMatchObject({ status: 'completed', value: 'yes' });
    expect((await a.runs.trajectory({ runId, turnToken: turn.turnToken })).runId).toBe(runId);
    expect((await a.runs.otlp({ runId, turnToken: turn.turnToken })).json).toContain(runId);
  });

  it('runs.list shows a client only the runs of the turns whose tokens it passes; the operator sees them all', async () => {
    const { turn, runId } = await waitingRunOfA();
    const other = await b.turns.prepare({});
    const bRun = await b.exec({ agentRunId: other.agentRunId, turnToken: other.turnToken, input: { code: 'return 1' } });
    const bRunId = bRun.status === 'completed' ? bRun.telemetry.runId : undefined;
    expect(bRunId).toBeDefined();

    const listedByB = (await b.runs.list({ turnTokens: [other.turnToken] })).map((r) => r.runId);
    expect(listedByB).toContain(bRunId);
    expect(listedByB).not.toContain(runId);
    expect(await b.runs.list()).toEqual([]);
    expect(await b.runs.list({ turnTokens: ['tt_guessed'] })).toEqual([]);
    expect((await a.runs.list({ turnTokens: [turn.turnToken] })).map((r) => r.runId)).toEqual([runId]);
    const all = (await h.caller.runs.list()).map((r) => r.runId);
    expect(all).toEqual(expect.arrayContaining([runId, bRunId]));
    expect(await h.caller.abort({ runId })).toEqual({ aborted: true });
  });

  it('an ended turn token still reads its runs (the operator needs no token)', async () => {
    const { turn, runId } = await waitingRunOfA();
    await a.turns.end({ agentRunId: turn.agentRunId, turnToken: turn.turnToken });
    expect((await a.runs.get({ runId, turnToken: turn.turnToken })).state).not.toBe('waiting');
    expect((await rejection(b.runs.get({ runId }))).code).toBe('UNAUTHORIZED');
    expect((await h.caller.runs.get({ runId })).runId).toBe(runId);
  });
});

describe('a run without an owner record', () => {
  it('a client is FORBIDDEN to get, read, abort or answer it whatever token it holds; the operator still can', async () => {
    // no Gateway loses a record today: a Gateway whose ownership forgot every run stands in for that bug
    const { turn, runId } = await waitingRunOfA();
    const forgetful: GatewayApi = Object.assign(Object.create(h.gateway) as GatewayApi, { ownership: new Ownership(() => false) });
    const client = callerFor(forgetful, clientAccess(clientOwner('client-a')), h.edge);
    const t = { turnToken: turn.turnToken };
    for (const call of [
      () => client.runs.get({ runId, ...t }),
      () => client.runs.trajectory({ runId, ...t }),
      () => client.abort({ runId, ...t }),
      () => client.answerClientCall({ runId, callId: 'c1', result: 1, ...t }),
    ]) {
      const err = await rejection(call());
      expect(err.code).toBe('FORBIDDEN');
      expect(err.message).toContain('no owning turn');
    }
    expect((await callerFor(forgetful, OPERATOR, h.edge).runs.get({ runId })).runId).toBe(runId);
    expect(await h.caller.abort({ runId })).toEqual({ aborted: true });
  });
});

describe('approvals of another client', () => {
  it('B neither lists nor decides A approval; A lists and decides it with its token', async () => {
    const turn = await a.turns.prepare({});
    const first = expectWaiting(await a.exec({
      agentRunId: turn.agentRunId,
      turnToken: turn.turnToken,
      input: { code: 'const pending = exec({ command: "echo", args: ["decided"] });\nawait yield_control("let the owner decide");\nreturn (await pending).stdout.trim()' },
    }));
    const approval = await vi.waitFor(async () => {
      const [found] = await a.approvals.list({ turnTokens: [turn.turnToken] });
      if (!found) throw new Error('no approval yet');
      return found;
    });
    const other = await b.turns.prepare({});
    expect(await b.approvals.list({ turnTokens: [other.turnToken] })).toEqual([]);
    expect((await h.caller.approvals.list()).map((x) => x.approvalId)).toContain(approval.approvalId);
    expect((await rejection(b.approvals.decide({ approvalId: approval.approvalId, approve: true }))).code).toBe('UNAUTHORIZED');
    expect((await rejection(b.approvals.decide({ approvalId: approval.approvalId, approve: true, turnToken: other.turnToken }))).code).toBe('FORBIDDEN');
    await a.approvals.decide({ approvalId: approval.approvalId, approve: true, turnToken: turn.turnToken });
    expect(await a.wait({ agentRunId: turn.agentRunId, runId: first.runId, turnToken: turn.turnToken })).toMatchObject({
      status: 'completed',
      value: 'decided',
    });
  });
});

describe('sessions', () => {
  it('joining A session without its session token: UNAUTHORIZED; with a wrong one: FORBIDDEN; with it: the same session', async () => {
    const turn = await a.turns.prepare({});
    const other = await b.turns.prepare({});
    const without = await rejection(b.turns.prepare({ sessionId: turn.sessionId }));
    expect(without.code).toBe('UNAUTHORIZED');
    expect(without.message).toContain('sessionToken');
    expect((await rejection(b.turns.prepare({ sessionId: turn.sessionId, sessionToken: other.sessionToken }))).code).toBe('FORBIDDEN');
    const joined = await b.turns.prepare({ sessionId: turn.sessionId, sessionToken: turn.sessionToken });
    expect(joined.sessionId).toBe(turn.sessionId);
    expect(joined.sessionToken).toBe(turn.sessionToken);
  });

  it('a new session id is free to claim; its creator gets the token that opens it', async () => {
    const claimed = await a.turns.prepare({ sessionId: 'sess_claimed_by_a' });
    expect((await rejection(b.turns.prepare({ sessionId: 'sess_claimed_by_a' }))).code).toBe('UNAUTHORIZED');
    expect((await b.turns.prepare({ sessionId: 'sess_claimed_by_a', sessionToken: claimed.sessionToken })).sessionId).toBe('sess_claimed_by_a');
  });

  it('transcript, store, branch and compact of A session need its session token or a turn token of it', async () => {
    const turn = await a.turns.prepare({});
    await a.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: 'await store("k", 1); return 1' } });
    const other = await b.turns.prepare({});
    const { sessionId } = turn;
    expect((await rejection(b.sessions.transcript({ sessionId }))).code).toBe('UNAUTHORIZED');
    expect((await rejection(b.sessions.store({ sessionId, turnToken: other.turnToken }))).code).toBe('UNAUTHORIZED');
    expect((await rejection(b.sessions.store({ sessionId, sessionToken: other.sessionToken }))).code).toBe('FORBIDDEN');
    expect((await rejection(b.sessions.branch({ sessionId, entryId: null }))).code).toBe('UNAUTHORIZED');
    expect((await rejection(b.sessions.compact({ sessionId }))).code).toBe('UNAUTHORIZED');
    expect(await a.sessions.store({ sessionId, turnToken: turn.turnToken })).toEqual([{ key: 'k', json: '1', networkContent: false }]);
    expect((await wholeTranscript(a, { sessionId, sessionToken: turn.sessionToken })).length).toBeGreaterThan(0);
  });

  it('tokens from the request headers open what the input leaves out; a token in the input wins over them', async () => {
    const turn = await a.turns.prepare({});
    await a.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: 'await store("h", 2); return 1' } });
    const { sessionId } = turn;
    const other = await b.turns.prepare({});
    const headerClient = (presented: { turnTokens: string[]; sessionToken?: string }) =>
      callerFor(h.gateway, clientAccess(clientOwner('client-h')), h.edge, undefined, presented);
    expect(await headerClient({ turnTokens: [], sessionToken: turn.sessionToken }).sessions.store({ sessionId })).toEqual([{ key: 'h', json: '2', networkContent: false }]);
    expect(await headerClient({ turnTokens: [other.turnToken, turn.turnToken] }).sessions.store({ sessionId })).toHaveLength(1);
    const wrongInInput = await rejection(headerClient({ turnTokens: [], sessionToken: turn.sessionToken }).sessions.store({ sessionId, sessionToken: other.sessionToken }));
    expect(wrongInInput.code).toBe('FORBIDDEN');
    const missing = await rejection(headerClient({ turnTokens: [] }).sessions.store({ sessionId }));
    expect(missing.code).toBe('UNAUTHORIZED');
    expect(missing.message).toContain('x-codemode-session-token');
  });

  it('a session with history from an earlier server (no token in this process): a client is FORBIDDEN, the operator joins it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cm-own-')), 'sessions.db');
    const config = { ...demoConfig(), sessions: { path }, mcp: { servers: {} } };
    const before = await createGateway({ config });
    const first = before.prepareTurn({ sessionId: 'sess_from_before' });
    await before.exec(first.agentRunId, { code: 'await store("k", 1); return 1' });
    await before.close();
    const after = await createGateway({ config });
    try {
      const edge = createEdgeState(after.config.server);
      const client = callerFor(after, clientAccess(clientOwner('c')), edge);
      const err = await rejection(client.turns.prepare({ sessionId: 'sess_from_before', sessionToken: first.sessionToken }));
      expect(err.code).toBe('FORBIDDEN');
      expect(err.message).toContain('before this server started');
      const joined = await callerFor(after, OPERATOR, edge).turns.prepare({ sessionId: 'sess_from_before' });
      expect(joined.sessionToken).not.toBe(first.sessionToken);
      expect((await client.turns.prepare({ sessionId: 'sess_from_before', sessionToken: joined.sessionToken })).sessionId).toBe('sess_from_before');
    } finally {
      await after.close();
    }
  });
});

describe('sessions from an earlier server', () => {
  it('a session whose leaf was branched back before its first entry still has history: a client cannot claim it as new', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cm-own-')), 'sessions.db');
    const config = { ...demoConfig(), sessions: { path }, mcp: { servers: {} } };
    const before = await createGateway({ config });
    const first = before.prepareTurn({ sessionId: 'sess_branched_empty' });
    await before.exec(first.agentRunId, { code: 'await store("k", 1); return 1' });
    expect(await before.branchSession({ sessionId: 'sess_branched_empty', entryId: null })).toEqual([]);
    await before.close();
    const after = await createGateway({ config });
    try {
      const client = callerFor(after, clientAccess(clientOwner('c')), createEdgeState(after.config.server));
      const err = await rejection(client.turns.prepare({ sessionId: 'sess_branched_empty' }));
      expect(err.code).toBe('FORBIDDEN');
      expect(err.message).toContain('before this server started');
    } finally {
      await after.close();
    }
  });
});

/** An MCP source whose first connection attempt settles only when the test says so. */
function heldMcp() {
  let settle = () => {};
  const firstAttempt = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const source: McpToolSource = { ready: () => firstAttempt, tools: () => [], revision: () => 0, onToolsChanged: () => () => {}, views: () => [], close: async () => {} };
  return { source, settle };
}

/** Lets every pending callback run once, so anything not blocked on a held promise has moved on. */
const turnOfEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('while MCP servers are in their first connection attempt', () => {
  it('two clients claiming one new session id: only the first gets its token, the second is UNAUTHORIZED', async () => {
    const mcp = heldMcp();
    const gateway = await createGateway({ config: { ...demoConfig(), mcp: { servers: {} } }, mcp: mcp.source });
    try {
      const edge = createEdgeState(gateway.config.server);
      const first = callerFor(gateway, clientAccess(clientOwner('first')), edge).turns.prepare({ sessionId: 'sess_contested' });
      const second = callerFor(gateway, clientAccess(clientOwner('second')), edge).turns.prepare({ sessionId: 'sess_contested' });
      await turnOfEventLoop();
      mcp.settle();
      const [won, lost] = await Promise.allSettled([first, second]);
      expect(won).toMatchObject({ status: 'fulfilled', value: { sessionId: 'sess_contested' } });
      expect(lost.status).toBe('rejected');
      expect((lost as PromiseRejectedResult).reason).toMatchObject({ code: 'UNAUTHORIZED' });
    } finally {
      await gateway.close();
    }
  });

  it('turns.prepare, catalog.list, catalog.declarations and config.surface answer only once the attempt settled', async () => {
    const mcp = heldMcp();
    const gateway = await createGateway({ config: { ...demoConfig(), mcp: { servers: {} } }, mcp: mcp.source });
    try {
      const operator = callerFor(gateway, OPERATOR, createEdgeState(gateway.config.server));
      const answered: string[] = [];
      const calls = [
        operator.turns.prepare({}).then(() => answered.push('turns.prepare')),
        operator.catalog.list({}).then(() => answered.push('catalog.list')),
        operator.catalog.declarations({}).then(() => answered.push('catalog.declarations')),
        operator.config.surface({}).then(() => answered.push('config.surface')),
      ];
      await turnOfEventLoop();
      expect(answered).toEqual([]);
      mcp.settle();
      await Promise.all(calls);
      expect(answered.sort()).toEqual(['catalog.declarations', 'catalog.list', 'config.surface', 'turns.prepare']);
    } finally {
      await gateway.close();
    }
  });
});

describe('events', () => {
  it('a client without turn tokens cannot subscribe: UNAUTHORIZED naming turnTokens', async () => {
    const err = await rejection(b.events());
    expect(err.code).toBe('UNAUTHORIZED');
    expect(err.message).toContain('turnTokens');
  });

  it('a client stream carries only its turns events; the operator stream carries both', async () => {
    const controller = new AbortController();
    const bStream = h.client('client-b-stream', controller.signal);
    const opStream = callerFor(h.gateway, OPERATOR, h.edge, controller.signal);
    const mine = await b.turns.prepare({});
    const theirs = await a.turns.prepare({});
    const seenByB: StreamedRunEvent[] = [];
    const seenByOperator: StreamedRunEvent[] = [];
    const drain = async (iterable: AsyncIterable<StreamedRunEvent>, into: StreamedRunEvent[]) => {
      for await (const event of iterable) into.push(event);
    };
    const draining = [drain(await bStream.events({ turnTokens: [mine.turnToken] }), seenByB), drain(await opStream.events(), seenByOperator)];
    const ofA = await a.exec({ agentRunId: theirs.agentRunId, turnToken: theirs.turnToken, input: { code: 'return 1' } });
    const ofB = await b.exec({ agentRunId: mine.agentRunId, turnToken: mine.turnToken, input: { code: 'return 2' } });
    const aRunId = ofA.status === 'completed' ? ofA.telemetry.runId : '';
    const bRunId = ofB.status === 'completed' ? ofB.telemetry.runId : '';
    await vi.waitFor(() => {
      expect(seenByOperator.map((e) => e.runId)).toEqual(expect.arrayContaining([aRunId, bRunId]));
      expect(seenByB.some((e) => e.runId === bRunId && e.type === 'run.updated')).toBe(true);
    });
    controller.abort();
    await Promise.allSettled(draining);
    expect(seenByB.map((e) => e.runId)).not.toContain(aRunId);
  });
});

describe('session.appended events', () => {
  it("the operator hears appends to every session; a client only those to sessions its turns are in, a joined turn's entries included", async () => {
    const controller = new AbortController();
    const bStream = h.client('client-b-appends', controller.signal);
    const opStream = callerFor(h.gateway, OPERATOR, h.edge, controller.signal);
    const mine = await b.turns.prepare({});
    const theirs = await a.turns.prepare({});
    type Appended = Extract<StreamedRunEvent, { type: 'session.appended' }>;
    const seenByB: Appended[] = [];
    const seenByOperator: Appended[] = [];
    const drain = async (iterable: AsyncIterable<StreamedRunEvent>, into: Appended[]) => {
      for await (const event of iterable) if (event.type === 'session.appended') into.push(event);
    };
    const draining = [drain(await bStream.events({ turnTokens: [mine.turnToken] }), seenByB), drain(await opStream.events(), seenByOperator)];
    await a.exec({ agentRunId: theirs.agentRunId, turnToken: theirs.turnToken, input: { code: 'return 1' } });
    const ofB = await b.exec({ agentRunId: mine.agentRunId, turnToken: mine.turnToken, input: { code: 'return 2' } });
    // A joins B's session with its token: what A's turn writes there is B's session's too
    const joined = await a.turns.prepare({ sessionId: mine.sessionId, sessionToken: mine.sessionToken });
    await a.exec({ agentRunId: joined.agentRunId, turnToken: joined.turnToken, input: { code: 'return 3' } });
    const ofSession = (seen: Appended[], sessionId: string) => seen.filter((e) => e.sessionId === sessionId).map((e) => e.entryId);
    const mineIds = (await wholeTranscript(b, { sessionId: mine.sessionId, turnToken: mine.turnToken })).map((e) => e.id);
    const theirIds = (await wholeTranscript(a, { sessionId: theirs.sessionId, turnToken: theirs.turnToken })).map((e) => e.id);
    expect(mineIds).toHaveLength(4);
    expect(theirIds).toHaveLength(2);
    await vi.waitFor(() => {
      expect(ofSession(seenByB, mine.sessionId)).toEqual(mineIds);
      expect(ofSession(seenByOperator, mine.sessionId)).toEqual(mineIds);
      expect(ofSession(seenByOperator, theirs.sessionId)).toEqual(theirIds);
    });
    controller.abort();
    await Promise.allSettled(draining);
    expect(seenByB.filter((e) => e.sessionId !== mine.sessionId)).toEqual([]);
    // the exec's call entry is written before its run exists; its result entry names the run
    const bRunId = ofB.status === 'completed' ? ofB.telemetry.runId : undefined;
    expect(bRunId).toBeDefined();
    expect(seenByB.slice(0, 2).map((e) => e.runId)).toEqual([undefined, bRunId]);
  });
});

describe('executor override', () => {
  it('on the default policy ("never"): a client asking for another executor is FORBIDDEN naming allowExecutorOverride; the same executor passes', async () => {
    const turn = await a.turns.prepare({});
    const err = await rejection(a.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, executor: 'node', input: { code: 'return 1' } }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain('allowExecutorOverride');
    const same = await a.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, executor: 'quickjs', input: { code: 'return 1' } });
    expect(same.status).toBe('completed');
  });

  it('on "operator": the operator runs a cell on node, a client is still FORBIDDEN', async () => {
    const config = demoConfig();
    config.tools.codeMode.allowExecutorOverride = 'operator';
    const gateway = await createGateway({ config: { ...config, mcp: { servers: {} } } });
    try {
      const edge = createEdgeState(gateway.config.server);
      const operator = callerFor(gateway, OPERATOR, edge);
      const client = callerFor(gateway, clientAccess(clientOwner('c')), edge);
      const turn = await operator.turns.prepare({});
      const onNode = await operator.exec({ agentRunId: turn.agentRunId, executor: 'node', input: { code: 'return 1' } });
      expect(onNode).toMatchObject({ status: 'completed', telemetry: { executor: 'node' } });
      const err = await rejection(client.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, executor: 'node', input: { code: 'return 1' } }));
      expect(err.code).toBe('FORBIDDEN');
      expect(err.message).toContain('only the operator');
    } finally {
      await gateway.close();
    }
  });
});
