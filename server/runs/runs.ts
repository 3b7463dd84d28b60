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
// is checked in nested.ts. A violation fails that run with invalid_input; nothing guest-controlled can
// throw out of a handler, and every way a run ends releases its slot exactly once (leaks() checks it).
// A leg's budget is held until its VM is ready (startMs, restoreMs): the budget measures the guest.
//
// This file holds the manager: the run map, slots, history, the public API, release, abort and expiry. The run
// record is run.ts; nested calls nested.ts (and the context they are dispatched with, run-dispatch.ts); settling a leg settle.ts; results results.ts; views trajectory.ts;
// model-facing text messages.ts; forks fork.ts; cassettes cassette.ts.
import { CodeModeError, InvalidInputError, type CodeModeErrorCode } from '../errors.ts';
import type { BridgeRequest, CodeModeOutput } from '../bridge/protocol.ts';
import type { SessionStore } from '../sessions/store.ts';
import { RUN_ABORTED_MESSAGE } from '../bridge/leg-control.mjs';
import { ExecutionBudget } from './budget.ts';
import { legNotStartedMessage, legStartTimeoutMessage, hostFaultMessage, MSG_ALREADY_RESUMING, MSG_UNAVAILABLE, MSG_WRONG_RUN, MSG_WRONG_SESSION } from './messages.ts';
import { SlotLedger } from './slots.ts';
import { onRequests, redispatch, type ApprovalRequester, type NestedCallEnv } from './nested.ts';
import { forkRun } from './fork.ts';
import { bootTools } from '../catalog/boot-tools.ts';
import { LEG_START_LIMIT_MS, MAX_FINISHED_RUNS_KEPT } from './limits.ts';
import { recordCassette, type Cassette } from './cassette.ts';
import { guestClock } from './clock.ts';
import { failedResult, waitingResult } from './results.ts';
import { hasDeliverable, isTerminal, legLimits, Run, runMapLeaks, takeDeliverable, type LiveLeg, type StartCell, type TurnScope } from './run.ts';
import { settleFailed, settleLeg, type SettleEnv } from './settle.ts';
import { recordPressure, trajectory, view } from './trajectory.ts';
import { resultToModelText } from './model-text.ts';
import { jsonTokens, textTokens } from './tokens.ts';
import type { PressureEvent } from '../executors/types.ts';
import type { CodeModeResult, ControlCallRecord, RunEvent, RunState, RunView, TrajectoryExport } from './types.ts';

export type { StartCell, TurnScope } from './run.ts';

