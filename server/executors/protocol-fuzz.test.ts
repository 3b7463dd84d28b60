// Protocol fuzzing: random and malformed worker messages (a scripted worker) and random guest payloads
// (the raw host primitive) against a real Gateway; no throw escapes, every run ends, nothing leaks.
//
// Seeded: a failure prints its seed and case, and the same seed replays it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeModeOptions } from '../config/types.ts';
import { CODE_MODE_ERROR_CODES } from '../errors.ts';
import type { Gateway } from '../gateway.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { testGateway } from '../testing.ts';
import { NodeExecutor } from './node/executor.ts';
import { QuickJsExecutor } from './quickjs/executor.ts';
import type { Executor } from './types.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, pick, int: (n: number) => Math.floor(next() * n) };
}
type Rng = ReturnType<typeof prng>;

// Values a hostile message may carry in any field (markers: see fixtures/scripted-worker.mjs).
const JUNK: unknown[] = [
  null,
  '$undefined',
  '$NaN',
  '$Infinity',
  -1,
  0,
  1.5,
  1e308,
  '',
  'x',
  'x'.repeat(70_000),
  '{bad',
  '"ok"',
  '1',
  [],
  [null],
  {},
  { id: 5 },
  { $bytes: 8 },
  true,
  '$LEG',
  '$OTHER',
];

function bridgeRequest(rng: Rng): Record<string, unknown> {
  const id = `r${rng.int(6)}`;
  return rng.pick([
    { id, op: 'call', tool: 'weather_lookup', input: { city: 'Oslo' } },
    { id, op: 'call', mcp: ['demo', 'echo'], input: {} },
    { id, op: 'search', query: 'weather', limit: 3 },
    { id, op: 'all' },
    { id, op: 'describe', tool: 'weather_lookup' },
    { id, op: 'timer', ms: 1, timer: 1 },
    { id, op: 'store', action: 'get', key: 'k' },
    { id, op: 'results', action: 'load', ref: 'nope' },
    { id, op: 'yield', reason: 'fuzz' },
  ]);
}

/** A worker message: a valid template, then 0-3 fields replaced by junk (or the message replaced outright). */
function workerMessage(rng: Rng): unknown {
  const templates: Array<() => Record<string, unknown>> = [
    () => ({ t: 'requests', legId: '$LEG', requests: [bridgeRequest(rng)], cancels: [] }),
    () => ({ t: 'output', legId: '$LEG', lines: [{ kind: 'log', text: 'hi' }], droppedBytes: 0 }),
    () => ({ t: 'opened', legId: '$LEG' }),
    () => ({ t: 'settled', legId: '$LEG', ok: true, valueJson: '{"a":1}', droppedBytes: 0 }),
    () => ({ t: 'settled', legId: '$LEG', ok: false, error: 'boom', code: 'timeout', droppedBytes: 0 }),
    () => ({ t: 'parked', legId: '$LEG', droppedBytes: 0, queued: [bridgeRequest(rng)], snapshot: { $bytes: 16 }, rawBytes: 16, storedBytes: 8 }),
    () => ({ t: 'ready', engine: 'x' }),
  ];
  if (rng.next() < 0.1) return rng.pick(JUNK);
  const msg = rng.pick(templates)();
  const mutations = rng.int(4);
  for (let i = 0; i < mutations; i++) {
    const keys = [...Object.keys(msg), 'extra'];
    const key = rng.pick(keys);
    if (key === 'requests' || key === 'queued') {
      const list = [bridgeRequest(rng)];
      const victim = list[0]!;
      victim[rng.pick(Object.keys(victim))] = rng.pick(JUNK);
      msg[key] = rng.next() < 0.5 ? list : rng.pick(JUNK);
    } else {
      msg[key] = rng.pick(JUNK);
    }
  }
  return msg;
}

function cellWith(script: unknown[]): string {
  return `/*SCRIPT${JSON.stringify(script)}SCRIPT*/ return 1`;
}

