// The run record: one cell's state across its exec/wait legs (what the RunManager drives, what result
// shaping and the trajectory views read), and the facts about run states every side tests.
import type { Owner } from '../access/owners.ts';
import { createHash, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Catalog, CatalogEntry } from '../catalog/types.ts';
import type { InferredOutput } from '../catalog/inferred-overlay.ts';
import { CODE_MODE_LIMIT_BOUNDS } from '../config/schema.ts';
import type { CodeModeOptions, ExecutorKind } from '../config/types.ts';
import { InvalidInputError, type CodeModeErrorCode } from '../errors.ts';
import type { BridgeReply, BridgeRequest, CodeModeOutput, GuestBootConfig, LegLimits } from '../bridge/protocol.ts';
import type { CallScheduler } from '../bridge/scheduler.ts';
import type { DeclarationFiles } from '../bridge/declaration-files.mjs';
import type { DispatchContext } from '../bridge/dispatcher.ts';
import type { Continuation, Executor, Leg } from '../executors/types.ts';
import type { ResultsStore } from '../results/store.ts';
import type { StoredValue } from '../sessions/store.ts';
import { redactSource } from '../source/redact.ts';
import type { HookDecision } from '../tools/plugins.ts';
import type { ExecutionBudget } from './budget.ts';
import type { CassetteReplayer } from './cassette.ts';
import { startRecording, type ClockPlan, type ClockRecording } from './clock.ts';
import type { CodeModeResult, ControlCallRecord, ForkOrigin, NestedCallRecord, RunState, SnapshotRecord } from './types.ts';

/** States a run never leaves: it is off the run map and holds nothing. */
const TERMINAL_STATES: ReadonlySet<RunState> = new Set(['completed', 'failed', 'expired', 'aborted']);

/** Whether a run in `state` has ended (completed, failed, expired or aborted); running and waiting have not. */
export function isTerminal(state: RunState): boolean {
  return TERMINAL_STATES.has(state);
}

/** The scope one agent turn gives its cells: catalog, limits, stores, scheduler, abort. */
export interface TurnScope {
  agentRunId: string;
  sessionId: string;
  agentId: string;
  /** The turn's client label (TurnRequest.client): shown on the boards. */
  client?: string;
  /** Whose shares the turn's runs draw on: a run's suspended slot and its queued jobs count against this owner (access/owners.ts). */
  owner: Owner;
  workspaceDir: string;
  options: CodeModeOptions;
  catalog: Catalog;
  /** What a cell would write for each tool the turn's policy denied (`exec`, `MCP.demo.slow`) -> the rule (runs/denied.ts). */
  denied?: ReadonlyMap<string, string>;
  /** What every cell of the turn boots with; each cell adds the tools its source names (catalog/boot-tools.ts). */
  boot: Omit<GuestBootConfig, 'tools'>;
  /** The catalog's declaration files for API.list / API.read, packed once per catalog (bridge/declaration-files.mjs). */
  files: DeclarationFiles;
  scheduler: CallScheduler;
  /**
   * The turn's saved results: replaced (the old one cleared) when the turn's client tools are restricted
   * or replaced; each cell keeps the one it captured when it started (Run.results).
   */
  results: ResultsStore;
  /**
   * No model reads this turn's results (a script, a scheduled job, `codemode run --headless`): its cells are
   * not interactive, so they get no automatic references and no results or session store.
   */
  headless: boolean;
  /** Tool calls (op `call`) the turn's cells have dispatched so far: a headless turn is held to maxHeadlessToolCalls. */
  toolCalls: number;
  abort: AbortController;
  /** What this turn's results looked like, per guest label, for tools that declare no output (the editor's inferred types). */
  inferredOutputs: Map<string, InferredOutput>;
  /** Tokens of the tool definitions on the code-mode surface and on a direct surface (token meter; computed once, at first use). */
  definitionTokens(): { codeMode: number; direct: number };
  /** Cell source as stored: credentials masked, the Gateway's registered secrets and patterns too (default: redactSource). */
  redact?: (code: string) => string;
  /** before_tool_call hooks of the loaded plugins. */
  beforeToolCall(entry: CatalogEntry, input: unknown, ctx: { invocationId: string; runId: string }): Promise<{ blocked?: string; input: unknown; hooks?: HookDecision[] }>;
}

