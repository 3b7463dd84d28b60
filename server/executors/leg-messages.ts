// Leg plumbing shared by every executor's supervisor: worker messages to outcomes, the control block, ordered sends, the Leg handle.
import type { ExecutorKind } from '../config/types.ts';
import type { CodeModeErrorCode } from '../errors.ts';
import type { BridgeReply, HostToWorker, WorkerToHost } from '../bridge/protocol.ts';
import { CONTROL_ABORT, CONTROL_BUDGET, CONTROL_DEADLINE, CONTROL_SLOTS } from '../bridge/leg-control.mjs';
import { checkWorkerMessage } from '../bridge/protocol-check.mjs';
import type { Continuation, Leg, LegHandlers, LegOutcome } from './types.ts';

/** A worker message after its check: for a leg (valid or not), or for no leg at all (dropped). */
export type RoutedMessage =
  | { kind: 'ready'; warmedUp: boolean }
  | { kind: 'leg'; legId: string; msg: WorkerToHost }
  | { kind: 'malformed'; legId: string; error: string }
  | { kind: 'stray'; error: string };

/** Check one raw worker message before anything reads it (the worker relays guest-controlled data). */
export function routeWorkerMessage(raw: unknown): RoutedMessage {
  const checked = checkWorkerMessage(raw);
  if (!checked.ok) return checked.legId !== undefined ? { kind: 'malformed', legId: checked.legId, error: checked.error } : { kind: 'stray', error: checked.error };
  const msg = checked.value;
  return msg.t === 'ready' ? { kind: 'ready', warmedUp: msg.warmedUp === true } : { kind: 'leg', legId: msg.legId, msg };
}

/** A Leg that has already failed (no worker was involved): the executor could not open it. */
export function failedLeg(code: CodeModeErrorCode, error: string): Leg {
  return {
    done: Promise.resolve({ kind: 'failed', code, error, droppedBytes: 0 }),
    deliver() {},
    park() {},
    setDeadline() {},
    abort() {},
  };
}

/** The outcome of a leg whose worker sent a message that failed its check. */
export function malformedOutcome(error: string): LegOutcome {
  return {
    kind: 'failed',
    code: 'invalid_input',
    error: `the code mode worker relayed a malformed message for this run (${error}); the run was released. A cell that replaces builtins the runtime relies on can cause this: leave them intact and run the cell again.`,
    droppedBytes: 0,
  };
}

/**
 * Route one checked worker message of a leg: progress messages go to `handlers`; a final message
 * returns the leg's outcome (the caller ends the leg with it). `workerId` is recorded for live
 * continuations. Never throws: a handler that fails on this message's data ends the leg instead.
 */
export function handleLegMessage(
  msg: WorkerToHost,
  handlers: LegHandlers,
  executor: ExecutorKind,
  workerId: number,
): LegOutcome | undefined {
  try {
    return legMessageOutcome(msg, handlers, executor, workerId);
  } catch (err) {
    return {
      kind: 'failed',
      code: 'internal_error',
      error: `the host could not process a message of this run (${err instanceof Error ? err.message : String(err)}); the run was released. Run the cell again.`,
      droppedBytes: 0,
    };
  }
}

