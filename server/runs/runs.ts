// Run lifecycle: the in-process runId map, exec/wait legs, parking, expiry, abort and events.
//
// One run is one cell. `exec` starts it; each exec/wait call is a leg with its own execution budget
// (ExecutionBudget: pauses while an approval is pending). Nested requests are dispatched on the
// Gateway's event loop and keep running while the cell is parked; their replies are delivered into
// the live VM, or kept until the next `wait` restores the continuation. A run holds a slot of the
// process-wide cap from its first host request until it settles. Continuations never outlive the
// process, and are released on completion, failure, expiry (snapshotTtlSeconds), abort and close.
//
// Everything a worker reports was built by the guest: requests arrive checked (protocol-check.mjs),
// and what only the run can know (ids it already has, cancels of ids it never saw, the in-flight cap)
// is checked here. A violation fails that run with invalid_input; nothing guest-controlled can throw
// out of a handler, and every way a run ends releases its slot exactly once (leaks() checks it).
// A leg's budget is held until its VM is ready (startMs, restoreMs): the budget measures the guest.
import { createHash, randomUUID } from 'node:crypto';
import type { Catalog, CatalogEntry } from '../catalog/types.ts';
import type { CodeModeOptions, ExecutorKind } from '../config/types.ts';
import { InvalidInputError, type CodeModeErrorCode } from '../errors.ts';
import type { BridgeReply, BridgeRequest, GuestBootConfig } from '../bridge/protocol.ts';
import { dispatchRequest, type NestedCallHooks } from '../bridge/dispatcher.ts';
import { describeRequest } from '../bridge/describe.ts';
import type { CallScheduler } from '../bridge/scheduler.ts';
import type { Continuation, Executor, Leg, LegOutcome } from '../executors/types.ts';
import type { ResultsStore } from '../results/store.ts';
import type { SessionStore, StoredValue } from '../sessions/store.ts';
import type { ToolContext } from '../tools/types.ts';
import { redactSource } from '../source/redact.ts';
import { ExecutionBudget } from './budget.ts';
import { boundValue, parseValueJson } from './bound.ts';
import type {
  CodeModeOutput,
  CodeModePendingToolCall,
  CodeModeResult,
  CodeModeTelemetry,
  ControlCallRecord,
  NestedCallRecord,
  RunEvent,
  RunState,
  RunView,
  SnapshotRecord,
  TrajectoryExport,
} from './types.ts';

/** Spec: "OpenClaw caps the number of concurrently suspended runs per process (64)". */
export const MAX_SUSPENDED_RUNS = 64;

export const MSG_UNAVAILABLE = 'code mode run is unavailable or expired.';
export const MSG_WRONG_SESSION = 'code mode run belongs to a different session.';
export const MSG_WRONG_RUN = 'code mode run belongs to a different agent run.';
export const MSG_ALREADY_RESUMING = 'a wait is already in flight for this code mode run; wait for it to return.';
/** Spec 02, word for word (its period included); what to do follows it, in the emitted message only. */
export const MSG_TOO_MANY = 'too many suspended code mode runs.';

/**
 * How long a leg's VM may take to get ready (worker start, VM creation, snapshot decode and restore)
 * before the run fails with runtime_unavailable. Warm legs open in milliseconds and a cold worker in
 * well under a second; 64 cells opening at once on a loaded 2-core machine took a few seconds. Past
 * this the executor is not coming back soon, and the caller should hear so rather than wait.
 */
export const LEG_START_LIMIT_MS = 20_000;

/** The scope one agent turn gives its cells: catalog, limits, stores, scheduler, abort. */
export interface TurnScope {
  agentRunId: string;
  sessionId: string;
  agentId: string;
  workspaceDir: string;
  options: CodeModeOptions;
  catalog: Catalog;
  boot: GuestBootConfig;
  files: Record<string, string>;
  scheduler: CallScheduler;
  results: ResultsStore;
  abort: AbortController;
  /** before_tool_call hooks of the loaded plugins. */
  beforeToolCall(entry: CatalogEntry, input: unknown, ctx: { invocationId: string; runId: string }): Promise<{ blocked?: string; input: unknown }>;
}

export interface StartCell {
  body: string;
  code: string;
  language: 'javascript' | 'typescript';
  executor: Executor;
  restartSafe: boolean;
  toolCallId?: string;
}

interface HostRequest {
  req: BridgeRequest;
  record: NestedCallRecord;
  settled?: BridgeReply;
  delivered: boolean;
  cancel?: () => void;
}

interface LiveLeg {
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
}

interface ClientCall {
  callId: string;
  tool: string;
  input: unknown;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

class Run {
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
  readonly files: Record<string, string>;
  nestedCount = 0;
  counters = { search: 0, describe: 0, call: 0 };
  lastResult?: CodeModeResult;
  ttlTimer?: NodeJS.Timeout;
  /** Wakes a wait that is parked with nothing to deliver. */
  wake?: () => void;
  /** The budget of such a wait (approval pauses apply to it too). */
  idleBudget?: ExecutionBudget;

