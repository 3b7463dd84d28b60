// The run record written out and read back: a parked QuickJS run's record is plain JSON, parses back equal,
// restores into a run whose record is equal again, and its snapshot resumes to the value the original returns.
// A record that does not fit (a wrong field, another turn, another snapshot, a live context) is refused by name.
import { NO_DECLARATION_FILES } from '../bridge/declaration-files.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { LegOutcome } from '../executors/types.ts';
import { CodeModeError } from '../errors.ts';
import { expectCompleted, expectWaiting, testGateway, until } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { legLimits, Run } from './run.ts';
import { MAX_RECORDED_CLIENT_TOOLS, parseRunRecord, RunRecordError, snapshotSha256, type RunRecord } from './run-record.ts';
import { legTo, parkedOutcome, runIn, scriptedExecutor, startedRun, testHost, testTurn } from './run.testing.ts';
import { buildCatalog } from '../catalog/build.ts';
import { MAX_SCHEMA_DEPTH } from '../util/json-shape.ts';
import { MAX_SLOTS_PER_TURN } from './slots.ts';

/** A tool that answers when the test says so. */
function gateTool() {
  const waiting = new Map<string, () => void>();
  const tool: ToolDefinition = {
    name: 'gate',
    description: 'answers when the test says so',
    source: 'core',
    inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    execute: (input) => new Promise((resolve) => waiting.set((input as { key: string }).key, () => resolve({ opened: (input as { key: string }).key }))),
  };
  return { tool, waiting, reply: (key: string) => waiting.get(key)?.() };
}

/** A client tool's declaration as a turn is given it. */
const ASK = { name: 'ask_user', description: 'asks the user', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } };

/** A JSON Schema nested `depth` objects deep. */
function deepSchema(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { x: schema } };
  return schema;
}

const echo: ToolDefinition = {
  name: 'echo',
  description: 'returns its input',
  source: 'core',
  inputSchema: { type: 'object' },
  execute: async (input) => ({ echoed: input }),
};

// a run that has done everything a record holds: a delivered call, a buffered store() write, clock and random
// readings, a call pending across the park (its reply kept for the wait), and a yield
const CELL = [
  'await store("plan", { step: 1 });',
  'const a = await echo({ n: 1 });',
  'const pending = gate({ key: "g" });',
  'const before = Date.now();',
  'await yield_control("checkpoint");',
  'const b = await pending;',
  'return { a, b, r: Math.random(), clockMoved: Date.now() >= before };',
].join('\n');

