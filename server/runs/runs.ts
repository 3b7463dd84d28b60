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
// This file holds the manager: the run map, slots, history and the public API. The run record and every change
// of a run (its transitions, their checks, what an end gives back) is run.ts, its durable part run-record.ts;
// nested calls nested.ts (and the context they are dispatched with, run-dispatch.ts); settling a leg settle.ts;
// results results.ts; views trajectory.ts; model-facing text messages.ts; forks fork.ts; cassettes cassette.ts.
import { CodeModeError, InvalidInputError } from '../errors.ts';
import type { BridgeRequest, CodeModeOutput } from '../bridge/protocol.ts';
import type { SessionStore } from '../sessions/store.ts';
import { RUN_ABORTED_MESSAGE } from '../bridge/leg-control.mjs';
import { ExecutionBudget } from './budget.ts';
import { legNotStartedMessage, hostFaultMessage, MSG_ALREADY_RESUMING, MSG_UNAVAILABLE, MSG_WRONG_RUN, MSG_WRONG_SESSION } from './messages.ts';
import { SlotLedger } from './slots.ts';
import { onRequests, recoverInFlight, redispatch } from './nested.ts';
import { forkRun } from './fork.ts';
import { bootTools } from '../catalog/boot-tools.ts';
import { LEG_START_LIMIT_MS, MAX_FINISHED_RUNS_KEPT } from './limits.ts';
import { recordCassette, type Cassette } from './cassette.ts';
import { guestClock } from './clock.ts';
import { failedResult, waitingResult } from './results.ts';
import { isTerminal, legLimits, Run, RunTransitionError, runMapLeaks, type LiveLeg } from './run.ts';
import type { RunRecord } from './run-record.ts';
import type { ApprovalRequester, RunHost, StartCell, TurnScope } from './scope.ts';
import { settleFailed, settleLeg } from './settle.ts';
import { trajectory, view } from './trajectory.ts';
import type { Executor, Leg, LegHandlers, PressureEvent } from '../executors/types.ts';
import type { CodeModeResult, ControlCallRecord, RunEvent, RunView, TrajectoryExport } from './types.ts';

export type { ApprovalRequester, StartCell, TurnScope } from './scope.ts';

export { MAX_SLOTS_PER_TURN, MAX_SUSPENDED_RUNS } from './slots.ts';

export interface RunManagerDeps {
  sessions: SessionStore;
  approvals: ApprovalRequester;
  emit(event: RunEvent): void;
}

export interface RunManagerOptions {
  /** How long a leg's VM may take to get ready before the run fails with runtime_unavailable; default LEG_START_LIMIT_MS. */
  legStartLimitMs?: number;
  /** runs.durable: a parked QuickJS run's snapshot is also sealed into the session database (gateway/durable-runs.ts); its view says so. */
  durable?: boolean;
}

export class RunManager {
  private readonly runs = new Map<string, Run>();
  /** Finished runs kept for the board and trajectory export (bounded). */
  private readonly history: Run[] = [];
  private readonly slots = new SlotLedger();
  private closed = false;
  private readonly legStartLimitMs: number;
  /** What every run of this manager is told to use and tells back (scope.ts RunHost). */
  private readonly host: RunHost;

  constructor(
    private readonly deps: RunManagerDeps,
    opts: RunManagerOptions = {},
  ) {
    this.legStartLimitMs = opts.legStartLimitMs ?? LEG_START_LIMIT_MS;
    this.host = {
      sessions: deps.sessions,
      approvals: deps.approvals,
      slots: this.slots,
      snapshotStore: opts.durable === true ? 'store' : 'memory',
      emit: (event) => this.emit(event),
      changed: (run) => this.changed(run),
      ended: (run) => this.ended(run),
    };
  }

  get suspendedSlots(): number {
    return this.slots.held;
  }

  // ---- public API ------------------------------------------------------------------------------