  constructor(
    readonly turn: TurnScope,
    readonly cell: StartCell,
  ) {
    // The cell's replay identity, the prefix of its nested invocation ids: agent run, the model's
    // tool-call id and this run. The runId is in it because a provider may reuse a tool-call id in a
    // later assistant response (spec 02: "without colliding with earlier activity"); wait continues
    // the same Run, so a waiting run keeps its ids.
    const callId = cell.toolCallId ?? randomUUID();
    this.cellId = `cm_${createHash('sha256').update(`${turn.agentRunId}\0${callId}\0${this.runId}`).digest('hex').slice(0, 12)}`;
    this.displayCode = redactSource(cell.code);
    this.catalog = turn.catalog;
    this.files = turn.files;
  }

  get executorKind(): ExecutorKind {
    return this.cell.executor.kind;
  }
}

export interface RunManagerDeps {
  sessions: SessionStore;
  approvals: {
    request(
      view: { runId: string; tool: string; input: unknown; code: string },
      signal: AbortSignal,
    ): Promise<{ approved: boolean; reason?: string }>;
  };
  emit(event: RunEvent): void;
}

export interface RunManagerOptions {
  /** How long a leg's VM may take to get ready before the run fails with runtime_unavailable; default LEG_START_LIMIT_MS. */
  legStartLimitMs?: number;
}

export class RunManager {
  private readonly runs = new Map<string, Run>();
  /** Finished runs kept for the board and trajectory export (bounded). */
  private readonly history: Run[] = [];
  private slotsInUse = 0;
  private closed = false;
  private readonly legStartLimitMs: number;

  constructor(
    private readonly deps: RunManagerDeps,
    opts: RunManagerOptions = {},
  ) {
    this.legStartLimitMs = opts.legStartLimitMs ?? LEG_START_LIMIT_MS;
  }

  get suspendedSlots(): number {
    return this.slotsInUse;
  }

  // ---- public API ------------------------------------------------------------------------------

  async exec(turn: TurnScope, cell: StartCell): Promise<CodeModeResult> {
    const run = new Run(turn, cell);
    this.runs.set(run.runId, run);
    const call = this.openCall(run, 'exec');
    this.emit({ type: 'run.started', runId: run.runId, at: Date.now(), view: this.view(run) });
    const budget = new ExecutionBudget(turn.options.timeoutMs);
    budget.hold('opening');
    const live = this.newLive(run, budget, call);
    try {
      live.leg = cell.executor.start(
        { body: cell.body, boot: turn.boot, files: run.files, limits: this.limits(turn.options), budgetMs: this.legBudgetMs(run, budget) },
        this.handlers(run, live),
      );
    } catch (err) {
      return this.legNotStarted(run, live, err);
    }
    return this.driveLeg(run, live);
  }

  async wait(scope: { agentRunId: string; sessionId: string }, runId: string): Promise<CodeModeResult> {
    const run = typeof runId === 'string' ? this.runs.get(runId) : undefined;
    if (!run || run.state === 'expired' || run.state === 'completed' || run.state === 'failed' || run.state === 'aborted') {
      throw new InvalidInputError(MSG_UNAVAILABLE);
    }
    if (run.turn.sessionId !== scope.sessionId) throw new InvalidInputError(MSG_WRONG_SESSION);
    if (run.turn.agentRunId !== scope.agentRunId) throw new InvalidInputError(MSG_WRONG_RUN);
    if (run.state !== 'waiting' || run.live || run.wake) throw new InvalidInputError(MSG_ALREADY_RESUMING);

    const call = this.openCall(run, 'wait');
    const budget = new ExecutionBudget(run.turn.options.timeoutMs);
    this.clearTtl(run);
    run.state = 'running';
    this.touch(run);

    // Nothing to deliver yet: wait for the first reply (or the budget) without restoring the VM.
    if (!this.hasDeliverable(run)) {
      run.idleBudget = budget;
      this.syncBudget(run);
      const woke = await new Promise<boolean>((resolve) => {
        run.wake = () => resolve(true);
        budget.whenExpired(() => resolve(false));
        run.abort.signal.addEventListener('abort', () => resolve(false), { once: true });
      });
      run.wake = undefined;
      run.idleBudget = undefined;
      if (!woke || run.abort.signal.aborted) {
        budget.stop();
        if (run.abort.signal.aborted) return this.finishCall(run, call, this.failedResult(run, 'aborted', 'code mode run was aborted', [], 0, budget));
        run.state = 'waiting';
        this.armTtl(run);
        return this.finishCall(run, call, this.waitingResult(run, [], 0, budget, undefined));
      }
    }

    const cont = run.continuation;
    if (!cont) throw new InvalidInputError(MSG_UNAVAILABLE);
    budget.hold('opening');
    const live = this.newLive(run, budget, call);
    try {
      live.leg = run.cell.executor.resume(
        cont,
        { files: run.files, limits: this.limits(run.turn.options), budgetMs: this.legBudgetMs(run, budget), inFlight: run.guestInFlight },
        this.handlers(run, live),
      );
    } catch (err) {
      return this.legNotStarted(run, live, err);
    }
    // deliver everything that settled while parked, and the yield itself
    this.deliverPending(run);
    return this.driveLeg(run, live);
  }

