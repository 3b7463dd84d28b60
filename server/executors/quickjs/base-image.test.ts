// Snapshots as deltas of one base image: a parked cell stores only how its VM differs from the image
// every VM starts from, resumes from base + delta on any worker and in any process, and a snapshot of another base is refused.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompleted, expectWaiting, testGateway } from '../../testing.ts';
import type { Continuation, Executor, Leg, LegOutcome } from '../types.ts';
import { baseImageId, buildBaseImage } from './base-image.ts';
import { QuickJsExecutor, quickjsModule } from './executor.ts';

const execFileAsync = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RESUME_PROBE = fileURLToPath(new URL('../fixtures/resume-in-another-process.ts', import.meta.url));
import { NO_DECLARATION_FILES } from '../../bridge/declaration-files.mjs';

const boot = { maxPendingToolCalls: 4, tools: [], mcp: [] };
const limits = { memoryLimitBytes: 32 * 1024 * 1024, maxOutputBytes: 4096, maxSnapshotBytes: 1024 * 1024, maxPendingToolCalls: 4 };

/** Start a cell that awaits a timer (a bridge request) and park it as soon as it asks: its continuation. */
async function parkedContinuation(ex: Executor): Promise<Continuation> {
  return (await parkedWithRequest(ex)).continuation;
}

/** As parkedContinuation, with the id of the timer request the cell waits on (a resume delivers its reply). */
async function parkedWithRequest(ex: Executor): Promise<{ continuation: Continuation; requestId: string }> {
  let leg: Leg | undefined;
  let requestId: string | undefined;
  leg = ex.start(
    { body: 'const kept = 41;\nawait new Promise((r) => setTimeout(r, 10));\nreturn kept + 1', boot, files: NO_DECLARATION_FILES, limits, budgetMs: 20_000 },
    {
      onRequests: (requests) => {
        requestId ??= requests[0]?.id;
        leg?.park();
      },
      onOutput() {},
    },
  );
  const outcome = await leg.done;
  if (outcome.kind !== 'parked' || requestId === undefined) throw new Error(`expected the cell to park on a request, got ${JSON.stringify(outcome)} (request: ${requestId})`);
  return { continuation: outcome.continuation, requestId };
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

describe('the base image is content-addressed and the same in every process', () => {
  const wasm = quickjsModule();
  const options = { maxStackSizeBytes: 256 * 1024 };

  it('built twice: the same bytes, the same memory hash and the same id (QuickJS start-up reads a fixed clock and fixed random bytes)', async () => {
    const [a, b] = [await buildBaseImage(wasm.module, wasm.hash, options), await buildBaseImage(wasm.module, wasm.hash, options)];
    expect(Buffer.from(new Uint8Array(a.memory)).equals(Buffer.from(new Uint8Array(b.memory)))).toBe(true);
    expect(Buffer.from(a.hash).toString('hex')).toBe(Buffer.from(b.hash).toString('hex'));
    expect(a.id).toBe(b.id);
    expect(a.pointers).toEqual(b.pointers);
  });

  it('baseImageId: names the quickjs-wasi version; another module, prelude prefix or stack size is another id; the same inputs the same id', () => {
    const id = baseImageId(wasm.hash, options);
    expect(id).toMatch(/^quickjs-wasi@\d+\.\d+\.\d+[^+]*\+[0-9a-f]{24}$/);
    expect(baseImageId(wasm.hash, { ...options })).toBe(id);
    const others = [
      baseImageId(new Uint8Array(32).fill(1), options),
      baseImageId(wasm.hash, { ...options, preludePrefix: 'globalThis.x = 1;' }),
      baseImageId(wasm.hash, { maxStackSizeBytes: 512 * 1024 }),
    ];
    expect(new Set([id, ...others]).size).toBe(4);
  });

  it('the executor exposes its image id, and an executor on another prelude has another', () => {
    const plain = new QuickJsExecutor({ workers: 1 });
    const other = new QuickJsExecutor({ workers: 1, preludePrefix: 'globalThis.__other_base = 1;' });
    try {
      expect(plain.baseImageId).toBe(baseImageId(wasm.hash, options));
      expect(other.baseImageId).not.toBe(plain.baseImageId);
    } finally {
      void plain.close();
      void other.close();
    }
  });

  it('a snapshot parked in this process resumes in another process (a second Gateway), with its state, on the same image id', async () => {
    const ex = new QuickJsExecutor({ workers: 1 });
    const dir = mkdtempSync(join(tmpdir(), 'codemode-base-'));
    try {
      await ex.ready();
      const { continuation, requestId } = await parkedWithRequest(ex);
      if (continuation.executor !== 'quickjs') throw new Error('expected a QuickJS continuation');
      const file = join(dir, 'snapshot.bin');
      writeFileSync(file, continuation.snapshot);
      const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', RESUME_PROBE, file, requestId], { cwd: REPO_ROOT });
      const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { baseImageId: string; outcome: { kind: string; valueJson?: string; error?: string } };
      expect(result.baseImageId).toBe(ex.baseImageId);
      expect(result.outcome).toEqual({ kind: 'completed', valueJson: '42' });
    } finally {
      await ex.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
