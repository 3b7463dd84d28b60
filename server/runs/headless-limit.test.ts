// Spec 02 "Queueing does not raise memory, snapshot, time, or headless total tool-call limits": a headless turn's cells
// share one total of tool calls; the call past it fails its run (a catch cannot loop past it) and is never dispatched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { Gateway } from '../gateway.ts';
import { expectCompleted, expectFailed, testGateway } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';

const LIMIT = 5;

describe('headless total tool-call limit', () => {
  let executor: QuickJsExecutor;
  let gw: Gateway;
  let calls = 0;
  const counted: ToolDefinition = {
    name: 'counted',
    description: 'test: counts its calls',
    source: 'core',
    inputSchema: { type: 'object' },
    execute: async () => ++calls,
  };

  beforeAll(async () => {
    executor = new QuickJsExecutor({ workers: 1 });
    gw = await testGateway({ executor, tools: [counted], codeMode: { maxHeadlessToolCalls: LIMIT } });
  });
  afterAll(async () => {
    await gw.close();
    await executor.close();
  });

  it(`on a headless cell that keeps calling tools (catching every error): the call past ${LIMIT} fails the run naming the limit, and never reaches the tool`, async () => {
    calls = 0;
    const t = gw.prepareTurn({ headless: true });
    const r = expectFailed(await gw.exec(t.agentRunId, { code: 'let n = 0;\nfor (let i = 0; i < 20; i++) { try { await counted({}); n++ } catch (e) {} }\nreturn n' }), 'invalid_input');
    expect(r.error).toMatch(/^this headless turn has made 5 tool calls, its limit \(tools\.codeMode\.maxHeadlessToolCalls\)/);
    expect(calls).toBe(LIMIT);
    // the turn's total is spent: the next cell fails at its first call, and a catalog search (no tool call) still works
    expectFailed(await gw.exec(t.agentRunId, { code: 'await counted({}); return 1' }), 'invalid_input');
    expect(expectCompleted(await gw.exec(t.agentRunId, { code: 'return (await catalog.search("counted")).length' })).value).toBe(1);
    expect(calls).toBe(LIMIT);
    gw.endTurn(t.agentRunId);
  });

  it('on one frontier larger than what is left: only the calls within the limit are dispatched, and the failed run cancels them', async () => {
    calls = 0;
    const t = gw.prepareTurn({ headless: true });
    expectCompleted(await gw.exec(t.agentRunId, { code: 'await counted({}); await counted({}); return 2' }));
    const r = expectFailed(await gw.exec(t.agentRunId, { code: 'return await Promise.all([1, 2, 3, 4, 5].map(() => counted({})))' }), 'invalid_input');
    const nested = gw.trajectory(r.telemetry.runId!)!.calls.flatMap((c) => c.nested);
    expect(nested.map((n) => n.tool)).toEqual(['counted', 'counted', 'counted']);
    expect(calls).toBeLessThanOrEqual(LIMIT);
    gw.endTurn(t.agentRunId);
  });

  it('on an interactive turn (a model reads every result): no total limit', async () => {
    calls = 0;
    const t = gw.prepareTurn({});
    expect(expectCompleted(await gw.exec(t.agentRunId, { code: 'for (let i = 0; i < 12; i++) await counted({});\nreturn "done"' })).value).toBe('done');
    expect(calls).toBe(12);
    gw.endTurn(t.agentRunId);
  });
});
