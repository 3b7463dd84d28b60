// Replay lab, part 3: a run recorded into a cassette, replayed with no tool dispatched; a call the cassette lacks fails naming it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../gateway.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { ToolError } from '../errors.ts';
import { expectCompleted, expectFailed, testGateway } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';

/** A tool that counts its real dispatches: a replay must leave the count where the recording left it. */
/** A value nested `levels` deep: [[[...]]]. */
function deep(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

function counted() {
  const state = { dispatches: 0 };
  const tool: ToolDefinition = {
    name: 'lookup',
    description: 'test: answers { v } with a stamp; fails for v "boom"',
    source: 'core',
    inputSchema: { type: 'object', properties: { v: { type: 'string' } } },
    execute: async (input) => {
      state.dispatches++;
      const v = (input as { v?: string }).v;
      if (v === 'boom') throw new ToolError('lookup exploded', 'lookup_failed');
      return { v, stamp: state.dispatches };
    },
  };
  return { tool, state };
}

const CELL = `
const [a, b] = await Promise.all([lookup({ v: "x" }), lookup({ v: "y" })]);
let err = null;
try { await lookup({ v: "boom" }); } catch (e) { err = e.code + ": " + e.message; }
await new Promise((r) => setTimeout(r, 5));
const c = await lookup({ v: a.v + b.v });
return { a, b, c, err, r: Math.random(), t: Date.now() };
`;

describe('replay lab: cassettes', () => {
  let quickjs: QuickJsExecutor;
  let gw: Gateway;
  let probe: ReturnType<typeof counted>;

  beforeAll(async () => {
    quickjs = new QuickJsExecutor({ workers: 1 });
    probe = counted();
    gw = await testGateway({ executor: quickjs, tools: [probe.tool] });
  });
  afterAll(async () => {
    await gw.close();
    await quickjs.close();
  });

  async function record() {
    const t = gw.prepareTurn({});
    const r = expectCompleted(await gw.exec(t.agentRunId, { code: CELL }));
    gw.endTurn(t.agentRunId);
    // through JSON, as a downloaded file or `--record FILE` carries it
    return { value: r.value, cassette: JSON.parse(JSON.stringify(gw.cassette(r.telemetry.runId!))) as Record<string, unknown> };
  }

  it('on a completed run: the cassette holds its tool calls in order with inputs, outputs, errors, timing, seed and value', async () => {
    const { value, cassette } = await record();
    const calls = cassette.calls as Array<Record<string, unknown>>;
    expect(calls.map((c) => [c.tool, c.input, c.ok])).toEqual([
      ['lookup', { v: 'x' }, true],
      ['lookup', { v: 'y' }, true],
      ['lookup', { v: 'boom' }, false],
      ['lookup', { v: 'xy' }, true],
    ]);
    expect(calls[2]).toMatchObject({ error: 'lookup exploded', code: 'lookup_failed' });
    expect(typeof calls[0]!.durationMs).toBe('number');
    expect(cassette).toMatchObject({ format: 'codemode-cassette', version: 1, language: 'javascript', result: { status: 'completed', value } });
    expect(Number.isInteger(cassette.seed)).toBe(true);
  });

  it('on a replay: the recorded value, with no tool dispatched', async () => {
    const { value, cassette } = await record();
    const before = probe.state.dispatches;
    const t = gw.prepareTurn({});
    // no code: the cassette's own source runs, with its seed
    const r = expectCompleted(await gw.exec(t.agentRunId, {}, { replay: cassette }));
    expect(r.value).toEqual(value);
    expect(probe.state.dispatches).toBe(before);
    const nested = gw.trajectory(r.telemetry.runId!)!.calls.flatMap((c) => c.nested).filter((n) => n.tool === 'lookup');
    expect(nested.map((n) => n.answeredBy)).toEqual(['cassette', 'cassette', 'cassette', 'cassette']);
    expect(gw.run(r.telemetry.runId!)?.replay).toEqual({ runId: cassette.runId });
    gw.endTurn(t.agentRunId);
  });

  it('on a call the cassette does not hold: the run fails with replay_mismatch naming the call, nothing dispatched', async () => {
    const { cassette } = await record();
    const before = probe.state.dispatches;
    const t = gw.prepareTurn({});
    const code = (cassette.code as string).replace('lookup({ v: "y" })', 'lookup({ v: "z" })');
    const r = expectFailed(await gw.exec(t.agentRunId, { code }, { replay: cassette }), 'replay_mismatch');
    expect(r.error).toContain('lookup({"v":"z"})');
    expect(r.error).toContain('does not hold');
    expect(probe.state.dispatches).toBe(before);
    gw.endTurn(t.agentRunId);
  });

  it('on an extra "__proto__" key, in the cell\'s call or in the cassette\'s: no match (the key counts like any other), nothing dispatched', async () => {
    const { cassette } = await record();
    const before = probe.state.dispatches;
    const t = gw.prepareTurn({});
    const code = (cassette.code as string).replace('lookup({ v: "y" })', 'lookup(JSON.parse(\'{"v":"y","__proto__":{"admin":true}}\'))');
    const extraInCell = expectFailed(await gw.exec(t.agentRunId, { code }, { replay: cassette }), 'replay_mismatch');
    expect(extraInCell.error).toContain('lookup({"__proto__":{"admin":true},"v":"y"})');
    // the cassette's entry carrying the extra key, as parsed from a file: the cell's plain call does not match it
    const recorded = JSON.parse(JSON.stringify(cassette).replace('"input":{"v":"y"}', '"input":{"v":"y","__proto__":{"admin":true}}')) as Record<string, unknown>;
    const extraInCassette = expectFailed(await gw.exec(t.agentRunId, {}, { replay: recorded }), 'replay_mismatch');
    expect(extraInCassette.error).toContain('lookup({"v":"y"})');
    expect(probe.state.dispatches).toBe(before);
    gw.endTurn(t.agentRunId);
  });

  it('on a hostile cassette: invalid_input naming the wrong field, nothing runs', async () => {
    const { cassette } = await record();
    const t = gw.prepareTurn({});
    const cases: Array<[unknown, string]> = [
      ['text', 'not a JSON object'],
      [{ ...cassette, format: 'other' }, 'format must be "codemode-cassette"'],
      [{ ...cassette, version: 99 }, 'version 99 is not supported'],
      [{ ...cassette, seed: -3 }, 'seed must be an integer'],
      [{ ...cassette, calls: 'x' }, 'calls must be an array'],
      [{ ...cassette, calls: [{ tool: 'lookup', input: {}, ok: 'yes' }] }, 'calls[0].ok must be true or false'],
      [{ ...cassette, calls: [{ tool: 'lookup', ok: true }] }, 'calls[0].input is missing'],
      [{ ...cassette, calls: [{ tool: 'lookup', input: {}, ok: false }] }, 'calls[0].error must be'],
      [{ ...cassette, calls: Array.from({ length: 10_001 }, () => ({ tool: 't', input: 1, ok: true })) }, 'over 10000'],
      // a recorded value or input nested 5000 deep overflowed the host's serializer in a microtask (the CLI died, a server run stayed waiting)
      [{ ...cassette, calls: [{ ...(cassette.calls as object[])[0], value: deep(5000) }] }, 'calls[0].value nests deeper than 1000 levels'],
      [{ ...cassette, calls: [{ ...(cassette.calls as object[])[0], input: deep(5000) }] }, 'calls[0].input nests deeper than 1000 levels'],
    ];
    const before = probe.state.dispatches;
    for (const [replay, message] of cases) {
      const r = expectFailed(await gw.exec(t.agentRunId, {}, { replay }), 'invalid_input');
      expect(r.error).toContain(message);
    }
    expect(probe.state.dispatches).toBe(before);
    gw.endTurn(t.agentRunId);
  });

  it("on a replay: the session transcript's nested rows say the cassette answered them (the tool never ran)", async () => {
    const { cassette } = await record();
    const t = gw.prepareTurn({});
    expectCompleted(await gw.exec(t.agentRunId, {}, { replay: cassette }));
    // a read writes the queued activity rows first: every nested row of the finished cell is there
    const rows = (await gw.transcript(t.sessionId)).flatMap((e) => (e.type === 'nested-activity' && e.payload.tool === 'lookup' ? [e.payload] : []));
    expect(rows.map((r) => r.answeredBy)).toEqual(['cassette', 'cassette', 'cassette', 'cassette']);
    gw.endTurn(t.agentRunId);
  });
});