  /** Abort one run: cancels its nested calls, stops the guest, releases its continuation. */
  abortRun(runId: string, reason = 'aborted by the operator'): boolean {
    const run = this.runs.get(runId);
    if (!run) return false;
    this.abortInternal(run, reason);
    return true;
  }

  /** The owning agent run ended or was canceled: release every run of it. */
  abortTurn(agentRunId: string): void {
    for (const run of [...this.runs.values()]) {
      if (run.turn.agentRunId === agentRunId) this.abortInternal(run, 'the owning agent run ended');
    }
  }

  answerClientCall(runId: string, callId: string, answer: { result?: unknown; error?: string }): void {
    const run = this.runs.get(runId);
    if (!run) throw new InvalidInputError(`${MSG_UNAVAILABLE} (no run "${runId}")`);
    const pending = run.clientCalls.get(callId);
    if (!pending) {
      throw new InvalidInputError(`no pending client tool call "${callId}" in run ${runId}; it was already answered or never existed`);
    }
    run.clientCalls.delete(callId);
    if (answer.error !== undefined) pending.reject(Object.assign(new Error(String(answer.error)), { code: 'client_error' }));
    else pending.resolve(answer.result === undefined ? null : answer.result);
    this.touch(run);
  }

  /**
   * Broken invariants of the run map and the slot count: slots held equal live runs holding one, no
   * ended run is still mapped, no released run holds anything. Empty when sound; tests call it after
   * every case.
   */
  leaks(): string[] {
    const out: string[] = [];
    let holding = 0;
    for (const run of this.runs.values()) {
      if (run.holdsSlot) holding++;
      if (run.released) out.push(`run ${run.runId} was released but is still mapped`);
      if (run.state !== 'running' && run.state !== 'waiting') out.push(`run ${run.runId} is ${run.state} but still mapped`);
      if (run.state === 'waiting' && !run.continuation && !run.wake) out.push(`run ${run.runId} is waiting without a continuation`);
    }
    for (const run of this.history) {
      if (this.runs.has(run.runId)) continue;
      if (run.holdsSlot) out.push(`ended run ${run.runId} still holds a slot`);
      if (run.continuation) out.push(`ended run ${run.runId} still holds its continuation`);
      if (run.clientCalls.size > 0) out.push(`ended run ${run.runId} still has client calls`);
    }
    if (holding !== this.slotsInUse) out.push(`slots in use is ${this.slotsInUse} but ${holding} live runs hold one`);
    return out;
  }

  list(): RunView[] {
    const all = [...this.runs.values(), ...this.history.filter((r) => !this.runs.has(r.runId))];
    return all.map((r) => this.view(r)).sort((a, b) => b.createdAt - a.createdAt);
  }

  get(runId: string): RunView | undefined {
    const run = this.find(runId);
    return run ? this.view(run) : undefined;
  }

  trajectory(runId: string): TrajectoryExport | undefined {
    const run = this.find(runId);
    if (!run) return undefined;
    const nested = [...run.requests.values()].map((r) => r.record);
    return {
      ...this.header(run),
      calls: run.calls.map((c) => ({ ...c, nested: nested.filter((n) => n.parentCallId === c.callId) })),
      counters: { ...run.counters },
      snapshots: [...run.snapshots],
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const run of [...this.runs.values()]) this.abortInternal(run, 'the gateway is shutting down');
  }

  // ---- legs ------------------------------------------------------------------------------------

  private newLive(run: Run, budget: ExecutionBudget, call: ControlCallRecord): LiveLeg {
    const live: LiveLeg = {
      leg: undefined as unknown as Leg,
      budget,
      call,
      output: [],
      droppedBytes: 0,
      parkRequested: false,
      requestedAt: Date.now(),
    };
    run.live = live;
    return live;
  }

  private handlers(run: Run, live: LiveLeg) {
    return {
      onRequests: (requests: BridgeRequest[], cancels: string[]) => this.onRequests(run, live, requests, cancels),
      onOutput: (lines: CodeModeOutput[]) => {
        live.output.push(...lines);
      },
      onOpened: (info: { restoreMs?: number; rawBytes?: number }) => {
        if (run.live !== live || live.opened) return;
        live.opened = { startMs: Date.now() - live.requestedAt, ...info };
        if (live.startTimer) clearTimeout(live.startTimer);
        live.startTimer = undefined;
        live.budget.unhold('opening');
        live.leg.setDeadline(live.budget.deadlineAt);
      },
    };
  }

