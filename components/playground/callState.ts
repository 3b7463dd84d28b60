// The exec or wait call the result panel shows: in flight, settled with a result, or failed to reach the Gateway.
import type { ExecResult, Run } from '../api.ts';

/** A run's last exec/wait result as run views carry it: without the model text (only the page's own calls have it). */
export type RunResult = NonNullable<Run['lastResult']>;

export interface CellCall {
  /** Increases with every call the page starts: tells a new result from the previous one. */
  seq: number;
  tool: 'exec' | 'wait';
  /** The run a wait continues (exec learns its run from the result, or earlier from its run.started event). */
  runId?: string;
  /** The tool-call id the page gave this exec: its run.started event carries it, so the page finds the run before exec returns. */
  toolCallId?: string;
  startedAt: number;
  /** The execution budget this call got (tools.codeMode.timeoutMs), shown while it runs. */
  timeoutMs?: number;
  endedAt?: number;
  result?: ExecResult | RunResult;
  /** Shown because the user picked this run (its last result), not a call the page just made. */
  picked?: boolean;
  /** The call itself failed (API error, lost connection): the Gateway's or the network's message. */
  error?: string;
}

/** The run a result belongs to, whatever its status. */
export function resultRunId(result: ExecResult | RunResult): string | undefined {
  if (result.status === 'waiting') return result.runId;
  return result.telemetry.runId;
}

/**
 * What the result panel shows: the page's latest call, unless the user picked another run that has a result;
 * then that run's last result, so the result, trajectory and snapshots all describe the same run. A call in
 * flight always shows (Stop and the running clock belong to it).
 */
export function shownCall(call: CellCall | undefined, selected: Run | undefined): CellCall | undefined {
  if (!selected?.lastResult) return call;
  if (call && !call.result && !call.error) return call;
  const callRun = call?.runId ?? (call?.result ? resultRunId(call.result) : undefined);
  if (call && callRun === selected.runId) return call;
  const last = selected.calls[selected.calls.length - 1];
  const picked: CellCall = { seq: call?.seq ?? 0, tool: last?.tool ?? 'exec', runId: selected.runId, startedAt: last?.startedAt ?? selected.createdAt, result: selected.lastResult, picked: true };
  if (last?.endedAt !== undefined) picked.endedAt = last.endedAt;
  return picked;
}
