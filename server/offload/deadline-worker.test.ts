// The warm deadline worker: jobs in order, a hard deadline that replaces the thread, start failures, busy, abort, and places per run and per owner.
import { afterEach, describe, expect, it } from 'vitest';
import { DeadlineWorker, type DeadlineWorkerOptions } from './deadline-worker.ts';
import { OwnerDirectory } from '../access/owners.ts';
import { DEFAULT_SERVER_OPTIONS } from '../config/schema.ts';

const OWNERS = new OwnerDirectory(DEFAULT_SERVER_OPTIONS);

// A worker that echoes its job, spins forever on { spin: true }, and throws on { throw: true }.
const ECHO = `
import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ id, job }) => {
  if (job.spin) for (;;) {}
  if (job.throw) { parentPort.postMessage({ id, ok: false, error: 'job failed: ' + job.throw }); return; }
  parentPort.postMessage({ id, ok: true, value: job });
});
parentPort.postMessage({ t: 'ready' });`;
const dataUrl = (code: string) => new URL(`data:text/javascript,${encodeURIComponent(code)}`);

const workers: Array<DeadlineWorker<unknown, unknown>> = [];
function worker(over: Partial<DeadlineWorkerOptions> = {}): DeadlineWorker<unknown, unknown> {
  const w = new DeadlineWorker<unknown, unknown>({ entry: dataUrl(ECHO), name: 'echo', deadlineMs: 60_000, startTimeoutMs: 30_000, maxQueued: 4, ...over });
  workers.push(w);
  return w;
}
afterEach(async () => {
  for (const w of workers.splice(0)) await w.close();
});

describe('DeadlineWorker', () => {
  it('on several jobs: answers each, in order, from one warm thread', async () => {
    const w = worker();
    const outcomes = await Promise.all([w.run({ n: 1 }), w.run({ n: 2 }), w.run({ throw: 'x' })]);
    expect(outcomes).toEqual([
      { ok: true, value: { n: 1 } },
      { ok: true, value: { n: 2 } },
      { ok: false, reason: 'failed', message: 'job failed: x' },
    ]);
    expect(w.started).toBe(1);
  });

  it('on a job past its deadline: times out, the thread is replaced and the queued job runs on the new one', async () => {
    const w = worker({ deadlineMs: 300 });
    const [spun, next] = await Promise.all([w.run({ spin: true }), w.run({ n: 3 })]);
    expect(spun).toMatchObject({ ok: false, reason: 'timeout', message: 'echo took longer than 300 ms' });
    expect(next).toEqual({ ok: true, value: { n: 3 } });
    expect(w.started).toBe(2);
  });

  it('on more waiting jobs than maxQueued: refuses the extra one as busy', async () => {
    const w = worker({ maxQueued: 1, deadlineMs: 300 });
    const first = w.run({ spin: true });
    const queued = w.run({ n: 1 });
    expect(await w.run({ n: 2 })).toMatchObject({ ok: false, reason: 'busy' });
    expect(await first).toMatchObject({ reason: 'timeout' });
    expect(await queued).toEqual({ ok: true, value: { n: 1 } });
  });

  it('on a worker that cannot start: fails its jobs as unavailable instead of waiting', async () => {
    const w = worker({ entry: dataUrl('throw new Error("no such engine")') });
    expect(await w.run({ n: 1 })).toMatchObject({ ok: false, reason: 'unavailable', message: expect.stringContaining('no such engine') });
  });

  it('on a worker that never reports ready: fails after the start timeout', async () => {
    const w = worker({ entry: dataUrl('setInterval(() => {}, 1000)'), startTimeoutMs: 200 });
    expect(await w.run({ n: 1 })).toMatchObject({ ok: false, reason: 'unavailable', message: expect.stringContaining('did not start within 200 ms') });
  });

  it('on abort of a queued job: it never runs', async () => {
    const w = worker({ deadlineMs: 300 });
    const controller = new AbortController();
    const first = w.run({ spin: true });
    const queued = w.run({ n: 1 }, controller.signal);
    controller.abort();
    expect(await queued).toMatchObject({ ok: false, reason: 'aborted' });
    expect(await first).toMatchObject({ reason: 'timeout' });
  });

  it('on many jobs of one run: they take one place in the queue, so another run\'s job goes ahead of all but the first', async () => {
    const w = worker({ deadlineMs: 300, maxQueued: 1 });
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then((o) => (order.push(name), o));
    const jobs = [
      track('a1', w.run({ spin: true }, undefined, 'run-a')),
      // held behind a1: not counted against maxQueued
      track('a2', w.run({ n: 2 }, undefined, 'run-a')),
      track('a3', w.run({ n: 3 }, undefined, 'run-a')),
      track('b1', w.run({ n: 4 }, undefined, 'run-b')),
    ];
    expect(await w.run({ n: 5 }, undefined, 'run-c')).toMatchObject({ ok: false, reason: 'busy' });
    const outcomes = await Promise.all(jobs);
    expect(outcomes.slice(1)).toEqual([{ ok: true, value: { n: 2 } }, { ok: true, value: { n: 3 } }, { ok: true, value: { n: 4 } }]);
    expect(order).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('on abort of a job held behind its run\'s earlier one: it never runs, the run\'s later job still does', async () => {
    const w = worker();
    const controller = new AbortController();
    const first = w.run({ n: 1 }, undefined, 'run-a');
    const held = w.run({ n: 2 }, controller.signal, 'run-a');
    const later = w.run({ n: 3 }, undefined, 'run-a');
    controller.abort();
    expect(await held).toMatchObject({ ok: false, reason: 'aborted' });
    expect(await first).toEqual({ ok: true, value: { n: 1 } });
    expect(await later).toEqual({ ok: true, value: { n: 3 } });
  });

  it("on one owner's runs at its share of places: its next run's job is busy naming the share, another owner's job still queues; a finished job gives the place back", async () => {
    const w = worker({ deadlineMs: 300, maxQueued: 8 });
    const greedy = { ...OWNERS.anonymous, shares: { ...OWNERS.anonymous.shares, queuedJobs: 2 } };
    const first = w.run({ spin: true }, undefined, 'run-1', greedy);
    const second = w.run({ n: 2 }, undefined, 'run-2', greedy);
    // a third run of the same owner: no place left in its share
    expect(await w.run({ n: 3 }, undefined, 'run-3', greedy)).toMatchObject({
      ok: false,
      reason: 'busy',
      message: 'this owner (the clients without a key) already holds 2 places in the echo queue, its share (server.shares.anonymous.queuedJobs); await earlier calls before starting more, then try again',
    });
    // its own run's later job waits behind that run's place, taking none of the share
    const held = w.run({ n: 4 }, undefined, 'run-2', greedy);
    // another owner is not held back
    const other = w.run({ n: 5 }, undefined, 'run-9', OWNERS.operator);
    expect(await first).toMatchObject({ reason: 'timeout' });
    expect(await Promise.all([second, held, other])).toEqual([{ ok: true, value: { n: 2 } }, { ok: true, value: { n: 4 } }, { ok: true, value: { n: 5 } }]);
    // every place came back
    expect(await w.run({ n: 6 }, undefined, 'run-4', greedy)).toEqual({ ok: true, value: { n: 6 } });
    expect(await w.run({ n: 7 }, undefined, 'run-5', greedy)).toEqual({ ok: true, value: { n: 7 } });
  });
});