function legMessageOutcome(msg: WorkerToHost, handlers: LegHandlers, executor: ExecutorKind, workerId: number): LegOutcome | undefined {
  switch (msg.t) {
    case 'requests':
      handlers.onRequests(msg.requests, msg.cancels);
      return undefined;
    case 'output':
      handlers.onOutput(msg.lines);
      return undefined;
    case 'opened':
      handlers.onOpened?.({
        ...(msg.restoreMs !== undefined ? { restoreMs: msg.restoreMs } : {}),
        ...(msg.rawBytes !== undefined ? { rawBytes: msg.rawBytes } : {}),
      });
      return undefined;
    case 'settled': {
      const clock = msg.clock ? { clock: msg.clock } : {};
      if (msg.ok) return { kind: 'completed', valueJson: msg.valueJson, droppedBytes: msg.droppedBytes, ...clock };
      return { kind: 'failed', code: msg.code as CodeModeErrorCode | undefined, error: msg.error, stack: msg.stack, droppedBytes: msg.droppedBytes, ...clock };
    }
    case 'parked': {
      // each executor resumes from one kind of continuation: a snapshot (QuickJS) or a live VM (Node, quickjs-emscripten)
      let continuation: Continuation;
      if ((executor === 'node' || executor === 'quickjs-emscripten') && msg.continuationId !== undefined && !msg.snapshot) {
        continuation = { executor, continuationId: msg.continuationId, workerId, retainedBytesEstimate: msg.retainedBytesEstimate, settled: msg.settled };
      } else if (executor === 'quickjs' && msg.snapshot !== undefined && msg.continuationId === undefined) {
        continuation = { executor, snapshot: msg.snapshot, rawBytes: msg.rawBytes, storedBytes: msg.storedBytes, settled: msg.settled };
      } else {
        return malformedOutcome(`a ${executor} leg parked without its kind of continuation`);
      }
      return { kind: 'parked', continuation, queued: msg.queued, takeMs: msg.takeMs, droppedBytes: msg.droppedBytes, ...(msg.clock ? { clock: msg.clock } : {}) };
    }
    default:
      return undefined;
  }
}

/**
 * A leg's shared control block: the deadline and abort flag the worker's interrupt check reads, and
 * the budget the worker starts the deadline from when the VM is ready. No deadline until then: the
 * budget measures the guest, not worker start or restore (the host sets it once the leg opened).
 */
export function legControl(budgetMs: number): { sab: SharedArrayBuffer; control: Float64Array } {
  const sab = new SharedArrayBuffer(CONTROL_SLOTS * Float64Array.BYTES_PER_ELEMENT);
  const control = new Float64Array(sab);
  control[CONTROL_DEADLINE] = Infinity;
  control[CONTROL_BUDGET] = budgetMs;
  return { sab, control };
}

/**
 * Ordered delivery to a worker for one leg: the first message goes once the worker is ready, and
 * anything sent before that waits behind it. `gone()` drops messages for an ended leg or dead worker.
 */
export function legSender(opts: {
  ready: Promise<void>;
  post: (msg: HostToWorker, transfer?: ArrayBuffer[]) => void;
  gone: () => boolean;
  first: () => HostToWorker;
  transfer?: ArrayBuffer[];
  onOpened?: () => void;
}): (msg: HostToWorker) => void {
  let opened = false;
  const backlog: HostToWorker[] = [];
  const send = (msg: HostToWorker) => {
    if (opts.gone()) return;
    if (!opened) backlog.push(msg);
    else opts.post(msg);
  };
  opts.ready.then(
    () => {
      if (opts.gone()) return;
      opts.post(opts.first(), opts.transfer ?? []);
      opened = true;
      opts.onOpened?.();
      for (const msg of backlog.splice(0)) send(msg);
    },
    () => undefined, // the supervisor fails the leg when its worker dies
  );
  return send;
}

/** The Leg a run drives, over a sender; `onDeadline` and `abort` are the supervisor's own. */
export function legHandle(opts: {
  legId: string;
  done: Promise<LegOutcome>;
  control: Float64Array;
  send: (msg: HostToWorker) => void;
  onDeadline?: () => void;
  abort: () => void;
}): Leg {
  const { legId, send, control } = opts;
  return {
    done: opts.done,
    deliver: (replies: BridgeReply[]) => {
      if (replies.length > 0) send({ t: 'deliver', legId, replies });
    },
    park: () => send({ t: 'park', legId }),
    setDeadline: (epochMs: number) => {
      control[CONTROL_DEADLINE] = epochMs;
      opts.onDeadline?.();
    },
    abort: () => {
      control[CONTROL_ABORT] = 1;
      opts.abort();
    },
  };
}