  async exec(turn: TurnScope, cell: StartCell): Promise<CodeModeResult> {
    // a cell that continues a run (restart recovery) never replaces one this process holds
    if (cell.runId !== undefined && this.runs.has(cell.runId)) throw new InvalidInputError(MSG_ALREADY_RESUMING);
    const run = Run.start(this.host, turn, cell);
    this.runs.set(run.runId, run);
    const call = run.openCall('exec', cell.toolCallId);
    this.emit({ type: 'run.started', runId: run.runId, at: Date.now(), view: view(run) });
    const budget = new ExecutionBudget(turn.options.timeoutMs);
    budget.hold('opening');
    return this.driveLeg(run, budget, call, (handlers) =>
      cell.executor.start(
        { body: cell.body, boot: { ...turn.boot, tools: bootTools(run.catalog, cell.body), seed: cell.seed, clock: guestClock(cell.clock, run.clock) }, files: run.files, limits: legLimits(turn.options), budgetMs: run.legBudgetMs(budget) },
        handlers,
      ),
    );
  }

  async wait(scope: { agentRunId: string; sessionId: string }, runId: string, toolCallId: string): Promise<CodeModeResult> {
    const run = typeof runId === 'string' ? this.runs.get(runId) : undefined;
    if (!run || isTerminal(run.state)) {
      throw new InvalidInputError(MSG_UNAVAILABLE);
    }
    if (run.turn.sessionId !== scope.sessionId) throw new InvalidInputError(MSG_WRONG_SESSION);
    if (run.turn.agentRunId !== scope.agentRunId) throw new InvalidInputError(MSG_WRONG_RUN);
    if (run.state !== 'waiting' || run.resuming) throw new InvalidInputError(MSG_ALREADY_RESUMING);

    const call = run.openCall('wait', toolCallId);
    const budget = new ExecutionBudget(run.turn.options.timeoutMs);
    run.resume();

    // Nothing to deliver yet: wait for the first reply (or the budget) without restoring the VM.
    if (!run.hasDeliverable()) {
      const woke = await run.idleUntilDeliverable(budget);
      if (!woke || run.signal.aborted) {
        budget.stop();
        if (run.signal.aborted) return run.closeCall(call, failedResult(run, 'aborted', RUN_ABORTED_MESSAGE, [], 0, budget));
        run.rewait();
        return run.closeCall(call, waitingResult(run, [], 0, budget, undefined));
      }
    }

    const cont = run.continuation;
    if (!cont) throw new InvalidInputError(MSG_UNAVAILABLE);
    budget.hold('opening');
    return this.driveLeg(
      run,
      budget,
      call,
      (handlers) => run.cell.executor.resume(cont, { files: run.files, limits: legLimits(run.turn.options), budgetMs: run.legBudgetMs(budget), inFlight: run.guestInFlight }, handlers),
      // deliver everything that settled while parked, and the yield itself
      () => run.deliverPending(),
    );
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
    run.abort(reason);
    return true;
  }

  /** The owning agent run ended or was canceled: release every run of it. */
  abortTurn(agentRunId: string): void {
    for (const run of [...this.runs.values()]) {
      if (run.turn.agentRunId === agentRunId) run.abort('the owning agent run ended');
    }
  }

  answerClientCall(runId: string, callId: string, answer: { result?: unknown; error?: string }): void {
    const run = this.runs.get(runId);
    if (!run) throw new InvalidInputError(`${MSG_UNAVAILABLE} (no run "${runId}")`);
    run.answerClientCall(callId, answer);
    run.changed();
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
    const full = fork.claimSlot();
    if (full) throw new CodeModeError('runtime_unavailable', full);
    this.runs.set(fork.runId, fork);
    parent.noteFork(fork.runId);
    // armed before the fork is announced: its first view (the boards') carries its expiry, as a parked run's does
    fork.startTtl();
    this.emit({ type: 'run.started', runId: fork.runId, at: Date.now(), view: view(fork) });
    for (const host of again) redispatch(fork, host);
    parent.changed();
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

  /**
   * What run `runId` is, written out (run-record.ts: plain JSON, every guest string in it), and a parked QuickJS
   * run's snapshot bytes, which the record names by SHA-256. Durable runs persist these two.
   */
  record(runId: string): { record: RunRecord; snapshot?: Uint8Array } | undefined {
    const run = this.find(runId);
    if (!run) return undefined;
    const cont = run.continuation;
    return { record: run.toRecord(), ...(cont?.executor === 'quickjs' ? { snapshot: cont.snapshot } : {}) };
  }

  /**
   * A waiting run read back from its record into this manager (a durable run after a restart, gateway/durable-runs.ts):
   * restored for `turn` on `executor` (Run.restore: its slot claimed again, its TTL to the recorded deadline), announced,
   * and its requests that were in flight when the record was written recovered (nested.ts recoverInFlight: replay-safe
   * ones sent again, the others settled as unknown_outcome). Throws RunRecordError when the record does not fit, and
   * CodeModeError runtime_unavailable when the suspended-run cap is full.
   */
  restore(record: RunRecord, snapshot: Uint8Array, turn: TurnScope, executor: Executor): { redispatched: number; unknown: number } {
    if (this.closed) throw new CodeModeError('runtime_unavailable', 'the gateway is shutting down');
    if (this.runs.has(record.runId)) throw new InvalidInputError(`run ${record.runId} is already held by this Gateway`);
    const run = Run.restore(record, { host: this.host, turn, executor, snapshot });
    this.runs.set(run.runId, run);
    this.emit({ type: 'run.started', runId: run.runId, at: Date.now(), view: view(run) });
    return recoverInFlight(run);
  }

  /**
   * Drops waiting run `runId` from this process without ending it (Run.evict): durable runs call it once the run's
   * sealed row holds all of it. It leaves the run map (not into the history: it did not end), its slot is given back,
   * and no event is emitted (the caller announces the run's new home). False when the run is not held or not quiescent.
   */
  evict(runId: string): boolean {
    const run = this.runs.get(runId);
    if (!run?.evict()) return false;
    this.runs.delete(runId);
    return true;
  }

  /** Whether waiting run `runId` is held here and quiescent (Run.quiescent): evict would let it go. */
  quiescent(runId: string): boolean {
    return this.runs.get(runId)?.quiescent === true;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const run of [...this.runs.values()]) run.abort('the gateway is shutting down');
  }

