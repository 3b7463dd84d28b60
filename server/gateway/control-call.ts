// A model's exec and wait calls: one path that records the call, runs it in its turn and records the result.
//
// Both calls append a `tool-call` entry, run (the RunManager records the call on the run under the model's
// tool-call id), then append a `tool-result` entry with the text the model saw. Anything that fails before
// or instead of a guest run (unknown turn, invalid input, a blocking hook, an executor that cannot start) is
// a failed result, never a throw.
import { checkDeclarations } from '../catalog/named-types.ts';
import { inferredOverlay, withInferred } from '../catalog/inferred-overlay.ts';
import type { ExecutorKind } from '../config/types.ts';
import { CodeModeError, InvalidInputError, type CodeModeErrorCode } from '../errors.ts';
import type { ExecOptions, TurnInfo, WaitOptions } from '../gateway-types.ts';
import type { RunManager } from '../runs/runs.ts';
import type { CodeModeExecInput, CodeModeResult } from '../runs/types.ts';
import type { ToolCallPayload } from '../sessions/types.ts';
import { prepareExec } from '../cell/index.ts';
import { runBeforeToolCallHooks, type CodeModePlugin } from '../tools/plugins.ts';
import type { ExecutorSet } from './executors.ts';
import { execCallPayload, newToolCallId, toolResultPayload, waitCallPayload, type TranscriptRecorder } from './recorder.ts';
import type { DurableRuns } from './durable-runs.ts';
import type { Turn } from './turns.ts';
import { isRecord } from '../util/is-record.mjs';
import { resolveSeed } from '../runs/seed.ts';
import { CassetteReplayer, parseCassette, type Cassette } from '../runs/cassette.ts';
import type { ClockPlan } from '../runs/clock.ts';
import type { Transcript } from '../sessions/transcript.ts';
import { notKeptMessage, notRebuiltMessage, RestartRecovery } from './restart-recovery.ts';

/**
 * The clock a cell reads: a replay's recorded readings (or, for a cassette recorded before readings were kept, its
 * seed's logical clock); else the caller's choice; else the seed's logical clock when the caller gave a seed (the
 * run must repeat), and the host's real clock otherwise.
 */
export function clockPlan(opts: Pick<ExecOptions, 'seed' | 'clock'>, cassette: Cassette | undefined): ClockPlan {
  if (cassette) return cassette.clock ? { mode: 'replayed', recording: cassette.clock } : { mode: 'logical' };
  if (opts.clock === 'real' || opts.clock === 'logical') return { mode: opts.clock };
  return { mode: opts.seed !== undefined ? 'logical' : 'real' };
}

/** A replay's exec input: the caller's cell, or the cassette's own source when the caller sent none. */
function replayInput(input: CodeModeExecInput, cassette: Cassette): CodeModeExecInput {
  const given = isRecord(input) && (typeof input.code === 'string' || typeof input.command === 'string');
  return given ? input : { ...(isRecord(input) ? input : {}), code: cassette.code, language: cassette.language };
}

export interface ControlCallDeps {
  recorder: TranscriptRecorder;
  runs: Pick<RunManager, 'exec' | 'wait' | 'get'>;
  /** The session transcripts: a wait on a run an earlier process parked is answered from them (restart-recovery.ts). */
  transcript: Pick<Transcript, 'branch'>;
  executors: ExecutorSet;
  plugins: readonly CodeModePlugin[];
  /** Cell source as the transcript keeps it (the Gateway's registered secrets and patterns masked too). */
  redact?: (code: string) => string;
  /** True once the Gateway is closing: calls are refused and no longer recorded. */
  closed(): boolean;
  /** Durable runs (runs.durable): a wait on a run this process does not hold resumes it from the session database. */
  durable?: Pick<DurableRuns, 'turnFor' | 'beforeWait' | 'settled'>;
  /** This Gateway's instance id (kept on its waiting results) and whether another is up: a wait for a run a live Gateway holds names it (presence.ts). */
  presence?: { instanceId: string; live(instanceId: string): Promise<unknown> };
}

export class ControlCalls {
  private readonly recovery: RestartRecovery;

