// Snapshots as deltas of one base image: a parked cell stores only how its VM differs from the image
// every VM starts from, resumes from base + delta on any worker, and a snapshot of another base is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompleted, expectWaiting, testGateway } from '../../testing.ts';
import type { Continuation, Executor, Leg, LegOutcome } from '../types.ts';
import { QuickJsExecutor } from './executor.ts';
import { NO_DECLARATION_FILES } from '../../bridge/declaration-files.mjs';

const boot = { maxPendingToolCalls: 4, tools: [], mcp: [] };
const limits = { memoryLimitBytes: 32 * 1024 * 1024, maxOutputBytes: 4096, maxSnapshotBytes: 1024 * 1024, maxPendingToolCalls: 4 };

/** Start a cell that awaits a timer (a bridge request) and park it as soon as it asks: its continuation. */
async function parkedContinuation(ex: Executor): Promise<Continuation> {
  let leg: Leg | undefined;
  let asked = false;
  leg = ex.start(
    { body: 'const kept = 41;\nawait new Promise((r) => setTimeout(r, 10));\nreturn kept + 1', boot, files: NO_DECLARATION_FILES, limits, budgetMs: 20_000 },
    {
      onRequests: () => {
        asked = true;
        leg?.park();
      },
      onOutput() {},
    },
  );
  const outcome = await leg.done;
  if (outcome.kind !== 'parked') throw new Error(`expected the cell to park, got ${JSON.stringify(outcome)} (asked: ${asked})`);
  return outcome.continuation;
}

/** Resume a continuation and, once its VM is restored, park it again (its timer is still in flight). */
async function resumed(ex: Executor, continuation: Continuation): Promise<LegOutcome> {
  let leg: Leg | undefined;
  leg = ex.resume(continuation, { budgetMs: 20_000, files: NO_DECLARATION_FILES, limits, inFlight: 1 }, { onRequests() {}, onOutput() {}, onOpened: () => leg?.park() });
  return leg.done;
}

describe('QuickJS snapshots as deltas of the base image', () => {
  let plain: QuickJsExecutor;
  let otherBase: QuickJsExecutor;

  beforeAll(async () => {
    plain = new QuickJsExecutor({ workers: 2 });
    // a prelude prefix changes the image every VM starts from: another base image in the same process
    otherBase = new QuickJsExecutor({ workers: 1, preludePrefix: 'globalThis.__other_base = 1;' });
    await Promise.all([plain.ready(), otherBase.ready()]);
  });

  afterAll(async () => {
    await Promise.all([plain.close(), otherBase.close()]);
  });

  it('on a trivial parked cell: stores under 32 KiB (of a raw heap over 1 MiB), reports that stored size truthfully, and resumes with its state', async () => {
    const gw = await testGateway({ executor: plain });
    const t = gw.prepareTurn({ sessionId: 'delta-trivial' });
    const parked = expectWaiting(await gw.exec(t.agentRunId, { code: 'let n = 41;\nawait yield_control("park");\nreturn n + 1' }));
    const snap = parked.telemetry.snapshot;
    expect(snap?.rawBytes).toBeGreaterThan(1024 * 1024);
    expect(snap?.storedBytes).toBeLessThan(32 * 1024);
    const done = expectCompleted(await gw.wait(t.agentRunId, { runId: parked.runId }));
    expect(done.value).toBe(42);
  });

  it('on a continuation: its byte length is its reported stored size, and it resumes on another worker of the same executor', async () => {
    const continuation = await parkedContinuation(plain);
    if (continuation.executor !== 'quickjs') throw new Error('expected a QuickJS continuation');
    expect(continuation.storedBytes).toBe(continuation.snapshot.length);
    // the executor's two workers share one base image: either restores it (two at once land on both)
    const again = await Promise.all([resumed(plain, continuation), resumed(plain, continuation)]);
    expect(again.map((o) => (o.kind === 'failed' ? o.error : o.kind))).toEqual(['parked', 'parked']);
  });

  it('on a snapshot taken over another base image: refuses to restore it, naming the mismatch', async () => {
    const continuation = await parkedContinuation(plain);
    const outcome = await resumed(otherBase, continuation);
    expect(outcome.kind).toBe('failed');
    if (outcome.kind !== 'failed') return;
    expect(outcome.code).toBe('internal_error');
    expect(outcome.error).toMatch(/snapshot restore failed: snapshot was taken with a different QuickJS WASM build or base image/);
  });
});
