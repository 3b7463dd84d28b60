// Pool pressure (spec 01: "worker-pool pressure checkpoints it"): when a leg waits for a place and every worker
// that could take it is full, what to do about it. The pool (pool.ts) asks; this module only looks at the legs on
// the full workers and answers, and the pool acts on the answer (it asks the chosen leg for its checkpoint, waits,
// or places the leg past the count). A VM is only worth moving while it waits on the host; one whose snapshot is
// over maxSnapshotBytes never moves (the worker declined it for good).
import type { PoolLeg } from './pool-leg.ts';
import type { PoolWorker } from './pool-worker.ts';

/** What the pool does for the next queued leg when no worker has a free place. */
export type PressureStep =
  /** ask this VM (movable, least recently active) for a checkpoint, then look again */
  | { kind: 'checkpoint'; leg: PoolLeg }
  /** enough checkpoints are asked already: their answers pump the queue again */
  | { kind: 'wait' }
  /** nothing can move now, but a VM may become movable (or a computing worker free up): look again shortly */
  | { kind: 'retry' }
  /** nothing can ever move (every VM there is over maxSnapshotBytes): place the leg past the count */
  | { kind: 'overflow' };

/**
 * The step for `queued` legs waiting, given the `full` workers (not dead, guest not computing, at the VM cap) out of
 * `liveWorkers`. While a VM on a full worker may still become movable (starting, computing, parking) the queue waits
 * for it: its next message pumps again, and a retry catches a guest that turns into a long computation.
 */
export function pressureStep(full: readonly PoolWorker[], queued: number, liveWorkers: number): PressureStep {
  const asked = countCheckpointing(full);
  if (asked >= queued) return { kind: 'wait' };
  const victim = pickVictim(full);
  if (victim) return { kind: 'checkpoint', leg: victim };
  if (asked > 0) return { kind: 'wait' };
  // a computing guest cannot answer a checkpoint now, but will: wait for it rather than queue behind it
  if (full.length < liveWorkers || mayBecomeMovable(full)) return { kind: 'retry' };
  return { kind: 'overflow' };
}

/** Whether a VM can be checkpointed for pressure now: open, only waiting on the host, not asked, declined or parking. */
export function movable(leg: PoolLeg): boolean {
  const p = leg.phase;
  return p.name === 'open' && !p.parkSent && p.declined === undefined && leg.waitingOnHost > 0 && !leg.hasBacklog;
}

/** The VM to checkpoint on one of `full` workers: movable, least recently active. */
function pickVictim(full: readonly PoolWorker[]): PoolLeg | undefined {
  let out: PoolLeg | undefined;
  for (const w of full) {
    for (const leg of w.legs.values()) if (movable(leg) && (!out || leg.lastActiveAt < out.lastActiveAt)) out = leg;
  }
  return out;
}

/** Checkpoints asked on `full` workers and not answered yet. */
function countCheckpointing(full: readonly PoolWorker[]): number {
  let n = 0;
  for (const w of full) for (const leg of w.legs.values()) if (leg.phase.name === 'checkpointing') n++;
  return n;
}

/** Whether a VM on `full` workers may still become movable (all but those over maxSnapshotBytes, which stay put). */
function mayBecomeMovable(full: readonly PoolWorker[]): boolean {
  for (const w of full) {
    for (const leg of w.legs.values()) {
      const p = leg.phase;
      if (!(p.name === 'open' && p.declined === 'over-limit')) return true;
    }
  }
  return false;
}
