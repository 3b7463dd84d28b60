// The worker side of an executor (types only): the leg the leg loop keeps (worker-runtime.mjs), the engine adapter it
// drives (quickjs/worker.mjs, node/worker.mjs, emscripten/engine.mjs) and the guest, one cell's VM, an engine hands it.
//
// The workers are plain JavaScript (they load as they are under tsx, Vitest and Next); they read these types through
// JSDoc `@import`, so tsc holds every engine to one contract. What the guest hands over is never typed here beyond
// `unknown` or a string: guest-ops.mjs and bridge/protocol-check.mjs narrow it.
import type { BridgeRequest, CodeModeOutput, GuestBootConfig, HostToWorker, LegLimits, SettledOutcome } from '../bridge/protocol.ts';
import type { MessagePort } from 'node:worker_threads';
import type { DeclarationFilesReader } from '../bridge/declaration-files.mjs';
import type { LegFailure } from './worker-runtime.mjs';

/** The host's leg messages, by kind. */
export type StartMessage = Extract<HostToWorker, { t: 'start' }>;
export type ResumeMessage = Extract<HostToWorker, { t: 'resume' }>;
export type ContinueMessage = Extract<HostToWorker, { t: 'continue' }>;
/** What opens a leg: a new cell, a snapshot (QuickJS) or a live continuation (Node, quickjs-emscripten). */
export type OpenMessage = StartMessage | ResumeMessage | ContinueMessage;

/**
 * The part of a leg an engine reads while its guest runs: the limits, the shared control block (leg-control.mjs), the
 * interrupt check, and the way out of the VM. A test drives an engine with just this (emscripten/engine.test.ts).
 */
export interface EngineLeg {
  readonly limits: Pick<LegLimits, 'memoryLimitBytes'> & Partial<LegLimits>;
  readonly control: Float64Array;
  /** Whether the guest must stop now (abort, or the deadline past the slice floor); read by interrupt handlers. */
  shouldInterrupt(): boolean;
  /** One operation through the host primitive; engines pass only strings (`null`: the guest passed a non-string). */
  onSync(op: string, payload: string | null): string | undefined;
}

/** One leg in the leg loop: its limits and control block, what its guest sent in this entry, and how it ends. */
export interface WorkerLeg extends EngineLeg {
  readonly id: string;
  readonly limits: LegLimits;
  /** Virtual declaration files API.list / API.read answer from. */
  readonly files: DeclarationFilesReader;
  /** Epoch ms before which guest code is not interrupted for its deadline (MIN_SLICE_MS per entry). */
  sliceFloor: number;
  /** Requests of the current synchronous frontier, checked, not sent yet. */
  frontier: BridgeRequest[];
  /** Request ids of in-flight timers the guest cleared in this frontier. */
  cancels: string[];
  /** Output lines not yet flushed to the host. */
  output: CodeModeOutput[];
  outputBytes: number;
  droppedBytes: number;
  /** Requests the guest sent that have not been answered yet (counted here: the guest's own count is guest memory). */
  inFlight: number;
  /** The cell's own outcome once it settled (un-awaited work may still be pending). */
  settled: SettledOutcome | null;
  /** Why the frontier overflowed (the leg fails with invalid_input). */
  overflow: string | null;
  /** A replay read the clock more often than its recording holds (the leg fails with replay_mismatch). */
  mismatch: string | null;
  /** A guest message that failed its check (the leg fails with invalid_input after this entry). */
  fault: string | null;
  parkRequested: boolean;
  ended: boolean;
  vm: WorkerGuest | null;
  /** The leg loop's own takes anything (guest-ops.mjs reads strings only): the Node executor passes the guest's values as they are. */
  onSync(op: unknown, payload: unknown): string | undefined;
  /** Settles once the VM is created or restored: deliver and park messages wait for it. */
  opened: Promise<void>;
  markOpened: () => void;
}

