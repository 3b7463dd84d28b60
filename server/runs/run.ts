// The run record: one cell's run across its exec/wait legs, and every change of it.
// long: a run's lifecycle reads in one place: its states, each transition with its checks, and what an end gives back.
//
// States and transitions (TRANSITIONS holds the table; a transition from any other state is a bug in its caller,
// and throws RunTransitionError):
//
//   start     (an exec)         -> running    a new run; its first leg opens at once
//   fork      (runs.fork)       -> waiting    a new run from a waiting QuickJS run's snapshot, records and replies
//   restore   (a run record)    -> waiting    a run written out (toRecord) read back, here or in another process
//                                             (an ended one comes back ended, for the board only)
//   openLeg   running           -> running    an exec or wait opens a leg (one at a time); runLeg awaits its end
//   park      running           -> waiting    the leg parked: the run holds its continuation until a wait, TTL or abort
//   resume    waiting           -> running    a wait takes the run (its TTL stops)
//   rewait    running           -> waiting    that wait had nothing to deliver and its budget ran out (TTL again)
//   complete  running           -> completed  the cell returned a value
//   fail      running, waiting  -> failed     the cell threw, a limit stopped it, or the host failed it
//   expire    waiting           -> expired    the snapshot TTL passed before a wait
//   abort     running, waiting  -> aborted    the operator, the owning turn or shutdown ended it
//
// park, complete, fail, expire and abort on a run that already ended change nothing: an abort or expiry decided
// its end before its leg reported. Every end gives back, once, what the run held (its continuation, slot, TTL
// timer, buffered store writes, pending client calls and signal) and then tells the host, which takes it off the
// run map. Nested calls (nested.ts) ask the record to admit, deliver and answer their requests; settling a leg's
// outcome (settle.ts) picks complete, fail or park.
//
// What a run is (ids, its turn by id, state, seed, clock readings, requests with their inputs, replies and status,
// the TTL deadline, counters, the snapshot's reference and sizes, call records) is written out as plain JSON by
// toRecord (run-record.ts); what this process holds for it (executor, live leg, abort controller, timers, the
// waker of an idle wait, client-call promises, the turn's catalog and stores) is not, and a restore is given it.
import { createHash, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { NestedCallKind } from '../bridge/describe.ts';
import type { DispatchContext } from '../bridge/dispatcher.ts';
import { RUN_ABORTED_MESSAGE } from '../bridge/leg-control.mjs';
import type { BridgeReply, BridgeRequest, ClockReadings, CodeModeOutput, LegLimits } from '../bridge/protocol.ts';
import type { Catalog } from '../catalog/types.ts';
import { CODE_MODE_LIMIT_BOUNDS } from '../config/schema.ts';
import type { CodeModeOptions, ExecutorKind } from '../config/types.ts';
import { CodeModeError, InvalidInputError, type CodeModeErrorCode } from '../errors.ts';
import type { Continuation, Executor, Leg, LegOutcome, PressureEvent } from '../executors/types.ts';
import type { DeclarationFiles } from '../bridge/declaration-files.mjs';
import type { ResultsStore } from '../results/store.ts';
import type { StoredValue } from '../sessions/store.ts';
import { redactSource } from '../cell/redact.ts';
import { ExecutionBudget } from './budget.ts';
import { CassetteReplayer } from './cassette.ts';
import { startRecording, type ClockRecording } from './clock.ts';
import { legStartTimeoutMessage } from './messages.ts';
import { resultToModelText } from './model-text.ts';
import { failedResult } from './results.ts';
import { RunDispatch } from './run-dispatch.ts';
import { continuationOf, dataOf, newRunData, recordOf, RunRecordError, type HostRequest, type RunData, type RunRecord } from './run-record.ts';
import type { RunCell, RunHost, StartCell, TurnScope } from './scope.ts';
import { jsonTokens, textTokens } from './tokens.ts';
import { snapshotRecord } from './trajectory.ts';
import type { CodeModeResult, ControlCallRecord, ForkOrigin, NestedCallRecord, RunState, SnapshotRecord } from './types.ts';

/** States a run never leaves: it is off the run map and holds nothing. */
const TERMINAL_STATES: ReadonlySet<RunState> = new Set(['completed', 'failed', 'expired', 'aborted']);

/** Whether a run in `state` has ended (completed, failed, expired or aborted); running and waiting have not. */
export function isTerminal(state: RunState): boolean {
  return TERMINAL_STATES.has(state);
}

export type RunTransition = 'openLeg' | 'park' | 'resume' | 'rewait' | 'complete' | 'fail' | 'expire' | 'abort';

/**
 * Each transition: the states it leaves from, the state it enters, and what it does on a run that already ended
 * (`ignored`: a late report after an abort or expiry; `illegal`: a caller that should have known).
 */
export const TRANSITIONS: Readonly<Record<RunTransition, { from: readonly RunState[]; to: RunState; afterEnd: 'ignored' | 'illegal' }>> = {
  openLeg: { from: ['running'], to: 'running', afterEnd: 'illegal' },
  park: { from: ['running'], to: 'waiting', afterEnd: 'ignored' },
  resume: { from: ['waiting'], to: 'running', afterEnd: 'illegal' },
  rewait: { from: ['running'], to: 'waiting', afterEnd: 'illegal' },
  complete: { from: ['running'], to: 'completed', afterEnd: 'ignored' },
  fail: { from: ['running', 'waiting'], to: 'failed', afterEnd: 'ignored' },
  expire: { from: ['waiting'], to: 'expired', afterEnd: 'ignored' },
  abort: { from: ['running', 'waiting'], to: 'aborted', afterEnd: 'ignored' },
};

/** A change the run's state does not allow: a host fault (a bug in the caller), never the cell's doing. */
export class RunTransitionError extends Error {
  override readonly name = 'RunTransitionError';

  constructor(
    readonly runId: string,
    readonly transition: string,
    readonly from: RunState,
    detail?: string,
  ) {
    super(`run ${runId} cannot ${transition} while ${from}${detail ? ` (${detail})` : ''}`);
  }
}

export type { HostRequest } from './run-record.ts';

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

/** What a restore is given besides the record: the process-local part of the run. */
export interface RestoreHandles {
  host: RunHost;
  /** The scope of the record's turn in this process (its agentRunId and sessionId must be the record's). */
  turn: TurnScope;
  /** The executor of the record's kind. */
  executor: Executor;
  /** A waiting QuickJS run's snapshot: the encoded bytes the record names by SHA-256. */
  snapshot?: Uint8Array;
}

/** The run's own listeners on its abort signal (an exec or wait blocked on the run, its approvals), with room to spare. */
const RUN_OWN_ABORT_LISTENERS = 8;
/** Listeners the run's abort signal may have at once: one per nested call in flight (at most maxPendingToolCalls), and the run's own. */
const RUN_ABORT_LISTENERS = CODE_MODE_LIMIT_BOUNDS.maxPendingToolCalls.max + RUN_OWN_ABORT_LISTENERS;

const newRunId = () => `run_${randomUUID().replace(/-/g, '').slice(0, 16)}`;

/** What a run is born with besides its scope and cell: a fresh one's, a fork's or a restored record's. */
interface Birth {
  runId: string;
  displayCode: string;
  data: RunData;
}

export class Run {
  readonly runId: string;
  readonly cellId: string;
  /** The cell's source as history, the board and approvals show it: credentials masked. */
  readonly displayCode: string;
  /** What the run is (run-record.ts): only this class changes it, and toRecord writes it out. */
  private readonly d: RunData;

  // what this process holds for it: never in a record, supplied again by a restore
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
  private _continuation?: Continuation;
  private _live?: LiveLeg;
  /** Set once its end gave back everything it held. */
  private _released = false;
  private _hostFailure?: { code: CodeModeErrorCode; error: string };
  private _approvalsPending = 0;
  private readonly _clientCalls = new Map<string, ClientCall>();
  private readonly abortController = new AbortController();
  private ttlTimer?: NodeJS.Timeout;
  /** Wakes a wait that idles on the run with nothing to deliver. */
  private wake?: () => void;
  /** The budget of such a wait (approval pauses apply to it too). */
  private idleBudget?: ExecutionBudget;
  private _dispatch?: RunDispatch;

  private constructor(
    readonly host: RunHost,
    readonly turn: TurnScope,
    readonly cell: RunCell,
    birth: Birth,
  ) {
    // every nested call in flight may listen for the run's abort (a sleep, a guest timer, an MCP call, an approval),
    // up to maxPendingToolCalls of them; Node warns of a leak past 10 listeners, so the bound is the real one
    setMaxListeners(RUN_ABORT_LISTENERS, this.abortController.signal);
    this.runId = birth.runId;
    // The cell's replay identity, the prefix of its nested invocation ids: agent run, the model's
    // tool-call id and this run. The runId is in it because a provider may reuse a tool-call id in a
    // later assistant response (spec 02: "without colliding with earlier activity"); wait continues
    // the same Run, so a waiting run keeps its ids.
    this.cellId = `cm_${createHash('sha256').update(`${turn.agentRunId}\0${cell.toolCallId}\0${this.runId}`).digest('hex').slice(0, 12)}`;
    this.displayCode = birth.displayCode;
    this.d = birth.data;
    this.catalog = turn.catalog;
    this.files = turn.files;
    this.results = turn.results;
  }

  // ---- birth ----------------------------------------------------------------------------------------

  /** An exec's new run (running; the caller opens its first leg at once). */
  static start(host: RunHost, turn: TurnScope, cell: StartCell): Run {
    const { body: _body, clock: plan, ...kept } = cell;
    return Run.born(host, turn, kept, (createdAt) => startRecording(plan, cell.seed, createdAt));
  }

  /** A new run id and birth time, the source as shown (masked now), and its clock recording. */
  private static born(host: RunHost, turn: TurnScope, cell: RunCell, clock: (createdAt: number) => ClockRecording): Run {
    const createdAt = Date.now();
    return new Run(host, turn, cell, { runId: cell.runId ?? newRunId(), displayCode: (turn.redact ?? redactSource)(cell.code), data: newRunData(createdAt, clock(createdAt)) });
  }

  /**
   * A fork of waiting run `parent` (fork.ts checked it may be forked): a new waiting run of the same turn and cell
   * with a copy of the parent's snapshot, queue, buffered writes, counters and records. Each pending call of the
   * parent is copied; `answer(copy)` settles it with the caller's edited reply (true) or leaves it, and then it keeps
   * the reply the parent holds, or is returned in `redispatch` under a fresh invocation id of the fork's cell.
   */
  static fork(parent: Run, origin: ForkOrigin, answer: (copy: HostRequest) => boolean): { fork: Run; redispatch: HostRequest[] } {
    const from = parent.d;
    const cont = parent._continuation;
    if (from.state !== 'waiting' || !cont) throw new RunTransitionError(parent.runId, 'fork', from.state, 'only a waiting run with a continuation forks');
    // the parent's clock readings up to this suspension: the fork's own cassette replays from the cell's start
    const fork = Run.born(parent.host, parent.turn, parent.cell, () => from.clock.copy());
    const d = fork.d;
    // a snapshot is immutable bytes: each resume sends its own copy to a worker
    fork._continuation = { ...cont };
    d.state = 'waiting';
    if (from.reason) d.reason = from.reason;
    d.forkedFrom = origin;
    d.queued = [...from.queued];
    if (from.yieldRequestId !== undefined) d.yieldRequestId = from.yieldRequestId;
    d.guestInFlight = from.guestInFlight;
    d.nestedCount = from.nestedCount;
    d.counters = { ...from.counters };
    d.networkContent = from.networkContent;
    for (const [k, v] of from.storeBuffer) d.storeBuffer.set(k, v);
    d.snapshots.push(...from.snapshots.map((s) => ({ ...s })));
    d.calls.push(...from.calls.map((c) => ({ ...c })));
    const again: HostRequest[] = [];
    for (const [id, host] of from.requests) {
      const record = { ...host.record };
      const copy: HostRequest = { req: host.req, record, delivered: host.delivered };
      if (!host.delivered) {
        if (answer(copy)) {
          // settled by the caller's edit
        } else if (host.settled) copy.settled = host.settled;
        else {
          // dispatched again, by the fork: a fresh invocation id of the fork's cell, never the parent's
          record.invocationId = `${fork.cellId}:${++d.nestedCount}`;
          again.push(copy);
        }
      } else if (host.settled) {
        copy.settled = host.settled;
      }
      d.requests.set(id, copy);
    }
    return { fork, redispatch: again };
  }

  /**
   * A run read back from its record (parseRunRecord checked it), with what this process holds for it: a waiting
   * run claims its slot again (CodeModeError runtime_unavailable when the cap is full) and its TTL runs to the
   * recorded deadline; an ended run comes back for the board and history only. Requests that were in flight when
   * the record was written stay pending: their outcome went with the process that wrote it, and the caller decides
   * what they become. RunRecordError when the record does not fit this turn, executor or snapshot.
   */
  static restore(record: RunRecord, handles: RestoreHandles): Run {
    const { host, turn, executor } = handles;
    const refuse = (why: string): never => {
      throw new RunRecordError(`run record ${record.runId}: ${why}`);
    };
    if (record.state === 'running') refuse('it was written while a leg ran, and that leg lived in the process that wrote it; only a waiting or ended run restores');
    if (turn.agentRunId !== record.scope.agentRunId || turn.sessionId !== record.scope.sessionId) {
      refuse(`it belongs to agent run ${record.scope.agentRunId} of session ${record.scope.sessionId}, not to the turn given (${turn.agentRunId}, ${turn.sessionId})`);
    }
    if (executor.kind !== record.cell.executor) refuse(`it ran on the ${record.cell.executor} executor, not on ${executor.kind}`);
    const continuation = record.state === 'waiting' ? continuationOf(record, handles.snapshot) : undefined;
    const { replay, displayCode, ...cell } = record.cell;
    const run = new Run(host, turn, { ...cell, executor, ...(replay ? { replay: new CassetteReplayer(replay.cassette, replay.used) } : {}) }, { runId: record.runId, displayCode, data: dataOf(record) });
    if (run.cellId !== record.cellId) refuse(`its cell id ${record.cellId} is not the one its turn, exec call and run id give (${run.cellId})`);
    if (!continuation) {
      run._released = true;
      run.abortController.abort();
      return run;
    }
    run._continuation = continuation;
    if (record.holdsSlot) {
      const full = run.claimSlot();
      if (full !== undefined) throw new CodeModeError('runtime_unavailable', full);
    }
    run.armTtl(record.expiresAt ?? Date.now() + turn.options.snapshotTtlSeconds * 1000);
    return run;
  }

  // ---- what the run is, read (run-record.ts RunData) ---------------------------------------------------

  get state(): RunState {
    return this.d.state;
  }
  get reason(): 'pending_tools' | 'yield' | undefined {
    return this.d.reason;
  }
  get createdAt(): number {
    return this.d.createdAt;
  }
  get updatedAt(): number {
    return this.d.updatedAt;
  }
  /** Epoch ms the waiting run's snapshot TTL ends (waiting only). */
  get expiresAt(): number | undefined {
    return this.d.expiresAt;
  }
  get requests(): ReadonlyMap<string, HostRequest> {
    return this.d.requests;
  }
  /** Requests the guest sent whose replies it has not received. */
  get guestInFlight(): number {
    return this.d.guestInFlight;
  }
  get queued(): readonly BridgeRequest[] {
    return this.d.queued;
  }
  /** Buffered store() writes: the dispatcher buffers into it, a completed cell commits it, any other end drops it. */
  get storeBuffer(): Map<string, StoredValue> {
    return this.d.storeBuffer;
  }
  get networkContent(): boolean {
    return this.d.networkContent;
  }
  get holdsSlot(): boolean {
    return this.d.holdsSlot;
  }
  get nestedCount(): number {
    return this.d.nestedCount;
  }
  get counters(): Readonly<{ search: number; describe: number; call: number }> {
    return this.d.counters;
  }
  get calls(): readonly ControlCallRecord[] {
    return this.d.calls;
  }
  get snapshots(): readonly SnapshotRecord[] {
    return this.d.snapshots;
  }
  get lastResult(): CodeModeResult | undefined {
    return this.d.lastResult;
  }
  /** Every clock reading the guest made, appended at the end of each leg (a fork starts from its parent's). */
  get clock(): ClockRecording {
    return this.d.clock;
  }
  /** Set on a fork: the run it restored and which suspension of it (runs.fork). */
  get forkedFrom(): ForkOrigin | undefined {
    return this.d.forkedFrom;
  }
  /** Runs forked from this one. */
  get forks(): readonly string[] {
    return this.d.forks;
  }

  // ---- what this process holds for it, read ------------------------------------------------------------

  get continuation(): Continuation | undefined {
    return this._continuation;
  }
  get live(): LiveLeg | undefined {
    return this._live;
  }
  /** Its end gave back everything it held (it is off the run map). */
  get released(): boolean {
    return this._released;
  }
  /** It ended, or is ending right now (an abort under way). */
  get ended(): boolean {
    return this._released || isTerminal(this.d.state);
  }
  /** A wait holds it: a leg is live, or the wait idles with nothing to deliver yet. */
  get resuming(): boolean {
    return this._live !== undefined || this.wake !== undefined;
  }
  /** Why the host ended the live leg (no slot, a protocol violation, a VM that never got ready): wins over the leg's outcome. */
  get hostFailure(): { code: CodeModeErrorCode; error: string } | undefined {
    return this._hostFailure;
  }
  get approvalsPending(): number {
    return this._approvalsPending;
  }
  get clientCalls(): ReadonlyMap<string, ClientCall> {
    return this._clientCalls;
  }
  /** Aborts when the run ends (or its TTL passes): its nested calls, approvals and client calls listen. */
  get signal(): AbortSignal {
    return this.abortController.signal;
  }
  /** What its nested calls are dispatched with (run-dispatch.ts), made at the first call. */
  get dispatch(): DispatchContext {
    return (this._dispatch ??= new RunDispatch(this));
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

  // ---- exec and wait calls ------------------------------------------------------------------------------

  /** Record an exec or wait call of the run (the token meter: what the model wrote for it). */
  openCall(tool: 'exec' | 'wait', toolCallId: string): ControlCallRecord {
    const inputTokens = tool === 'exec' ? textTokens(this.cell.code) : jsonTokens({ runId: this.runId });
    const call: ControlCallRecord = { callId: `${tool}_${this.d.calls.length + 1}`, toolCallId, tool, startedAt: Date.now(), inputTokens };
    this.d.calls.push(call);
    return call;
  }

  /** The call returned `result`: its record ends, it is the run's latest result, and the board hears of it. */
  closeCall(call: ControlCallRecord, result: CodeModeResult): CodeModeResult {
    call.endedAt = Date.now();
    call.status = result.status;
    if (result.status === 'failed') call.errorCode = result.code;
    call.resultTokens = textTokens(resultToModelText(result));
    this.d.lastResult = result;
    this.changed();
    return result;
  }

  // ---- legs ---------------------------------------------------------------------------------------------

  /**
   * Open the leg of an exec or wait call: `start` asks the executor for it (and may throw: the caller then ends
   * the leg and fails the run). One leg at a time, only while running.
   */
  openLeg(budget: ExecutionBudget, call: ControlCallRecord, start: (live: LiveLeg) => Leg): LiveLeg {
    this.check('openLeg', this._live ? 'a leg is already live' : undefined);
    const live: LiveLeg = { leg: undefined as unknown as Leg, budget, call, output: [], droppedBytes: 0, parkRequested: false, requestedAt: Date.now() };
    this._live = live;
    live.leg = start(live);
    return live;
  }

  /**
   * Drive the live leg to its outcome: its budget asks it to park when spent (a busy guest is interrupted by the
   * worker instead: timeout), and a VM not ready within `startLimitMs` fails the run (runtime_unavailable).
   */
  async runLeg(live: LiveLeg, startLimitMs: number): Promise<LegOutcome> {
    if (this._approvalsPending > 0) this.syncBudget();
    live.budget.whenExpired(() => this.requestPark(live));
    if (!live.opened) {
      live.startTimer = setTimeout(() => {
        if (this._live === live && !live.opened) this.failByHost('runtime_unavailable', legStartTimeoutMessage(this.executorKind, startLimitMs));
      }, startLimitMs);
      live.startTimer.unref();
    }
    const outcome = await live.leg.done;
    this.legEnded(live);
    return outcome;
  }

  /** The live leg is over (its outcome came, or it never started): its timers stop and the run has no leg. */
  legEnded(live: LiveLeg): void {
    if (this._live !== live) throw new RunTransitionError(this.runId, 'end a leg', this.d.state, 'that leg is not the live one');
    if (live.startTimer) clearTimeout(live.startTimer);
    live.budget.stop();
    this._live = undefined;
  }

  /** The live leg's VM is ready: its start-up time is known, and its budget starts now. */
  markOpened(live: LiveLeg, info: { restoreMs?: number; rawBytes?: number }): void {
    if (this._live !== live || live.opened) return;
    live.opened = { startMs: Date.now() - live.requestedAt, ...info };
    // a resume restored the run's latest snapshot: its record carries that restore (the board's snapshot table
    // shows take and restore of the same snapshot, as the wait's telemetry reports it)
    const restored = this.d.snapshots[this.d.snapshots.length - 1];
    if (info.restoreMs !== undefined && restored) restored.restoreMs = info.restoreMs;
    if (live.startTimer) clearTimeout(live.startTimer);
    live.startTimer = undefined;
    live.budget.unhold('opening');
    live.leg.setDeadline(live.budget.deadlineAt);
  }

  /** Ask the live leg to park (its budget is spent, or the guest yielded), once. */
  private requestPark(live: LiveLeg): void {
    if (this._live !== live || live.parkRequested) return;
    live.parkRequested = true;
    live.leg.park();
  }

  /** The budget a leg's guest gets once its VM is ready: what is left, or none while an approval pauses it. */
  legBudgetMs(budget: ExecutionBudget): number {
    return this._approvalsPending > 0 ? Infinity : budget.remainingMs;
  }

  /** Keep the current call's budget (a live leg's, or an idle wait's) in step with approval pauses. */
  private syncBudget(): void {
    const budget = this._live?.budget ?? this.idleBudget;
    if (!budget) return;
    if (this._approvalsPending > 0) budget.hold('approval');
    else budget.unhold('approval');
    // before the VM is ready the worker starts the deadline itself; the host sets it when the leg opens
    if (this._live?.opened) this._live.leg.setDeadline(budget.deadlineAt);
  }

  /** Pool pressure moved the live VM inside this call: parked adds a snapshot record, resumed fills in its restore time. */
  recordPressure(live: LiveLeg, event: PressureEvent): void {
    if (this._live !== live) return;
    const snapshots = this.d.snapshots;
    if (event.phase === 'parked') {
      snapshots.push({ at: Date.now(), rawBytes: event.rawBytes ?? 0, storedBytes: event.storedBytes ?? 0, takeMs: event.takeMs ?? 0, reason: 'pressure' });
    } else {
      const last = snapshots[snapshots.length - 1];
      if (last?.reason === 'pressure' && last.restoreMs === undefined && event.restoreMs !== undefined) last.restoreMs = event.restoreMs;
    }
    this.changed();
  }

  /** A leg's clock readings join the run's recording (whatever its outcome: its cassette replays them). */
  appendClock(readings: ClockReadings): void {
    this.d.clock.append(readings);
  }

  // ---- transitions (TRANSITIONS) ------------------------------------------------------------------------

  /** Whether transition `t` applies now: false when the run already ended and `t` comes late; throws when illegal. */
  private check(t: RunTransition, broken?: string): boolean {
    const rule = TRANSITIONS[t];
    if (this.ended && rule.afterEnd === 'ignored') return false;
    if (this.ended || !rule.from.includes(this.d.state) || broken) throw new RunTransitionError(this.runId, t, this.d.state, broken);
    return true;
  }

  /**
   * The leg parked: the run waits holding `outcome`'s continuation and queue (its snapshot record added), and its
   * TTL starts. False when the run already ended (an abort released it while the leg checkpointed).
   */
  park(outcome: Extract<LegOutcome, { kind: 'parked' }>): boolean {
    if (!this.check('park', this._live ? 'its leg has not ended' : undefined)) return false;
    const d = this.d;
    this._continuation = outcome.continuation;
    d.queued = outcome.queued;
    d.state = 'waiting';
    d.reason = d.yieldRequestId ? 'yield' : 'pending_tools';
    const snapshot = snapshotRecord(outcome, d.reason);
    if (snapshot) d.snapshots.push(snapshot);
    this.startTtl();
    return true;
  }

  /** A wait takes the waiting run: its TTL stops and it runs again. */
  resume(): void {
    this.check('resume', this.resuming ? 'a wait already holds it' : undefined);
    this.clearTtl();
    this.d.state = 'running';
    this.changed();
  }

  /** A wait that had nothing to deliver gave up (its budget ran out): the run waits again, its TTL from now. */
  rewait(): void {
    this.check('rewait', this.resuming ? 'a wait still holds it' : undefined);
    this.d.state = 'waiting';
    this.startTtl();
  }

  /** The cell completed (its value and store commit are the caller's): the run ends. */
  complete(): void {
    if (this.check('complete', this._live ? 'its leg has not ended' : undefined)) this.end('completed');
  }

  /** The cell failed (the caller shapes the failure): the run ends. */
  fail(): void {
    if (this.check('fail', this._live ? 'its leg has not ended' : undefined)) this.end('failed');
  }

  /**
   * End the run from a host event (a protocol violation, no slot, a VM that never got ready, an unexpected host
   * error): a live leg is stopped and settles as failed with `code`; a parked run fails now.
   */
  failByHost(code: CodeModeErrorCode, error: string): void {
    if (this.ended) return;
    if (this._live) {
      this._hostFailure ??= { code, error };
      this._live.leg.abort();
      return;
    }
    this.d.lastResult = failedResult(this, code, error, [], 0, new ExecutionBudget(0));
    this.fail();
    this.wake?.();
    this.changed();
  }

  /** Abort the run (operator, owning turn, shutdown): its nested calls are canceled, its guest stopped, and it ends. */
  abort(reason: string): void {
    if (!this.check('abort')) return;
    const live = this._live;
    this.d.state = 'aborted';
    this.abortController.abort();
    if (live) {
      live.leg.abort();
    } else {
      this.d.lastResult = failedResult(this, 'aborted', `${RUN_ABORTED_MESSAGE}: ${reason}`, [], 0, new ExecutionBudget(0));
    }
    this.wake?.();
    this.end('aborted');
    this.changed();
  }

  /** The snapshot TTL passed before a wait. */
  private expire(): void {
    if (!this.check('expire')) return;
    this.abortController.abort();
    this.end('expired');
    this.changed();
  }

  /** Give back, once, everything the run holds; then the host takes it off the run map. */
  private end(state: RunState): void {
    this.d.state = state;
    this._released = true;
    this.clearTtl();
    if (this._continuation) this.cell.executor.release(this._continuation);
    this._continuation = undefined;
    this.d.storeBuffer.clear();
    if (this.d.holdsSlot) {
      this.d.holdsSlot = false;
      this.host.slots.release(this.turn);
    }
    // cancel anything still pending: an external operation may finish, but cannot resume the guest
    if (!this.abortController.signal.aborted) this.abortController.abort();
    for (const c of this._clientCalls.values()) c.reject(new Error('the run ended'));
    this._clientCalls.clear();
    this.host.ended(this);
  }

  /**
   * Nothing of the waiting run lives only in this process: no wait holds it, every request it made has its reply (a
   * call in flight, a pending approval or client-tool call is answered through this process), so its record and
   * snapshot say all of it (durable runs evict such a run once its row is written).
   */
  get quiescent(): boolean {
    if (this.ended || this.d.state !== 'waiting' || this.resuming || this._approvalsPending > 0 || this._clientCalls.size > 0 || !this._continuation) return false;
    for (const r of this.d.requests.values()) if (!r.settled) return false;
    return true;
  }

  /**
   * Lets a quiescent waiting run go from this process without ending it (durable runs: its row is the run, and a wait
   * restores it from there): its snapshot and slot are given back and its TTL stops here (the row keeps the deadline),
   * with no end and no event. False, and nothing changed, when it is not quiescent.
   */
  evict(): boolean {
    if (!this.quiescent) return false;
    this.clearTtl();
    if (this._continuation) this.cell.executor.release(this._continuation);
    this._continuation = undefined;
    if (this.d.holdsSlot) {
      this.d.holdsSlot = false;
      this.host.slots.release(this.turn);
    }
    this._released = true;
    return true;
  }

  /** The waiting run's snapshot TTL starts now (park and rewait start it; so does a fork once it is mapped). */
  startTtl(): void {
    if (this.d.state !== 'waiting' || this.ended) throw new RunTransitionError(this.runId, 'start its TTL', this.d.state);
    this.armTtl(Date.now() + this.turn.options.snapshotTtlSeconds * 1000);
  }

  private armTtl(deadline: number): void {
    this.clearTtl();
    this.d.expiresAt = deadline;
    this.ttlTimer = setTimeout(
      () => {
        if (this.d.state === 'waiting') this.expire();
      },
      Math.max(0, deadline - Date.now()),
    );
    this.ttlTimer.unref();
  }

  private clearTtl(): void {
    if (this.ttlTimer) clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
    delete this.d.expiresAt;
  }

  /**
   * A wait with nothing to deliver idles on the run without restoring its VM: true when a reply (or the run's end)
   * woke it, false when its budget ran out or the run was aborted.
   */
  async idleUntilDeliverable(budget: ExecutionBudget): Promise<boolean> {
    this.idleBudget = budget;
    this.syncBudget();
    const woke = await new Promise<boolean>((resolve) => {
      this.wake = () => resolve(true);
      budget.whenExpired(() => resolve(false));
      this.abortController.signal.addEventListener('abort', () => resolve(false), { once: true });
    });
    this.wake = undefined;
    this.idleBudget = undefined;
    return woke;
  }

  /** A reply settled that no live leg takes now (kept for the next wait): an idle wait wakes, and the board hears of it. */
  replyKept(): void {
    this.wake?.();
    this.changed();
  }

  /** The run changed as the board shows it. */
  changed(): void {
    this.d.updatedAt = Date.now();
    this.host.changed(this);
  }

  // ---- slots, requests and replies -------------------------------------------------------------------

  /** Hold a slot of the suspended-run cap from the first host request on; returns why not when none is free. */
  claimSlot(): string | undefined {
    if (this.ended) throw new RunTransitionError(this.runId, 'claim a slot', this.d.state);
    if (this.d.holdsSlot) return undefined;
    const full = this.host.slots.claim(this.turn);
    if (full === undefined) this.d.holdsSlot = true;
    return full;
  }

  /** A checked guest request enters the run: counted in flight and under its kind, its record made under the next invocation id. */
  admitRequest(req: BridgeRequest, kind: NestedCallKind, record: (invocationId: string) => NestedCallRecord): HostRequest {
    const d = this.d;
    d.guestInFlight++;
    const n = ++d.nestedCount;
    if (kind === 'search') d.counters.search++;
    else if (kind === 'describe') d.counters.describe++;
    else if (kind === 'tool' || kind === 'mcp' || kind === 'client') d.counters.call++;
    const host: HostRequest = { req, record: record(`${this.cellId}:${n}`), delivered: false };
    d.requests.set(req.id, host);
    return host;
  }

  /** The guest yielded: the run answers it itself (delivered by the next wait) and parks the live leg now. */
  answerYield(host: HostRequest): void {
    this.d.yieldRequestId = host.req.id;
    host.settled = { id: host.req.id, ok: true, value: null };
    host.record.status = 'ok';
    host.record.endedAt = Date.now();
    if (this._live) this.requestPark(this._live);
  }

  /** The settled replies of `hosts` the guest does not have yet, each marked delivered and out of the in-flight count (the caller hands them over). */
  deliverReplies(hosts: Iterable<HostRequest>): BridgeReply[] {
    const replies: BridgeReply[] = [];
    for (const h of hosts) {
      if (!h.settled || h.delivered) continue;
      h.delivered = true;
      this.d.guestInFlight--;
      replies.push(h.settled);
    }
    return replies;
  }

  /** Whether a reply settled that the guest has not been handed yet. */
  hasDeliverable(): boolean {
    for (const r of this.d.requests.values()) if (r.settled && !r.delivered) return true;
    return false;
  }

  /** A resumed leg gets everything that settled while the run was parked, and the yield it parked on. */
  deliverPending(): void {
    const replies = this.deliverReplies(this.d.requests.values());
    delete this.d.yieldRequestId;
    if (replies.length > 0) this._live?.leg.deliver(replies);
  }

  /** A nested call needs approval: the call's budget pauses while any does. True when it is the first pending. */
  approvalBegan(): boolean {
    const first = this._approvalsPending === 0;
    this._approvalsPending++;
    this.syncBudget();
    return first;
  }

  /** An approval was decided: the budget runs again once none is pending. True when none is left. */
  approvalEnded(): boolean {
    this._approvalsPending--;
    this.syncBudget();
    return this._approvalsPending === 0;
  }

  /** A client tool call waits for the user's answer (answerClientCall); the board shows it. */
  awaitClient(callId: string, tool: string, input: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this._clientCalls.set(callId, { callId, tool, input, resolve, reject });
      this.changed();
    });
  }

  /** The request of a client call settled: it no longer waits on the user. */
  clientCallSettled(callId: string): void {
    this._clientCalls.delete(callId);
  }

  /** Answer a pending client-tool call; throws InvalidInputError when there is none by that id. */
  answerClientCall(callId: string, answer: { result?: unknown; error?: string }): void {
    const pending = this._clientCalls.get(callId);
    if (!pending) {
      throw new InvalidInputError(`no pending client tool call "${callId}" in run ${this.runId}; it was already answered or never existed`);
    }
    this._clientCalls.delete(callId);
    if (answer.error !== undefined) pending.reject(Object.assign(new Error(String(answer.error)), { code: 'client_error' }));
    else pending.resolve(answer.result === undefined ? null : answer.result);
  }

  /** A value from network-controlled tools reached the cell. */
  markNetworkContent(): void {
    this.d.networkContent = true;
  }

  /** A fork of this run was mapped. */
  noteFork(runId: string): void {
    this.d.forks.push(runId);
  }

  // ---- invariants and the record ---------------------------------------------------------------------

  /** Broken invariants of this run: `mapped` when it is on the run map (live), else it has ended. */
  leaks(mapped: boolean): string[] {
    const out: string[] = [];
    const state = this.d.state;
    if (mapped) {
      if (this._released) out.push(`run ${this.runId} was released but is still mapped`);
      if (isTerminal(state)) out.push(`run ${this.runId} is ${state} but still mapped`);
      if (state === 'waiting' && !this._continuation && !this.wake) out.push(`run ${this.runId} is waiting without a continuation`);
    } else {
      if (this.d.holdsSlot) out.push(`ended run ${this.runId} still holds a slot`);
      if (this._continuation) out.push(`ended run ${this.runId} still holds its continuation`);
      if (this._clientCalls.size > 0) out.push(`ended run ${this.runId} still has client calls`);
    }
    return out;
  }

  /**
   * What the run is, as plain JSON data (run-record.ts; a copy: later changes of the run do not reach it). A
   * QuickJS snapshot is named by reference; its bytes are `continuation.snapshot`.
   */
  toRecord(): RunRecord {
    return recordOf(this, this.turn, this.cell, this.d, this._continuation, this.catalog);
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