describe('a parked run written out and read back', () => {
  let executor: QuickJsExecutor;

  beforeAll(async () => {
    executor = new QuickJsExecutor({ workers: 1 });
    await executor.ready();
  });

  afterAll(async () => {
    await executor.close();
  });

  it('is plain JSON, parses back equal, restores to an equal record, and its snapshot resumes to the value the original returns', async () => {
    const gate = gateTool();
    const gw = await testGateway({ executor, tools: [gate.tool, echo] });
    const t = gw.prepareTurn({ sessionId: 'record-round-trip' });
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code: CELL }, { toolCallId: 'call_rt' }));
    await until(() => gate.waiting.has('g'), { what: 'the gate call' });
    gate.reply('g');
    await until(() => gw.run(parked.runId)?.pendingToolCalls.some((c) => c.tool === 'gate' && c.state === 'settled') === true, { what: 'the gate reply to be kept' });

    const written = gw.diagnostics.runRecord(parked.runId);
    expect(written).toBeDefined();
    const { record, snapshot } = written!;
    expect(snapshot).toBeInstanceOf(Uint8Array);

    // what it holds
    expect(record).toMatchObject({
      format: 'codemode-run',
      version: 1,
      runId: parked.runId,
      scope: { agentRunId: t.agentRunId, sessionId: 'record-round-trip', agentId: 'main' },
      cell: { executor: 'quickjs', language: 'javascript', code: CELL, toolCallId: 'call_rt', restartSafe: false },
      state: 'waiting',
      reason: 'yield',
      holdsSlot: true,
      continuation: { executor: 'quickjs', snapshotSha256: snapshotSha256(snapshot!), snapshotBytes: snapshot!.byteLength },
    });
    expect(record.expiresAt).toBeGreaterThan(Date.now());
    expect(record.requests.map((r) => [r.record.tool, r.record.status, r.delivered, r.settled !== undefined])).toEqual([
      ['store', 'ok', true, true],
      ['echo', 'ok', true, true],
      ['gate', 'ok', false, true],
      ['yield_control', 'ok', false, true],
    ]);
    expect(record.requests[1]?.req).toMatchObject({ op: 'call', tool: 'echo', input: { n: 1 } });
    expect(record.guestInFlight).toBe(2);
    expect(record.storeWrites).toEqual([{ key: 'plan', json: '{"step":1}', networkContent: false }]);
    expect(record.clock.runs.length).toBeGreaterThan(0);
    expect(record.calls.map((c) => [c.tool, c.status])).toEqual([['exec', 'waiting']]);

    // write out, read back, equal
    const text = JSON.stringify(record);
    expect(JSON.parse(text)).toStrictEqual(record);
    const back = parseRunRecord(JSON.parse(text));
    expect(back).toStrictEqual(record);

    // a run of it, in another host (another process, as far as the run can tell), writes the same record
    const host = testHost();
    const turn = testTurn({ agentRunId: t.agentRunId, sessionId: 'record-round-trip' });
    const restored = Run.restore(back, { host, turn, executor, snapshot: snapshot!.slice() });
    expect(restored.toRecord()).toStrictEqual(record);
    expect(host.slots.held).toBe(1);

    // its snapshot and kept replies resume the cell: the same value the original's wait returns
    const leg = executor.resume(
      restored.continuation!,
      { files: NO_DECLARATION_FILES, limits: legLimits(turn.options), budgetMs: 10_000, inFlight: restored.guestInFlight },
      { onRequests: () => leg.abort(), onOutput() {} },
    );
    leg.deliver(restored.deliverReplies(restored.requests.values()));
    const outcome: LegOutcome = await leg.done;
    const original = expectCompleted(await gw.wait(t.agentRunId, { runId: parked.runId }));
    expect(outcome.kind).toBe('completed');
    const value: unknown = outcome.kind === 'completed' ? JSON.parse(outcome.valueJson) : undefined;
    expect(value).toEqual(original.value);
    expect(value).toMatchObject({ a: { echoed: { n: 1 } }, b: { opened: 'g' }, clockMoved: true });

    restored.abort('the test is over');
    expect(host.slots.held).toBe(0);
    expect(gw.diagnostics.leaks()).toEqual([]);
    expect(executor.leaks()).toEqual([]);
  });

  it('on a replaying run: the record carries its cassette and which calls it used, and the restored run goes on from the next one', async () => {
    const gw = await testGateway({ executor, tools: [echo] });
    const code = 'const a = await echo({ n: 1 }); await yield_control("p"); const b = await echo({ n: 1 }); return { a, b };';
    const t = gw.prepareTurn({ sessionId: 'record-replay' });
    const first = expectWaiting(await gw.exec(t.agentRunId, { code }));
    expectCompleted(await gw.wait(t.agentRunId, { runId: first.runId }));
    const cassette = JSON.parse(JSON.stringify(gw.cassette(first.runId))) as Record<string, unknown>;
    const replaying = expectWaiting(await gw.exec(t.agentRunId, {}, { replay: cassette }));

    const { record, snapshot } = gw.diagnostics.runRecord(replaying.runId)!;
    expect(record.cell.replay?.used).toEqual([0]);
    expect(record.cell.replay?.cassette.calls.map((c) => c.tool)).toEqual(['echo', 'echo']);
    const back = parseRunRecord(JSON.parse(JSON.stringify(record)));
    expect(back).toStrictEqual(record);
    const restored = Run.restore(back, { host: testHost(), turn: testTurn({ agentRunId: t.agentRunId, sessionId: 'record-replay' }), executor, snapshot: snapshot! });
    expect(restored.toRecord()).toStrictEqual(record);
    // the call it used stays used: the same input takes the cassette's second call, and a third has none left
    const replay = restored.cell.replay!;
    expect(replay.answer({ id: 'x1', op: 'call', tool: 'echo', input: { n: 1 } }, 'echo')).toMatchObject({ reply: { ok: true } });
    expect(replay.answer({ id: 'x2', op: 'call', tool: 'echo', input: { n: 1 } }, 'echo')).toMatchObject({ mismatch: expect.stringMatching(/every call it holds was already used/) });
    restored.abort('the test is over');
    gw.abortRun(replaying.runId);
  });

  it('on a record given another turn, another snapshot, none, or another executor: refused with RunRecordError naming why', async () => {
    const gate = gateTool();
    const gw = await testGateway({ executor, tools: [gate.tool, echo] });
    const t = gw.prepareTurn({ sessionId: 'record-refusals' });
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code: 'await yield_control("p"); return 1' }));
    const { record, snapshot } = gw.diagnostics.runRecord(parked.runId)!;
    const turn = testTurn({ agentRunId: t.agentRunId, sessionId: 'record-refusals' });
    const restore = (r: RunRecord, o: { turn?: typeof turn; snapshot?: Uint8Array | undefined; executor?: ReturnType<typeof scriptedExecutor> } = {}) =>
      Run.restore(r, { host: testHost(), turn: o.turn ?? turn, executor: o.executor ?? executor, ...('snapshot' in o ? (o.snapshot ? { snapshot: o.snapshot } : {}) : { snapshot: snapshot! }) });

    expect(() => restore(record, { turn: testTurn({ agentRunId: 'ar_other', sessionId: 'record-refusals' }) })).toThrow(/belongs to agent run .* not to the turn given/);
    const altered = snapshot!.slice();
    altered[altered.length - 1] = (altered[altered.length - 1]! + 1) % 256;
    expect(() => restore(record, { snapshot: altered })).toThrow(/the snapshot given is not the one it names/);
    expect(() => restore(record, { snapshot: undefined })).toThrow(/its snapshot bytes were not given/);
    expect(() => restore(record, { executor: { ...scriptedExecutor(), kind: 'node' } })).toThrow(/it ran on the quickjs executor, not on node/);
    expect(() => restore({ ...record, state: 'running' })).toThrow(/only a waiting or ended run restores/);
    expect(() => restore({ ...record, cellId: 'cm_000000000000' })).toThrow(/its cell id/);
    for (const attempt of [() => restore(record, { snapshot: altered }), () => restore({ ...record, state: 'running' })]) {
      expect(attempt).toThrow(RunRecordError);
    }
    gw.abortRun(parked.runId);
  });
});

