// exec/wait inputs and results exactly as the spec's tool surface types them.
import type { CodeModeErrorCode } from '../errors.ts';
import type { ExecutorKind } from '../config/types.ts';
import type { NestedCallKind } from '../bridge/describe.ts';
import type { CodeModeOutput } from '../bridge/protocol.ts';
import type { HookDecision } from '../tools/plugins.ts';
import type { ClockMode } from './clock.ts';

export interface CodeModeExecInput {
  code?: string;
  command?: string;
  language?: 'javascript' | 'typescript';
  restartSafe?: boolean;
  typecheck?: boolean;
}

export interface CodeModeWaitInput {
  runId: string;
}

export interface CodeModePendingToolCall {
  /** Guest-visible request id (stable across wait; never a catalog id). */
  id: string;
  /** Callable name the guest used (`sleep`, `MCP.demo.echo`, `setTimeout`). */
  tool: string;
  input: unknown;
  /** Epoch ms when the call was dispatched (or queued). */
  startedAt: number;
  state: 'running' | 'queued' | 'awaiting_client' | 'awaiting_approval' | 'settled';
}

export interface CodeModeTelemetry {
  runId?: string;
  executor: ExecutorKind;
  /** Wall-clock of this exec/wait call. */
  durationMs: number;
  /** Execution budget used by this call: guest time from the moment its VM was ready (approval pauses excluded). */
  budgetUsedMs: number;
  /** Machinery time before the guest ran: worker start, VM creation, snapshot decode and restore (not part of the budget). */
  startMs?: number;
  /** Of startMs, the time a resume spent decoding and restoring its snapshot (QuickJS). */
  restoreMs?: number;
  counters: { search: number; describe: number; call: number };
  nestedCalls: number;
  /** QuickJS: snapshot of this suspension or the restore it started from. */
  snapshot?: { rawBytes: number; storedBytes: number; takeMs?: number; restoreMs?: number };
  /** Node: estimated bytes the live continuation retains (an estimate, labelled so). */
  retainedBytesEstimate?: number;
  outputBytes: number;
  truncated?: boolean;
  /** Set when any value in this result came from network-controlled tools. */
  networkContent?: boolean;
}

export type CodeModeResult =
  | { status: 'completed'; value: unknown; output?: CodeModeOutput[]; warnings?: string[]; telemetry: CodeModeTelemetry }
  | {
      status: 'waiting';
      runId: string;
      reason: 'pending_tools' | 'yield';
      pendingToolCalls?: CodeModePendingToolCall[];
      output?: CodeModeOutput[];
      telemetry: CodeModeTelemetry;
      /** Set on every waiting result the Gateway makes (spec 01: "Suspended results are marked replay-safe"). */
      replaySafe?: boolean;
    }
  | { status: 'failed'; error: string; code?: CodeModeErrorCode; output?: CodeModeOutput[]; telemetry: CodeModeTelemetry };

/** Where a fork came from: its parent run and the parent's suspension it restored (1 = the first waiting result). */
export interface ForkOrigin {
  runId: string;
  suspension: number;
}

/** An edited answer for one pending call of the run being forked: a result, or an error (with an optional code). */
export interface ForkReply {
  /** The pending call's guest request id (pendingToolCalls[].id). */
  id: string;
  result?: unknown;
  error?: string;
  code?: string;
}

/** Lifecycle state of a run as the runs board shows it. */
export type RunState =
  /** an exec or wait call is executing the cell */
  | 'running'
  /** suspended: holds a continuation until wait, expiry or abort */
  | 'waiting'
  | 'completed'
  | 'failed'
  /** snapshot TTL passed before a wait */
  | 'expired'
  /** the owning agent run or an operator aborted it */
  | 'aborted';

/** One nested call made from a cell (trajectory row). */
export interface NestedCallRecord {
  /** `<cell identity>:<n>`; the cell identity includes the agent run and the exec tool-call id. */
  invocationId: string;
  /** Guest request id. */
  requestId: string;
  /** Callable name used in the guest (`sleep`, `MCP.demo.echo`) or a bridge op (`catalog.search`, `setTimeout`, `store`). */
  tool: string;
  kind: NestedCallKind;
  inputBytes: number;
  outputBytes?: number;
  startedAt: number;
  endedAt?: number;
  status: 'queued' | 'running' | 'awaiting_approval' | 'awaiting_client' | 'ok' | 'error' | 'canceled';
  errorCode?: string;
  /** Which exec/wait call of the run dispatched it. */
  parentCallId: string;
  /** The input as the guest passed it: redacted JSON cut at NESTED_PREVIEW_CHARS (run history only, never the transcript). */
  inputPreview?: string;
  /** The value it returned, bounded the same way. */
  outputPreview?: string;
  /** The error it failed with, bounded the same way. */
  errorPreview?: string;
  /** The operator's decision when the call needed approval. */
  approval?: { approved: boolean; reason?: string };
  /** Tool, MCP and client calls: tokens of the call as a model would write it directly (name and input JSON). */
  inputTokens?: number;
  /** Tool, MCP and client calls: tokens of the full result (or error message) as a model would read it directly. */
  outputTokens?: number;
  /** Answered without dispatching it: by a reply given to runs.fork, or from the cassette a replay runs against. */
  answeredBy?: 'fork' | 'cassette';
  /** What each before_tool_call hook decided, in order (absent when no plugin has a hook or none ran). */
  hooks?: HookDecision[];
}

