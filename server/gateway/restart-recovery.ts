// Restart recovery (spec 01, restartSafe; spec 02): `wait` on a run an earlier Gateway process parked, answered from the session transcript.
//
// Continuations never outlive the process (spec 02), but the transcript does: each exec/wait call is recorded with
// its redacted source, `restartSafe`, seed and clock, and each result with its run id (recorder.ts). When `wait`
// names a run this process does not know, the turn's session branch is searched for it. A run id of another session
// is simply not there and stays "unavailable" (ids never leak across sessions); a run recorded by this process (its
// entries are newer than the Gateway) is the run manager's business, not ours.
//
// A run the transcript shows still waiting is then either rebuilt or refused:
// - restartSafe: spec 01 marks its suspended results replay-safe "so restart recovery can reconstruct an
//   interrupted turn from its transcript instead of restoring the process-local snapshot". The recorded source
//   runs again under the waiting turn, with the recorded seed and clock and the same run id, so its answer is the
//   run's own; its tool calls are dispatched again, which the dispatcher allows only for replay-safe tools (audited
//   read-only core tools and plugin tools marked replaySafe), the rule the cell already ran under. The yields the
//   model had already continued past are passed again without it, so its wait continues where it left the cell.
// - anything else: a `failed` result with runtime_unavailable saying the Gateway restarted and the run could not
//   be kept, never "unknown run".
// A run that had already finished before the restart is answered as the live path answers a finished run
// (invalid_input), naming what the transcript recorded. Everything read from the transcript is hostile: a damaged
// row gives a failed result naming what is wrong, never a throw.
import { CodeModeError, InvalidInputError } from '../errors.ts';
import type { ClockPlan } from '../runs/clock.ts';
import { MSG_ALREADY_RESUMING, MSG_UNAVAILABLE } from '../runs/messages.ts';
import { MAX_SEED } from '../runs/seed.ts';
import type { CodeModeExecInput, CodeModeResult } from '../runs/types.ts';
import type { TranscriptEntry } from '../sessions/types.ts';
import { REDACTION_MASK } from '../cell/redact.ts';
import { isGatewayInstanceId } from '../durable/instance-id.ts';
import { heldElsewhereMessage } from './presence.ts';
import { isRecord } from '../util/is-record.mjs';

/** What the transcript says about one run id. */
export type RecordedRun =
  /** Not on this branch (another session's id, a made-up one), or recorded by this process: the run manager answers. */
  | { kind: 'absent' }
  /** Its rows are there but cannot be trusted: what is wrong, for the failed result. */
  | { kind: 'damaged'; reason: string }
  /** Its last recorded result was final. */
  | { kind: 'finished'; status: 'completed' | 'failed'; errorCode?: string }
  /** Its last recorded result was `waiting`: the exec that started it, as recorded. */
  /** Its last recorded result was `waiting`: the exec that started it, as recorded, and the Gateway that recorded it (when kept). */
  | { kind: 'waiting'; exec: RecordedExec; gateway?: string };

/** The exec call that started a run, as the transcript keeps it (source redacted). */
export interface RecordedExec {
  toolCallId: string;
  input: CodeModeExecInput;
  restartSafe: boolean;
  seed?: number;
  clock: 'real' | 'logical' | 'replayed';
  /**
   * The yield_control calls the cell had passed when the model asked to continue it: its waiting results that parked
   * on a yield, the last one included (the wait being answered continues past it). A rebuilt cell passes them again.
   */
  yieldsPassed: number;
}

/**
 * The run's rows on `branch` (root first). `self`: this Gateway's instance id; a last result that names its Gateway is
 * this process's when it names this one. `startedAt`: when this Gateway started; a row that names no Gateway (an
 * earlier build's) is this process's when written after it.
 */
