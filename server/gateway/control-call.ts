// One model-level exec or wait call: its transcript entries around the call, and failures before a guest run as results.
import type { ExecutorKind } from '../config/types.ts';
import { CodeModeError, InvalidInputError, type CodeModeErrorCode } from '../errors.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { newToolCallId, toolResultPayload, type TranscriptRecorder } from './recorder.ts';
import type { ToolCallPayload } from '../sessions/types.ts';
import { runBeforeToolCallHooks, type CodeModePlugin } from '../tools/plugins.ts';
import type { TurnInfo } from '../gateway-types.ts';

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
 * nothing is recorded (unknown turn, closing Gateway). Transcript write failures never change the outcome.
 */
export async function runControlCall(recorder: TranscriptRecorder, sessionId: string | undefined, call: ControlCall): Promise<CodeModeResult> {
  const toolCallId = typeof call.toolCallId === 'string' && call.toolCallId !== '' ? call.toolCallId : newToolCallId();
  const notes: string[] = [];
  const note = (warning: string | undefined) => void (warning && notes.push(warning));
  if (sessionId) note(recorder.append(sessionId, 'tool-call', call.callPayload(toolCallId)));
  let result: CodeModeResult;
  try {
    result = await call.run(toolCallId);
  } catch (err) {
    result = failedBeforeRun(err, call.executor);
  }
  if (sessionId) note(recorder.append(sessionId, 'tool-result', toolResultPayload(call.tool, toolCallId, result)));
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
export function failedBeforeRun(err: unknown, executor: ExecutorKind): CodeModeResult {
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
export async function outerExecHooks(plugins: readonly CodeModePlugin[], turn: TurnInfo, input: unknown): Promise<unknown> {
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
export function oversizeSource(input: unknown, maxSourceBytes: number): { field: 'code' | 'command'; bytes: number; message: string } | undefined {
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

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