  /** The budget a leg's guest gets once its VM is ready: what is left, or none while an approval pauses it. */
  private legBudgetMs(run: Run, budget: ExecutionBudget): number {
    return run.approvalsPending > 0 ? Infinity : budget.remainingMs;
  }

  /** The executor refused to open a leg at all (a host fault): the run fails and releases everything. */
  private legNotStarted(run: Run, live: LiveLeg, err: unknown): CodeModeResult {
    live.budget.stop();
    run.live = undefined;
    const error = `the ${run.executorKind} executor could not run the cell: ${err instanceof Error ? err.message : String(err)}. Run it again; if it keeps failing, check the gateway log.`;
    return this.finishCall(run, live.call, this.settleFailed(run, live, 'runtime_unavailable', error, 0));
  }

  /**
   * End a run from a host event handler (a protocol violation, no slot, an unexpected host error): the
   * live leg is stopped and the run fails with `code`; a parked run is released at once.
   */
  private failRun(run: Run, code: CodeModeErrorCode, error: string): void {
    if (run.released) return;
    if (run.live) {
      run.hostFailure ??= { code, error };
      run.live.leg.abort();
      return;
    }
    run.lastResult = this.failedResult(run, code, error, [], 0, new ExecutionBudget(0));
    this.release(run, 'failed');
    run.wake?.();
    this.touch(run);
  }

  private async driveLeg(run: Run, live: LiveLeg): Promise<CodeModeResult> {
    if (run.approvalsPending > 0) this.syncBudget(run);
    live.budget.whenExpired(() => {
      // budget spent: a busy guest is interrupted by the worker (timeout); an idle one is parked
      if (run.live === live && !live.parkRequested) {
        live.parkRequested = true;
        live.leg.park();
      }
    });
    if (!live.opened) {
      live.startTimer = setTimeout(() => {
        if (run.live !== live || live.opened) return;
        this.failRun(
          run,
          'runtime_unavailable',
          `the ${run.executorKind} executor did not get the cell's VM ready within ${this.legStartLimitMs} ms (worker start, VM creation or snapshot restore); the machine may be overloaded. Run the cell again, or check the gateway log.`,
        );
      }, this.legStartLimitMs);
      live.startTimer.unref();
    }
    const outcome = await live.leg.done;
    if (live.startTimer) clearTimeout(live.startTimer);
    live.budget.stop();
    run.live = undefined;
    const dropped = live.droppedBytes + outcome.droppedBytes;
    try {
      return this.settleLeg(run, live, outcome, dropped);
    } catch (err) {
      // a settle path that throws on guest data must still release the run (and its slot) exactly once
      const error = `the host could not finish this run (${err instanceof Error ? err.message : String(err)}); the run was released. Run the cell again.`;
      return this.finishCall(run, live.call, this.settleFailed(run, live, 'internal_error', error, dropped));
    }
  }

  private settleLeg(run: Run, live: LiveLeg, outcome: LegOutcome, dropped: number): CodeModeResult {
    if (run.hostFailure && run.state !== 'aborted') {
      return this.finishCall(run, live.call, this.settleFailed(run, live, run.hostFailure.code, run.hostFailure.error, dropped));
    }
    switch (outcome.kind) {
      case 'completed':
        return this.finishCall(run, live.call, this.settleCompleted(run, live, outcome.valueJson, dropped));
      case 'failed': {
        const err = outcome.code ? outcome.error : this.describeUncaught(outcome.error, outcome.stack);
        return this.finishCall(run, live.call, this.settleFailed(run, live, outcome.code, err, dropped));
      }
      case 'parked':
        return this.finishCall(run, live.call, this.park(run, live, outcome, dropped));
    }
  }

  private onRequests(run: Run, live: LiveLeg, requests: BridgeRequest[], cancels: string[]): void {
    if (run.live !== live || run.released) return;
    const violation = this.checkFrontier(run, requests, cancels);
    if (violation) {
      this.failRun(
        run,
        'invalid_input',
        `the cell sent the code mode bridge a malformed message (${violation}). This happens when a cell replaces builtins the runtime relies on or calls internal __cm_ functions; leave them intact and run the cell again.`,
      );
      return;
    }
    if (requests.length > 0 && !run.holdsSlot) {
      if (this.slotsInUse >= MAX_SUSPENDED_RUNS) {
        this.failRun(
          run,
          'runtime_unavailable',
          `${MSG_TOO_MANY} The process holds at most ${MAX_SUSPENDED_RUNS}; wait on or abort a waiting run, then run this cell again.`,
        );
        return;
      }
      run.holdsSlot = true;
      this.slotsInUse++;
    }
    try {
      for (const req of requests) this.dispatch(run, req, live.call.callId);
      // after dispatch: a timer sent and cleared within one frontier is cancelled, not left to fire
      for (const id of cancels) run.requests.get(id)?.cancel?.();
    } catch (err) {
      this.failRun(run, 'internal_error', `the host could not dispatch this cell's requests (${err instanceof Error ? err.message : String(err)}); the run was released. Run the cell again.`);
    }
  }

