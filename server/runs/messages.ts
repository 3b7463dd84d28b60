// What the runs side says to the model and the operator: the spec's messages word for word, and the
// host-fault messages, each saying what went wrong and what to do next.
import { moreRoomHint, shareName, type Owner } from '../access/owners.ts';
import type { ExecutorKind } from '../config/types.ts';

export const MSG_UNAVAILABLE = 'code mode run is unavailable or expired.';
export const MSG_WRONG_SESSION = 'code mode run belongs to a different session.';
export const MSG_WRONG_RUN = 'code mode run belongs to a different agent run.';
export const MSG_ALREADY_RESUMING = 'a wait is already in flight for this code mode run; wait for it to return.';
/** Spec 02, word for word (its period included); what to do follows it, in the emitted message only. */
export const MSG_TOO_MANY = 'too many suspended code mode runs.';

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The suspended-run cap is full: the spec's message, then what to do (`turnHeld`: how many of them are this turn's). */
export function tooManyRunsMessage(maxSuspendedRuns: number, turnHeld = 0): string {
  const yours =
    turnHeld > 0
      ? `${turnHeld} of them are this turn's: wait on or abort one, then run this cell again.`
      : 'none of them is this turn\'s: run this cell again once other turns\' runs finish (a waiting run expires after snapshotTtlSeconds).';
  return `${MSG_TOO_MANY} The process holds at most ${maxSuspendedRuns} and all are taken; ${yours}`;
}

/** One turn holds its share of the suspended-run cap. */
export function turnSlotsFullMessage(maxPerTurn: number, maxSuspendedRuns: number): string {
  return (
    `${MSG_TOO_MANY} This turn already has ${maxPerTurn} runs in flight or waiting, its share of the process's ${maxSuspendedRuns}; ` +
    'wait on or abort one of them, or run the calls together in one cell (Promise.all), then run this cell again.'
  );
}

/** The turn's owner holds its share of the suspended-run cap (across all its turns). */
export function ownerSlotsFullMessage(owner: Owner, maxSuspendedRuns: number): string {
  return (
    `${MSG_TOO_MANY} This turn's owner (${owner.label}) already has ${owner.shares.suspendedRuns} runs in flight or waiting, ` +
    `its share of the process's ${maxSuspendedRuns} (${shareName(owner, 'suspendedRuns')}); wait on or abort one of its runs, ` +
    `or run the calls together in one cell (Promise.all), then run this cell again; ${moreRoomHint(owner)}.`
  );
}

/** A host step of the run threw (`what`: "finish this run", "dispatch this cell's requests"). */
export function hostFaultMessage(what: string, err: unknown): string {
  return `the host could not ${what} (${reason(err)}); the run was released. Run the cell again.`;
}

/** The executor refused to open a leg at all. */
export function legNotStartedMessage(executor: ExecutorKind, err: unknown): string {
  return `the ${executor} executor could not run the cell: ${reason(err)}. Run it again; if it keeps failing, check the gateway log.`;
}

/** The leg's VM did not get ready within the start limit. */
export function legStartTimeoutMessage(executor: ExecutorKind, limitMs: number): string {
  return `the ${executor} executor did not get the cell's VM ready within ${limitMs} ms (worker start, VM creation or snapshot restore); the machine may be overloaded. Run the cell again, or check the gateway log.`;
}

/** The guest broke the bridge protocol (`violation` says how). */
export function malformedFrontierMessage(violation: string): string {
  return `the cell sent the code mode bridge a malformed message (${violation}). This happens when a cell replaces builtins the runtime relies on or calls internal __cm_ functions; leave them intact and run the cell again.`;
}