/** A failure classified from an error an engine threw, or null when the engine does not know it. */
export type Classify = (err: unknown, leg: EngineLeg) => LegFailure | null;

/** What a guest's park reports: over maxSnapshotBytes under pressure (it stays), or its checkpoint. */
export type GuestParked =
  | { overLimit: true; storedBytes: number }
  | {
      overLimit?: undefined;
      /** QuickJS: the encoded snapshot (transferred to the host). */
      snapshot?: Uint8Array;
      rawBytes?: number;
      storedBytes?: number;
      takeMs?: number;
      /** Live engines: the id the parked guest is kept under in this worker. */
      continuationId?: string;
      retainedBytesEstimate?: number | undefined;
      /** The guest's queue as JSON text (guest memory: the leg loop checks it), or null when the guest gave no string. */
      queuedJson: string | null;
    };

/** One cell's VM, as an engine hands it to the leg loop. Every entry may throw; the leg loop classifies what it throws. */
export interface WorkerGuest {
  /** The snapshot's raw bytes, on a restore. */
  readonly rawBytes?: number | undefined;
  readonly classify?: Classify;
  /** The prelude and boot config (start-up, before the budget starts). */
  prepare(boot: GuestBootConfig): void;
  /** Starts the cell's body. */
  start(body: string): void;
  /** Runs pending jobs until none is left. */
  drain(): void;
  deliver(repliesJson: string): void;
  /** The clock readings the guest recorded since the last take: guest memory, so anything (the leg loop checks it). */
  takeClock?(): unknown;
  park(leg: WorkerLeg, opts: { pressure: boolean }): GuestParked | Promise<GuestParked>;
  dispose(): void;
}

/** A guest a live-continuation worker keeps while its run waits: `continue` attaches the next leg (an `L`) to it. */
export interface LiveGuest<L extends EngineLeg = WorkerLeg> extends WorkerGuest {
  attach(leg: L): void;
}

/** An engine adapter: makes guests for the leg loop. */
export interface WorkerEngine {
  readonly name: string;
  /** Whether a guest that waits only on the host may be checkpointed to free this worker (pool pressure). */
  readonly pressureParking?: boolean;
  /** Classifies errors thrown before a guest exists (a restore that failed). */
  readonly classify?: Classify;
  create(leg: WorkerLeg, msg: StartMessage): Promise<WorkerGuest>;
  resume(leg: WorkerLeg, msg: ResumeMessage | ContinueMessage): Promise<WorkerGuest>;
  /** Drops a live continuation that will never resume. */
  release?(continuationId: string): void;
}

/**
 * What an executor hands its worker thread (`workerData`): quickjs/pool-worker.ts, live-worker.ts and the executors
 * set it. Every field is optional (a worker started alone, as in a test, gets none and falls back), and a worker still
 * checks each one before it relies on it.
 */
export interface ExecutorWorkerData {
  /** One Float64 slot: since when (epoch ms) the thread has been inside guest code, 0 while it waits. */
  busySince?: SharedArrayBuffer;
  /** The port leg messages travel on both ways (the host polls it); absent: the parent port. */
  legPort?: MessagePort;
  /** Reply polling (reply-spin.ts): the slots every poller of the process shares, how many may poll, for how long (ms). */
  replySpinSlots?: SharedArrayBuffer;
  replySpinMax?: number;
  replySpinMs?: number;
  /** Test hook: guest code evaluated before the prelude (a cell that holds the raw host primitive). */
  preludePrefix?: string;
  /** The WASM module the executor compiled once per process (QuickJS, quickjs-emscripten), and its hash (QuickJS). */
  wasmModule?: WebAssembly.Module;
  moduleHash?: Uint8Array;
  /** QuickJS: the port the base image arrives on once the host has built it. */
  initPort?: MessagePort;
  maxStackSizeBytes?: number;
  /** Node: the longest one entry into a context may run (ms), even while an approval pauses the budget. */
  maxSliceMs?: number;
}
