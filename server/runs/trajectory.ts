// The trajectory views of a run: its board view, its pending calls and the trajectory export (control
// calls with their nested calls, counters, snapshots). Projections of the run record; nothing here
// changes a run.
import { describeRequest } from '../bridge/describe.ts';
import type { LegOutcome } from '../executors/types.ts';
import type { Run } from './run.ts';
import { tokenMeter } from './meter.ts';
import type { CodeModePendingToolCall, NestedCallRecord, RunView, SnapshotRecord, TokenMeter, TrajectoryExport } from './types.ts';

/** Identity and source of a run, shared by the board view and the trajectory export. */
export function header(run: Run) {
  return {
    runId: run.runId,
    agentRunId: run.turn.agentRunId,
    sessionId: run.turn.sessionId,
    agentId: run.turn.agentId,
    ...(run.turn.client !== undefined ? { client: run.turn.client } : {}),
    executor: run.executorKind,
    language: run.cell.language,
    code: run.displayCode,
    seed: run.cell.seed,
    clock: run.clock.mode,
    ...(run.forkedFrom ? { forkedFrom: { ...run.forkedFrom } } : {}),
    ...(run.cell.replay ? { replay: run.cell.replay.cassette.runId !== undefined ? { runId: run.cell.replay.cassette.runId } : {} } : {}),
    ...(run.forks.length > 0 ? { forks: [...run.forks] } : {}),
  };
}

/** What the run still waits on: requests not yet delivered into the guest (yield excluded), then its queue. */
export function pendingCalls(run: Run): CodeModePendingToolCall[] {
  const out: CodeModePendingToolCall[] = [];
  for (const r of run.requests.values()) {
    if (r.req.op === 'yield' || r.delivered) continue;
    const status = r.record.status;
    const state: CodeModePendingToolCall['state'] = r.settled
      ? 'settled'
      : status === 'awaiting_approval'
        ? 'awaiting_approval'
        : status === 'awaiting_client'
          ? 'awaiting_client'
          : status === 'queued'
            ? 'queued'
            : 'running';
    out.push({ id: r.req.id, tool: r.record.tool, input: describeRequest(r.req, run.catalog).input, startedAt: r.record.startedAt, state });
  }
  for (const q of run.queued) {
    const { label, input } = describeRequest(q, run.catalog);
    out.push({ id: q.id, tool: label, input, startedAt: run.updatedAt, state: 'queued' });
  }
  return out;
}

/** The runs board's view of a run (copies: a view never aliases the live record). */
export function view(run: Run): RunView {
  return {
    ...header(run),
    state: run.state,
    ...(run.state === 'waiting' && run.reason ? { reason: run.reason } : {}),
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    ...(run.expiresAt ? { expiresAt: run.expiresAt } : {}),
    maxSnapshotBytes: run.turn.options.maxSnapshotBytes,
    pendingToolCalls: run.state === 'waiting' || run.state === 'running' ? pendingCalls(run) : [],
    clientCalls: [...run.clientCalls.values()].map((c) => ({ callId: c.callId, tool: c.tool, input: c.input })),
    snapshots: [...run.snapshots],
    ...(run.continuation && run.continuation.executor !== 'quickjs' && run.continuation.retainedBytesEstimate !== undefined
      ? { retainedBytesEstimate: run.continuation.retainedBytesEstimate }
      : {}),
    ...(run.state === 'waiting' && run.continuation ? { snapshotIn: run.continuation.executor === 'quickjs' ? run.host.snapshotStore : 'live' } : {}),
    calls: run.calls.map((c) => ({ ...c })),
    ...nestedInView(run),
    ...(run.lastResult ? { lastResult: run.lastResult } : {}),
    ...meterOf(run),
  };
}

/**
 * Nested records a run view carries (runs.list, runs.get, run events): a cell may make tens of thousands of calls,
 * and every listing of every run carried every record (20 MB and a second of the event loop for three such
 * runs). Unfinished calls are always in; then the latest finished ones. The trajectory export keeps them all.
 */
export const MAX_NESTED_IN_VIEW = 500;

function nestedInView(run: Run): { nested: NestedCallRecord[]; nestedOmitted?: number } {
  const all = [...run.requests.values()].map((r) => r.record);
  if (all.length <= MAX_NESTED_IN_VIEW) return { nested: all.map((r) => ({ ...r })) };
  const kept = new Set(all.filter((r) => r.endedAt === undefined));
  for (let i = all.length - 1; i >= 0 && kept.size < MAX_NESTED_IN_VIEW; i--) kept.add(all[i] as NestedCallRecord);
  const nested = all.filter((r) => kept.has(r)).map((r) => ({ ...r }));
  return { nested, nestedOmitted: all.length - nested.length };
}

/** The run's token meter (runs/meter.ts), once one of its exec/wait calls ended. */
export function meterOf(run: Run): { meter?: TokenMeter } {
  try {
    const meter = tokenMeter({ definitions: run.turn.definitionTokens(), calls: run.calls, nested: [...run.requests.values()].map((r) => r.record) });
    return meter ? { meter } : {};
  } catch {
    // the meter is an estimate beside the run: a definition it cannot count leaves it out, never the run's view
    return {};
  }
}

/** The trajectory export: each exec/wait call with the nested calls it dispatched. */
export function trajectory(run: Run): TrajectoryExport {
  const nested = [...run.requests.values()].map((r) => r.record);
  return {
    ...header(run),
    calls: run.calls.map((c) => ({ ...c, nested: nested.filter((n) => n.parentCallId === c.callId) })),
    counters: { ...run.counters },
    snapshots: [...run.snapshots],
    ...meterOf(run),
  };
}

/** The snapshot chart's record of one suspension (QuickJS: a continuation that holds a snapshot), else undefined. */
export function snapshotRecord(
  outcome: Extract<LegOutcome, { kind: 'parked' }>,
  reason: SnapshotRecord['reason'],
): SnapshotRecord | undefined {
  const snap = outcome.continuation;
  if (snap.executor !== 'quickjs' || snap.storedBytes === undefined || snap.rawBytes === undefined) return undefined;
  // restoreMs is filled in when this snapshot is restored (Run.markOpened), not from the restore this leg started from
  return { at: Date.now(), rawBytes: snap.rawBytes, storedBytes: snap.storedBytes, takeMs: outcome.takeMs ?? 0, reason };
}
