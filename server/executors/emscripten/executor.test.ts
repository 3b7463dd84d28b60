// quickjs-emscripten executor behaviour the conformance suite does not cover: workers kept after a guest failure, live continuations, release.
import { afterEach, describe, expect, it } from 'vitest';
import type { BridgeRequest, LegLimits } from '../../bridge/protocol.ts';
import { DEFAULT_CODE_MODE_OPTIONS } from '../../config/schema.ts';
import type { Leg, LegHandlers, LegOutcome } from '../types.ts';
import { EmscriptenExecutor } from './executor.ts';
import { NO_DECLARATION_FILES } from '../../bridge/declaration-files.mjs';

const MiB = 1024 * 1024;
const boot = { maxPendingToolCalls: 4, tools: [], mcp: [] };
const limits: LegLimits = { memoryLimitBytes: 32 * MiB, maxOutputBytes: 4096, maxSnapshotBytes: MiB, maxPendingToolCalls: 16 };

const executors: EmscriptenExecutor[] = [];
function executor(): EmscriptenExecutor {
  const ex = new EmscriptenExecutor();
  executors.push(ex);
  return ex;
}
afterEach(async () => {
  for (const ex of executors) expect(ex.leaks()).toEqual([]);
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
});

/** Open a leg like the runs layer does; resolves `first` with the guest's first frontier. */
function drive(open: (h: LegHandlers) => Leg): { leg: Leg; first: Promise<BridgeRequest[]> } {
  let first!: (r: BridgeRequest[]) => void;
  const firstP = new Promise<BridgeRequest[]>((r) => (first = r));
  const leg = open({ onRequests: (reqs) => first(reqs), onOutput: () => undefined });
  return { leg, first: firstP };
}

function start(ex: EmscriptenExecutor, body: string, memoryLimitBytes = limits.memoryLimitBytes) {
  return drive((h) => ex.start({ body, boot, files: NO_DECLARATION_FILES, limits: { ...limits, memoryLimitBytes }, budgetMs: DEFAULT_CODE_MODE_OPTIONS.timeoutMs }, h));
}

async function outcome(d: { leg: Leg }): Promise<LegOutcome> {
  return d.leg.done;
}

describe('quickjs-emscripten executor', () => {
  it('an out-of-memory inside a promise job fails the cell, and the same worker serves the next cell (the library abort did not take it)', async () => {
    const ex = executor();
    const oom = await outcome(start(ex, 'await null;\nconst a = [];\nfor (;;) a.push({ s: "x" + a.length })', 4 * MiB));
    expect(oom).toMatchObject({ kind: 'failed', code: 'memory_limit_exceeded' });
    expect(ex.poolStats()).toMatchObject({ spawned: 1, idle: 1, retired: 0 });
    expect(await outcome(start(ex, 'return "next"'))).toMatchObject({ kind: 'completed', valueJson: '"next"' });
    expect(ex.poolStats()).toMatchObject({ spawned: 1, reused: 1, retired: 0 });
  });

  it('a parked cell keeps its worker with a live estimate; resume completes there; a released continuation retires the worker', async () => {
    const ex = executor();
    const d = start(ex, 'const keep = [1, 2, 3];\nawait new Promise((done) => setTimeout(done, 1));\nreturn keep.length');
    const [timer] = await d.first;
    d.leg.park();
    const parked = await outcome(d);
    if (parked.kind !== 'parked' || parked.continuation.executor !== 'quickjs-emscripten') throw new Error(`expected a parked leg, got ${JSON.stringify(parked)}`);
    expect(parked.continuation.retainedBytesEstimate).toBeGreaterThan(0);
    expect(ex.poolStats()).toMatchObject({ parked: 1 });
    // a second cell cannot take the parked worker
    expect(await outcome(start(ex, 'return 2'))).toMatchObject({ kind: 'completed' });
    expect(ex.poolStats()).toMatchObject({ spawned: 2, parked: 1 });
    const r = drive((h) => ex.resume(parked.continuation, { files: NO_DECLARATION_FILES, limits, budgetMs: DEFAULT_CODE_MODE_OPTIONS.timeoutMs, inFlight: 1 }, h));
    r.leg.deliver([{ id: timer!.id, ok: true }]);
    expect(await outcome(r)).toMatchObject({ kind: 'completed', valueJson: '3' });
    // resumed once: the continuation is spent
    const again = drive((h) => ex.resume(parked.continuation, { files: NO_DECLARATION_FILES, limits, budgetMs: 1000, inFlight: 0 }, h));
    expect(await outcome(again)).toMatchObject({ kind: 'failed', code: 'invalid_input' });

    const p2 = start(ex, 'await new Promise((done) => setTimeout(done, 1));\nreturn 1');
    await p2.first;
    p2.leg.park();
    const parked2 = await outcome(p2);
    if (parked2.kind !== 'parked') throw new Error('expected parked');
    const before = ex.poolStats().retired;
    ex.release(parked2.continuation);
    expect(ex.poolStats().retired).toBe(before + 1);
    expect(ex.poolStats().parked).toBe(0);
  });

  it('aborting a computing cell fails it with aborted and retires its worker', async () => {
    const ex = executor();
    const d = start(ex, 'await null;\nfor (;;) {}');
    // the cell computes until aborted; wait until its worker runs it
    await new Promise<void>((resolve) => {
      const check = () => (ex.stats().activeLegs === 1 && ex.poolStats().busy === 1 ? resolve() : setImmediate(check));
      check();
    });
    d.leg.abort();
    expect(await outcome(d)).toMatchObject({ kind: 'failed', code: 'aborted' });
    expect(ex.poolStats()).toMatchObject({ idle: 0 });
  });
});