/** One model-level exec or wait call of a run. */
export interface ControlCallRecord {
  callId: string;
  /** The model's tool-call id of this exec or wait call (the Gateway makes one up when the caller gave none). */
  toolCallId: string;
  tool: 'exec' | 'wait';
  startedAt: number;
  endedAt?: number;
  status?: CodeModeResult['status'];
  errorCode?: string;
  /** Tokens the model wrote for this call: the cell source (exec) or the wait input. */
  inputTokens?: number;
  /** Tokens of the result text the model read (set when the call ended). */
  resultTokens?: number;
}

/**
 * The token meter of one run (runs/meter.ts): an estimate in one tokenizer's encoding of what the model
 * consumed in code mode against what direct tool calling would have cost for the same work.
 */
export interface TokenMeter {
  /** The tokenizer encoding of every count (o200k_base; other model families differ, see runs/tokens.ts). */
  encoding: string;
  codeMode: {
    /** The surface's tool definitions (exec with its quick index, wait, direct-only tools). */
    definitions: number;
    /** What the model wrote: cell source and wait inputs. */
    written: number;
    /** The exec/wait result texts the model read. */
    read: number;
    /** Tokens later turns re-send: each exec/wait turn carries the whole context so far (runs/meter.ts). */
    resent: number;
    /** definitions + written + read + resent: the sum of codeModeTurns. */
    total: number;
  };
  direct: {
    /** Every effective tool's definition on the surface. */
    definitions: number;
    /** Tool, MCP and client calls the model would have made itself. */
    calls: number;
    callInputs: number;
    callResults: number;
    /** Tokens later turns re-send: each tool-call turn carries the whole context so far (runs/meter.ts). */
    resent: number;
    /** definitions + callInputs + callResults + resent: the sum of directTurns. */
    total: number;
  };
  /** direct.total / codeMode.total: above 1 code mode saved tokens. */
  ratio: number;
  /** direct.total - codeMode.total (negative: code mode cost more). */
  saved: number;
  /** Tool calls of this cell's average size at which direct calling (re-sending included) costs as much as this cell; null when it made none. */
  breakEvenCalls: number | null;
  /** Tokens per model turn in code mode, one per exec/wait call: each carries the definitions and every earlier turn again. */
  codeModeTurns: number[];
  /** Tokens per model turn under direct calling, one per tool call: each carries the definitions and every earlier call again. */
  directTurns: number[];
}

export interface SnapshotRecord {
  at: number;
  rawBytes: number;
  storedBytes: number;
  takeMs: number;
  /** How long restoring this snapshot took, once a wait restored it. */
  restoreMs?: number;
  /** Why the VM was checkpointed: the run waited (pending_tools, yield), or pool pressure moved it inside one exec/wait call (pressure). */
  reason: 'pending_tools' | 'yield' | 'pressure';
}

export interface TrajectoryExport {
  runId: string;
  agentRunId: string;
  sessionId: string;
  agentId: string;
  client?: string;
  executor: ExecutorKind;
  language: 'javascript' | 'typescript';
  code: string;
  /** The seed the cell's Math.random (and a logical clock's start) derive from. */
  seed: number;
  /**
   * The clock the cell read: `real` (the host's; every run without an explicit seed), `logical` (an explicitly
   * seeded run: a seed-derived instant of 2025 that moves only when a timer fires, not today's date) or
   * `replayed` (a cassette's recorded readings).
   */
  clock: ClockMode;
  /** Set on a replay: its tool calls are answered from a cassette (recorded from run `runId`, when it says). */
  replay?: { runId?: string };
  /** Set on a fork: the run it was forked from and at which of its suspensions (1 = its first waiting result). */
  forkedFrom?: ForkOrigin;
  /** Runs forked from this one, oldest first. */
  forks?: string[];
  calls: Array<ControlCallRecord & { nested: NestedCallRecord[] }>;
  counters: { search: number; describe: number; call: number };
  snapshots: SnapshotRecord[];
  meter?: TokenMeter;
}

/**
 * Where a waiting run's continuation lives: `memory` (a QuickJS snapshot held by this process), `store` (a QuickJS
 * snapshot also sealed into a row of the session database, runs.durable: it survives a restart), `live` (a Node or
 * quickjs-emscripten worker keeps the VM running; nothing is snapshotted, a restart loses it).
 */
export type SnapshotHome = 'memory' | 'store' | 'live';

/**
 * A durable row this process has not resumed (metadata only: the sealed record and snapshot are never opened for a
 * list, so a row's view has no source, calls or pending calls). A `wait` resumes it (the operator needs no token).
 */