  /** What only the run can check about a frontier: fresh unique ids, the in-flight cap, cancels of its own ids. */
  private checkFrontier(run: Run, requests: BridgeRequest[], cancels: string[]): string | undefined {
    const cap = run.turn.options.maxPendingToolCalls;
    if (run.guestInFlight + requests.length > cap) {
      return `${run.guestInFlight + requests.length} requests in flight, over maxPendingToolCalls ${cap}`;
    }
    const fresh = new Set<string>();
    for (const req of requests) {
      if (run.requests.has(req.id) || fresh.has(req.id)) return `request id ${req.id} was already used by this run`;
      fresh.add(req.id);
    }
    for (const id of cancels) {
      if (!run.requests.has(id) && !fresh.has(id)) return `cancel of request id ${id.slice(0, 64)}, which this run never sent`;
    }
    return undefined;
  }

  private dispatch(run: Run, req: BridgeRequest, parentCallId: string): void {
    run.guestInFlight++;
    const n = ++run.nestedCount;
    const invocationId = `${run.cellId}:${n}`;
    const { label, kind } = describeRequest(req, run.catalog);
    if (kind === 'search') run.counters.search++;
    else if (kind === 'describe') run.counters.describe++;
    else if (kind === 'tool' || kind === 'mcp' || kind === 'client') run.counters.call++;
    const record: NestedCallRecord = {
      invocationId,
      requestId: req.id,
      tool: label,
      kind,
      inputBytes: Buffer.byteLength(JSON.stringify(req), 'utf8'),
      startedAt: Date.now(),
      status: 'running',
      parentCallId,
    };
    const host: HostRequest = { req, record, delivered: false };
    run.requests.set(req.id, host);
    this.emit({ type: 'nested.started', runId: run.runId, at: Date.now(), call: { ...record } });

    if (req.op === 'yield') {
      run.yieldRequestId = req.id;
      host.settled = { id: req.id, ok: true, value: null };
      record.status = 'ok';
      record.endedAt = Date.now();
      if (run.live && !run.live.parkRequested) {
        run.live.parkRequested = true;
        run.live.leg.park();
      }
      return;
    }

    const turn = run.turn;
    const hooks: NestedCallHooks = {
      beforeToolCall: (entry, input, invId) => turn.beforeToolCall(entry, input, { invocationId: invId, runId: run.runId }),
      requestApproval: async (entry, input) => {
        run.approvalsPending++;
        this.syncBudget(run);
        try {
          return await this.deps.approvals.request({ runId: run.runId, tool: entry.callableName, input, code: run.displayCode }, run.abort.signal);
        } finally {
          run.approvalsPending--;
          this.syncBudget(run);
        }
      },
      callClient: (entry, input, requestId) =>
        new Promise((resolve, reject) => {
          run.clientCalls.set(requestId, { callId: requestId, tool: entry.callableName, input, resolve, reject });
          this.touch(run);
        }),
    };
    const dispatched = dispatchRequest(
      {
        catalog: run.catalog,
        options: turn.options,
        scheduler: turn.scheduler,
        results: turn.results,
        // the turn's own view: its projection is built at its first read and sees only its own commits
        sessions: this.deps.sessions.forTurn(turn),
        sessionId: turn.sessionId,
        storeBuffer: run.storeBuffer,
        restartSafe: run.cell.restartSafe,
        signal: run.abort.signal,
        toolContext: (invId): ToolContext => ({
          agentId: turn.agentId,
          agentRunId: turn.agentRunId,
          sessionId: turn.sessionId,
          signal: run.abort.signal,
          invocationId: invId,
          workspaceDir: turn.workspaceDir,
        }),
        hooks,
        markNetworkContent: () => {
          run.networkContent = true;
        },
        hasNetworkContent: () => run.networkContent,
        onStatus: (_id, status) => {
          record.status = status;
          // the board shows calls waiting on a person; a plain start is already a nested.started event
          // (a full run view per call would make a cell's cost grow with its number of calls)
          if (status !== 'running') this.touch(run);
        },
      },
      req,
      invocationId,
    );
    host.cancel = dispatched.cancel;
    void dispatched.reply
      .then((reply) => this.onReply(run, host, reply, dispatched.outputBytes))
      .catch((err: unknown) =>
        this.failRun(run, 'internal_error', `the host could not deliver a reply to this cell (${err instanceof Error ? err.message : String(err)}); the run was released. Run the cell again.`),
      );
  }

