// The quickjs-emscripten engine in process: limits, a live park and resume, and exact disposal (every handle freed, an OOM teardown survived).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEmscriptenEngine, OUT_OF_MEMORY_MESSAGE, TIMEOUT_MESSAGE } from './engine.mjs';
import type { EngineLeg } from '../worker-types.ts';

const prelude = readFileSync(new URL('../../guest/prelude.js', import.meta.url), 'utf8');
const BOOT = { maxPendingToolCalls: 4, tools: [], mcp: [] };

/** A leg as the leg loop makes it: records what the guest sends; `stop` makes the interrupt handler fire. */
function fakeLeg(memoryLimitBytes = 8 * 1024 * 1024) {
  const sent: Array<{ op: string; payload: string | null }> = [];
  const state = { stop: false };
  const leg: EngineLeg = {
    limits: { memoryLimitBytes },
    control: new Float64Array(4),
    shouldInterrupt: () => state.stop,
    onSync: (op, payload) => {
      sent.push({ op, payload });
      return undefined;
    },
  };
  const settled = () => {
    const s = sent.find((m) => m.op === 'settle');
    return s ? (JSON.parse(s.payload!) as { ok: boolean; json?: string; error?: string }) : undefined;
  };
  const requests = () => sent.filter((m) => m.op === 'send').map((m) => JSON.parse(m.payload!) as { id: string; op: string });
  return { leg, state, settled, requests };
}

function engine() {
  return createEmscriptenEngine({ prelude, maxStackSizeBytes: 256 * 1024 });
}

async function run(e: ReturnType<typeof engine>, body: string, f = fakeLeg()) {
  const guest = await e.create(f.leg);
  guest.prepare(BOOT);
  let failure: (Error & { code?: string }) | undefined;
  try {
    guest.start(body);
    guest.drain();
  } catch (err) {
    failure = err as Error & { code?: string };
  }
  return { guest, failure, ...f };
}

