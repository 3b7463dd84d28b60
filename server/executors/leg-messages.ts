// One mapping from worker messages to leg handler calls and outcomes, shared by every executor's supervisor.
import type { ExecutorKind } from '../config/types.ts';
import type { CodeModeErrorCode } from '../errors.ts';
import type { WorkerToHost } from '../bridge/protocol.ts';
import type { CodeModeOutput } from '../runs/types.ts';
import type { Continuation, LegHandlers, LegOutcome } from './types.ts';

/**
 * Route one worker message of a leg: progress messages go to `handlers`; a final message returns the
 * leg's outcome (the caller ends the leg with it). `workerId` is recorded for live continuations.
 */
export function handleLegMessage(
  msg: WorkerToHost,
  handlers: LegHandlers,
  executor: ExecutorKind,
  workerId: number,
): LegOutcome | undefined {
  switch (msg.t) {
    case 'requests':
      handlers.onRequests(msg.requests, msg.cancels);
      return undefined;
    case 'output':
      handlers.onOutput(msg.lines as CodeModeOutput[]);
      return undefined;
    case 'resumed':
      handlers.onResumed?.({ restoreMs: msg.restoreMs, ...(msg.rawBytes !== undefined ? { rawBytes: msg.rawBytes } : {}) });
      return undefined;
    case 'settled':
      if (msg.ok) return { kind: 'completed', valueJson: msg.valueJson, droppedBytes: msg.droppedBytes };
      return { kind: 'failed', code: msg.code as CodeModeErrorCode | undefined, error: msg.error, stack: msg.stack, droppedBytes: msg.droppedBytes };
    case 'parked': {
      const continuation: Continuation = {
        executor,
        snapshot: msg.snapshot,
        rawBytes: msg.rawBytes,
        storedBytes: msg.storedBytes,
        continuationId: msg.continuationId,
        workerId: msg.continuationId ? workerId : undefined,
        retainedBytesEstimate: msg.retainedBytesEstimate,
        settled: msg.settled,
      };
      return { kind: 'parked', continuation, queued: msg.queued, takeMs: msg.takeMs, droppedBytes: msg.droppedBytes };
    }
    default:
      return undefined;
  }
}