  /** A nested request settled: record it, then deliver it into the live VM or keep it for the next wait. */
  private onReply(run: Run, host: HostRequest, reply: BridgeReply, outputBytes: (() => number | undefined) | undefined): void {
    const { req, record } = host;
    host.settled = reply;
    record.endedAt = Date.now();
    record.outputBytes = outputBytes?.();
    record.status = reply.ok ? 'ok' : run.abort.signal.aborted ? 'canceled' : 'error';
    if (!reply.ok) record.errorCode = reply.code;
    run.clientCalls.delete(req.id);
    this.emit({ type: 'nested.finished', runId: run.runId, at: Date.now(), call: { ...record } });
    if (run.released || run.state === 'aborted' || run.state === 'expired' || run.state === 'failed' || run.state === 'completed') return;
    if (run.live && !run.live.parkRequested) {
      host.delivered = true;
      run.guestInFlight--;
      run.live.leg.deliver([reply]);
    } else {
      run.wake?.();
      this.touch(run);
    }
  }

  private hasDeliverable(run: Run): boolean {
    for (const r of run.requests.values()) if (r.settled && !r.delivered) return true;
    return false;
  }

  private deliverPending(run: Run): void {
    const replies: BridgeReply[] = [];
    for (const r of run.requests.values()) {
      if (r.settled && !r.delivered) {
        r.delivered = true;
        run.guestInFlight--;
        replies.push(r.settled);
      }
    }
    run.yieldRequestId = undefined;
    if (replies.length > 0) run.live?.leg.deliver(replies);
  }

  /** Keep the current call's budget (a live leg's, or a wait's before it restores) in step with approval pauses. */
  private syncBudget(run: Run): void {
    const budget = run.live?.budget ?? run.idleBudget;
    if (!budget) return;
    if (run.approvalsPending > 0) budget.hold('approval');
    else budget.unhold('approval');
    // before the VM is ready the worker starts the deadline itself; the host sets it when the leg opens
    if (run.live?.opened) run.live.leg.setDeadline(budget.deadlineAt);
  }

  // ---- outcomes --------------------------------------------------------------------------------

  private settleCompleted(run: Run, live: LiveLeg, valueJson: string, dropped: number): CodeModeResult {
    const parsed = parseValueJson(valueJson);
    if (!parsed.ok) return this.settleFailed(run, live, 'invalid_input', parsed.error, dropped);
    const warnings: string[] = [];
    const bounded = boundValue(parsed, run.turn.options.maxOutputBytes, (json) => {
      try {
        return run.turn.results.save(json, run.networkContent).ref;
      } catch (err) {
        warnings.push(`the full value was not retained: ${(err as Error).message}`);
        return undefined;
      }
    });
    if (bounded.truncated) {
      warnings.push(
        `the value was ${bounded.bytes} bytes, over maxOutputBytes ${run.turn.options.maxOutputBytes}; a preview is shown${bounded.ref ? ` and results.load("${bounded.ref}") returns it whole in this turn` : ''}`,
      );
    }
    if (run.storeBuffer.size > 0) {
      try {
        this.deps.sessions.forTurn(run.turn).commit(run.turn.sessionId, run.runId, run.storeBuffer);
      } catch (err) {
        warnings.push(`store() writes were not committed: ${(err as Error).message}`);
      }
    }
    this.release(run, 'completed');
    const result: CodeModeResult = {
      status: 'completed',
      value: bounded.value,
      ...this.outputField(live, dropped, run),
      ...(warnings.length > 0 ? { warnings } : {}),
      telemetry: this.telemetry(run, live.budget, live, dropped, bounded.truncated),
    };
    return result;
  }

  private settleFailed(run: Run, live: LiveLeg, code: CodeModeErrorCode | undefined, error: string, dropped: number): CodeModeResult {
    this.release(run, run.state === 'aborted' ? 'aborted' : 'failed');
    return this.failedResult(run, code, error, live.output, dropped, live.budget, live);
  }

  private failedResult(
    run: Run,
    code: CodeModeErrorCode | undefined,
    error: string,
    output: CodeModeOutput[],
    dropped: number,
    budget: ExecutionBudget,
    live?: LiveLeg,
  ): CodeModeResult {
    return {
      status: 'failed',
      error,
      ...(code ? { code } : {}),
      ...this.outputField(live ?? { output }, dropped, run),
      telemetry: this.telemetry(run, budget, live, dropped, false),
    };
  }