  constructor(private readonly deps: ControlCallDeps) {
    const startedAt = Date.now();
    const presence = deps.presence;
    this.recovery = new RestartRecovery({
      branch: (sessionId) => deps.transcript.branch(sessionId),
      knows: (runId) => deps.runs.get(runId) !== undefined,
      startedAt,
      ...(presence ? { instanceId: presence.instanceId, holderUp: async (id: string) => (await presence.live(id)) !== undefined } : {}),
    });
  }

  /** `turn`: the live turn of `agentRunId`, if any (the Gateway looks it up and marks it used). */
  exec(turn: Turn | undefined, agentRunId: string, execInput: CodeModeExecInput, opts: ExecOptions): Promise<CodeModeResult> {
    // the seed (and a replay's cassette) are settled before the call is recorded, so its exec entry names the seed
    let seed: number | undefined;
    let cassette: Cassette | undefined;
    let replayError: unknown;
    try {
      cassette = opts.replay !== undefined ? parseCassette(opts.replay) : undefined;
      seed = resolveSeed(opts.seed ?? cassette?.seed);
    } catch (err) {
      replayError = err;
    }
    const clock = clockPlan(opts, cassette);
    const input = cassette ? replayInput(execInput, cassette) : execInput;
    const oversize = turn ? oversizeSource(input, turn.scope.options.maxSourceBytes) : undefined;
    // an oversize source is refused before the transcript keeps it: only a note of its size is recorded
    const recorded = oversize ? { ...(input as object), [oversize.field]: `(${oversize.bytes} bytes, not kept: over maxSourceBytes)` } : input;
    return runControlCall(this.deps.recorder, this.recordsFor(turn), this.deps.presence?.instanceId, {
      tool: 'exec',
      toolCallId: opts.toolCallId,
      executor: opts.executor ?? turn?.scope.options.executor ?? 'quickjs',
      callPayload: (toolCallId) => execCallPayload(toolCallId, agentRunId, recorded, seed, clock.mode, this.deps.redact),
      run: async (toolCallId) => {
        if (oversize) throw new InvalidInputError(oversize.message);
        if (seed === undefined) throw replayError;
        return this.keptDurable(await this.startCell(this.liveTurn(turn, agentRunId), input, { ...opts, toolCallId, seed, clock, ...(cassette ? { cassette } : {}) }));
      },
    });
  }

  /**
   * A cell from the caller's input to its run: the outer exec hooks, validation and preparation, the executor, the
   * run. `runId`: the run it continues (restart recovery rebuilds a run under its old id, and only a restartSafe one).
   */
  private async startCell(
    live: Turn,
    input: CodeModeExecInput,
    opts: Pick<ExecOptions, 'executor' | 'typecheckInferred'> & { toolCallId: string; seed: number; clock: ClockPlan; cassette?: Cassette; runId?: string },
  ): Promise<CodeModeResult> {
    if (!live.info.surface.codeMode) {
      throw new InvalidInputError(`code mode is not active for this agent run (${live.info.surface.reason}); call the tools directly`);
    }
    const rawInput = input as unknown;
    const hooked = await outerExecHooks(this.deps.plugins, live.info, rawInput);
    const prepared = await prepareExec(hooked, {
      // the inferred types only when the caller opted in: they are guesses from this turn's results
      ambientDeclarations: () =>
        opts.typecheckInferred ? withInferred(checkDeclarations(live.catalog), inferredOverlay(live.catalog, live.scope.inferredOutputs)) : checkDeclarations(live.catalog),
      signal: live.scope.abort.signal,
      runKey: live.info.agentRunId,
      owner: live.scope.owner,
      ...(hooked !== rawInput ? { callerInput: rawInput } : {}),
    });
    // a hook that took restartSafe off a recorded cell made it a cell that may not be run twice
    if (opts.runId !== undefined && !prepared.input.restartSafe) throw new CodeModeError('runtime_unavailable', notKeptMessage(opts.runId));
    const executor = await this.deps.executors.get(opts.executor ?? live.scope.options.executor);
    return this.deps.runs.exec(live.scope, {
      body: prepared.body,
      code: prepared.input.code,
      language: prepared.language,
      executor,
      restartSafe: prepared.input.restartSafe,
      toolCallId: opts.toolCallId,
      seed: opts.seed,
      clock: opts.clock,
      ...(opts.runId !== undefined ? { runId: opts.runId } : {}),
      ...(opts.cassette ? { replay: new CassetteReplayer(opts.cassette) } : {}),
    });
  }

