// The Executor contract (types only): start a cell, deliver bridge replies, park, resume, release.
//
// Executors never throw for user code: every leg ends in one LegOutcome. Host faults (a worker that
// cannot start) surface as a failed outcome with `runtime_unavailable` or `internal_error`.
import type { ExecutorKind } from '../config/types.ts';
import type { CodeModeErrorCode } from '../errors.ts';
import type { BridgeReply, BridgeRequest, ClockReadings, CodeModeOutput, GuestBootConfig, LegLimits, SettledOutcome } from '../bridge/protocol.ts';
import type { DeclarationFiles } from '../bridge/declaration-files.mjs';

/** Executor-owned state of a suspended cell: one kind per executor, told apart by `executor`. */
export type Continuation = QuickJsContinuation | NodeContinuation | EmscriptenContinuation;

/** A parked QuickJS cell: its VM as an encoded snapshot the run holds (host-only, never leaves the server). */
export interface QuickJsContinuation {
  executor: 'quickjs';
  snapshot: Uint8Array;
  /** The VM memory the snapshot encodes, and the encoded (stored) size; the worker reports both. */
  rawBytes?: number;
  storedBytes?: number;
  /** The cell had settled with un-awaited work pending; its outcome resumes with it. */
  settled?: SettledOutcome;
}

/**
 * A parked cell that stays live in its worker (Node: its node:vm context; quickjs-emscripten: its QuickJS
 * runtime), kept in worker `workerId` under `continuationId`.
 */
export interface LiveContinuation<K extends LiveExecutorKind = LiveExecutorKind> {
  executor: K;
  continuationId: string;
  workerId: number;
  /** What the live context or runtime is estimated to retain (an estimate, labelled so). */
  retainedBytesEstimate?: number;
  /** The cell had settled with un-awaited work pending; its outcome resumes with it. */
  settled?: SettledOutcome;
}

/**
 * How a leg ended. `clock`: the clock readings the guest made in it (absent: none, or the VM could not answer
 * after the host stopped it); the run appends them to its recording.
 */
export type LegOutcome =
  /** the guest has no pending work and produced a JSON value */
  | { kind: 'completed'; valueJson: string; droppedBytes: number; clock?: ClockReadings }
  /** uncaught guest error (code undefined) or a limit/runtime failure (spec code) */
  | { kind: 'failed'; code?: CodeModeErrorCode; error: string; stack?: string; droppedBytes: number; clock?: ClockReadings }
  /** the guest was checkpointed with pending work; `queued` lists requests still waiting in the guest */
  | { kind: 'parked'; continuation: Continuation; queued: BridgeRequest[]; takeMs?: number; droppedBytes: number; clock?: ClockReadings };

export interface LegHandlers {
  /** One synchronous frontier of guest requests (never partial), plus in-flight timers the guest cleared. */
  onRequests(requests: BridgeRequest[], cancels: string[]): void;
  onOutput(lines: CodeModeOutput[]): void;
  /**
   * The VM is ready and the guest is about to run: the leg's budget starts now (the caller times the
   * machinery before it: worker start, VM creation, snapshot decode and restore). A resume adds its
   * restore time and the snapshot's raw bytes (QuickJS).
   */
  onOpened?(info: { restoreMs?: number; rawBytes?: number }): void;
  /**
   * Pool pressure moved the VM inside this leg (executors with `pressureParking`): checkpointed off its
   * worker to free it for a cell queued there, or restored on a worker when its replies arrived. The
   * leg goes on either way; the run only records it (its trajectory shows pressure checkpoints).
   */
  onPressure?(event: PressureEvent): void;
}

export type PressureEvent =
  | { phase: 'parked'; rawBytes?: number; storedBytes?: number; takeMs?: number }
  | { phase: 'resumed'; restoreMs?: number };

export interface Leg {
  readonly done: Promise<LegOutcome>;
  deliver(replies: BridgeReply[]): void;
  /** Checkpoint now (budget spent, or the guest yielded). */
  park(): void;
  /** Move the execution deadline (epoch ms); Infinity pauses it (approval pending). */
  setDeadline(epochMs: number): void;
  /** Stop the guest even mid-computation; the leg fails with `aborted`. */
  abort(): void;
}

/**
 * When the guest may run: `budgetMs` from the moment its VM is ready (Infinity while an approval pauses
 * the budget). The host moves the deadline with Leg.setDeadline once the leg reports it opened.
 */
export interface LegBudget {
  budgetMs: number;
}

export interface StartRequest extends LegBudget {
  body: string;
  boot: GuestBootConfig;
  /** The catalog's declaration files (API.list / API.read), packed once per catalog and shared with every leg. */
  files: DeclarationFiles;
  limits: LegLimits;
}

export interface ResumeRequest extends LegBudget {
  /** The catalog's declaration files (API.list / API.read), packed once per catalog and shared with every leg. */
  files: DeclarationFiles;
  limits: LegLimits;
  /** Requests sent by the guest and not yet delivered. */
  inFlight: number;
}

export interface Executor {
  readonly kind: ExecutorKind;
  /**
   * Whether a leg whose VM only waits on the host may be checkpointed to free its worker for a queued
   * cell and resumed on any worker within the same leg (spec 01: "worker-pool pressure checkpoints
   * it"). QuickJS: yes (a snapshot moves). Node: no (a live context cannot leave its worker).
   */
  readonly pressureParking: boolean;
  start(req: StartRequest, handlers: LegHandlers): Leg;
  resume(continuation: Continuation, req: ResumeRequest, handlers: LegHandlers): Leg;
  /** Drop a continuation that will never resume (expiry, abort, shutdown). */
  release(continuation: Continuation): void;
  /** Diagnostics for the board and the benchmark. */
  stats(): { workers: number; activeLegs: number };
  /** Broken invariants (legs held by dead workers, ended legs still tracked); empty when sound. Tests call it after each case. */
  leaks(): string[];
  /**
   * Resolves when the executor can take a cell at warm cost (workers started, module compiled). `hint`:
   * the budget the configured cells run with (live executors start a worker for it; QuickJS ignores it).
   */
  ready?(hint?: { memoryLimitBytes: number }): Promise<void>;
  close(): Promise<void>;
}

/** The executors whose parked cells stay live in their worker. */
export type LiveExecutorKind = 'node' | 'quickjs-emscripten';
/** A parked Node cell (a live node:vm context). */
export type NodeContinuation = LiveContinuation<'node'>;
/** A parked quickjs-emscripten cell (a live QuickJS runtime). */
export type EmscriptenContinuation = LiveContinuation<'quickjs-emscripten'>;