async function gatewayFor(executor: Executor, o: Partial<CodeModeOptions> = {}): Promise<Gateway> {
  return testGateway({ executor, codeMode: { timeoutMs: 2_000, maxPendingToolCalls: 4, ...o }, config: { plugins: { bundled: ['weather'], external: [] } } });
}

/** The invariants after any case: a result (no throw), a spec code and a message when failed, nothing held. */
function expectSound(r: CodeModeResult, where: string): void {
  expect(['completed', 'failed', 'waiting'], where).toContain(r.status);
  if (r.status === 'failed') {
    expect(r.error.length, where).toBeGreaterThan(0);
    if (r.code !== undefined) expect(CODE_MODE_ERROR_CODES, where).toContain(r.code);
  }
}

function expectNoLeaks(gw: Gateway, executor: Executor, where: string): void {
  expect(gw.diagnostics.suspendedSlots(), where).toBe(0);
  expect(gw.diagnostics.leaks(), where).toEqual([]);
  expect(executor.leaks(), where).toEqual([]);
  expect(executor.stats().activeLegs, where).toBe(0);
}

describe.each([
  { kind: 'quickjs' as const, cases: 300, make: () => new QuickJsExecutor({ workers: 1, entry: new URL('./fixtures/scripted-worker.mjs', import.meta.url) }) },
  { kind: 'node' as const, cases: 40, make: () => new NodeExecutor({ entry: new URL('./fixtures/scripted-worker.mjs', import.meta.url), memoryPressure: () => false }) },
])('protocol fuzz: random worker messages ($kind supervisor)', ({ kind, cases, make }) => {
  let executor: Executor;
  let gw: Gateway;

  beforeAll(async () => {
    executor = make();
    await executor.ready?.();
    gw = await gatewayFor(executor);
  });

  afterAll(async () => {
    await gw.close();
    await executor.close();
  });

  it(`on ${cases} scripts of random and malformed messages (seed ${SEED}): every run ends, nothing throws or leaks`, async () => {
    const rng = prng(SEED);
    for (let i = 0; i < cases; i++) {
      const script = Array.from({ length: 1 + rng.int(4) }, () => workerMessage(rng));
      const where = `seed ${SEED} case ${i}: ${JSON.stringify(script).slice(0, 400)}`;
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, { code: cellWith(script) });
      expectSound(r, where);
      gw.endTurn(t.agentRunId);
      expectNoLeaks(gw, executor, where);
    }
  });

  it('on a message naming no leg, then one for another leg: both are dropped and the run ends normally', async () => {
    const t = gw.prepareTurn({});
    const r = await gw.exec(t.agentRunId, { code: cellWith([{ t: 'settled', ok: true, valueJson: '1' }, { t: 'settled', legId: '$OTHER', ok: true, valueJson: '2', droppedBytes: 0 }]) });
    expect(r).toMatchObject({ status: 'completed', value: 'end' });
    gw.endTurn(t.agentRunId);
    expectNoLeaks(gw, executor, 'stray messages');
  });

  it('on a settle whose value is not JSON: fails with a clear error and releases the slot the run held', async () => {
    const t = gw.prepareTurn({});
    const r = await gw.exec(t.agentRunId, {
      code: cellWith([
        { t: 'requests', legId: '$LEG', requests: [{ id: 'r1', op: 'timer', ms: 60_000, timer: 1 }], cancels: [] },
        { t: 'settled', legId: '$LEG', ok: true, valueJson: '{bad', droppedBytes: 0 },
      ]),
    });
    expect(r).toMatchObject({ status: 'failed' });
    expect(r.status === 'failed' && r.error).toMatch(/JSON/);
    gw.endTurn(t.agentRunId);
    expectNoLeaks(gw, executor, 'bad value JSON');
  });

  it('on a stored value that is not JSON (past the worker, whose check would refuse it): the host stores nothing and the session stays readable', async () => {
    const t = gw.prepareTurn({ sessionId: `bad-store-${kind}` });
    const r = await gw.exec(t.agentRunId, {
      code: cellWith([{ t: 'requests', legId: '$LEG', requests: [{ id: 'r1', op: 'store', action: 'set', key: 'k', json: '{bad' }], cancels: [] }]),
    });
    // the host's message check passes the text on as a string; the dispatcher's one parse refuses it
    expect(r).toMatchObject({ status: 'completed', value: 'end' });
    expect(await gw.sessionStore(`bad-store-${kind}`)).toEqual([]);
    gw.endTurn(t.agentRunId);
    expectNoLeaks(gw, executor, 'non-JSON stored value');
  });

  it('on a null bridge request: fails with invalid_input naming it', async () => {
    const t = gw.prepareTurn({});
    const r = await gw.exec(t.agentRunId, { code: cellWith([{ t: 'requests', legId: '$LEG', requests: [null], cancels: [] }]) });
    expect(r).toMatchObject({ status: 'failed', code: 'invalid_input' });
    expect(r.status === 'failed' && r.error).toMatch(/must be an object, got null/);
    gw.endTurn(t.agentRunId);
    expectNoLeaks(gw, executor, 'null request');
  });
});