  async wait(known: Turn | undefined, agentRunId: string, input: { runId: string }, opts: WaitOptions): Promise<CodeModeResult> {
    // durable runs: a turn from before a restart is opened again for the caller holding its token
    const turn = known ?? (this.deps.closed() ? undefined : await this.deps.durable?.turnFor(agentRunId, opts.turnToken, input?.runId, { operator: opts.operator === true }));
    return runControlCall(this.deps.recorder, this.recordsFor(turn), this.deps.presence?.instanceId, {
      tool: 'wait',
      toolCallId: opts.toolCallId,
      executor: turn?.scope.options.executor ?? 'quickjs',
      callPayload: (toolCallId) => waitCallPayload(toolCallId, agentRunId, input),
      run: async (toolCallId) => {
        const live = this.liveTurn(turn, agentRunId);
        if (typeof input?.runId !== 'string' || input.runId.trim() === '') {
          throw new InvalidInputError('wait: runId must be the non-empty runId of a waiting exec result');
        }
        // durable runs: a run this process does not hold is restored from its row in the session database
        const restored = await this.deps.durable?.beforeWait(live.scope, input.runId);
        if (restored) return restored;
        // a run an earlier process parked is answered from the session's transcript (restart-recovery.ts)
        const scope = { agentRunId, sessionId: live.info.sessionId };
        const rebuilt = await this.recovery.wait(live.info.sessionId, input.runId, {
          start: (cell, o) => {
            // a recorded source is as hostile as a sent one: a row grown past the limit is refused the same way
            const over = oversizeSource(cell, live.scope.options.maxSourceBytes);
            if (over) throw new CodeModeError('runtime_unavailable', notRebuiltMessage(o.runId, `its recorded source is over the limit (${over.message})`));
            return this.startCell(live, cell, { toolCallId, seed: resolveSeed(o.seed), clock: o.clock, runId: o.runId });
          },
          resume: (runId) => this.deps.runs.wait(scope, runId, toolCallId),
        });
        return this.keptDurable(rebuilt ?? (await this.deps.runs.wait(scope, input.runId, toolCallId)), input.runId);
      },
    });
  }

  /**
   * Durable runs: a result about run `runId` (a waiting result names its own) goes out once the run's row is written
   * or deleted, so a client never holds a run id the store has not got, nor sees an end the store could undo; a run a
   * cap of the store kept from parking answers as failed.
   */
  private async keptDurable(result: CodeModeResult, runId?: string): Promise<CodeModeResult> {
    const id = result.status === 'waiting' ? result.runId : runId;
    const refused = this.deps.durable && id !== undefined ? await this.deps.durable.settled(id) : undefined;
    // a suspended-run cap counted in the session database (every Gateway, earlier processes) kept the run from waiting
    return refused !== undefined && result.status === 'waiting' ? { status: 'failed', error: refused, code: 'runtime_unavailable', telemetry: result.telemetry } : result;
  }

  /** The session a call of `turn` is recorded in: none for an unknown turn or once the Gateway is closing. */
  private recordsFor(turn: Turn | undefined): string | undefined {
    return this.deps.closed() ? undefined : turn?.info.sessionId;
  }

  /** The turn a cell runs in, while the Gateway is open. */
  private liveTurn(turn: Turn | undefined, agentRunId: string): Turn {
    if (this.deps.closed()) throw new CodeModeError('runtime_unavailable', 'the gateway is shutting down');
    if (!turn) throw new InvalidInputError(`unknown agent run "${agentRunId}"; prepare a turn first`);
    return turn;
  }
}

/** One model-level exec or wait call, as runControlCall runs it. */
export interface ControlCall {
  tool: 'exec' | 'wait';
  /** As the caller gave it; one is made up when absent or empty. */
  toolCallId: string | undefined;
  /** What a failure before the guest ran reports as its executor. */
  executor: ExecutorKind;
  /** The transcript's tool-call entry. */
  callPayload(toolCallId: string): ToolCallPayload;
  /** Runs the call (the run records it under its tool-call id); a throw is a failure before or instead of a guest run. */
  run(toolCallId: string): Promise<CodeModeResult>;
}

