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
  /** Set when the run moved on after this call returned (see followRun): what the panel shows instead of a stale result. */
  followed?: RunFollow;
}

/**
 * How a run moved on after the shown call returned. `running`: a wait the page did not make is in flight (made
 * before a reload, or by another client). `expired`: its snapshot's TTL passed before a wait. `latest`: the run
 * settled or suspended again since; the call's `result` is then the run's last one. `refused` is the message of
 * this page's wait the Gateway turned down while the run lived on (a wait already in flight).
 */
export type RunFollow = { kind: 'running'; refused?: string } | { kind: 'expired' } | { kind: 'latest'; refused?: string };

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
export function shownCall(call: CellCall | undefined, selected: Run | undefined, runs: readonly Run[] = []): CellCall | undefined {
  const shown = pickedCall(call, selected);
  const runId = shown?.runId ?? (shown?.result ? resultRunId(shown.result) : undefined);
  return followRun(shown, runs.find((r) => r.runId === runId));
}

/** Two results are the same exec/wait outcome when their status and telemetry match (a run's every call has its own timings). */
function sameResult(a: ExecResult | RunResult, b: RunResult): boolean {
  return a.status === b.status && JSON.stringify(a.telemetry) === JSON.stringify(b.telemetry);
}

/**
 * The shown call as the run's live view says it stands now. A settled call keeps describing the moment it
 * returned; the run goes on (aborted from the board, expired, resumed by a wait made elsewhere). A view older
 * than the call (its events not in yet) has a different last result and leaves the call as it is, except for a
 * wait the Gateway refused (`invalid_input` while the run still lives): that failure is the call's, not the run's.
 */
export function followRun(call: CellCall | undefined, run: Run | undefined): CellCall | undefined {
  const result = call?.result;
  if (!call || !result || !run) return call;
  if (run.state === 'expired') return { ...call, followed: { kind: 'expired' } };
  const last = run.lastResult;
  const current = last !== undefined && sameResult(result, last);
  const refused = call.tool === 'wait' && result.status === 'failed' && result.code === 'invalid_input' && !current ? result.error : undefined;
  const stale = result.status === 'waiting' || refused !== undefined;
  if (!stale) return call;
  if (run.state === 'running' && (current || refused !== undefined)) {
    return { ...call, followed: refused !== undefined ? { kind: 'running', refused } : { kind: 'running' } };
  }
  if (run.state === 'running' || !last || current) return call;
  // a refused wait is worth telling while the run still waits; once it ended, its end says it all
  const followed: RunFollow = run.state === 'waiting' && refused !== undefined ? { kind: 'latest', refused } : { kind: 'latest' };
  return { ...call, result: last, followed };
}

function pickedCall(call: CellCall | undefined, selected: Run | undefined): CellCall | undefined {
  if (!selected?.lastResult) return call;
  if (call && !call.result && !call.error) return call;
  const callRun = call?.runId ?? (call?.result ? resultRunId(call.result) : undefined);
  if (call && callRun === selected.runId) return call;
  const last = selected.calls[selected.calls.length - 1];
  const picked: CellCall = { seq: call?.seq ?? 0, tool: last?.tool ?? 'exec', runId: selected.runId, startedAt: last?.startedAt ?? selected.createdAt, result: selected.lastResult, picked: true };
  if (last?.endedAt !== undefined) picked.endedAt = last.endedAt;
  return picked;
}
