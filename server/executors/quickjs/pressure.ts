// A pool leg's state across the workers it runs on: pool pressure may checkpoint its VM off one worker
// and resume it on another inside the same leg (pool.ts decides when and where; this module holds what
// moves with the leg: its opening message, its checkpoint, the counts the worker needs back, and how
// messages reach whichever worker holds it).
//
// The leg keeps one control block for its whole life, so the run's deadline and abort flag follow the
// VM; its requests stay with the run (they are host work, never replayed), and only the replies that
// arrive while it is checkpointed wait here until it is on a worker again.
import type { BridgeRequest, CodeModeOutput, HostToWorker, LegLimits, SettledOutcome, WorkerToHost } from '../../bridge/protocol.ts';
import { CONTROL_BUDGET } from '../../bridge/leg-control.mjs';
import type { DeclarationFiles } from '../../bridge/declaration-files.mjs';
import type { LegHandlers, LegOutcome } from '../types.ts';
import type { PoolWorker } from './pool-worker.ts';
import { MAX_POLLED_FRONTIER } from '../spin-policy.mjs';

/** A VM checkpointed by pool pressure: what resumes it, or what the leg parks with if its budget ends first. */
export interface PressureCheckpoint {
  snapshot: Uint8Array;
  rawBytes?: number;
  storedBytes?: number;
  takeMs?: number;
  settled?: SettledOutcome;
  queued: BridgeRequest[];
}

export interface LegState {
  id: string;
  handlers: LegHandlers;
  resolve: (o: LegOutcome) => void;
  ended: boolean;
  /** One control block for the leg's life (deadline, abort flag, budget), shared with each worker it runs on. */
  sab: SharedArrayBuffer;
  control: Float64Array;
  /** The message that opens its VM on a worker: start or resume, and after a pressure checkpoint a resume of it. */
  first: HostToWorker;
  transfer: ArrayBuffer[];
  /** What a resume from a checkpoint needs from the leg's first message. */
  limits: LegLimits;
  files: DeclarationFiles;
  /** The worker holding its VM; undefined while it waits for a place or is pressure-parked. */
  worker?: PoolWorker;
  /** Counts attachments, so a worker's late readiness never posts for an earlier one. */
  placements: number;
  /** `first` went to `worker`: later messages go straight to it. */
  posted: boolean;
  /** Messages for the VM while it has no worker to take them (waiting for a place, being checkpointed, checkpointed). */
  backlog: HostToWorker[];
  /** The host saw its VM open on the current worker. */
  opened: boolean;
  /** The current worker restores a pressure checkpoint: its `opened` is a pressure resume, not the leg's start. */
  reopened: boolean;
  /** Requests the worker counts in flight: sent by the guest, reply not yet posted to a worker. */
  inFlight: number;
  /** Output bytes the worker kept so far (maxOutputBytes is per leg). */
  outputBytes: number;
  /** Output bytes dropped on workers the leg has left. */
  droppedBytes: number;
  /** A pressure-park was asked and not answered yet (messages wait in the backlog meanwhile). */
  checkpointing: boolean;
  /** The worker declined a checkpoint: not asked again until the guest sends new host work. */
  declined: boolean;
  /** Declined because its snapshot is over maxSnapshotBytes: never asked again (it stays where it is). */
  pinnedOverLimit: boolean;
  /** A park (budget spent, or yield) went to the worker: it is parking for real. */
  parkSent: boolean;
  lastActiveAt: number;
  checkpoint?: PressureCheckpoint;
}

export function newLegState(o: {
  id: string;
  handlers: LegHandlers;
  resolve: (o: LegOutcome) => void;
  sab: SharedArrayBuffer;
  control: Float64Array;
  first: HostToWorker;
  transfer: ArrayBuffer[];
}): LegState {
  const opening = o.first.t === 'start' || o.first.t === 'resume' || o.first.t === 'continue' ? o.first : undefined;
  if (!opening) throw new Error(`a pool leg opens with start or resume, not ${o.first.t}`);
  return {
    ...o,
    ended: false,
    limits: opening.limits,
    files: opening.files,
    inFlight: opening.t === 'start' ? 0 : opening.inFlight,
    placements: 0,
    posted: false,
    backlog: [],
    opened: false,
    reopened: false,
    outputBytes: 0,
    droppedBytes: 0,
    checkpointing: false,
    declined: false,
    pinnedOverLimit: false,
    parkSent: false,
    lastActiveAt: Date.now(),
  };
}