/**
 * The one path of an exec or wait: the tool-call entry, the call, the tool-result entry. `sessionId` undefined:
 * nothing is recorded (unknown turn, closing Gateway). `gateway`: this Gateway's instance id, kept on a waiting result.
 * Transcript write failures never change the outcome.
 */
async function runControlCall(recorder: TranscriptRecorder, sessionId: string | undefined, gateway: string | undefined, call: ControlCall): Promise<CodeModeResult> {
  const toolCallId = typeof call.toolCallId === 'string' && call.toolCallId !== '' ? call.toolCallId : newToolCallId();
  const notes: string[] = [];
  const note = (warning: string | undefined) => void (warning && notes.push(warning));
  if (sessionId) note(await recorder.append(sessionId, 'tool-call', call.callPayload(toolCallId)));
  let result: CodeModeResult;
  try {
    result = await call.run(toolCallId);
  } catch (err) {
    result = failedBeforeRun(err, call.executor);
  }
  if (sessionId) note(await recorder.append(sessionId, 'tool-result', toolResultPayload(call.tool, toolCallId, result, gateway)));
  return withTranscriptNotes(result, notes);
}

/** Transcript write failures never change an outcome; a completed result says so in its warnings. */
function withTranscriptNotes(result: CodeModeResult, notes: string[]): CodeModeResult {
  if (notes.length === 0) return result;
  for (const n of notes) console.warn(`[sessions] ${n}`);
  if (result.status !== 'completed') return result;
  return { ...result, warnings: [...(result.warnings ?? []), ...notes] };
}

/** A failure before (or instead of) a guest run, as the model sees it. */
function failedBeforeRun(err: unknown, executor: ExecutorKind): CodeModeResult {
  const code: CodeModeErrorCode = err instanceof CodeModeError ? err.code : 'internal_error';
  const error = err instanceof Error ? err.message : String(err);
  return {
    status: 'failed',
    error,
    code,
    telemetry: { executor, durationMs: 0, budgetUsedMs: 0, counters: { search: 0, describe: 0, call: 0 }, nestedCalls: 0, outputBytes: 0 },
  };
}

/** Outer exec hook event: `toolKind: "code_mode_exec"` lets policies tell cells from shell exec. Returns the (maybe rewritten) input. */
async function outerExecHooks(plugins: readonly CodeModePlugin[], turn: TurnInfo, input: unknown): Promise<unknown> {
  const language = isRecord(input) && (input.language === 'typescript' || input.language === 'javascript') ? input.language : 'javascript';
  const out = await runBeforeToolCallHooks(plugins, {
    tool: 'exec',
    source: 'core',
    input,
    agentId: turn.agentId,
    sessionId: turn.sessionId,
    agentRunId: turn.agentRunId,
    invocationId: `${turn.agentRunId}:exec`,
    toolKind: 'code_mode_exec',
    toolInputKind: language,
  });
  if (out.blocked) throw new InvalidInputError(`exec was blocked by a before_tool_call hook: ${out.blocked.reason} (plugin ${out.blocked.plugin})`);
  return out.input;
}

/** The field (`code` or `command`) whose source is over `maxSourceBytes`, with the refusal the model reads. */
function oversizeSource(input: unknown, maxSourceBytes: number): { field: 'code' | 'command'; bytes: number; message: string } | undefined {
  if (!isRecord(input)) return undefined;
  for (const field of ['code', 'command'] as const) {
    const source = input[field];
    if (typeof source !== 'string' || source.length * 3 <= maxSourceBytes) continue;
    const bytes = Buffer.byteLength(source, 'utf8');
    if (bytes <= maxSourceBytes) continue;
    return {
      field,
      bytes,
      message:
        `exec: the cell's ${field} is ${bytes} bytes, over the limit of ${maxSourceBytes} bytes (tools.codeMode.maxSourceBytes); ` +
        'send a smaller cell: fetch data with tool calls or load() inside the cell instead of pasting it into the source',
    };
  }
  return undefined;
}

