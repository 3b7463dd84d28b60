// Records code-mode control calls (exec/wait and their results) and finished nested calls into session transcripts.
//
// The model's own calls are what a provider replays, so each exec/wait call appends a `tool-call` entry
// (source redacted) and a `tool-result` entry (the compact JSON the model saw). Nested calls made from a
// cell are display-only: when one finishes, a bounded `nested-activity` row is queued (written in a
// batch, Transcript.appendDeferred) with its
// invocation id and its parent (the run's exec/wait call and that call's model tool-call id, read from the
// run's own call record). Starts and partial updates are never written. A transcript write that fails never
// changes a call's outcome: the caller gets a message to surface as a warning.
import { randomUUID } from 'node:crypto';
import { redactSource } from '../cell/redact.ts';
import { resultToModelText } from '../runs/model-text.ts';
import type { CodeModeResult, ControlCallRecord, NestedCallRecord } from '../runs/types.ts';
import type { ClockMode } from '../runs/clock.ts';
import type { Transcript } from '../sessions/transcript.ts';
import type {
  ControlCallStatus,
  EntryPayloads,
  EntryType,
  NestedActivityKind,
  NestedActivityPayload,
  NestedActivityAnswer,
  NestedActivityStatus,
  ToolCallPayload,
  ToolResultPayload,
  TranscriptEntry,
} from '../sessions/types.ts';
import { runBeforeMessageWriteHooks, type CodeModePlugin } from '../tools/plugins.ts';
import { isRecord } from '../util/is-record.mjs';

// The transcript's own copies of the run's unions (sessions/ imports nothing from runs/) must stay equal to them.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const transcriptUnionsMatchRuns: [
  Same<ControlCallStatus, CodeModeResult['status']>,
  Same<NestedActivityKind, NestedCallRecord['kind']>,
  Same<NestedActivityStatus, NestedCallRecord['status']>,
  Same<NestedActivityAnswer, NonNullable<NestedCallRecord['answeredBy']>>,
] = [true, true, true, true];
void transcriptUnionsMatchRuns;

/** Tool labels and error codes are short names; anything longer is cut so one row stays one line. */
export const MAX_ACTIVITY_LABEL_CHARS = 200;

/** Finds the exec or wait call of a run that dispatched a nested call, with the run's turn (RunManager.controlCall). */
export type ControlCallLookup = (
  runId: string,
  callId: string,
) => { sessionId: string; agentRunId: string; agentId: string; call: Readonly<ControlCallRecord> } | undefined;

export function newToolCallId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
}


function bounded(text: string): string {
  return text.length > MAX_ACTIVITY_LABEL_CHARS ? `${text.slice(0, MAX_ACTIVITY_LABEL_CHARS - 1)}…` : text;
}

/** The tool-call entry of an exec: source fields redacted, only the fields the caller actually sent. */
export function execCallPayload(
  toolCallId: string,
  agentRunId: string,
  input: unknown,
  seed?: number,
  clock?: ClockMode,
  redact: (code: string) => string = redactSource,
): ToolCallPayload {
  const payload: ToolCallPayload = { tool: 'exec', toolCallId, agentRunId, ...(seed !== undefined ? { seed } : {}), ...(clock !== undefined ? { clock } : {}) };
  if (!isRecord(input)) return payload;
  if (typeof input.code === 'string') payload.code = redact(input.code);
  if (typeof input.command === 'string') payload.command = redact(input.command);
  if (input.language === 'javascript' || input.language === 'typescript') payload.language = input.language;
  if (typeof input.restartSafe === 'boolean') payload.restartSafe = input.restartSafe;
  if (typeof input.typecheck === 'boolean') payload.typecheck = input.typecheck;
  return payload;
}

export function waitCallPayload(toolCallId: string, agentRunId: string, input: unknown): ToolCallPayload {
  const runId = isRecord(input) && typeof input.runId === 'string' ? input.runId : undefined;
  return { tool: 'wait', toolCallId, agentRunId, ...(runId !== undefined ? { runId: bounded(runId) } : {}) };
}

/** `gateway`: the instance id of the Gateway recording it, kept on a waiting result (the Gateway that holds the run). */
export function toolResultPayload(tool: 'exec' | 'wait', toolCallId: string, result: CodeModeResult, gateway?: string): ToolResultPayload {
  const runId = result.status === 'waiting' ? result.runId : result.telemetry.runId;
  return {
    tool,
    toolCallId,
    status: result.status,
    ...(runId ? { runId } : {}),
    ...(result.status === 'failed' && result.code ? { errorCode: result.code } : {}),
    ...(result.status === 'waiting' ? { reason: result.reason, ...(gateway !== undefined ? { gateway } : {}) } : {}),
    text: resultToModelText(result),
  };
}

