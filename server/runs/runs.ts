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
import type { CodeModeOptions } from '../config/types.ts';
import { InvalidInputError, type CodeModeErrorCode } from '../errors.ts';
import type { BridgeReply, BridgeRequest } from '../bridge/protocol.ts';
import { dispatchRequest } from '../bridge/dispatcher.ts';
import type { Leg, LegOutcome } from '../executors/types.ts';
import type { SessionStore } from '../sessions/store.ts';
import { ExecutionBudget } from './budget.ts';
import { parseValueJson } from './bound.ts';
import { answerYield, checkFrontier, dispatchContext, hasDeliverable, openNestedCall, recordReply, takeDeliverable, type ApprovalRequester, type NestedCallEnv } from './nested.ts';
import { boundCompletedValue, completedResult, describeUncaught, failedResult, waitingResult } from './results.ts';
import { isTerminal, legLimits, Run, type HostRequest, type LiveLeg, type StartCell, type TurnScope } from './run.ts';
import { snapshotRecord, trajectory, view } from './trajectory.ts';
import type { CodeModeOutput, CodeModeResult, ControlCallRecord, NestedCallRecord, RunEvent, RunState, RunView, TrajectoryExport } from './types.ts';

export type { StartCell, TurnScope } from './run.ts';

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

/**
 * Ended runs kept for the runs board and trajectory export after they leave the run map (the oldest
 * goes first). Enough for a session's worth of cells on the board; each holds only its records (its
 * continuation and calls are released), so the cap bounds memory, not correctness.
 */
export const MAX_FINISHED_RUNS_KEPT = 200;

export interface RunManagerDeps {
  sessions: SessionStore;
  approvals: ApprovalRequester;
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
  private readonly nestedEnv: NestedCallEnv;

  constructor(
    private readonly deps: RunManagerDeps,
    opts: RunManagerOptions = {},
  ) {
    this.legStartLimitMs = opts.legStartLimitMs ?? LEG_START_LIMIT_MS;
    this.nestedEnv = { sessions: deps.sessions, approvals: deps.approvals, touch: (run) => this.touch(run) };
  }

  get suspendedSlots(): number {
    return this.slotsInUse;
  }

  // ---- public API ------------------------------------------------------------------------------

  async exec(turn: TurnScope, cell: StartCell): Promise<CodeModeResult> {
    const run = new Run(turn, cell);
    this.runs.set(run.runId, run);
    const call = this.openCall(run, 'exec');
    this.emit({ type: 'run.started', runId: run.runId, at: Date.now(), view: view(run) });
    const budget = new ExecutionBudget(turn.options.timeoutMs);
    budget.hold('opening');
    const live = run.openLive(budget, call);
    try {
      live.leg = cell.executor.start(
        { body: cell.body, boot: turn.boot, files: run.files, limits: legLimits(turn.options), budgetMs: run.legBudgetMs(budget) },
        this.handlers(run, live),
      );
    } catch (err) {
      return this.legNotStarted(run, live, err);
    }
    return this.driveLeg(run, live);
  }

