// Run on all executors: one seed for every row, rows at once as far as the machine has processors for them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../gateway.ts';
import { testGateway, until } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { compareLanes } from './compare.ts';

/** A tool whose calls stay in flight until the test opens them all: how many are in flight at once is the proof. */
function gates() {
  const open: Array<() => void> = [];
  const tool: ToolDefinition = {
    name: 'gate',
    description: 'test: resolves when the test opens it',
    source: 'core',
    inputSchema: { type: 'object', properties: {} },
    execute: () => new Promise((resolve) => open.push(() => resolve('opened'))),
  };
  return { tool, inFlight: () => open.length, openAll: () => open.splice(0).forEach((f) => f()) };
}

describe('compare executors', () => {
  let gw: Gateway;
  let g: ReturnType<typeof gates>;

  beforeAll(async () => {
    g = gates();
    // the Gateway starts each executor at its first row and closes them with itself
    gw = await testGateway({ tools: [g.tool], codeMode: { allowExecutorOverride: 'operator', timeoutMs: 60_000 } });
  });

  afterAll(async () => {
    await gw.close();
  });

  it('on a cell that draws random numbers: every row draws the same ones (one seed), and a given seed gives every row its logical clock too', async () => {
    const t = gw.prepareTurn({});
    const rows = await gw.compareExecutors(t.agentRunId, { code: 'return [Math.random(), Math.random()]' });
    expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(new Set(rows.map((r) => r.valueJson)).size).toBe(1);
    expect(rows.map((r) => r.valueDiffers)).toEqual([false, false, false]);
    const seeds = rows.map((r) => gw.run(r.runId!)!.seed);
    expect(new Set(seeds).size).toBe(1);
    expect(rows.map((r) => gw.run(r.runId!)!.clock)).toEqual(['real', 'real', 'real']);

    const seeded = await gw.compareExecutors(t.agentRunId, { code: 'return [Date.now(), new Date().toISOString(), Math.random()]' }, undefined, { seed: 11 });
    expect(new Set(seeded.map((r) => r.valueJson)).size).toBe(1);
    expect(seeded.map((r) => gw.run(r.runId!)!.clock)).toEqual(['logical', 'logical', 'logical']);
    expect(seeded.map((r) => gw.run(r.runId!)!.seed)).toEqual([11, 11, 11]);
    gw.endTurn(t.agentRunId);
  });

  it('on processors for every row: the rows run at once (all three cells are inside their tool call together)', async () => {
    const t = gw.prepareTurn({});
    const compared = gw.compareExecutors(t.agentRunId, { code: 'return await gate({})' }, undefined, { parallelism: 3 });
    // one after another, only one call would ever be in flight, and this would time out
    await until(() => g.inFlight() === 3, { what: 'all three rows to be inside their gate call at once' });
    g.openAll();
    const rows = await compared;
    expect(rows.map((r) => [r.executor, r.status, r.valueJson])).toEqual([
      ['node', 'completed', '"opened"'],
      ['quickjs', 'completed', '"opened"'],
      ['quickjs-emscripten', 'completed', '"opened"'],
    ]);
    gw.endTurn(t.agentRunId);
  });

  it('on fewer processors than rows: that many run at once, the rest after them, in the order asked', async () => {
    const t = gw.prepareTurn({});
    const compared = gw.compareExecutors(t.agentRunId, { code: 'return await gate({})' }, ['quickjs-emscripten', 'node', 'quickjs'], { parallelism: 2 });
    await until(() => g.inFlight() === 2, { what: 'two rows inside their gate call' });
    g.openAll();
    await until(() => g.inFlight() === 1, { what: 'the third row inside its gate call' });
    g.openAll();
    expect((await compared).map((r) => r.executor)).toEqual(['quickjs-emscripten', 'node', 'quickjs']);
    gw.endTurn(t.agentRunId);
  });

  it('on the machine: one lane per processor the process may use, at least one, at most one per row', () => {
    expect(compareLanes(3, 8)).toBe(3);
    expect(compareLanes(3, 2)).toBe(2);
    expect(compareLanes(3, 1)).toBe(1);
    expect(compareLanes(2, 0)).toBe(1);
  });
});
