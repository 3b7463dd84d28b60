// A pool leg's phases on a fake worker: each move the pool makes (place, open, checkpoint, reopen, park, finish)
// enters the phase it names, a move its phase does not allow throws LegPhaseError, and a pressure answer the leg
// never asked for is a broken worker.
import { NO_DECLARATION_FILES } from '../../bridge/declaration-files.mjs';
import { describe, expect, it, vi } from 'vitest';
import type { HostToWorker, WorkerToHost } from '../../bridge/protocol.ts';
import { CONTROL_BUDGET } from '../../bridge/leg-control.mjs';
import { until } from '../../testing.ts';
import type { LegOutcome, PressureEvent } from '../types.ts';
import { LegPhaseError, PoolLeg } from './pool-leg.ts';
import type { PoolWorker } from './pool-worker.ts';
import { movable } from './pressure.ts';

const limits = { memoryLimitBytes: 1 << 26, maxOutputBytes: 1024, maxSnapshotBytes: 1 << 20, maxPendingToolCalls: 16 };

function fakeWorker() {
  return { dead: false, post: vi.fn(), afterReply: vi.fn(), ready: Promise.resolve(), legs: new Map() };
}

/** A new leg (a start) with its handlers' pressure events and its outcomes kept. */
function newLeg() {
  const sab = new SharedArrayBuffer(24);
  const first: HostToWorker = { t: 'start', legId: 'leg', body: 'return 1', boot: { maxPendingToolCalls: 16, tools: [], mcp: [] }, limits, control: sab, files: NO_DECLARATION_FILES };
  const pressure: PressureEvent[] = [];
  const outcomes: LegOutcome[] = [];
  const leg = new PoolLeg('leg', { onRequests() {}, onOutput() {}, onPressure: (e) => pressure.push(e) }, (o) => outcomes.push(o), sab, new Float64Array(sab), first, []);
  return { leg, pressure, outcomes };
}

/** A leg open on a fake worker, with `inFlight` requests sent by its guest. */
async function openLeg(inFlight = 1) {
  const made = newLeg();
  const worker = fakeWorker();
  made.leg.place(worker as unknown as PoolWorker);
  expect(made.leg.phase.name).toBe('placed');
  await until(() => made.leg.phase.name === 'opening', { what: 'the opening message to go' });
  expect(worker.post.mock.calls[0]?.[0]).toMatchObject({ t: 'start', legId: 'leg' });
  expect(made.leg.onMessage({ t: 'opened', legId: 'leg' })).toBe('route');
  const requests = Array.from({ length: inFlight }, (_, i) => ({ id: `r${i}`, op: 'timer' as const, ms: 5, timer: i + 1 }));
  if (inFlight > 0) made.leg.onMessage({ t: 'requests', legId: 'leg', requests, cancels: [] });
  worker.post.mockClear();
  return { ...made, worker };
}

const pressureParked = (): WorkerToHost => ({ t: 'pressure-parked', legId: 'leg', droppedBytes: 3, snapshot: new Uint8Array([1, 2, 3]), rawBytes: 30, storedBytes: 3, takeMs: 1, queued: [] });