  private park(run: Run, live: LiveLeg, outcome: Extract<LegOutcome, { kind: 'parked' }>, dropped: number): CodeModeResult {
    if (run.state === 'aborted' || run.abort.signal.aborted) {
      return this.failedResult(run, 'aborted', 'code mode run was aborted', live.output, dropped, live.budget, live);
    }
    run.continuation = outcome.continuation;
    run.queued = outcome.queued;
    run.state = 'waiting';
    run.reason = run.yieldRequestId ? 'yield' : 'pending_tools';
    const snap = outcome.continuation;
    if (snap.storedBytes !== undefined && snap.rawBytes !== undefined) {
      run.snapshots.push({
        at: Date.now(),
        rawBytes: snap.rawBytes,
        storedBytes: snap.storedBytes,
        takeMs: outcome.takeMs ?? 0,
        restoreMs: live.opened?.restoreMs,
        reason: run.reason,
      });
    }
    this.armTtl(run);
    return this.waitingResult(run, live.output, dropped, live.budget, live);
  }

  private waitingResult(run: Run, output: CodeModeOutput[], dropped: number, budget: ExecutionBudget, live: LiveLeg | undefined): CodeModeResult {
    return {
      status: 'waiting',
      runId: run.runId,
      reason: run.reason ?? 'pending_tools',
      pendingToolCalls: this.pendingCalls(run),
      ...this.outputField(live ?? { output }, dropped, run),
      telemetry: this.telemetry(run, budget, live, dropped, false),
      ...(run.cell.restartSafe ? { replaySafe: true } : {}),
    };
  }

  private pendingCalls(run: Run): CodeModePendingToolCall[] {
    const out: CodeModePendingToolCall[] = [];
    for (const r of run.requests.values()) {
      if (r.req.op === 'yield' || r.delivered) continue;
      const status = r.record.status;
      const state: CodeModePendingToolCall['state'] = r.settled
        ? 'settled'
        : status === 'awaiting_approval'
          ? 'awaiting_approval'
          : status === 'awaiting_client'
            ? 'awaiting_client'
            : 'running';
      out.push({ id: r.req.id, tool: r.record.tool, input: describeRequest(r.req, run.catalog).input, startedAt: r.record.startedAt, state });
    }
    for (const q of run.queued) {
      const { label, input } = describeRequest(q, run.catalog);
      out.push({ id: q.id, tool: label, input, startedAt: run.updatedAt, state: 'queued' });
    }
    return out;
  }

  private outputField(live: { output: CodeModeOutput[] }, dropped: number, run: Run): { output?: CodeModeOutput[] } {
    const output = [...live.output];
    if (dropped > 0) {
      output.push({ kind: 'warn', text: `[output truncated: ${dropped} bytes omitted; maxOutputBytes is ${run.turn.options.maxOutputBytes}]` });
    }
    return output.length > 0 ? { output } : {};
  }

  private telemetry(run: Run, budget: ExecutionBudget, live: LiveLeg | undefined, dropped: number, truncated: boolean): CodeModeTelemetry {
    const call = live?.call ?? run.calls[run.calls.length - 1];
    const last = run.snapshots[run.snapshots.length - 1];
    const restoreMs = live?.opened?.restoreMs;
    const snapshot =
      run.executorKind === 'quickjs' && (restoreMs !== undefined || (run.state === 'waiting' && last))
        ? {
            // parked now: this suspension's snapshot; resumed: the snapshot it restored from
            rawBytes: run.continuation?.rawBytes ?? live?.opened?.rawBytes ?? 0,
            storedBytes: run.continuation?.storedBytes ?? last?.storedBytes ?? 0,
            ...(run.state === 'waiting' && last ? { takeMs: last.takeMs } : {}),
            ...(restoreMs !== undefined ? { restoreMs } : {}),
          }
        : undefined;
    const outputBytes = (live?.output ?? []).reduce((n, l) => n + Buffer.byteLength(l.text, 'utf8'), 0);
    return {
      runId: run.runId,
      executor: run.executorKind,
      durationMs: call ? Date.now() - call.startedAt : 0,
      budgetUsedMs: Math.round(budget.spentMs),
      counters: { ...run.counters },
      nestedCalls: run.nestedCount,
      ...(snapshot ? { snapshot } : {}),
      ...(run.executorKind === 'node' && run.continuation?.retainedBytesEstimate !== undefined
        ? { retainedBytesEstimate: run.continuation.retainedBytesEstimate }
        : {}),
      ...(live?.opened ? { startMs: Math.round(live.opened.startMs) } : {}),
      ...(live?.opened?.restoreMs !== undefined ? { restoreMs: Math.round(live.opened.restoreMs * 10) / 10 } : {}),
      outputBytes,
      ...(truncated || dropped > 0 ? { truncated: true } : {}),
      ...(run.networkContent ? { networkContent: true } : {}),
    };
  }

  private describeUncaught(error: string, stack?: string): string {
    const where = stack?.split('\n').find((l) => l.includes('cell.js'));
    const m = where?.match(/cell\.js:(\d+)/);
    return m ? `${error} (line ${m[1]})` : error;
  }

