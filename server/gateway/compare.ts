// One cell on every executor, each in its own run of the same turn, side by side: the playground's "Run on all executors" and `codemode run --executor all`.
//
// Every row gets the same seed (the caller's, or one drawn for the comparison), so Math.random draws the same numbers
// on every executor and a difference is the engines', not seed noise; the clock is the real one unless the caller
// gave the seed (then every row reads that seed's logical clock, and dates match too). Rows run at once as far as
// the machine has processors for them (compareLanes): a cell that waits on tools takes its own time once, not once
// per executor.
import { availableParallelism } from 'node:os';
import type { ExecutorKind } from '../config/types.ts';
import { randomSeed } from '../runs/seed.ts';
import { EXECUTOR_KINDS } from '../config/schema.ts';
import type { CodeModeExecInput, CodeModeResult, TrajectoryExport } from '../runs/types.ts';
import type { ExecutorComparisonRow } from '../gateway-types.ts';

export type { ExecutorComparisonRow };

/**
 * Wait calls one row may make before the comparison reports it still waiting: a cell that yields in a
 * loop, or waits on an approval nobody decides, must not hold the comparison forever.
 */
export const MAX_COMPARE_WAITS = 20;

/** What every row's exec shares besides the cell (ExecOptions), and how many rows may run at once. */
export interface CompareOptions {
  /** The opt-in to inferred types in the rows' typecheck. */
  typecheckInferred?: boolean;
  /** One seed for every row; given, the rows also read its logical clock (as exec's seed). Drawn once when absent. */
  seed?: number;
  /** Rows that may run at once; default compareLanes(rows). */
  parallelism?: number;
}

/** What one row's exec is given: its executor, and the seed and clock every row shares. */
export interface CompareRowOptions {
  executor: ExecutorKind;
  seed: number;
  clock: 'real' | 'logical';
  typecheckInferred?: boolean;
}

/**
 * How many of `rows` run at once: as many as the machine has processors for this process
 * (os.availableParallelism: the CPUs it may use), at least one. Each executor keeps its own workers, so rows never
 * queue behind each other inside an executor; what they share is the CPU, and a row per processor keeps a
 * CPU-bound cell's duration its own while a cell that waits on tools waits once. On 2 processors, three rows run
 * as two and then one.
 */
export function compareLanes(rows: number, processors: number = availableParallelism()): number {
  return Math.max(1, Math.min(rows, Math.floor(processors)));
}

/** The Gateway calls the comparison needs (a narrow face, so tests and the CLI share it). */
export interface ComparisonHost {
  exec(agentRunId: string, input: CodeModeExecInput, opts: CompareRowOptions): Promise<CodeModeResult>;
  wait(agentRunId: string, input: { runId: string }): Promise<CodeModeResult>;
  trajectory(runId: string): TrajectoryExport | undefined;
  /** Whether the Gateway has started this executor already. */
  executorStarted(kind: ExecutorKind): boolean;
}

/** Runs `input` once per executor, with one seed, up to compareLanes rows at once; rows come back in `kinds` order. */
export async function compareExecutors(
  host: ComparisonHost,
  agentRunId: string,
  input: CodeModeExecInput,
  kinds: readonly ExecutorKind[] = EXECUTOR_KINDS,
  opts: CompareOptions = {},
): Promise<ExecutorComparisonRow[]> {
  const shared = {
    seed: opts.seed ?? randomSeed(),
    clock: opts.seed !== undefined ? ('logical' as const) : ('real' as const),
    ...(opts.typecheckInferred !== undefined ? { typecheckInferred: opts.typecheckInferred } : {}),
  };
  const rows: ExecutorComparisonRow[] = new Array<ExecutorComparisonRow>(kinds.length);
  let next = 0;
  const lane = async () => {
    while (next < kinds.length) {
      const i = next++;
      rows[i] = await compareOne(host, agentRunId, input, { ...shared, executor: kinds[i]! });
    }
  };
  const lanes = opts.parallelism !== undefined ? compareLanes(kinds.length, opts.parallelism) : compareLanes(kinds.length);
  await Promise.all(Array.from({ length: lanes }, lane));
  const reference = rows.find((r) => r.status === 'completed')?.valueJson;
  for (const r of rows) r.valueDiffers = r.status === 'completed' && reference !== undefined && r.valueJson !== reference;
  return rows;
}

async function compareOne(host: ComparisonHost, agentRunId: string, input: CodeModeExecInput, opts: CompareRowOptions): Promise<ExecutorComparisonRow> {
  const executor = opts.executor;
  const start = host.executorStarted(executor) ? 'warm' : 'cold';
  let result = await host.exec(agentRunId, input, opts);
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