export interface StartCell {
  body: string;
  code: string;
  language: 'javascript' | 'typescript';
  executor: Executor;
  restartSafe: boolean;
  /** The model's tool-call id of the exec that starts the cell: on its call record and part of the cell identity. */
  toolCallId: string;
  /** The seed (uint32) the guest's Math.random derives from, and a logical clock's start (recorded in the run). */
  seed: number;
  /** Which clock the guest reads: the real one unless the caller seeded the run or it replays a recording (clock.ts). */
  clock: ClockPlan;
  /** Replay: the cell's tool calls are answered from this cassette, never dispatched (cassette.ts). */
  replay?: CassetteReplayer;
}

export interface HostRequest {
  req: BridgeRequest;
  record: NestedCallRecord;
  settled?: BridgeReply;
  delivered: boolean;
  cancel?: () => void;
  /**
   * Set while `settled` is on its way into the live VM and its record has not ended yet (with the reply value's
   * JSON when the dispatcher made it): the flush that sends it ends the record and emits nested.finished right
   * after the message left (nested.ts), in the same microtask checkpoint.
   */
  unrecorded?: { outputJson: string | undefined };
}

export interface LiveLeg {
  leg: Leg;
  budget: ExecutionBudget;
  call: ControlCallRecord;
  output: CodeModeOutput[];
  droppedBytes: number;
  parkRequested: boolean;
  /** When the leg was asked for (epoch ms): start-up time runs from here to `opened`. */
  requestedAt: number;
  /**
   * Set when the worker reported the VM ready (its budget started then): the host's start-up time
   * (worker start and queueing count too), and for a resume its restore time and the snapshot's raw bytes.
   */
  opened?: { startMs: number; restoreMs?: number; rawBytes?: number };
  startTimer?: ReturnType<typeof setTimeout>;
  /**
   * Replies settled in this microtask checkpoint and not yet sent to the VM: delivered together in one
   * message (nested.ts), so a frontier of calls that settle together costs one hop back, not one each.
   */
  outbox?: HostRequest[];
}