export interface DurableRowView {
  parkedAt: number;
  /** The Gateway instance that parked it (durable/instance-id.ts). */
  parkedBy: string;
  /** `resuming`: a Gateway holds its lease right now (lease.holder until lease.expiresAt). */
  state: 'parked' | 'resuming';
  lease?: { holder: string; expiresAt: number };
  /** The snapshot's raw heap size and its encoded size, as the row records them (the row's `snapshots` is empty). */
  snapshotRawBytes: number;
  snapshotStoredBytes: number;
  /** This Gateway parked it and let its copy go (runs.parkedInMemory): its row is the run, and Abort here deletes it. */
  evictedHere?: true;
}

/**
 * Where a run another Gateway holds lives, and how much of it this Gateway can show. Its approvals and client-tool
 * calls are applied by that Gateway: this one's page forwards a decision or an answer to it (RunsFace.actElsewhere).
 */
export interface HeldElsewhereView {
  /** The holding Gateway's instance id (durable/instance-id.ts). */
  gatewayId: string;
  /** `sealed`: the holder published its view sealed (runs.durable) and it was opened here; `ids`: ids, state and counts only (no key to seal with). */
  detail: 'sealed' | 'ids';
  /** Pending approvals and unanswered client-tool calls on the holder (counts: with `ids` detail the items themselves are not shown). */
  approvals: number;
  clientCalls: number;
  /** What the holder cut from the view to bound it (e.g. "12 earlier calls"), when it cut anything. */
  cut?: string[];
}

export interface RunView {
  runId: string;
  agentRunId: string;
  sessionId: string;
  agentId: string;
  /** Who drives the run's turn (an MCP client's name), when the turn was given a label. */
  client?: string;
  executor: ExecutorKind;
  state: RunState;
  reason?: 'pending_tools' | 'yield';
  language: 'javascript' | 'typescript';
  code: string;
  /** The seed the cell's Math.random derives from (exec's seed, or one the Gateway drew). */
  seed: number;
  /** The clock the cell reads: real, logical (an explicit seed's: not today's date) or replayed (a cassette's readings). */
  clock: ClockMode;
  /** Set on a replay: its tool calls are answered from a cassette (recorded from run `runId`, when it says). */
  replay?: { runId?: string };
  /** Set on a fork: the run it was forked from and at which of its suspensions. */
  forkedFrom?: ForkOrigin;
  /** Runs forked from this one, oldest first. */
  forks?: string[];
  createdAt: number;
  updatedAt: number;
  /** Epoch ms the waiting continuation expires (waiting only). */
  expiresAt?: number;
  maxSnapshotBytes: number;
  pendingToolCalls: CodeModePendingToolCall[];
  /** Pending client-tool calls the user may answer. */
  clientCalls: Array<{ callId: string; tool: string; input: unknown }>;
  snapshots: SnapshotRecord[];
  retainedBytesEstimate?: number;
  /** Where a waiting run's continuation lives (waiting only): see SnapshotHome. */
  snapshotIn?: SnapshotHome;
  /** Set on a durable run this process lists from its row but does not hold (parked before a restart, or by another Gateway): see DurableRowView. */
  durableRow?: DurableRowView;
  /** Set on a live run another Gateway of the session database holds, as it published its view (gateway/run-views.ts): see HeldElsewhereView. */
  heldBy?: HeldElsewhereView;
  calls: ControlCallRecord[];
  /** The run's nested calls: every unfinished one, then the latest finished, at most MAX_NESTED_IN_VIEW (runs.trajectory has all). */
  nested: NestedCallRecord[];
  /** Finished nested calls left out of `nested` (absent when none were). */
  nestedOmitted?: number;
  lastResult?: CodeModeResult;
  /** The token meter, once an exec/wait call of the run ended. */
  meter?: TokenMeter;
}

export interface ApprovalView {
  approvalId: string;
  runId: string;
  tool: string;
  input: unknown;
  /** Source of the cell that asked. */
  code: string;
  requestedAt: number;
  /** Set on an approval of a run another Gateway holds: the holder's instance id (decide it on that Gateway's page). */
  heldBy?: string;
}

export type RunEvent =
  | { type: 'run.started'; runId: string; at: number; view: RunView }
  | { type: 'run.updated'; runId: string; at: number; view: RunView }
  | { type: 'nested.started'; runId: string; at: number; call: NestedCallRecord }
  | { type: 'nested.finished'; runId: string; at: number; call: NestedCallRecord }
  | { type: 'approval.requested'; runId: string; at: number; approval: ApprovalView }
  | { type: 'approval.resolved'; runId: string; at: number; approvalId: string; approved: boolean }
  | { type: 'session.appended'; runId?: string; sessionId: string; at: number; entryId: string }
  /** A run another Gateway holds, as it last published it, with its pending approvals (never on the event bus: RunsFace.subscribe adds it). */
  | { type: 'remote.run'; runId: string; at: number; view: RunView; approvals: ApprovalView[] }
  /** A run another Gateway held or a durable row listed here ended, moved to this Gateway, or its holder is gone: drop what is shown of it. */
  | { type: 'remote.gone'; runId: string; at: number };