  // ---- bookkeeping -----------------------------------------------------------------------------

  private openCall(run: Run, tool: 'exec' | 'wait'): ControlCallRecord {
    const call: ControlCallRecord = { callId: `${tool}_${run.calls.length + 1}`, tool, startedAt: Date.now() };
    run.calls.push(call);
    return call;
  }

  private finishCall(run: Run, call: ControlCallRecord, result: CodeModeResult): CodeModeResult {
    call.endedAt = Date.now();
    call.status = result.status;
    if (result.status === 'failed') call.errorCode = result.code;
    run.lastResult = result;
    this.touch(run);
    return result;
  }

  private release(run: Run, state: RunState): void {
    // a released run's state is final (a settle path that fails after releasing must not rewrite it)
    if (run.released) return;
    // an abort or expiry decided the run's end before its leg reported
    run.state = run.state === 'aborted' || run.state === 'expired' ? run.state : state;
    run.released = true;
    this.clearTtl(run);
    if (run.continuation) run.cell.executor.release(run.continuation);
    run.continuation = undefined;
    run.storeBuffer.clear();
    if (run.holdsSlot) {
      run.holdsSlot = false;
      this.slotsInUse--;
    }
    // cancel anything still pending: an external operation may finish, but cannot resume the guest
    if (!run.abort.signal.aborted) run.abort.abort();
    for (const c of run.clientCalls.values()) c.reject(new Error('the run ended'));
    run.clientCalls.clear();
    this.runs.delete(run.runId);
    this.history.push(run);
    if (this.history.length > 200) this.history.shift();
  }

  private abortInternal(run: Run, reason: string): void {
    if (run.state === 'completed' || run.state === 'failed' || run.state === 'aborted' || run.state === 'expired') return;
    const live = run.live;
    run.state = 'aborted';
    run.abort.abort();
    if (live) {
      live.leg.abort();
    } else {
      run.lastResult = this.failedResult(run, 'aborted', `code mode run was aborted: ${reason}`, [], 0, new ExecutionBudget(0));
    }
    run.wake?.();
    this.release(run, 'aborted');
    this.touch(run);
  }

  private armTtl(run: Run): void {
    this.clearTtl(run);
    const ttlMs = run.turn.options.snapshotTtlSeconds * 1000;
    run.expiresAt = Date.now() + ttlMs;
    run.ttlTimer = setTimeout(() => {
      if (run.state !== 'waiting') return;
      run.abort.abort();
      this.release(run, 'expired');
      this.touch(run);
    }, ttlMs);
    run.ttlTimer.unref();
  }

  private clearTtl(run: Run): void {
    if (run.ttlTimer) clearTimeout(run.ttlTimer);
    run.ttlTimer = undefined;
    run.expiresAt = undefined;
  }

  private limits(o: CodeModeOptions) {
    return {
      memoryLimitBytes: o.memoryLimitBytes,
      maxOutputBytes: o.maxOutputBytes,
      maxSnapshotBytes: o.maxSnapshotBytes,
      maxPendingToolCalls: o.maxPendingToolCalls,
    };
  }

  private find(runId: string): Run | undefined {
    return this.runs.get(runId) ?? this.history.find((r) => r.runId === runId);
  }

  private touch(run: Run): void {
    run.updatedAt = Date.now();
    if (!this.closed) this.emit({ type: 'run.updated', runId: run.runId, at: run.updatedAt, view: this.view(run) });
  }

  private emit(event: RunEvent): void {
    this.deps.emit(event);
  }

  /** Identity and source of a run, shared by the board view and the trajectory export. */
  private header(run: Run) {
    return {
      runId: run.runId,
      agentRunId: run.turn.agentRunId,
      sessionId: run.turn.sessionId,
      agentId: run.turn.agentId,
      executor: run.executorKind,
      language: run.cell.language,
      code: run.displayCode,
    };
  }

  private view(run: Run): RunView {
    return {
      ...this.header(run),
      state: run.state,
      ...(run.state === 'waiting' && run.reason ? { reason: run.reason } : {}),
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
      ...(run.expiresAt ? { expiresAt: run.expiresAt } : {}),
      maxSnapshotBytes: run.turn.options.maxSnapshotBytes,
      pendingToolCalls: run.state === 'waiting' || run.state === 'running' ? this.pendingCalls(run) : [],
      clientCalls: [...run.clientCalls.values()].map((c) => ({ callId: c.callId, tool: c.tool, input: c.input })),
      snapshots: [...run.snapshots],
      ...(run.continuation?.retainedBytesEstimate !== undefined ? { retainedBytesEstimate: run.continuation.retainedBytesEstimate } : {}),
      calls: run.calls.map((c) => ({ ...c })),
      nested: [...run.requests.values()].map((r) => ({ ...r.record })),
      ...(run.lastResult ? { lastResult: run.lastResult } : {}),
    };
  }
}