export interface ClientCall {
  callId: string;
  tool: string;
  input: unknown;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** The run's own listeners on its abort signal (an exec or wait blocked on the run, its approvals), with room to spare. */
const RUN_OWN_ABORT_LISTENERS = 8;
/** Listeners the run's abort signal may have at once: one per nested call in flight (at most maxPendingToolCalls), and the run's own. */
const RUN_ABORT_LISTENERS = CODE_MODE_LIMIT_BOUNDS.maxPendingToolCalls.max + RUN_OWN_ABORT_LISTENERS;

export class Run {
  readonly runId = `run_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  state: RunState = 'running';
  reason?: 'pending_tools' | 'yield';
  readonly createdAt = Date.now();
  updatedAt = Date.now();
  expiresAt?: number;
  continuation?: Continuation;
  live?: LiveLeg;
  readonly requests = new Map<string, HostRequest>();
  /** Requests the guest sent whose replies it has not received. */
  guestInFlight = 0;
  queued: BridgeRequest[] = [];
  yieldRequestId?: string;
  readonly storeBuffer = new Map<string, StoredValue>();
  networkContent = false;
  holdsSlot = false;
  /** Set once the run is off the map and its slot, continuation and calls are released. */
  released = false;
  /** Why the host ended the live leg (no slot, a protocol violation, a VM that never got ready): wins over the leg's outcome. */
  hostFailure?: { code: CodeModeErrorCode; error: string };
  approvalsPending = 0;
  readonly clientCalls = new Map<string, ClientCall>();
  readonly calls: ControlCallRecord[] = [];
  readonly snapshots: SnapshotRecord[] = [];
  readonly abort = new AbortController();
  readonly cellId: string;
  /** The cell's source as history, the board and approvals show it: credentials masked. */
  readonly displayCode: string;
  /**
   * The projection finalized when the cell started: bridge calls and every resume use it, so a turn
   * that later appends client tools changes what new cells see, never a running or parked one.
   */
  readonly catalog: Catalog;
  readonly files: DeclarationFiles;
  /**
   * The turn's result store as it was when the cell started (spec 02: "Each cell captures that store before
   * execution"): a later restriction clears it for this cell too, and the cell never adopts the replacement.
   */
  readonly results: ResultsStore;
  nestedCount = 0;
  counters = { search: 0, describe: 0, call: 0 };
  lastResult?: CodeModeResult;
  ttlTimer?: NodeJS.Timeout;
  /** Every clock reading the guest made, appended at the end of each leg (a fork starts from its parent's). */
  clock: ClockRecording;
  /** Set on a fork: the run it restored and which suspension of it (runs.fork). */
  forkedFrom?: ForkOrigin;
  /** Runs forked from this one. */
  readonly forks: string[] = [];
  /** Wakes a wait that is parked with nothing to deliver. */
  wake?: () => void;
  /** What its nested calls are dispatched with (nested.ts dispatchContext), made at the first call. */
  dispatchContext?: DispatchContext;
  /** The budget of such a wait (approval pauses apply to it too). */
  idleBudget?: ExecutionBudget;

  constructor(
    readonly turn: TurnScope,
    readonly cell: StartCell,
  ) {
    // every nested call in flight may listen for the run's abort (a sleep, a guest timer, an MCP call, an approval),
    // up to maxPendingToolCalls of them; Node warns of a leak past 10 listeners, so the bound is the real one
    setMaxListeners(RUN_ABORT_LISTENERS, this.abort.signal);
    // The cell's replay identity, the prefix of its nested invocation ids: agent run, the model's
    // tool-call id and this run. The runId is in it because a provider may reuse a tool-call id in a
    // later assistant response (spec 02: "without colliding with earlier activity"); wait continues
    // the same Run, so a waiting run keeps its ids.
    this.cellId = `cm_${createHash('sha256').update(`${turn.agentRunId}\0${cell.toolCallId}\0${this.runId}`).digest('hex').slice(0, 12)}`;
    this.displayCode = (turn.redact ?? redactSource)(cell.code);
    this.clock = startRecording(cell.clock, cell.seed, this.createdAt);
    this.catalog = turn.catalog;
    this.files = turn.files;
    this.results = turn.results;
  }

  /**
   * Why the cell is not interactive, if it is not: a restartSafe cell (replayed from the transcript after a
   * restart, so it must not depend on process-local references) or a headless turn's cell (no model reads
   * its result). Such cells allocate no automatic references and have no results or session store.
   */
  get nonInteractive(): 'restartSafe' | 'headless' | undefined {
    if (this.cell.restartSafe) return 'restartSafe';
    if (this.turn.headless) return 'headless';
    return undefined;
  }

  get executorKind(): ExecutorKind {
    return this.cell.executor.kind;
  }

  /** Open the live leg of an exec/wait call (its `leg` is set by the executor right after). */
  openLive(budget: ExecutionBudget, call: ControlCallRecord): LiveLeg {
    const live: LiveLeg = {
      leg: undefined as unknown as Leg,
      budget,
      call,
      output: [],
      droppedBytes: 0,
      parkRequested: false,
      requestedAt: Date.now(),
    };
    this.live = live;
    return live;
  }

  /** The live leg's VM is ready: its start-up time is known, and its budget starts now. */
  markOpened(info: { restoreMs?: number; rawBytes?: number }): void {
    const live = this.live;
    if (!live || live.opened) return;
    live.opened = { startMs: Date.now() - live.requestedAt, ...info };
    // a resume restored the run's latest snapshot: its record carries that restore (the board's snapshot table
    // shows take and restore of the same snapshot, as the wait's telemetry reports it)
    const restored = this.snapshots[this.snapshots.length - 1];
    if (info.restoreMs !== undefined && restored) restored.restoreMs = info.restoreMs;
    if (live.startTimer) clearTimeout(live.startTimer);
    live.startTimer = undefined;
    live.budget.unhold('opening');
    live.leg.setDeadline(live.budget.deadlineAt);
  }

  /** The budget a leg's guest gets once its VM is ready: what is left, or none while an approval pauses it. */
  legBudgetMs(budget: ExecutionBudget): number {
    return this.approvalsPending > 0 ? Infinity : budget.remainingMs;
  }

  /** Keep the current call's budget (a live leg's, or a wait's before it restores) in step with approval pauses. */
  syncBudget(): void {
    const budget = this.live?.budget ?? this.idleBudget;
    if (!budget) return;
    if (this.approvalsPending > 0) budget.hold('approval');
    else budget.unhold('approval');
    // before the VM is ready the worker starts the deadline itself; the host sets it when the leg opens
    if (this.live?.opened) this.live.leg.setDeadline(budget.deadlineAt);
  }

  /**
   * Watch the live leg just started: when its budget is spent the leg is asked to park (a busy guest is
   * interrupted by the worker instead: timeout); when its VM is not ready within `startLimitMs`, `onStartTimeout`.
   */
  watchLive(live: LiveLeg, startLimitMs: number, onStartTimeout: () => void): void {
    if (this.approvalsPending > 0) this.syncBudget();
    live.budget.whenExpired(() => {
      if (this.live === live && !live.parkRequested) {
        live.parkRequested = true;
        live.leg.park();
      }
    });
    if (live.opened) return;
    live.startTimer = setTimeout(() => {
      if (this.live === live && !live.opened) onStartTimeout();
    }, startLimitMs);
    live.startTimer.unref();
  }

  /** Start the waiting run's snapshot TTL: past it, the run's signal aborts and `onExpire` releases it. */
  armTtl(onExpire: () => void): void {
    this.clearTtl();
    const ttlMs = this.turn.options.snapshotTtlSeconds * 1000;
    this.expiresAt = Date.now() + ttlMs;
    this.ttlTimer = setTimeout(() => {
      if (this.state !== 'waiting') return;
      this.abort.abort();
      onExpire();
    }, ttlMs);
    this.ttlTimer.unref();
  }

  clearTtl(): void {
    if (this.ttlTimer) clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
    this.expiresAt = undefined;
  }

  /** Answer a pending client-tool call; throws InvalidInputError when there is none by that id. */
  answerClientCall(callId: string, answer: { result?: unknown; error?: string }): void {
    const pending = this.clientCalls.get(callId);
    if (!pending) {
      throw new InvalidInputError(`no pending client tool call "${callId}" in run ${this.runId}; it was already answered or never existed`);
    }
    this.clientCalls.delete(callId);
    if (answer.error !== undefined) pending.reject(Object.assign(new Error(String(answer.error)), { code: 'client_error' }));
    else pending.resolve(answer.result === undefined ? null : answer.result);
  }

  /** Broken invariants of this run: `mapped` when it is on the run map (live), else it has ended. */
  leaks(mapped: boolean): string[] {
    const out: string[] = [];
    if (mapped) {
      if (this.released) out.push(`run ${this.runId} was released but is still mapped`);
      if (isTerminal(this.state)) out.push(`run ${this.runId} is ${this.state} but still mapped`);
      if (this.state === 'waiting' && !this.continuation && !this.wake) out.push(`run ${this.runId} is waiting without a continuation`);
    } else {
      if (this.holdsSlot) out.push(`ended run ${this.runId} still holds a slot`);
      if (this.continuation) out.push(`ended run ${this.runId} still holds its continuation`);
      if (this.clientCalls.size > 0) out.push(`ended run ${this.runId} still has client calls`);
    }
    return out;
  }
}

/**
 * Broken invariants of a run map and its slot count: slots held equal live runs holding one, no ended run
 * is still mapped, no released run holds anything. Empty when sound.
 */
export function runMapLeaks(runs: ReadonlyMap<string, Run>, history: readonly Run[], slotsInUse: number): string[] {
  const out: string[] = [];
  let holding = 0;
  for (const run of runs.values()) {
    if (run.holdsSlot) holding++;
    out.push(...run.leaks(true));
  }
  for (const run of history) if (!runs.has(run.runId)) out.push(...run.leaks(false));
  if (holding !== slotsInUse) out.push(`slots in use is ${slotsInUse} but ${holding} live runs hold one`);
  return out;
}

/** The limits a leg's worker enforces, from the turn's resolved options. */
export function legLimits(o: CodeModeOptions): LegLimits {
  return {
    memoryLimitBytes: o.memoryLimitBytes,
    maxOutputBytes: o.maxOutputBytes,
    maxSnapshotBytes: o.maxSnapshotBytes,
    maxPendingToolCalls: o.maxPendingToolCalls,
  };
}

/** Whether a reply settled that the guest has not been handed yet. */
export function hasDeliverable(run: Run): boolean {
  for (const r of run.requests.values()) if (r.settled && !r.delivered) return true;
  return false;
}

/** Every reply that settled and was not delivered yet, marked delivered (the caller hands them to the guest). */
export function takeDeliverable(run: Run): BridgeReply[] {
  const replies: BridgeReply[] = [];
  for (const r of run.requests.values()) {
    if (r.settled && !r.delivered) {
      r.delivered = true;
      run.guestInFlight--;
      replies.push(r.settled);
    }
  }
  return replies;
}