describe('PoolLeg phases', () => {
  it('on a new leg placed on a worker: queued, then placed, then opening once the worker is ready (what waited goes after), then open', async () => {
    const { leg } = newLeg();
    expect(leg.phase.name).toBe('queued');
    leg.send({ t: 'park', legId: 'leg' });
    const worker = fakeWorker();
    leg.place(worker as unknown as PoolWorker);
    await until(() => leg.phase.name === 'opening', { what: 'the opening message to go' });
    expect(worker.post.mock.calls.map((c) => (c[0] as HostToWorker).t)).toEqual(['start', 'park']);
    expect(leg.onMessage({ t: 'opened', legId: 'leg' })).toBe('route');
    expect(leg.phase).toMatchObject({ name: 'open', parkSent: true });
  });

  it('on a pressure checkpoint: checkpointing holds messages back, checkpointed keeps the snapshot, a reply reopens it as a resume with its counts', async () => {
    const { leg, worker, pressure } = await openLeg(2);
    expect(movable(leg)).toBe(true);
    leg.askCheckpoint();
    expect(leg.phase.name).toBe('checkpointing');
    expect(worker.post).toHaveBeenCalledWith({ t: 'pressure-park', legId: 'leg' });
    expect(movable(leg)).toBe(false);
    leg.send({ t: 'deliver', legId: 'leg', replies: [{ id: 'r0', ok: true, value: null }] });
    expect(worker.post).toHaveBeenCalledTimes(1);
    expect(leg.onMessage(pressureParked())).toEqual({ checkpointed: 'reopen' });
    expect(leg.phase.name).toBe('checkpointed');
    expect(leg.worker).toBeUndefined();
    expect(pressure).toEqual([{ phase: 'parked', rawBytes: 30, storedBytes: 3, takeMs: 1 }]);

    leg.reopen();
    expect(leg.phase).toEqual({ name: 'queued', reopen: true });
    expect(leg.control[CONTROL_BUDGET]).toBe(-1);
    const next = fakeWorker();
    leg.place(next as unknown as PoolWorker);
    await until(() => leg.phase.name === 'opening', { what: 'the resume to go' });
    // the resume carries the requests still in flight before the kept reply goes: 2 sent, then 1 delivered
    expect(next.post.mock.calls[0]?.[0]).toMatchObject({ t: 'resume', legId: 'leg', inFlight: 2 });
    expect(next.post.mock.calls[1]?.[0]).toMatchObject({ t: 'deliver' });
    expect(leg.waitingOnHost).toBe(1);
    // this opening is the checkpoint restored, not the leg's start: the run hears of a pressure resume only
    expect(leg.onMessage({ t: 'opened', legId: 'leg', restoreMs: 4 })).toBe('handled');
    expect(pressure[1]).toEqual({ phase: 'resumed', restoreMs: 4 });
  });

  it('on a checkpoint while a park waits: the checkpoint is the parked outcome, with the bytes dropped on the worker it left', async () => {
    const { leg, outcomes } = await openLeg();
    leg.askCheckpoint();
    leg.send({ t: 'park', legId: 'leg' });
    expect(leg.onMessage(pressureParked())).toEqual({ checkpointed: 'parked' });
    const outcome = leg.parkedOutcome();
    expect(outcome).toMatchObject({ kind: 'parked', continuation: { executor: 'quickjs', rawBytes: 30, storedBytes: 3 }, queued: [] });
    expect(leg.finish(outcome)).toBeUndefined();
    expect(leg.phase.name).toBe('ended');
    expect(outcomes).toEqual([{ ...outcome, droppedBytes: 3 }]);
  });

  it('on a declined checkpoint: busy until the guest sends new host work; over maxSnapshotBytes for good', async () => {
    const busy = await openLeg();
    busy.leg.askCheckpoint();
    expect(busy.leg.onMessage({ t: 'pressure-declined', legId: 'leg' })).toBe('declined');
    expect(busy.leg.phase).toMatchObject({ name: 'open', declined: 'busy' });
    expect(movable(busy.leg)).toBe(false);
    busy.leg.onMessage({ t: 'requests', legId: 'leg', requests: [{ id: 'r9', op: 'timer', ms: 5, timer: 9 }], cancels: [] });
    expect(movable(busy.leg)).toBe(true);

    const big = await openLeg();
    big.leg.askCheckpoint();
    big.leg.onMessage({ t: 'pressure-declined', legId: 'leg', storedBytes: 1 << 21 });
    big.leg.onMessage({ t: 'requests', legId: 'leg', requests: [{ id: 'r9', op: 'timer', ms: 5, timer: 9 }], cancels: [] });
    big.leg.post({ t: 'deliver', legId: 'leg', replies: [{ id: 'r9', ok: true, value: null }] });
    expect(big.leg.phase).toMatchObject({ name: 'open', declined: 'over-limit' });
    expect(movable(big.leg)).toBe(false);
  });

  it('on a pressure answer the leg never asked for: malformed (the worker broke the protocol)', async () => {
    const { leg } = await openLeg();
    expect(leg.onMessage(pressureParked())).toEqual({ malformed: 'a pressure-parked answer while the leg was open' });
    expect(leg.onMessage({ t: 'pressure-declined', legId: 'leg' })).toEqual({ malformed: 'a pressure-declined answer while the leg was open' });
  });

  it('on a move its phase does not allow: throws LegPhaseError naming the move and the phase', async () => {
    const { leg } = newLeg();
    expect(() => leg.askCheckpoint()).toThrow(LegPhaseError);
    expect(() => leg.askCheckpoint()).toThrow('pool leg leg cannot be asked for a checkpoint while queued');
    expect(() => leg.reopen()).toThrow(/cannot reopen from a checkpoint while queued/);
    expect(() => leg.parkedOutcome()).toThrow(/cannot park from a checkpoint while queued/);
    expect(() => leg.post({ t: 'park', legId: 'leg' })).toThrow(/cannot post park while queued/);
    const open = await openLeg();
    expect(() => open.leg.place(fakeWorker() as unknown as PoolWorker)).toThrow(/cannot be placed while open/);
  });
});