describe('parseRunRecord', () => {
  /** The record of a waiting run with one request (a timer) in flight, from the record's own transitions. */
  async function waitingRecord(): Promise<RunRecord> {
    const run = startedRun(testHost(), scriptedExecutor());
    const req = { id: 'r1', op: 'timer' as const, ms: 5, timer: 1 };
    run.admitRequest(req, 'timer', (invocationId) => ({ invocationId, requestId: 'r1', tool: 'setTimeout', kind: 'timer', inputBytes: 40, startedAt: 1, status: 'running', parentCallId: 'exec_1' }));
    await legTo(run, parkedOutcome());
    run.park(parkedOutcome());
    return run.toRecord();
  }

  it('on a record Run.toRecord wrote: returns it, equal', async () => {
    const record = await waitingRecord();
    expect(parseRunRecord(JSON.parse(JSON.stringify(record)))).toStrictEqual(record);
  });

  it('on each field wrong: refuses with RunRecordError naming it', async () => {
    const record = await waitingRecord();
    const cases: Array<[string, (r: Record<string, unknown> & RunRecord) => unknown, RegExp]> = [
      ['format', (r) => ({ ...r, format: 'other' }), /format must be "codemode-run"/],
      ['version', (r) => ({ ...r, version: 2 }), /version 2 is not one this Gateway reads/],
      ['state', (r) => ({ ...r, state: 'sleeping' }), /the record\.state must be one of/],
      ['scope', (r) => ({ ...r, scope: { ...r.scope, sessionId: 7 } }), /scope\.sessionId must be a string/],
      ['a request id', (r) => ({ ...r, requests: [{ ...r.requests[0], req: { op: 'timer', ms: 5, timer: 1 } }] }), /requests\[0\]\.req is not a bridge request/],
      ['a reply id', (r) => ({ ...r, requests: [{ ...r.requests[0], settled: { id: 'r2', ok: true, value: 1 } }] }), /requests\[0\]\.settled\.id must be its request id/],
      ['a delivered request without a reply', (r) => ({ ...r, requests: [{ ...r.requests[0], delivered: true }] }), /requests\[0\] is delivered without a reply/],
      ['a record status', (r) => ({ ...r, requests: [{ ...r.requests[0], record: { ...r.requests[0]!.record, status: 'lost' } }] }), /requests\[0\]\.record\.status must be one of/],
      ['the clock', (r) => ({ ...r, clock: { startMs: 1, runs: [1] } }), /clock is not a clock recording/],
      ['the seed', (r) => ({ ...r, cell: { ...r.cell, seed: -1 } }), /cell\.seed must be a count/],
      ['a snapshot reference', (r) => ({ ...r, continuation: { ...r.continuation, snapshotSha256: 'abc' } }), /continuation\.snapshotSha256 must be a SHA-256 in hex/],
      ['a missing continuation', (r) => ({ ...r, continuation: undefined }), /continuation is missing: a waiting run holds one/],
      ['a store write', (r) => ({ ...r, storeWrites: [{ key: 'k', json: 5, networkContent: false }] }), /storeWrites\[0\]\.json must be a string/],
      ['the client tools', (r) => ({ ...r, scope: { ...r.scope, clientTools: { ask: 1 } } }), /scope\.clientTools must be an array/],
      ['a client tool', (r) => ({ ...r, scope: { ...r.scope, clientTools: ['ask'] } }), /scope\.clientTools\[0\] must be an object/],
      ['a client tool name', (r) => ({ ...r, scope: { ...r.scope, clientTools: [{ ...ASK, name: 'x'.repeat(201) }] } }), /scope\.clientTools\[0\]\.name must be 1 to 200 characters/],
      ['a repeated client tool', (r) => ({ ...r, scope: { ...r.scope, clientTools: [ASK, ASK] } }), /scope\.clientTools\[1\]\.name repeats client tool "ask_user"/],
      ['a client tool description', (r) => ({ ...r, scope: { ...r.scope, clientTools: [{ ...ASK, description: null }] } }), /scope\.clientTools\[0\]\.description must be a string/],
      ['a client tool schema', (r) => ({ ...r, scope: { ...r.scope, clientTools: [{ ...ASK, inputSchema: 'object' }] } }), /scope\.clientTools\[0\]\.inputSchema must be an object/],
      ['a client tool schema too deep', (r) => ({ ...r, scope: { ...r.scope, clientTools: [{ ...ASK, outputSchema: deepSchema(MAX_SCHEMA_DEPTH + 2) }] } }), /scope\.clientTools\[0\]\.outputSchema is not a schema this Gateway takes/],
      ['too many client tools', (r) => ({ ...r, scope: { ...r.scope, clientTools: Array.from({ length: MAX_RECORDED_CLIENT_TOOLS + 1 }, (_, i) => ({ ...ASK, name: `t${i}` })) } }), /scope\.clientTools holds 4097 tools, more than 4096/],
    ];
    for (const [what, edit, message] of cases) {
      const edited = JSON.parse(JSON.stringify(edit(record as Record<string, unknown> & RunRecord))) as unknown;
      expect(() => parseRunRecord(edited), what).toThrow(RunRecordError);
      expect(() => parseRunRecord(edited), what).toThrow(message);
    }
    expect(() => parseRunRecord([])).toThrow(/the record must be an object/);
  });

  it("on a run whose projection has client tools: the record names them as declared (and no other tool), and parses back equal", async () => {
    const clientTool: ToolDefinition = { ...ASK, source: 'client', owner: 'client' };
    const turn = { ...testTurn(), catalog: buildCatalog([echo, clientTool]) };
    const run = startedRun(testHost(), scriptedExecutor(), turn);
    await legTo(run, parkedOutcome());
    run.park(parkedOutcome());
    const record = run.toRecord();
    expect(record.scope.clientTools).toEqual([ASK]);
    expect(parseRunRecord(JSON.parse(JSON.stringify(record)))).toStrictEqual(record);
  });
});