export { MAX_SLOTS_PER_TURN, MAX_SUSPENDED_RUNS } from './slots.ts';

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
  private readonly slots = new SlotLedger();
  private closed = false;
  private readonly legStartLimitMs: number;
  private readonly nestedEnv: NestedCallEnv;
  private readonly settleEnv: SettleEnv;

  constructor(
    private readonly deps: RunManagerDeps,
    opts: RunManagerOptions = {},
  ) {
    this.legStartLimitMs = opts.legStartLimitMs ?? LEG_START_LIMIT_MS;
    this.nestedEnv = {
      sessions: deps.sessions,
      approvals: deps.approvals,
      touch: (run) => this.touch(run),
      emit: (event) => this.emit(event),
      failRun: (run, code, error) => this.failRun(run, code, error),
      claimSlot: (run) => this.claimSlot(run),
    };
    this.settleEnv = { sessions: deps.sessions, release: (run, state) => this.release(run, state), armTtl: (run) => this.armTtl(run) };
  }

  get suspendedSlots(): number {
    return this.slots.held;
  }

  // ---- public API ------------------------------------------------------------------------------

  async exec(turn: TurnScope, cell: StartCell): Promise<CodeModeResult> {
    const run = new Run(turn, cell);
    this.runs.set(run.runId, run);
    const call = this.openCall(run, 'exec', cell.toolCallId);
    this.emit({ type: 'run.started', runId: run.runId, at: Date.now(), view: view(run) });
    const budget = new ExecutionBudget(turn.options.timeoutMs);
    budget.hold('opening');
    const live = run.openLive(budget, call);
    try {
      live.leg = cell.executor.start(
        { body: cell.body, boot: { ...turn.boot, tools: bootTools(run.catalog, cell.body), seed: cell.seed, clock: guestClock(cell.clock, run.clock) }, files: run.files, limits: legLimits(turn.options), budgetMs: run.legBudgetMs(budget) },
        this.handlers(run, live),
      );
    } catch (err) {
      return this.legNotStarted(run, live, err);
    }
    return this.driveLeg(run, live);
  }

  async wait(scope: { agentRunId: string; sessionId: string }, runId: string, toolCallId: string): Promise<CodeModeResult> {
    const run = typeof runId === 'string' ? this.runs.get(runId) : undefined;
    if (!run || isTerminal(run.state)) {
      throw new InvalidInputError(MSG_UNAVAILABLE);
    }
    if (run.turn.sessionId !== scope.sessionId) throw new InvalidInputError(MSG_WRONG_SESSION);
    if (run.turn.agentRunId !== scope.agentRunId) throw new InvalidInputError(MSG_WRONG_RUN);
    if (run.state !== 'waiting' || run.live || run.wake) throw new InvalidInputError(MSG_ALREADY_RESUMING);

    const call = this.openCall(run, 'wait', toolCallId);
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
        if (run.abort.signal.aborted) return this.finishCall(run, call, failedResult(run, 'aborted', RUN_ABORTED_MESSAGE, [], 0, budget));
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

  /** The exec or wait call of a run that dispatched a nested call, with the run's session (the transcript files nested activity under it). */
  controlCall(runId: string, callId: string): { sessionId: string; agentRunId: string; agentId: string; call: Readonly<ControlCallRecord> } | undefined {
    const run = this.find(runId);
    const call = run?.calls.find((c) => c.callId === callId);
    return run && call ? { sessionId: run.turn.sessionId, agentRunId: run.turn.agentRunId, agentId: run.turn.agentId, call } : undefined;
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
    return runMapLeaks(this.runs, this.history, this.slots.held);
  }

  /**
   * Fork waiting run `runId` (QuickJS; fork.ts): a new waiting run of its turn from its snapshot, `replies`
   * answering pending calls; it holds a slot at once (runtime_unavailable when the cap is full).
   */
  fork(runId: string, replies?: unknown): RunView {
    const { parent, fork, redispatch: again } = forkRun(typeof runId === 'string' ? this.runs.get(runId) : undefined, String(runId), replies);
    const full = this.slots.claim(fork);
    if (full) throw new CodeModeError('runtime_unavailable', full);
    this.runs.set(fork.runId, fork);
    parent.forks.push(fork.runId);
    // armed before the fork is announced: its first view (the boards') carries its expiry, as a parked run's does
    this.armTtl(fork);
    this.emit({ type: 'run.started', runId: fork.runId, at: Date.now(), view: view(fork) });
    for (const host of again) redispatch(fork, host, this.nestedEnv);
    this.touch(parent);
    return view(fork);
  }

  list(): RunView[] {
    const all = [...this.runs.values(), ...this.history.filter((r) => !this.runs.has(r.runId))];
    return all.map((r) => view(r)).sort((a, b) => b.createdAt - a.createdAt);
  }

  get(runId: string): RunView | undefined {
    return this.project(runId, view);
  }

  trajectory(runId: string): TrajectoryExport | undefined {
    return this.project(runId, trajectory);
  }

  cassette(runId: string): Cassette | undefined {
    return this.project(runId, recordCassette);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const run of [...this.runs.values()]) this.abortInternal(run, 'the gateway is shutting down');
  }

  // ---- legs ------------------------------------------------------------------------------------

  private handlers(run: Run, live: LiveLeg) {
    return {
      onRequests: (requests: BridgeRequest[], cancels: string[]) => onRequests(run, live, requests, cancels, this.nestedEnv),
      onOutput: (lines: CodeModeOutput[]) => {
        live.output.push(...lines);
      },
      onOpened: (info: { restoreMs?: number; rawBytes?: number }) => {
        if (run.live === live) run.markOpened(info);
      },
      // pool pressure moved the VM inside this call: the board and trajectory show the checkpoint
      onPressure: (event: PressureEvent) => {
        if (run.live !== live) return;
        recordPressure(run, event);
        this.touch(run);
      },
    };
  }

  /** The executor refused to open a leg at all (a host fault): the run fails and releases everything. */
  private legNotStarted(run: Run, live: LiveLeg, err: unknown): CodeModeResult {
    live.budget.stop();
    run.live = undefined;
    return this.finishCall(run, live.call, settleFailed(run, live, 'runtime_unavailable', legNotStartedMessage(run.executorKind, err), 0, this.settleEnv));
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
    run.watchLive(live, this.legStartLimitMs, () => this.failRun(run, 'runtime_unavailable', legStartTimeoutMessage(run.executorKind, this.legStartLimitMs)));
    const outcome = await live.leg.done;
    if (live.startTimer) clearTimeout(live.startTimer);
    live.budget.stop();
    run.live = undefined;
    const dropped = live.droppedBytes + outcome.droppedBytes;
    try {
      return this.finishCall(run, live.call, await settleLeg(run, live, outcome, dropped, this.settleEnv));
    } catch (err) {
      // a settle path that throws on guest data must still release the run (and its slot) exactly once
      return this.finishCall(run, live.call, settleFailed(run, live, 'internal_error', hostFaultMessage('finish this run', err), dropped, this.settleEnv));
    }
  }

  /** A run's first host request takes a slot (slots.ts: the process's cap, the turn's share); with none free the run fails. */
  private claimSlot(run: Run): boolean {
    const full = this.slots.claim(run);
    if (full) this.failRun(run, 'runtime_unavailable', full);
    return full === undefined;
  }

  private deliverPending(run: Run): void {
    const replies = takeDeliverable(run);
    run.yieldRequestId = undefined;
    if (replies.length > 0) run.live?.leg.deliver(replies);
  }

  // ---- bookkeeping -----------------------------------------------------------------------------

  private openCall(run: Run, tool: 'exec' | 'wait', toolCallId: string): ControlCallRecord {
    // the token meter: what the model wrote for this call (the cell source, or the wait input)
    const inputTokens = tool === 'exec' ? textTokens(run.cell.code) : jsonTokens({ runId: run.runId });
    const call: ControlCallRecord = { callId: `${tool}_${run.calls.length + 1}`, toolCallId, tool, startedAt: Date.now(), inputTokens };
    run.calls.push(call);
    return call;
  }

  private finishCall(run: Run, call: ControlCallRecord, result: CodeModeResult): CodeModeResult {
    call.endedAt = Date.now();
    call.status = result.status;
    if (result.status === 'failed') call.errorCode = result.code;
    call.resultTokens = textTokens(resultToModelText(result));
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
    this.slots.release(run);
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
      run.lastResult = failedResult(run, 'aborted', `${RUN_ABORTED_MESSAGE}: ${reason}`, [], 0, new ExecutionBudget(0));
    }
    run.wake?.();
    this.release(run, 'aborted');
    this.touch(run);
  }

  private armTtl(run: Run): void {
    run.armTtl(() => {
      this.release(run, 'expired');
      this.touch(run);
    });
  }

  private project<T>(runId: string, projection: (run: Run) => T): T | undefined {
    const run = this.find(runId);
    return run ? projection(run) : undefined;
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