  async wait(scope: { agentRunId: string; sessionId: string }, runId: string): Promise<CodeModeResult> {
    const run = typeof runId === 'string' ? this.runs.get(runId) : undefined;
    if (!run || isTerminal(run.state)) {
      throw new InvalidInputError(MSG_UNAVAILABLE);
    }
    if (run.turn.sessionId !== scope.sessionId) throw new InvalidInputError(MSG_WRONG_SESSION);
    if (run.turn.agentRunId !== scope.agentRunId) throw new InvalidInputError(MSG_WRONG_RUN);
    if (run.state !== 'waiting' || run.live || run.wake) throw new InvalidInputError(MSG_ALREADY_RESUMING);

    const call = this.openCall(run, 'wait');
    const budget = new ExecutionBudget(run.turn.options.timeoutMs);
    run.clearTtl();
    run.state = 'running';
    this.touch(run);

    // Nothing to deliver yet: wait for the first reply (or the budget) without restoring the VM.
    if (!hasDeliverable(run)) {
      run.idleBudget = budget;
      run.syncBudget();
      const woke = await new Promise<boolean>((resolve) => {
        run.wake = () => resolve(true);
        budget.whenExpired(() => resolve(false));
        run.abort.signal.addEventListener('abort', () => resolve(false), { once: true });
      });
      run.wake = undefined;
      run.idleBudget = undefined;
      if (!woke || run.abort.signal.aborted) {
        budget.stop();
        if (run.abort.signal.aborted) return this.finishCall(run, call, failedResult(run, 'aborted', 'code mode run was aborted', [], 0, budget));
        run.state = 'waiting';
        this.armTtl(run);
        return this.finishCall(run, call, waitingResult(run, [], 0, budget, undefined));
      }
    }

    const cont = run.continuation;
    if (!cont) throw new InvalidInputError(MSG_UNAVAILABLE);
    budget.hold('opening');
    const live = run.openLive(budget, call);
    try {
      live.leg = run.cell.executor.resume(
        cont,
        { files: run.files, limits: legLimits(run.turn.options), budgetMs: run.legBudgetMs(budget), inFlight: run.guestInFlight },
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
    run.answerClientCall(callId, answer);
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
      out.push(...run.leaks(true));
    }
    for (const run of this.history) if (!this.runs.has(run.runId)) out.push(...run.leaks(false));
    if (holding !== this.slotsInUse) out.push(`slots in use is ${this.slotsInUse} but ${holding} live runs hold one`);
    return out;
  }

  list(): RunView[] {
    const all = [...this.runs.values(), ...this.history.filter((r) => !this.runs.has(r.runId))];
    return all.map((r) => view(r)).sort((a, b) => b.createdAt - a.createdAt);
  }

  get(runId: string): RunView | undefined {
    const run = this.find(runId);
    return run ? view(run) : undefined;
  }

  trajectory(runId: string): TrajectoryExport | undefined {
    const run = this.find(runId);
    return run ? trajectory(run) : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const run of [...this.runs.values()]) this.abortInternal(run, 'the gateway is shutting down');
  }

  // ---- legs ------------------------------------------------------------------------------------

  private handlers(run: Run, live: LiveLeg) {
    return {
      onRequests: (requests: BridgeRequest[], cancels: string[]) => this.onRequests(run, live, requests, cancels),
      onOutput: (lines: CodeModeOutput[]) => {
        live.output.push(...lines);
      },
      onOpened: (info: { restoreMs?: number; rawBytes?: number }) => {
        if (run.live === live) run.markOpened(info);
      },
    };
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
    run.lastResult = failedResult(run, code, error, [], 0, new ExecutionBudget(0));
    this.release(run, 'failed');
    run.wake?.();
    this.touch(run);
  }