describe('records of runs that cannot move', () => {
  it('on a run parked in a live context (Node): its record says live, and a restore refuses it', async () => {
    const run = startedRun(testHost(), scriptedExecutor());
    const live: Extract<LegOutcome, { kind: 'parked' }> = { kind: 'parked', continuation: { executor: 'node', continuationId: 'c1', workerId: 1, retainedBytesEstimate: 1024 }, queued: [], droppedBytes: 0 };
    await legTo(run, live);
    run.park(live);
    const record = run.toRecord();
    expect(record.continuation).toEqual({ executor: 'node', live: true, retainedBytesEstimate: 1024 });
    expect(() => Run.restore(record, { host: testHost(), turn: testTurn(), executor: scriptedExecutor() })).toThrow(/live context inside one process; it cannot be restored/);
  });

  it('on a waiting record whose TTL deadline passed: the restored run expires and gives its slot back', async () => {
    const record = { ...(await runIn('waiting')).toRecord(), holdsSlot: true, expiresAt: Date.now() - 1 };
    const host = testHost();
    const run = Run.restore(record, { host, turn: testTurn(), executor: scriptedExecutor(), snapshot: new Uint8Array([1, 2, 3]) });
    expect(host.slots.held).toBe(1);
    await until(() => run.state === 'expired', { what: 'the restored run to expire' });
    expect(host.slots.held).toBe(0);
    expect(host.endedRuns).toEqual([run]);
  });

  it("on a waiting record when its turn's share of slots is full: the restore fails with runtime_unavailable", async () => {
    const record = { ...(await runIn('waiting')).toRecord(), holdsSlot: true };
    const host = testHost();
    const turn = testTurn();
    for (let i = 0; i < MAX_SLOTS_PER_TURN; i++) host.slots.claim(turn);
    let thrown: unknown;
    try {
      Run.restore(record, { host, turn, executor: scriptedExecutor(), snapshot: new Uint8Array([1, 2, 3]) });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CodeModeError);
    expect(thrown).toMatchObject({ code: 'runtime_unavailable' });
  });

  it('on an ended run: its record restores for the board and history, holding nothing', async () => {
    const record = (await runIn('completed')).toRecord();
    const run = Run.restore(record, { host: testHost(), turn: testTurn(), executor: scriptedExecutor() });
    expect(run.state).toBe('completed');
    expect(run.toRecord()).toStrictEqual(record);
    expect(run.leaks(false)).toEqual([]);
  });
});