describe('quickjs-emscripten engine', () => {
  it('runs a cell to its value and frees its runtime with every handle (QuickJS asserts none is left)', async () => {
    const e = engine();
    const r = await run(e, 'const o = { a: [1, 2, { b: "c" }] };\nreturn o');
    expect(r.failure).toBeUndefined();
    expect(JSON.parse(r.settled()!.json!)).toEqual({ a: [1, 2, { b: 'c' }] });
    r.guest.dispose();
    expect(e.counters).toMatchObject({ runtimesCreated: 1, runtimesDisposed: 1, liveRuntimes: 0, disposeAborts: 0, modulesLoaded: 1 });
  });

  it('parks with the runtime live, reports its memory, resumes on a reply and completes; disposal stays exact', async () => {
    const e = engine();
    const first = await run(e, 'const big = "k".repeat(10000).split("");\nawait new Promise((done) => setTimeout(done, 5));\nreturn big.length');
    expect(first.failure).toBeUndefined();
    const [timer] = first.requests();
    expect(timer?.op).toBe('timer');
    const parked = first.guest.park();
    expect(parked.retainedBytesEstimate).toBeGreaterThan(10000);
    expect(JSON.parse(parked.queuedJson!)).toEqual([]);
    const second = fakeLeg();
    const guest = await e.resume(second.leg, { continuationId: parked.continuationId });
    guest.deliver(JSON.stringify({ id: timer!.id, ok: true }));
    guest.drain();
    expect(second.settled()).toEqual({ ok: true, json: '10000' });
    // the first leg's recorder saw nothing after parking: the host function follows the attached leg
    expect(first.settled()).toBeUndefined();
    guest.dispose();
    await expect(e.resume(fakeLeg().leg, { continuationId: parked.continuationId })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(e.counters).toMatchObject({ liveRuntimes: 0, disposeAborts: 0 });
  });

  it('one deliver of a list settles every request in it, in the list\'s order, before the cell goes on', async () => {
    const e = engine();
    const r = await run(e, 'const order = [];\nconst a = new Promise((done) => setTimeout(() => { order.push("a"); done(); }, 5));\nconst b = new Promise((done) => setTimeout(() => { order.push("b"); done(); }, 9));\nawait Promise.all([a, b]);\nreturn order');
    expect(r.failure).toBeUndefined();
    const [ta, tb] = r.requests();
    expect([ta?.op, tb?.op]).toEqual(['timer', 'timer']);
    // listed b first: timers fire in the order their replies come
    r.guest.deliver(JSON.stringify([{ id: tb!.id, ok: true }, { id: ta!.id, ok: true }]));
    r.guest.drain();
    expect(r.settled()).toEqual({ ok: true, json: '["b","a"]' });
    r.guest.dispose();
  });

  it('releases a parked runtime it will never resume', async () => {
    const e = engine();
    const r = await run(e, 'await new Promise((done) => setTimeout(done, 5));\nreturn 1');
    const parked = r.guest.park();
    e.release(parked.continuationId);
    expect(e.counters).toMatchObject({ runtimesDisposed: 1, liveRuntimes: 0, disposeAborts: 0 });
  });

  it('an interrupt ends the cell with timeout, even inside the async cell function (which would turn it into a rejection)', async () => {
    const e = engine();
    const f = fakeLeg();
    const guest = await e.create(f.leg);
    guest.prepare(BOOT);
    f.state.stop = true;
    expect(() => guest.start('for (;;) {}')).not.toThrow();
    expect(() => guest.drain()).toThrow(expect.objectContaining({ code: 'timeout', message: TIMEOUT_MESSAGE }));
    guest.dispose();
    expect(e.counters.liveRuntimes).toBe(0);
  });

  it('an out-of-memory inside a promise job fails with memory_limit_exceeded; the runtime is disposed and the engine runs the next cell', async () => {
    const e = engine();
    const r = await run(e, 'await null;\nconst a = [];\nfor (;;) a.push({ s: "x" + a.length })', fakeLeg(4 * 1024 * 1024));
    expect(r.failure).toMatchObject({ code: 'memory_limit_exceeded', message: OUT_OF_MEMORY_MESSAGE });
    // QuickJS can leave objects behind after an OOM in a job (seen with QuickJS 2025-09 in quickjs-emscripten
    // 0.32), and its teardown assertion aborts the module: the engine catches that, drops the module and
    // loads a fresh one for the next cell
    expect(() => r.guest.dispose()).not.toThrow();
    expect(e.counters.liveRuntimes).toBe(0);
    const next = await run(e, 'return "after"');
    expect(next.settled()).toEqual({ ok: true, json: '"after"' });
    next.guest.dispose();
    // whether the teardown aborts depends on where the cell was stopped (QuickJS's own refusal, or the
    // engine's memory check at an interrupt, which comes first by timing): an abort always means a fresh module
    expect(e.counters.modulesLoaded).toBe(1 + e.counters.disposeAborts);
    expect(e.counters.liveRuntimes).toBe(0);
  });

  it('a cell that catches a refused allocation goes on (Bellard QuickJS makes it catchable; the parity shim names it RangeError, as V8 does)', async () => {
    const e = engine();
    const r = await run(e, 'try { new ArrayBuffer(64 * 1024 * 1024) } catch (err) { return [String(err), err instanceof RangeError] }', fakeLeg(8 * 1024 * 1024));
    expect(r.settled()).toEqual({ ok: true, json: '["RangeError: out of memory",true]' });
    r.guest.dispose();
  });

  it('large arrays held in a loop: memory_limit_exceeded, also when the cell catches each refused allocation', async () => {
    for (const body of ['const hold = [];\nwhile (true) hold.push(new Array(1e6).fill(7))', 'const hold = [];\nfor (let i = 0; i < 200; i++) { try { hold.push(new Array(1e5).fill(i)) } catch (e) {} }\nreturn hold.length']) {
      const e = engine();
      const f = fakeLeg(8 * 1024 * 1024);
      const r = await run(e, body, f);
      expect(r.failure).toMatchObject({ code: 'memory_limit_exceeded', message: OUT_OF_MEMORY_MESSAGE });
      r.guest.dispose();
      expect(e.counters.liveRuntimes).toBe(0);
    }
  });

  it('many buffers, each under the limit, add up past it: memory_limit_exceeded (QuickJS counts each allocation as 8 bytes under emscripten)', async () => {
    const e = engine();
    const r = await run(e, 'const kept = [];\nfor (let i = 0; i < 4000; i++) kept.push(new ArrayBuffer(64 * 1024));\nreturn kept.length', fakeLeg(8 * 1024 * 1024));
    expect(r.failure).toMatchObject({ code: 'memory_limit_exceeded', message: OUT_OF_MEMORY_MESSAGE });
    r.guest.dispose();
    expect(e.counters.liveRuntimes).toBe(0);
  });

  it('a Map grown entry by entry ends with memory_limit_exceeded, never an uncaught null (what QuickJS throws when even the error cannot be allocated)', async () => {
    const e = engine();
    const r = await run(e, 'const grown = new Map();\nfor (let i = 0; ; i++) grown.set(i, i);', fakeLeg(8 * 1024 * 1024));
    expect(r.failure).toMatchObject({ code: 'memory_limit_exceeded', message: OUT_OF_MEMORY_MESSAGE });
    r.guest.dispose();
  });

  it('a cell that catches around the Map growth still ends with memory_limit_exceeded (the limit is not the guest\'s to catch)', async () => {
    const e = engine();
    const r = await run(e, 'const grown = new Map();\ntry { for (let i = 0; ; i++) grown.set(i, i); } catch (err) { return "caught " + String(err); }', fakeLeg(8 * 1024 * 1024));
    expect(r.failure).toMatchObject({ code: 'memory_limit_exceeded', message: OUT_OF_MEMORY_MESSAGE });
    r.guest.dispose();
  });

  it('a cell that allocates far more than its limit in total, but never holds it, completes', async () => {
    const e = engine();
    const r = await run(e, 'let total = 0;\nfor (let i = 0; i < 300; i++) total += new ArrayBuffer(1024 * 1024).byteLength;\nreturn total', fakeLeg(8 * 1024 * 1024));
    expect(r.failure).toBeUndefined();
    expect(r.settled()).toEqual({ ok: true, json: String(300 * 1024 * 1024) });
    r.guest.dispose();
  });

  it('a guest that throws null itself fails with its own uncaught null, not a memory error', async () => {
    const e = engine();
    const r = await run(e, 'throw null');
    expect(r.failure).toBeUndefined();
    expect(r.settled()).toEqual({ ok: false, error: 'null' });
    r.guest.dispose();
  });

  it('a syntax error in the cell fails with invalid_input', async () => {
    const e = engine();
    const r = await run(e, 'return )(');
    expect(r.failure).toMatchObject({ code: 'invalid_input' });
    expect(r.failure?.message).toMatch(/^SyntaxError: /);
    r.guest.dispose();
    expect(e.counters.liveRuntimes).toBe(0);
  });
});
