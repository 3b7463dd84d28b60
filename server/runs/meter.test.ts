// The token meter: its arithmetic over real o200k_base counts, and the counts a real run records as it goes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { expectCompleted, testGateway } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { breakEvenCalls, directTotalFor, resentTurns, tokenMeter } from './meter.ts';
import { jsonTokens, MAX_EXACT_TOKEN_CHARS, textTokens } from './tokens.ts';

describe('token counts (o200k_base)', () => {
  it('counts real tokens: known strings have their o200k_base lengths', () => {
    expect(textTokens('hello world')).toBe(2);
    expect(textTokens('')).toBe(0);
    expect(jsonTokens({ a: 1 })).toBe(textTokens('{"a":1}'));
  });

  it('on special-token text from a guest: counted as plain text, never thrown', () => {
    expect(textTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('on text past MAX_EXACT_TOKEN_CHARS: extrapolates from the counted part at the same rate', () => {
    const unit = 'alpha beta gamma delta ';
    const head = unit.repeat(Math.ceil(MAX_EXACT_TOKEN_CHARS / unit.length)).slice(0, MAX_EXACT_TOKEN_CHARS);
    const exactHead = textTokens(head);
    expect(textTokens(head + head)).toBe(exactHead * 2);
  });

  it('on a value JSON cannot hold: counts as null, never throws', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonTokens(cyclic)).toBe(textTokens('null'));
    expect(jsonTokens(undefined)).toBe(textTokens('null'));
  });
});

describe('tokenMeter', () => {
  const source = 'const rows = await probe({ label: "x" }); return rows.length';
  const bigResult = { rows: Array.from({ length: 50 }, (_, i) => ({ id: i, name: `row ${i}`, city: 'Lisbon' })) };
  const callInput = jsonTokens({ name: 'probe', arguments: { label: 'x' } });
  const callResult = jsonTokens(bigResult);
  const modelText = textTokens('{"status":"completed","value":50}');

  it('adds definitions, source and result text for code mode; definitions and each call for direct, each turn re-sending the context', () => {
    const m = tokenMeter({
      definitions: { codeMode: 300, direct: 120 },
      calls: [{ tool: 'exec', inputTokens: textTokens(source), resultTokens: modelText }],
      nested: [
        { kind: 'tool', inputTokens: callInput, outputTokens: callResult },
        { kind: 'tool', inputTokens: callInput, outputTokens: callResult },
        // a catalog search has no direct-calling counterpart
        { kind: 'search', inputTokens: 999, outputTokens: 999 },
      ],
    });
    expect(m).toBeDefined();
    if (!m) return;
    const call = callInput + callResult;
    expect(m.encoding).toBe('o200k_base');
    // one exec turn: nothing to re-send
    expect(m.codeMode).toEqual({ definitions: 300, written: textTokens(source), read: modelText, resent: 0, total: 300 + textTokens(source) + modelText });
    // the second direct turn re-sends the definitions and the first call and result
    expect(m.directTurns).toEqual([120 + call, 120 + 2 * call]);
    expect(m.direct).toEqual({ definitions: 120, calls: 2, callInputs: 2 * callInput, callResults: 2 * callResult, resent: 120 + call, total: 2 * 120 + 3 * call });
    expect(m.saved).toBe(m.direct.total - m.codeMode.total);
    expect(m.ratio).toBeCloseTo(m.direct.total / m.codeMode.total, 10);
    expect(m.ratio).toBeGreaterThan(1);
    expect(m.codeModeTurns).toEqual([m.codeMode.total]);
    expect(m.breakEvenCalls).toBe(breakEvenCalls(m.codeMode.total, 120, 2, 2 * call));
  });

  it('code mode re-sends its context per exec/wait turn; a call still running is left out', () => {
    const m = tokenMeter({
      definitions: { codeMode: 10, direct: 5 },
      calls: [
        { tool: 'exec', inputTokens: 7, resultTokens: 20 },
        { tool: 'wait', inputTokens: 3, resultTokens: 4 },
        { tool: 'wait', inputTokens: 3 },
      ],
      nested: [{ kind: 'mcp', inputTokens: 2 }],
    });
    // the wait turn carries the definitions, the cell and its first result again
    expect(m?.codeModeTurns).toEqual([37, 44]);
    expect(m?.codeMode).toEqual({ definitions: 10, written: 10, read: 24, resent: 37, total: 81 });
    // the MCP call has not settled: no direct turn yet, the definitions stand alone
    expect(m?.directTurns).toEqual([5]);
    expect(m?.direct.total).toBe(5);
    expect(m?.breakEvenCalls).toBeNull();
  });

  it('N nested calls: the direct total is N*definitions + size*N(N+1)/2, super-linear in N, while one exec turn stays linear', () => {
    const definitions = { codeMode: 400, direct: 250 };
    const size = { input: 12, output: 88 };
    const meterFor = (n: number) =>
      tokenMeter({
        definitions,
        calls: [{ tool: 'exec', inputTokens: 30 + n, resultTokens: 15 }],
        nested: Array.from({ length: n }, () => ({ kind: 'mcp' as const, inputTokens: size.input, outputTokens: size.output })),
      });
    const call = size.input + size.output;
    const totals = [1, 2, 4, 8, 16].map((n) => {
      const m = meterFor(n);
      expect(m?.direct.total).toBe(n * definitions.direct + (call * n * (n + 1)) / 2);
      expect(m?.direct.resent).toBe((n - 1) * definitions.direct + (call * n * (n - 1)) / 2);
      expect(m?.codeMode.total).toBe(definitions.codeMode + 30 + n + 15);
      return m?.direct.total ?? 0;
    });
    // doubling the calls more than doubles the direct total (counting each call once would exactly add n calls)
    for (let i = 1; i < totals.length; i++) expect(totals[i] ?? 0).toBeGreaterThan(2 * (totals[i - 1] ?? 0));
    // the increments grow: each call's turn re-sends every earlier one
    const turns = meterFor(5)?.directTurns ?? [];
    expect(turns).toEqual([1, 2, 3, 4, 5].map((k) => definitions.direct + k * call));
  });

  it('resentTurns: each turn is the context so far; no turns is one turn of definitions', () => {
    expect(resentTurns(10, [{ written: 1, read: 2 }, { written: 3, read: 4 }, { written: 0, read: 5 }])).toEqual([13, 20, 25]);
    expect(resentTurns(10, [])).toEqual([10]);
  });

  it('before any exec/wait call ended: no meter', () => {
    expect(tokenMeter({ definitions: { codeMode: 1, direct: 1 }, calls: [{ tool: 'exec', inputTokens: 1 }], nested: [] })).toBeUndefined();
  });

  it('break-even: 0 when the direct definitions alone cost more; else the fewest calls whose re-sent total reaches code mode', () => {
    expect(breakEvenCalls(100, 150, 1, 10)).toBe(0);
    // 1 call of 25: 40 + 25 = 65; 2 calls: 2*40 + 25 + 50 = 155
    expect(breakEvenCalls(100, 40, 2, 50)).toBe(2);
    expect(breakEvenCalls(100, 40, 0, 0)).toBeNull();
    // against a brute-force count over directTotalFor
    for (const [total, defs, calls, tokens] of [
      [5_000, 300, 3, 900],
      [123_456, 2_000, 7, 70],
      [1_000_000, 10, 1, 1],
      [801, 800, 4, 4],
    ] as const) {
      let m = 1;
      while (directTotalFor(defs, m, tokens / calls) < total) m++;
      expect(breakEvenCalls(total, defs, calls, tokens)).toBe(m);
    }
  });
});

describe('the meter of a real run', () => {
  let executor: QuickJsExecutor;
  beforeAll(async () => {
    executor = new QuickJsExecutor({ workers: 1 });
    await executor.ready();
  });
  afterAll(() => executor.close());

  const rows = Array.from({ length: 400 }, (_, i) => ({ id: i, title: `record number ${i}`, tags: ['alpha', 'beta'] }));
  const bulk: ToolDefinition = {
    name: 'bulk_rows',
    description: 'Returns many rows',
    source: 'core',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    execute: async () => ({ rows }),
  };

  it('counts the full tool result for direct calling (not the cut preview) and the model text for code mode', async () => {
    const gw = await testGateway({ executor, tools: [bulk] });
    const turn = gw.prepareTurn({});
    const code = 'const a = await bulk_rows({ n: 1 }); const b = await bulk_rows({ n: 2 }); return a.rows.length + b.rows.length';
    const result = expectCompleted(await gw.exec(turn.agentRunId, { code }));
    const runId = result.telemetry.runId ?? '';
    const meter = gw.run(runId)?.meter;
    expect(meter).toBeDefined();
    if (!meter) return;
    expect(meter.codeMode.written).toBe(textTokens(code));
    expect(meter.codeMode.read).toBe(textTokens(gw.modelText(result)));
    expect(meter.direct.calls).toBe(2);
    expect(meter.direct.callResults).toBe(2 * jsonTokens({ rows }));
    expect(meter.direct.callInputs).toBe(jsonTokens({ name: 'bulk_rows', arguments: { n: 1 } }) + jsonTokens({ name: 'bulk_rows', arguments: { n: 2 } }));
    // the second call's turn re-sends the definitions and the first call: a 400-row result read twice
    const first = jsonTokens({ name: 'bulk_rows', arguments: { n: 1 } }) + jsonTokens({ rows });
    expect(meter.direct.resent).toBe(meter.direct.definitions + first);
    expect(meter.direct.total).toBe(meter.directTurns.reduce((a, b) => a + b, 0));
    expect(meter.codeMode.resent).toBe(0);
    // the definitions are the turn's own surfaces: exec+wait for code mode, every tool for direct
    expect(meter.codeMode.definitions).toBe(jsonTokens(turn.surface.tools));
    expect(meter.direct.definitions).toBeGreaterThanOrEqual(jsonTokens([{ name: bulk.name, description: bulk.description, inputSchema: bulk.inputSchema }]));
    expect(meter.ratio).toBeGreaterThan(1);
    expect(gw.trajectory(runId)?.meter).toEqual(meter);
  });
});