/** Put the leg's VM on `pw`: its opening message once the worker is ready, then what waited for it. */
export function attachLeg(leg: LegState, pw: PoolWorker): void {
  leg.worker = pw;
  leg.posted = false;
  leg.opened = false;
  leg.lastActiveAt = Date.now();
  const placement = ++leg.placements;
  pw.legs.set(leg.id, leg);
  if (pw.idleTimer) clearTimeout(pw.idleTimer);
  pw.idleTimer = undefined;
  if (pw.extra) pw.worker.ref();
  pw.ready.then(
    () => {
      if (leg.ended || leg.worker !== pw || leg.placements !== placement || pw.dead) return;
      pw.post(leg.first, leg.transfer);
      leg.transfer = [];
      leg.posted = true;
      for (const m of leg.backlog.splice(0)) postToWorker(leg, m);
    },
    () => undefined, // the worker died: its legs were failed
  );
}

/** Post to the leg's worker; what the worker counts (replies delivered, a park asked) is counted here too. */
export function postToWorker(leg: LegState, msg: HostToWorker): void {
  if (!leg.worker || leg.worker.dead) return;
  if (msg.t === 'deliver') {
    leg.inFlight -= msg.replies.length;
    // a VM that declined while busy is in a new state once it has replies: it may be asked again
    if (!leg.pinnedOverLimit) leg.declined = false;
  }
  if (msg.t === 'park') leg.parkSent = true;
  leg.worker.post(msg);
  // the guest's next request comes soon only after a narrow frontier's replies (spin-policy.mjs)
  if (msg.t === 'deliver' && msg.replies.length <= MAX_POLLED_FRONTIER) leg.worker.afterReply();
}

/** Bytes of output lines as the worker counts them against maxOutputBytes. */
export function outputBytesOf(lines: CodeModeOutput[]): number {
  return lines.reduce((n, l) => n + Buffer.byteLength(l.text, 'utf8'), 0);
}

/**
 * The worker checkpointed the leg's VM and let it go: keep the checkpoint and say so to the run. Then:
 * `reopen` when replies already wait for it, `parked` when the run asked it to park (and nothing else
 * waits), else `idle` until a reply arrives.
 */
export function checkpointed(leg: LegState, msg: Extract<WorkerToHost, { t: 'pressure-parked' }>): 'reopen' | 'parked' | 'idle' {
  leg.worker = undefined;
  leg.posted = false;
  leg.opened = false;
  leg.checkpointing = false;
  leg.droppedBytes += msg.droppedBytes;
  if (!msg.snapshot) throw new Error('a pressure checkpoint carries a snapshot (checked by protocol-check)');
  leg.checkpoint = {
    snapshot: msg.snapshot,
    rawBytes: msg.rawBytes,
    storedBytes: msg.storedBytes,
    takeMs: msg.takeMs,
    settled: msg.settled,
    queued: msg.queued,
  };
  leg.handlers.onPressure?.({ phase: 'parked', rawBytes: msg.rawBytes, storedBytes: msg.storedBytes, takeMs: msg.takeMs });
  if (leg.backlog.some((m) => m.t === 'deliver')) return 'reopen';
  if (leg.backlog.some((m) => m.t === 'park')) return 'parked';
  return 'idle';
}

/** The leg parks (its budget ended, or the guest yielded) while pressure-parked: the checkpoint is its continuation. */
export function checkpointOutcome(leg: LegState): LegOutcome {
  const cp = leg.checkpoint;
  if (!cp) throw new Error(`leg ${leg.id} has no pressure checkpoint to park with`);
  leg.checkpoint = undefined;
  leg.backlog = [];
  return {
    kind: 'parked',
    continuation: { executor: 'quickjs', snapshot: cp.snapshot, rawBytes: cp.rawBytes, storedBytes: cp.storedBytes, settled: cp.settled },
    queued: cp.queued,
    takeMs: cp.takeMs,
    droppedBytes: 0,
  };
}

