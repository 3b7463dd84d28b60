// What a run is, apart from the process that holds it (RunData): its state, requests, replies, counters and
// records, with no handle (no executor, leg, timer, promise or signal). Only the run record (run.ts) changes it.
import type { BridgeReply, BridgeRequest } from '../bridge/protocol.ts';
import type { StoredValue } from '../sessions/store.ts';
import type { ClockRecording } from './clock.ts';
import type { CodeModeResult, ControlCallRecord, ForkOrigin, NestedCallRecord, RunState, SnapshotRecord } from './types.ts';

/** One request the guest sent, as the run holds it: the record's part, and the dispatcher's handles while it is pending. */
export interface HostRequest {
  req: BridgeRequest;
  record: NestedCallRecord;
  settled?: BridgeReply;
  /** The guest has the reply (Run.deliverReplies: set together with the in-flight count). */
  delivered: boolean;
  /** Process-local: clears a pending host timer. */
  cancel?: () => void;
  /**
   * Process-local: set while `settled` is on its way into the live VM and its record has not ended yet (with the
   * reply value's JSON when the dispatcher made it): the flush that sends it ends the record and emits
   * nested.finished right after the message left (nested.ts), in the same microtask checkpoint.
   */
  unrecorded?: { outputJson: string | undefined };
}

/**
 * What a run is, as the Run holds it in memory (its `data`): the record's content with live maps and the clock
 * recording. Only the run record (run.ts) changes it.
 */
export interface RunData {
  state: RunState;
  reason?: 'pending_tools' | 'yield';
  createdAt: number;
  updatedAt: number;
  expiresAt?: number;
  requests: Map<string, HostRequest>;
  guestInFlight: number;
  queued: BridgeRequest[];
  yieldRequestId?: string;
  /** Buffered store() writes (the dispatcher buffers into it; committed only when the cell completes). */
  storeBuffer: Map<string, StoredValue>;
  networkContent: boolean;
  holdsSlot: boolean;
  nestedCount: number;
  counters: { search: number; describe: number; call: number };
  calls: ControlCallRecord[];
  snapshots: SnapshotRecord[];
  lastResult?: CodeModeResult;
  clock: ClockRecording;
  forkedFrom?: ForkOrigin;
  forks: string[];
}

/** A new run's data: running, nothing sent, nothing recorded but its clock's start. */
export function newRunData(createdAt: number, clock: ClockRecording): RunData {
  return {
    state: 'running',
    createdAt,
    updatedAt: createdAt,
    requests: new Map(),
    guestInFlight: 0,
    queued: [],
    storeBuffer: new Map(),
    networkContent: false,
    holdsSlot: false,
    nestedCount: 0,
    counters: { search: 0, describe: 0, call: 0 },
    calls: [],
    snapshots: [],
    clock,
    forks: [],
  };
}