export function findRecordedRun(branch: readonly TranscriptEntry[], runId: string, startedAt: number, self?: string): RecordedRun {
  let execResult: Extract<TranscriptEntry, { type: 'tool-result' }> | undefined;
  let execIndex = -1;
  let last: Extract<TranscriptEntry, { type: 'tool-result' }> | undefined;
  let yieldsPassed = 0;
  for (const [i, entry] of branch.entries()) {
    if (entry.type !== 'tool-result' || !isRecord(entry.payload) || entry.payload.runId !== runId) continue;
    last = entry;
    if (entry.payload.status === 'waiting' && waitingReason(entry.payload) === 'yield') yieldsPassed++;
    if (execResult === undefined && entry.payload.tool === 'exec') {
      execResult = entry;
      execIndex = i;
    }
  }
  if (!last) return { kind: 'absent' };
  // written by this process: the run manager knew the run, and has let it go (expired, dropped from its history)
  // (the same millisecond counts as earlier: a process writes nothing before it has started). A row naming its
  // Gateway says whose it is, however new: another live Gateway of the group writes rows after this one started.
  const gateway = isGatewayInstanceId(last.payload.gateway) ? last.payload.gateway : undefined;
  if (gateway !== undefined ? gateway === self : typeof last.createdAt !== 'number' || !(last.createdAt <= startedAt)) return { kind: 'absent' };
  const status: unknown = last.payload.status;
  if (status === 'completed' || status === 'failed') {
    const errorCode = typeof last.payload.errorCode === 'string' ? last.payload.errorCode.slice(0, 40) : undefined;
    return { kind: 'finished', status, ...(errorCode ? { errorCode } : {}) };
  }
  if (status !== 'waiting') return { kind: 'damaged', reason: `its last recorded result has status ${shown(status)}, not completed, waiting or failed` };
  if (!execResult || execResult.payload.status !== 'waiting') {
    return { kind: 'damaged', reason: 'the transcript holds no waiting exec result that started it' };
  }
  const toolCallId = execResult.payload.toolCallId;
  const call = branch.slice(0, execIndex).findLast((e) => e.type === 'tool-call' && isRecord(e.payload) && e.payload.tool === 'exec' && e.payload.toolCallId === toolCallId);
  if (typeof toolCallId !== 'string' || !call || call.type !== 'tool-call') {
    return { kind: 'damaged', reason: 'the transcript holds no exec call for the result that started it' };
  }
  const recorded = recordedExec(toolCallId, call.payload, yieldsPassed);
  return recorded.kind === 'waiting' && gateway !== undefined ? { ...recorded, gateway } : recorded;
}

/** Why a recorded waiting result parked: its `reason`, or for rows written before results kept it, the model text's. */
function waitingReason(payload: Record<string, unknown>): unknown {
  if (payload.reason !== undefined) return payload.reason;
  if (typeof payload.text !== 'string' || !payload.text.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(payload.text);
    return isRecord(parsed) ? parsed.reason : undefined;
  } catch {
    return undefined;
  }
}

/** The exec call's fields, each checked: a field of the wrong type is damage, named. */
function recordedExec(toolCallId: string, p: Record<string, unknown> | object, yieldsPassed: number): RecordedRun {
  const payload = p as Record<string, unknown>;
  const damaged = (field: string, expected: string): RecordedRun => ({ kind: 'damaged', reason: `its exec call's ${field} is ${shown(payload[field])}, not ${expected}` });
  const input: CodeModeExecInput = {};
  for (const field of ['code', 'command'] as const) {
    const v = payload[field];
    if (v === undefined) continue;
    if (typeof v !== 'string') return damaged(field, 'a string');
    input[field] = v;
  }
  if (input.code === undefined && input.command === undefined) return { kind: 'damaged', reason: 'its exec call has neither code nor command' };
  const { language, restartSafe, seed, clock } = payload;
  if (language !== undefined && language !== 'javascript' && language !== 'typescript') return damaged('language', '"javascript" or "typescript"');
  if (language !== undefined) input.language = language;
  if (restartSafe !== undefined && typeof restartSafe !== 'boolean') return damaged('restartSafe', 'true or false');
  if (restartSafe === true) input.restartSafe = true;
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > MAX_SEED)) return damaged('seed', `an integer from 0 to ${MAX_SEED}`);
  if (clock !== undefined && clock !== 'real' && clock !== 'logical' && clock !== 'replayed') return damaged('clock', '"real", "logical" or "replayed"');
  return {
    kind: 'waiting',
    exec: { toolCallId, input, restartSafe: restartSafe === true, ...(seed !== undefined ? { seed } : {}), clock: clock ?? 'real', yieldsPassed },
  };
}

/** A hostile value in a message: its JSON, short. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = typeof value;
  }
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** What the model reads when a run that was not restartSafe was waiting when the Gateway stopped. */
export function notKeptMessage(runId: string): string {
  return (
    `code mode run ${runId} could not be kept: the Gateway restarted while it was waiting, and it was not restartSafe, so its ` +
    'process-local state was lost (only restartSafe cells are rebuilt from the transcript; runs.durable keeps parked runs in the session database). ' +
    'Check what its earlier tool calls may already have done, then run the cell again.'
  );
}

/** What the model reads when a restartSafe run cannot be rebuilt (`why` says what stands in the way). */
export function notRebuiltMessage(runId: string, why: string): string {
  return `code mode run ${runId} could not be rebuilt after the Gateway restarted: ${why}. Run the cell again.`;
}

/** What a rebuilt run's completed result says about how it got there (its output and calls were made again). */
export function rebuiltWarning(yieldsPassed: number): string {
  const yields = yieldsPassed > 0 ? `, passing again the ${yieldsPassed === 1 ? 'yield' : `${yieldsPassed} yields`} already continued` : '';
  return `the Gateway restarted while this run waited: it was rebuilt from the session transcript and run again from the start (its replay-safe calls made again${yields}); output printed before the restart is printed again`;
}

