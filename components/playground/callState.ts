// The exec or wait call the result panel shows: in flight, settled with a result, or failed to reach the Gateway.
import type { ExecResult } from '../api.ts';

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
  result?: ExecResult;
  /** The call itself failed (API error, lost connection): the Gateway's or the network's message. */
  error?: string;
}

/** The run a result belongs to, whatever its status. */
export function resultRunId(result: ExecResult): string | undefined {
  if (result.status === 'waiting') return result.runId;
  return result.telemetry.runId;
}