export function activityPayload(runId: string, record: NestedCallRecord, parentToolCallId: string | undefined): NestedActivityPayload {
  return {
    runId,
    parentCallId: record.parentCallId,
    ...(parentToolCallId ? { parentToolCallId } : {}),
    invocationId: record.invocationId,
    requestId: bounded(record.requestId),
    tool: bounded(record.tool),
    kind: record.kind,
    status: record.status,
    ...(record.errorCode ? { errorCode: bounded(record.errorCode) } : {}),
    inputBytes: record.inputBytes,
    ...(record.outputBytes !== undefined ? { outputBytes: record.outputBytes } : {}),
    startedAt: record.startedAt,
    ...(record.endedAt !== undefined ? { endedAt: record.endedAt } : {}),
    ...(record.answeredBy ? { answeredBy: record.answeredBy } : {}),
  };
}

const FINISHED: ReadonlySet<NestedCallRecord['status']> = new Set<NestedCallRecord['status']>(['ok', 'error', 'canceled']);

export class TranscriptRecorder {
  private closed = false;

  constructor(
    private readonly transcript: Transcript,
    private readonly controlCall: ControlCallLookup,
    /** Failures nobody awaits (nested activity) are reported here. */
    private readonly report: (message: string) => void = () => {},
    /** Plugins whose before_message_write hooks see each nested-activity row before it is written (and may keep it out). */
    private readonly plugins: readonly CodeModePlugin[] = [],
  ) {}

  /** Appends a control-call entry; resolves to a warning when it could not be written (never rejects). */
  async append<K extends EntryType>(sessionId: string, type: K, payload: EntryPayloads[K]): Promise<string | undefined> {
    if (this.closed) return undefined;
    try {
      await this.transcript.appendEntry(sessionId, type, payload);
      return undefined;
    } catch (err) {
      return `the session transcript did not record this ${type}: ${(err as Error).message}`;
    }
  }

  /** A nested call finished: one display-only row under the session's branch, filed under the call that dispatched it. */
  nestedFinished(runId: string, record: NestedCallRecord): void {
    if (this.closed || !FINISHED.has(record.status)) return;
    // a run already dropped from the run history has no board to show it either
    const parent = this.controlCall(runId, record.parentCallId);
    if (!parent) return;
    const message = activityPayload(runId, record, parent.call.toolCallId);
    // spec 02: a before_message_write hook may suppress the row; the call it records still happened and still counts
    const hooked = runBeforeMessageWriteHooks(this.plugins, { type: 'nested-activity', sessionId: parent.sessionId, agentRunId: parent.agentRunId, agentId: parent.agentId, message });
    if (hooked.suppressedBy) {
      if (hooked.suppressedBy.failure) this.report(hooked.suppressedBy.failure);
      return;
    }
    // batched: a cell's calls are written a few transactions at a time, before anything reads them
    try {
      this.transcript.appendDeferred(parent.sessionId, 'nested-activity', message, this.report);
    } catch (err) {
      this.report(`the session transcript did not record this nested-activity: ${(err as Error).message}`);
    }
  }

  /** Writes the queued nested-activity rows; later calls record nothing. */
  async close(): Promise<void> {
    const flush = !this.closed && this.transcript.open;
    this.closed = true;
    if (flush) await this.transcript.flushDeferred();
  }
}

/**
 * A turn's nested activity as the transcript holds it (spec 02: "agent-end hooks read the accepted activity for their
 * attempt from the transcript"): the rows filed under the turn's own exec and wait calls, oldest first. Rows a
 * before_message_write hook suppressed were never written, so they are not here.
 */
export function turnActivity(branch: readonly TranscriptEntry[], agentRunId: string): NestedActivityPayload[] {
  const calls = new Set<string>();
  for (const e of branch) if (e.type === 'tool-call' && e.payload.agentRunId === agentRunId) calls.add(e.payload.toolCallId);
  const out: NestedActivityPayload[] = [];
  for (const e of branch) {
    if (e.type === 'nested-activity' && e.payload.parentToolCallId !== undefined && calls.has(e.payload.parentToolCallId)) out.push(e.payload);
  }
  return out;
}
