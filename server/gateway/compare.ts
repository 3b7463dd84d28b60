// One cell on every executor, each in its own run of the same turn, side by side: the playground's "Run on all executors" and `codemode run --executor all`.
import type { ExecutorKind } from '../config/types.ts';
import { EXECUTOR_KINDS } from '../config/schema.ts';
import type { CodeModeExecInput, CodeModeResult, TrajectoryExport } from '../runs/types.ts';
import type { ExecutorComparisonRow } from '../gateway-types.ts';

export type { ExecutorComparisonRow };

/**
 * Wait calls one row may make before the comparison reports it still waiting: a cell that yields in a
 * loop, or waits on an approval nobody decides, must not hold the comparison forever.
 */
export const MAX_COMPARE_WAITS = 20;

/** What every row's exec shares besides the cell: the opt-in to inferred types in its typecheck (ExecOptions). */
export interface CompareOptions {
  typecheckInferred?: boolean;
}

/** The Gateway calls the comparison needs (a narrow face, so tests and the CLI share it). */
export interface ComparisonHost {
  exec(agentRunId: string, input: CodeModeExecInput, opts: { executor: ExecutorKind } & CompareOptions): Promise<CodeModeResult>;
  wait(agentRunId: string, input: { runId: string }): Promise<CodeModeResult>;
  trajectory(runId: string): TrajectoryExport | undefined;
  /** Whether the Gateway has started this executor already. */
  executorStarted(kind: ExecutorKind): boolean;
}

/** Runs `input` once per executor, one after another (so no row competes with another for the CPU). */
export async function compareExecutors(
  host: ComparisonHost,
  agentRunId: string,
  input: CodeModeExecInput,
  kinds: readonly ExecutorKind[] = EXECUTOR_KINDS,
  opts: CompareOptions = {},
): Promise<ExecutorComparisonRow[]> {
  const rows: ExecutorComparisonRow[] = [];
  for (const executor of kinds) rows.push(await compareOne(host, agentRunId, input, executor, opts));
  const reference = rows.find((r) => r.status === 'completed')?.valueJson;
  for (const r of rows) r.valueDiffers = r.status === 'completed' && reference !== undefined && r.valueJson !== reference;
  return rows;
}

async function compareOne(host: ComparisonHost, agentRunId: string, input: CodeModeExecInput, executor: ExecutorKind, opts: CompareOptions): Promise<ExecutorComparisonRow> {
  const start = host.executorStarted(executor) ? 'warm' : 'cold';
  let result = await host.exec(agentRunId, input, { ...opts, executor });
  const row: ExecutorComparisonRow = {
    executor,
    start,
    status: result.status,
    valueDiffers: false,
    durationMs: result.telemetry.durationMs,
    ...(result.telemetry.startMs !== undefined ? { startMs: result.telemetry.startMs } : {}),
    calls: 1,
    nestedCalls: 0,
    nestedMs: 0,
  };
  for (let waits = 0; result.status === 'waiting' && waits < MAX_COMPARE_WAITS; waits++) {
    row.parked ??= parkedBytes(result);
    result = await host.wait(agentRunId, { runId: result.runId });
    row.durationMs += result.telemetry.durationMs;
    row.calls++;
  }
  row.status = result.status;
  const runId = result.telemetry.runId;
  if (runId) row.runId = runId;
  if (result.status === 'completed') row.valueJson = JSON.stringify(result.value ?? null);
  if (result.status === 'failed') {
    row.error = result.error;
    if (result.code) row.code = result.code;
  }
  row.nestedCalls = result.telemetry.nestedCalls;
  const nested = runId ? (host.trajectory(runId)?.calls.flatMap((c) => c.nested) ?? []) : [];
  row.nestedMs = nested.reduce((ms, n) => ms + (n.endedAt !== undefined ? n.endedAt - n.startedAt : 0), 0);
  return row;
}

function parkedBytes(result: Extract<CodeModeResult, { status: 'waiting' }>): ExecutorComparisonRow['parked'] {
  const t = result.telemetry;
  if (t.snapshot) return { kind: 'snapshot', storedBytes: t.snapshot.storedBytes, rawBytes: t.snapshot.rawBytes };
  if (t.retainedBytesEstimate !== undefined) return { kind: 'live-estimate', bytes: t.retainedBytesEstimate };
  return undefined;
}