describe('protocol fuzz: random guest payloads through the raw host primitive (QuickJS)', () => {
  let executor: QuickJsExecutor;
  let gw: Gateway;

  beforeAll(async () => {
    executor = new QuickJsExecutor({ workers: 1, preludePrefix: 'globalThis.__cm_raw = globalThis.__cm_sync;' });
    await executor.ready();
    gw = await gatewayFor(executor);
  });

  afterAll(async () => {
    await gw.close();
    await executor.close();
  });

  function payload(rng: Rng): string {
    const shape = rng.int(5);
    if (shape === 0) return rng.pick(['', '{', 'null', '[]', '1', '"x"', '\u0000', '{"ok":true}']);
    const value = shape === 1 ? bridgeRequest(rng) : shape === 2 ? { ok: rng.next() < 0.5, json: rng.pick(['1', '{bad', 5]), error: rng.pick(['e', 1]), code: rng.pick(['invalid_input', 'timeout', 7]) } : shape === 3 ? { kind: rng.pick(['log', 'nope', 1]), text: rng.pick(['t', null]) } : { op: rng.pick(['list', 'read', 'x']), arg: rng.pick(['tools/', 1, null]) };
    if (rng.next() < 0.5) {
      const obj = value as Record<string, unknown>;
      const key = rng.pick(Object.keys(obj));
      obj[key] = rng.pick([null, 1, 'x', [], {}, 'x'.repeat(2000)]);
    }
    return JSON.stringify(value);
  }

  it(`on 150 random (op, payload) pairs (seed ${SEED}): each run ends completed or with invalid_input, never internal_error`, async () => {
    const rng = prng(SEED ^ 0x9e37);
    for (let i = 0; i < 150; i++) {
      const op = rng.pick(['send', 'settle', 'emit', 'cancel', 'api', 'overflow', 'nope']);
      const p = payload(rng);
      const where = `seed ${SEED} case ${i}: ${op} ${p.slice(0, 300)}`;
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, { code: `__cm_raw(${JSON.stringify(op)}, ${JSON.stringify(p)});\nawait sleep({ ms: 1 });\nreturn "after"` });
      expectSound(r, where);
      if (r.status === 'failed') expect(r.code, where).not.toBe('internal_error');
      gw.endTurn(t.agentRunId);
      expectNoLeaks(gw, executor, where);
    }
    const t = gw.prepareTurn({});
    expect(await gw.exec(t.agentRunId, { code: 'return (await weather_lookup({ city: "Oslo" })).city' })).toMatchObject({ status: 'completed', value: 'Oslo' });
    gw.endTurn(t.agentRunId);
  });
});