  private async driveLeg(run: Run, live: LiveLeg): Promise<CodeModeResult> {
    if (run.approvalsPending > 0) run.syncBudget();
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
        const err = outcome.code ? outcome.error : describeUncaught(outcome.error, outcome.stack);
        return this.finishCall(run, live.call, this.settleFailed(run, live, outcome.code, err, dropped));
      }
      case 'parked':
        return this.finishCall(run, live.call, this.park(run, live, outcome, dropped));
    }
  }

  private onRequests(run: Run, live: LiveLeg, requests: BridgeRequest[], cancels: string[]): void {
    if (run.live !== live || run.released) return;
    const violation = checkFrontier(run, requests, cancels);
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

  private dispatch(run: Run, req: BridgeRequest, parentCallId: string): void {
    const host = openNestedCall(run, req, parentCallId);
    this.emit({ type: 'nested.started', runId: run.runId, at: Date.now(), call: { ...host.record } });
    if (req.op === 'yield') return answerYield(run, host);
    const dispatched = dispatchRequest(dispatchContext(run, host, this.nestedEnv), req, host.record.invocationId);
    host.cancel = dispatched.cancel;
    void dispatched.reply
      .then((reply) => this.onReply(run, host, reply, dispatched.outputBytes?.()))
      .catch((err: unknown) =>
        this.failRun(run, 'internal_error', `the host could not deliver a reply to this cell (${err instanceof Error ? err.message : String(err)}); the run was released. Run the cell again.`),
      );
  }

  /** A nested request settled: record it, then deliver it into the live VM or keep it for the next wait. */
  private onReply(run: Run, host: HostRequest, reply: BridgeReply, outputBytes: number | undefined): void {
    recordReply(run, host, reply, outputBytes);
    this.emit({ type: 'nested.finished', runId: run.runId, at: Date.now(), call: { ...host.record } });
    if (run.released || isTerminal(run.state)) return;
    if (run.live && !run.live.parkRequested) {
      host.delivered = true;
      run.guestInFlight--;
      run.live.leg.deliver([reply]);
    } else {
      run.wake?.();
      this.touch(run);
    }
  }

  private deliverPending(run: Run): void {
    const replies = takeDeliverable(run);
    run.yieldRequestId = undefined;
    if (replies.length > 0) run.live?.leg.deliver(replies);
  }

  // ---- outcomes --------------------------------------------------------------------------------

  private settleCompleted(run: Run, live: LiveLeg, valueJson: string, dropped: number): CodeModeResult {
    const parsed = parseValueJson(valueJson);
    if (!parsed.ok) return this.settleFailed(run, live, 'invalid_input', parsed.error, dropped);
    const { value, truncated, warnings } = boundCompletedValue(run, parsed);
    if (run.storeBuffer.size > 0) {
      try {
        this.deps.sessions.forTurn(run.turn).commit(run.turn.sessionId, run.runId, run.storeBuffer);
      } catch (err) {
        warnings.push(`store() writes were not committed: ${(err as Error).message}`);
      }
    }
    this.release(run, 'completed');
    return completedResult(run, live, value, warnings, dropped, truncated);
  }

  private settleFailed(run: Run, live: LiveLeg, code: CodeModeErrorCode | undefined, error: string, dropped: number): CodeModeResult {
    this.release(run, run.state === 'aborted' ? 'aborted' : 'failed');
    return failedResult(run, code, error, live.output, dropped, live.budget, live);
  }

  private park(run: Run, live: LiveLeg, outcome: Extract<LegOutcome, { kind: 'parked' }>, dropped: number): CodeModeResult {
    if (run.state === 'aborted' || run.abort.signal.aborted) {
      return failedResult(run, 'aborted', 'code mode run was aborted', live.output, dropped, live.budget, live);
    }
    run.continuation = outcome.continuation;
    run.queued = outcome.queued;
    run.state = 'waiting';
    run.reason = run.yieldRequestId ? 'yield' : 'pending_tools';
    const snapshot = snapshotRecord(outcome, live, run.reason);
    if (snapshot) run.snapshots.push(snapshot);
    this.armTtl(run);
    return waitingResult(run, live.output, dropped, live.budget, live);
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
    run.clearTtl();
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
    if (this.history.length > MAX_FINISHED_RUNS_KEPT) this.history.shift();
  }

  private abortInternal(run: Run, reason: string): void {
    if (isTerminal(run.state)) return;
    const live = run.live;
    run.state = 'aborted';
    run.abort.abort();
    if (live) {
      live.leg.abort();
    } else {
      run.lastResult = failedResult(run, 'aborted', `code mode run was aborted: ${reason}`, [], 0, new ExecutionBudget(0));
    }
    run.wake?.();
    this.release(run, 'aborted');
    this.touch(run);
  }

  private armTtl(run: Run): void {
    run.clearTtl();
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

  private find(runId: string): Run | undefined {
    return this.runs.get(runId) ?? this.history.find((r) => r.runId === runId);
  }

  private touch(run: Run): void {
    run.updatedAt = Date.now();
    if (!this.closed) this.emit({ type: 'run.updated', runId: run.runId, at: run.updatedAt, view: view(run) });
  }

  private emit(event: RunEvent): void {
    this.deps.emit(event);
  }
}