  // ---- legs ------------------------------------------------------------------------------------

  /**
   * Open the call's leg (`open` asks the executor for it; `opened` runs right after, before the leg is driven),
   * drive it to its outcome and settle the run with it. An executor that refuses to open a leg at all (a host
   * fault) fails the run with runtime_unavailable.
   */
  private async driveLeg(run: Run, budget: ExecutionBudget, call: ControlCallRecord, open: (handlers: LegHandlers) => Leg, opened?: () => void): Promise<CodeModeResult> {
    let live: LiveLeg;
    try {
      live = run.openLeg(budget, call, (l) => open(this.handlers(run, l)));
    } catch (err) {
      const failed = run.live;
      if (err instanceof RunTransitionError || !failed) throw err;
      run.legEnded(failed);
      return run.closeCall(call, settleFailed(run, failed, 'runtime_unavailable', legNotStartedMessage(run.executorKind, err), 0));
    }
    opened?.();
    const outcome = await run.runLeg(live, this.legStartLimitMs);
    const dropped = live.droppedBytes + outcome.droppedBytes;
    try {
      return run.closeCall(call, await settleLeg(run, live, outcome, dropped, this.deps.sessions));
    } catch (err) {
      // a settle path that throws on guest data must still release the run (and its slot) exactly once
      return run.closeCall(call, settleFailed(run, live, 'internal_error', hostFaultMessage('finish this run', err), dropped));
    }
  }

  private handlers(run: Run, live: LiveLeg): LegHandlers {
    return {
      onRequests: (requests: BridgeRequest[], cancels: string[]) => onRequests(run, live, requests, cancels),
      onOutput: (lines: CodeModeOutput[]) => {
        live.output.push(...lines);
      },
      onOpened: (info: { restoreMs?: number; rawBytes?: number }) => run.markOpened(live, info),
      // pool pressure moved the VM inside this call: the board and trajectory show the checkpoint
      onPressure: (event: PressureEvent) => run.recordPressure(live, event),
    };
  }

  // ---- what runs tell their host ------------------------------------------------------------------

  /** A run ended: off the map, into the bounded history. */
  private ended(run: Run): void {
    this.runs.delete(run.runId);
    this.history.push(run);
    if (this.history.length > MAX_FINISHED_RUNS_KEPT) this.history.shift();
  }

  private changed(run: Run): void {
    if (!this.closed) this.emit({ type: 'run.updated', runId: run.runId, at: run.updatedAt, view: view(run) });
  }

  private emit(event: RunEvent): void {
    this.deps.emit(event);
  }

  private project<T>(runId: string, projection: (run: Run) => T): T | undefined {
    const run = this.find(runId);
    return run ? projection(run) : undefined;
  }

  private find(runId: string): Run | undefined {
    return this.runs.get(runId) ?? this.history.find((r) => r.runId === runId);
  }
}
