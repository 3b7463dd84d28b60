// The bridge protocol: JSON messages between the guest controller (server/guest/prelude.js), the
// executor worker, and the host dispatcher. The same for every executor.
//
// Flow of one exec/wait call (a "leg"):
//   host  -> worker  start | resume        the cell (or its continuation) and the leg's limits
//   worker -> host   opened                the VM is ready: the leg's execution budget starts now
//   worker -> host   requests              every request the guest made in one synchronous frontier
//   host  -> worker  deliver               settled replies, in settle order
//   host  -> worker  park                  the budget ran out (or the guest yielded): checkpoint now
//   worker -> host   settled | parked | failed   exactly one, ends the leg
// Pool pressure (QuickJS): the host may move a leg whose VM waits on host work off its worker and back
// within the same leg (spec 01: "Pressure parking can remain internal to the same call"):
//   host  -> worker  pressure-park         checkpoint this VM if it only waits on the host
//   worker -> host   pressure-parked       its checkpoint (this worker no longer runs the leg), or
//                    pressure-declined     it stays (busy, or its snapshot is over maxSnapshotBytes)
//   host  -> worker  resume                the checkpoint, on any worker, when its replies arrive
// The deadline and abort flag live in a SharedArrayBuffer (its slots: leg-control.mjs) so the worker's
// interrupt handler sees them even while guest code never yields. Every worker-to-host message carries guest-controlled
// data and is checked (protocol-check.mjs) before the host reads it; a malformed one fails its run.
import type { DeclarationFiles } from './declaration-files.mjs';

/** One line of a cell's output (console.* and the output helpers), as a worker relays it and a result carries it. */
export interface CodeModeOutput {
  /** console method or helper that produced it */
  kind: 'log' | 'info' | 'warn' | 'error' | 'debug' | 'text' | 'json';
  text: string;
}

/** One request the guest made. `id` is guest-visible and stable across wait. */
export type BridgeRequest =
  | { id: string; op: 'call'; tool?: string; mcp?: [string, string]; input: unknown }
  | { id: string; op: 'search'; query: string; limit?: number }
  | { id: string; op: 'all' }
  | { id: string; op: 'describe'; tool?: string; mcpServer?: string }
  | { id: string; op: 'timer'; ms: number; timer: number }
  | { id: string; op: 'store'; action: 'set' | 'get'; key: string; json?: string }
  | { id: string; op: 'results'; action: 'save' | 'load' | 'delete'; json?: string; ref?: string }
  | { id: string; op: 'yield'; reason: string };

/** A settled request as delivered into the guest. `value` must be JSON-compatible. */
export type BridgeReply =
  | { id: string; ok: true; value?: unknown }
  | { id: string; ok: false; error: string; code?: string; name?: string };

/** What the guest sees about each tool at boot (no ids). */
export interface GuestBootConfig {
  maxPendingToolCalls: number;
  tools: Array<{ callableName: string; name: string; description: string; source: string }>;
  /** MCP namespaces; `unavailable` (a configured server that is down) makes every member reject with that reason. */
  mcp: Array<{ name: string; tools: string[]; unavailable?: string }>;
  /** The run's seed (uint32): the guest's Math.random (and a logical clock's start) derive from it (prelude.js). */
  seed?: number;
  /** Which clock the guest reads (prelude.js "time and randomness"); absent: the real one, from boot. */
  clock?: GuestClockConfig;
}

/**
 * The guest's clock: `real` reads the host's clock, `logical` the seed's (moves only when a timer fires), `replay` a
 * recording's readings in order. `startMs` is the run's start (performance.now's origin; a logical clock's start
 * comes from the seed); a replay also gets the recorded pairs and how many readings they hold.
 */
export type GuestClockConfig =
  | { mode: 'real'; startMs: number }
  | { mode: 'logical' }
  | { mode: 'replay'; startMs: number; runs: number[]; recorded: number; dropped: number };