/** Make the checkpoint the leg's opening message again: a resume on whichever worker takes it next. */
export function reopenFromCheckpoint(leg: LegState): void {
  const cp = leg.checkpoint;
  if (!cp) throw new Error(`leg ${leg.id} has no pressure checkpoint to resume`);
  leg.checkpoint = undefined;
  // the run set the deadline when the leg first opened (or paused it for an approval): the worker
  // must keep it, not start a fresh budget (a negative budget tells it so)
  leg.control[CONTROL_BUDGET] = -1;
  leg.first = {
    t: 'resume',
    legId: leg.id,
    snapshot: cp.snapshot,
    limits: leg.limits,
    control: leg.sab,
    files: leg.files,
    inFlight: leg.inFlight,
    ...(cp.settled ? { settled: cp.settled } : {}),
    outputBytes: leg.outputBytes,
  };
  leg.transfer = [cp.snapshot.buffer as ArrayBuffer];
  leg.reopened = true;
}

/** Whether a VM can be checkpointed for pressure now: opened, only waiting on the host, not asked, declined or parking. */
function movable(leg: LegState): boolean {
  return leg.opened && !leg.checkpointing && !leg.declined && !leg.parkSent && leg.inFlight > 0 && leg.backlog.length === 0;
}

/** The VM to checkpoint on one of `full` workers (full, guest not computing): movable, least recently active. */
export function pickVictim(full: PoolWorker[]): LegState | undefined {
  let out: LegState | undefined;
  for (const w of full) {
    for (const leg of w.legs.values()) if (movable(leg) && (!out || leg.lastActiveAt < out.lastActiveAt)) out = leg;
  }
  return out;
}

/** Checkpoints asked on `full` workers and not answered yet. */
export function countCheckpointing(full: PoolWorker[]): number {
  let n = 0;
  for (const w of full) for (const leg of w.legs.values()) if (leg.checkpointing) n++;
  return n;
}

/** Whether a VM on `full` workers may still become movable (all but those over maxSnapshotBytes, which stay put). */
export function mayBecomeMovable(full: PoolWorker[]): boolean {
  for (const w of full) for (const leg of w.legs.values()) if (!leg.pinnedOverLimit) return true;
  return false;
}

/** What the pool does for a pressure message (pool.ts binds it to the worker that sent it). */
export interface PressureHost {
  /** Post the leg's backlog to its worker (it stays there). */
  flush(leg: LegState): void;
  pump(): void;
  /** The leg's VM left its worker by a checkpoint. */
  left(leg: LegState): void;
  /** Queue the leg to resume from its checkpoint. */
  requeue(leg: LegState): void;
  finish(leg: LegState, outcome: LegOutcome): void;
  /** Keep the checkpointed leg until a reply (or a park) arrives. */
  hold(leg: LegState): void;
}

/** The pressure side of a leg's messages, and the counts the host keeps to resume it elsewhere; true when handled here. */
export function onPressureMessage(leg: LegState, msg: WorkerToHost, host: PressureHost): boolean {
  switch (msg.t) {
    case 'requests':
      leg.inFlight += msg.requests.length;
      // new host work: a VM declined while busy may be asked again
      if (!leg.pinnedOverLimit) leg.declined = false;
      return false;
    case 'output':
      leg.outputBytes += outputBytesOf(msg.lines);
      return false;
    case 'opened':
      leg.opened = true;
      if (!leg.reopened) return false;
      // the run's budget started when the leg first opened: this is only the checkpoint restored
      leg.reopened = false;
      leg.handlers.onPressure?.({ phase: 'resumed', ...(msg.restoreMs !== undefined ? { restoreMs: msg.restoreMs } : {}) });
      return true;
    case 'pressure-declined':
      leg.checkpointing = false;
      leg.declined = true;
      if (msg.storedBytes !== undefined) leg.pinnedOverLimit = true;
      host.flush(leg);
      host.pump();
      return true;
    case 'pressure-parked': {
      host.left(leg);
      const next = checkpointed(leg, msg);
      if (next === 'reopen') host.requeue(leg);
      else if (next === 'parked') host.finish(leg, checkpointOutcome(leg));
      else host.hold(leg);
      host.pump();
      return true;
    }
    default:
      return false;
  }
}