/** How a recorded cell runs again in the waiting turn (ControlCalls). */
export interface Reexec {
  /** Starts the cell under its old run id: hooks, validation, executor, run. */
  start(input: CodeModeExecInput, opts: { runId: string; seed: number | undefined; clock: ClockPlan }): Promise<CodeModeResult>;
  /** Continues the rebuilt run past the yield it parked on (RunManager.wait). */
  resume(runId: string): Promise<CodeModeResult>;
}

export interface RestartRecoveryDeps {
  /** The turn session's current branch, root first (Transcript.branch). */
  branch(sessionId: string): Promise<TranscriptEntry[]>;
  /** Whether this process knows the run (live or in its history): then the run manager answers. */
  knows(runId: string): boolean;
  /** When this Gateway started (epoch ms): transcript rows from before it are an earlier process's. */
  startedAt: number;
  /** This Gateway's instance id: a recorded result naming it is this process's. */
  instanceId?: string;
  /** Whether the Gateway `instanceId` is up (presence.ts): a run it holds is refused naming it, not rebuilt. Never rejects. */
  holderUp?(instanceId: string): Promise<boolean>;
}

/** `wait` for runs an earlier process parked; one per Gateway. */
export class RestartRecovery {
  /** Runs being rebuilt now: a second wait on one of them is refused as already resuming, as for a live run. */
  private readonly rebuilding = new Set<string>();

  constructor(private readonly deps: RestartRecoveryDeps) {}

  /**
   * The answer to `wait(runId)` in `sessionId` when an earlier process parked the run; undefined when the run
   * manager should answer (it knows the run, or the transcript does not). Never rejects for transcript damage: a
   * throw is a CodeModeError the caller turns into a failed result before any guest ran.
   */
  async wait(sessionId: string, runId: string, reexec: Reexec): Promise<CodeModeResult | undefined> {
    if (this.deps.knows(runId)) return undefined;
    if (this.rebuilding.has(runId)) throw new InvalidInputError(MSG_ALREADY_RESUMING);
    this.rebuilding.add(runId);
    try {
      const recorded = await this.recorded(sessionId, runId);
      // a rebuild that finished while this one read the transcript made the run the run manager's
      if (recorded.kind === 'absent' || this.deps.knows(runId)) return undefined;
      if (recorded.kind === 'damaged') throw new CodeModeError('runtime_unavailable', notRebuiltMessage(runId, `its transcript rows are damaged (${recorded.reason})`));
      if (recorded.kind === 'finished') {
        const how = recorded.status === 'failed' && recorded.errorCode ? `failed (${recorded.errorCode})` : recorded.status;
        throw new InvalidInputError(`${MSG_UNAVAILABLE} Run ${runId} had already ${how} before the Gateway restarted; its result is in the transcript.`);
      }
      // a live Gateway of the group holds the run in its memory: rebuilding it here would run the cell twice
      if (recorded.gateway !== undefined && (await this.deps.holderUp?.(recorded.gateway))) {
        throw new CodeModeError('runtime_unavailable', heldElsewhereMessage(runId, recorded.gateway));
      }
      const { exec } = recorded;
      if (!exec.restartSafe) throw new CodeModeError('runtime_unavailable', notKeptMessage(runId));
      const source = exec.input.code ?? exec.input.command ?? '';
      // the transcript keeps source with credentials masked: running the masked text would be another cell
      if (source.includes(REDACTION_MASK)) throw new CodeModeError('runtime_unavailable', notRebuiltMessage(runId, `its recorded source has values masked (${REDACTION_MASK}), so it is not the cell that ran`));
      if (exec.clock === 'replayed') throw new CodeModeError('runtime_unavailable', notRebuiltMessage(runId, 'it replayed a cassette, which the transcript does not keep; replay the cassette again'));
      let result = await reexec.start(exec.input, { runId, seed: exec.seed, clock: { mode: exec.clock } });
      // the model already saw (and continued past) these yields before the restart: the rebuilt cell passes them again
      for (let passed = 0; passed < exec.yieldsPassed && result.status === 'waiting' && result.reason === 'yield'; passed++) {
        result = await reexec.resume(runId);
      }
      return result.status === 'completed' ? { ...result, warnings: [...(result.warnings ?? []), rebuiltWarning(exec.yieldsPassed)] } : result;
    } finally {
      this.rebuilding.delete(runId);
    }
  }

  private async recorded(sessionId: string, runId: string): Promise<RecordedRun> {
    let branch: TranscriptEntry[];
    try {
      branch = await this.deps.branch(sessionId);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new CodeModeError(
        'runtime_unavailable',
        `code mode run ${runId} is not in this Gateway process, and the session transcript, where the runs of an earlier process are looked up, could not be read (${why}). Run the cell again.`,
      );
    }
    try {
      return findRecordedRun(branch, runId, this.deps.startedAt, this.deps.instanceId);
    } catch (err) {
      return { kind: 'damaged', reason: err instanceof Error ? err.message : String(err) };
    }
  }
}