/**
 * Clock readings carried out of the guest at the end of a leg (prelude.js __cm_clock): `runs` is a flat list of
 * pairs, the difference from the previous reading in ms (the first from the run's start) and how many readings in
 * a row had that value; `dropped` counts readings past MAX_CLOCK_RUNS pairs, counted but not kept.
 */
export interface ClockReadings {
  runs: number[];
  dropped: number;
}

export interface LegLimits {
  memoryLimitBytes: number;
  maxOutputBytes: number;
  maxSnapshotBytes: number;
  /** Enforced again in the worker: the guest controller's own count lives in hostile memory. */
  maxPendingToolCalls: number;
}

export type HostToWorker =
  | {
      t: 'start';
      legId: string;
      body: string;
      boot: GuestBootConfig;
      limits: LegLimits;
      control: SharedArrayBuffer;
      /** Virtual declaration files for API.list / API.read (answered without a bridge request), shared, not copied. */
      files: DeclarationFiles;
    }
  | {
      t: 'resume';
      legId: string;
      snapshot: Uint8Array;
      limits: LegLimits;
      control: SharedArrayBuffer;
      files: DeclarationFiles;
      /** Requests the guest sent that have not been delivered yet. */
      inFlight: number;
      settled?: SettledOutcome;
      /** Output bytes the leg already used before a pressure checkpoint (maxOutputBytes is per leg, not per worker stay). */
      outputBytes?: number;
    }
  | {
      t: 'continue';
      legId: string;
      continuationId: string;
      limits: LegLimits;
      control: SharedArrayBuffer;
      files: DeclarationFiles;
      inFlight: number;
      settled?: SettledOutcome;
    }
  | { t: 'deliver'; legId: string; replies: BridgeReply[] }
  | { t: 'park'; legId: string }
  | { t: 'pressure-park'; legId: string }
  | { t: 'release'; legId: string; continuationId?: string };

/** The cell's own outcome, reported by the guest controller when its function settles. */
export type SettledOutcome = { ok: true; json: string } | { ok: false; error: string; code?: string; stack?: string; toolCode?: string };

export interface ParkedInfo {
  /** Set when the cell had already settled but un-awaited work was still pending. */
  settled?: SettledOutcome;
  /** QuickJS: encoded snapshot. Node: absent (the worker keeps the live context). */
  snapshot?: Uint8Array;
  rawBytes?: number;
  storedBytes?: number;
  takeMs?: number;
  /** Node: id of the live context kept in the worker. */
  continuationId?: string;
  retainedBytesEstimate?: number;
  queued: BridgeRequest[];
  /** The clock readings the guest made since the last leg ended (absent: none). */
  clock?: ClockReadings;
}

export type WorkerToHost =
  /** `warmedUp`: the worker ran its warm-up cells to completion before it reported ready. */
  | { t: 'ready'; engine: string; warmedUp?: boolean }
  | { t: 'requests'; legId: string; requests: BridgeRequest[]; cancels: string[] }
  | { t: 'output'; legId: string; lines: CodeModeOutput[]; droppedBytes: number }
  /** The VM is ready (created, or restored from a snapshot); a resume adds its restore time and the snapshot's raw bytes. */
  | { t: 'opened'; legId: string; restoreMs?: number; rawBytes?: number }
  | { t: 'settled'; legId: string; ok: true; valueJson: string; droppedBytes: number; clock?: ClockReadings }
  | { t: 'settled'; legId: string; ok: false; error: string; code?: string; stack?: string; droppedBytes: number; clock?: ClockReadings }
  | ({ t: 'parked'; legId: string; droppedBytes: number } & ParkedInfo)
  /** A pressure checkpoint: the leg goes on, off this worker (QuickJS: always a snapshot). */
  | ({ t: 'pressure-parked'; legId: string; droppedBytes: number } & ParkedInfo)
  /** The leg stays on this worker: it was not only waiting on the host, or its snapshot (`storedBytes`) is over maxSnapshotBytes. */
  | { t: 'pressure-declined'; legId: string; storedBytes?: number };
