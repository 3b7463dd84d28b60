// Pure reducers that fold the Gateway's run events into the runs and approvals the page shows.
import type { Approval as ApprovalView, LiveEvent as RunEvent, NestedCall as NestedCallRecord, Run as RunView } from '../api.ts';

/** Runs newest first (the board and the runs list read them in this order). */
export function sortRuns(runs: RunView[]): RunView[] {
  return [...runs].sort((a, b) => b.createdAt - a.createdAt);
}

/**
 * Nested calls a run keeps on the page, as the Gateway's run views do (MAX_NESTED_IN_VIEW in server/runs/trajectory.ts):
 * past it the earliest finished calls are dropped and counted in `nestedOmitted`, so a cell of 70,000 calls neither
 * grows the page without bound nor costs a scan of every earlier call per event.
 */
export const NESTED_KEPT = 500;

function upsertNested(run: RunView, call: NestedCallRecord): Pick<RunView, 'nested' | 'nestedOmitted'> {
  const nested = run.nested;
  // a call's finish usually follows its start closely: look from the end
  let index = -1;
  for (let i = nested.length - 1; i >= 0; i--) {
    if (nested[i]?.invocationId === call.invocationId) {
      index = i;
      break;
    }
  }
  const next = [...nested];
  if (index === -1) next.push(call);
  else next[index] = call;
  let omitted = run.nestedOmitted ?? 0;
  while (next.length > NESTED_KEPT) {
    const finished = next.findIndex((n) => n.endedAt !== undefined);
    if (finished === -1) break;
    next.splice(finished, 1);
    omitted++;
  }
  return omitted > 0 ? { nested: next, nestedOmitted: omitted } : { nested: next };
}

/** Applies one event to the run list. Events about runs not yet known wait for the run's own view. */
export function applyRunEvent(runs: RunView[], event: RunEvent): RunView[] {
  switch (event.type) {
    case 'run.started':
    case 'run.updated': {
      const index = runs.findIndex((r) => r.runId === event.runId);
      const current = runs[index];
      // run.updated leaves the source out (run.started carried it): keep the one the list already has.
      const view: RunView = 'code' in event.view ? event.view : { ...event.view, code: current?.code ?? '' };
      if (index === -1) return sortRuns([...runs, view]);
      // A late event must not roll a run back to an older view; a run this Gateway now holds replaces what it listed of another's.
      if (current && !isElsewhere(current) && current.updatedAt > view.updatedAt) return runs;
      const next = [...runs];
      next[index] = view;
      return next;
    }
    case 'nested.started':
    case 'nested.finished': {
      const index = runs.findIndex((r) => r.runId === event.runId);
      const current = runs[index];
      if (!current) return runs;
      const next = [...runs];
      next[index] = { ...current, ...upsertNested(current, event.call) };
      return next;
    }
    case 'remote.run': {
      const index = runs.findIndex((r) => r.runId === event.runId);
      const current = runs[index];
      if (!current) return sortRuns([...runs, event.view]);
      // a run this Gateway holds is shown from its own events; a durable row keeps its facts beside the holder's view
      if (!isElsewhere(current)) return runs;
      const next = [...runs];
      next[index] = current.durableRow ? { ...event.view, durableRow: current.durableRow } : event.view;
      return next;
    }
    case 'remote.gone':
      return runs.some((r) => r.runId === event.runId && isElsewhere(r)) ? runs.filter((r) => r.runId !== event.runId || !isElsewhere(r)) : runs;
    default:
      return runs;
  }
}

/** A run listed here that this Gateway does not hold: another Gateway's (heldBy) or a durable row not resumed here. */
export function isElsewhere(run: RunView): boolean {
  return run.heldBy !== undefined || run.durableRow !== undefined;
}

/** Applies one event to the pending approvals. */
export function applyApprovalEvent(approvals: ApprovalView[], event: RunEvent): ApprovalView[] {
  if (event.type === 'remote.run') return [...approvals.filter((a) => a.runId !== event.runId || a.heldBy === undefined), ...event.approvals];
  if (event.type === 'remote.gone') return approvals.some((a) => a.runId === event.runId && a.heldBy !== undefined) ? approvals.filter((a) => a.runId !== event.runId || a.heldBy === undefined) : approvals;
  if (event.type === 'approval.requested') {
    if (approvals.some((a) => a.approvalId === event.approval.approvalId)) return approvals;
    return [...approvals, event.approval];
  }
  if (event.type === 'approval.resolved') return approvals.filter((a) => a.approvalId !== event.approvalId);
  return approvals;
}

/** Runs holding a continuation: what the waiting board lists. */
export function waitingRuns(runs: RunView[]): RunView[] {
  return runs.filter((r) => r.state === 'waiting');
}

/** Which runs the page's panels show: the page's own turn (the default), or every turn the operator can see. */
export type RunScope = { kind: 'turn'; agentRunId: string | undefined } | { kind: 'all' };

/**
 * The runs in scope. The page is the operator and receives every run; it filters client-side by its own
 * agentRunId, so the toggle needs no new query and no refetch. Before the turn is prepared nothing is "its".
 */
export function runsInScope(runs: RunView[], scope: RunScope): RunView[] {
  if (scope.kind === 'all') return runs;
  // a durable run parked before a restart belongs to a turn no page holds now, and another Gateway's run to a turn
  // of that Gateway's: the operator sees them in every scope
  return runs.filter((r) => r.agentRunId === scope.agentRunId || isElsewhere(r));
}

/**
 * What the runs list shows: the runs in scope, plus the selected run when it is out of scope (a link's run, a Test
 * plan step's run in the plan's own turn), so the list always holds the run the trajectory shows. `outOfScope` is
 * that run, when there is one.
 */
export function listedRuns(scoped: RunView[], all: RunView[], selectedRunId: string | undefined): { runs: RunView[]; outOfScope?: RunView } {
  if (selectedRunId === undefined || scoped.some((r) => r.runId === selectedRunId)) return { runs: scoped };
  const selected = all.find((r) => r.runId === selectedRunId);
  return selected ? { runs: sortRuns([...scoped, selected]), outOfScope: selected } : { runs: scoped };
}

/** Approvals asked by runs in scope (an approval names its run; the run names its turn). */
export function approvalsInScope(approvals: ApprovalView[], scopedRuns: RunView[]): ApprovalView[] {
  const ids = new Set(scopedRuns.map((r) => r.runId));
  return approvals.filter((a) => ids.has(a.runId));
}

/**
 * What the waiting board lists: runs holding a continuation, and running runs with a client call a person
 * must answer (the guest asked now; an answer before the deadline lets the cell continue inline), or, on another
 * Gateway, an approval or client call pending there (shown read-only: it is answered on that Gateway).
 */
export function boardRuns(runs: RunView[]): RunView[] {
  return runs.filter((r) => r.state === 'waiting' || (r.state === 'running' && (r.clientCalls.length > 0 || (r.heldBy !== undefined && r.heldBy.clientCalls + r.heldBy.approvals > 0))));
}

/** The run an exec started, found by the tool-call id the page gave that exec (its first control call). */
export function runForToolCall(runs: RunView[], toolCallId: string): RunView | undefined {
  return runs.find((r) => r.calls[0]?.tool === 'exec' && r.calls[0].toolCallId === toolCallId);
}

/** A run still holding the turn's resources (executing or parked): ending the turn ends it. */
export function isLive(run: RunView): boolean {
  return run.state === 'running' || run.state === 'waiting';
}

/**
 * The runs of the turn the page just left, as they stand now: `left` are the ids of the runs that were live
 * (running or waiting) when the turn changed. Ending a turn aborts them; a run the Gateway kept goes on.
 */
export function runsLeftBehind(runs: RunView[], left: ReadonlySet<string>): RunView[] {
  return runs.filter((r) => left.has(r.runId));
}

/** Nested-call states of a call that has not finished: it still holds its place in the turn's call order. */
const UNFINISHED: ReadonlySet<NestedCallRecord['status']> = new Set(['queued', 'running', 'awaiting_approval', 'awaiting_client']);
/** Nested calls the turn's scheduler orders (server/bridge/scheduler.ts): tool, MCP and client calls, not bridge ops. */
const SCHEDULED_KINDS: ReadonlySet<NestedCallRecord['kind']> = new Set(['tool', 'mcp', 'client']);

/**
 * The call a pending sequential call waits behind. The turn's scheduler spans its runs: a sequential call starts
 * only once every earlier call of the turn has finished, so an unanswered client call in one run holds an
 * approved shell exec in another. The Gateway reports such a call as "queued" once approved; this names the earliest
 * unfinished call of the turn dispatched before it, if any. `sequential`: the catalog's sequential callable names.
 */
export function queuedBehind(
  call: { id: string; tool: string; startedAt: number; state: string },
  run: RunView,
  runs: RunView[],
  sequential: ReadonlySet<string>,
): { tool: string; runId: string; state: NestedCallRecord['status'] } | undefined {
  if ((call.state !== 'running' && call.state !== 'queued') || !sequential.has(call.tool)) return undefined;
  let blocker: { tool: string; runId: string; state: NestedCallRecord['status']; startedAt: number } | undefined;
  for (const other of runs) {
    if (other.agentRunId !== run.agentRunId) continue;
    for (const n of other.nested) {
      if (other.runId === run.runId && n.requestId === call.id) continue;
      if (!UNFINISHED.has(n.status) || !SCHEDULED_KINDS.has(n.kind) || n.startedAt >= call.startedAt) continue;
      if (!blocker || n.startedAt < blocker.startedAt) blocker = { tool: n.tool, runId: other.runId, state: n.status, startedAt: n.startedAt };
    }
  }
  return blocker ? { tool: blocker.tool, runId: blocker.runId, state: blocker.state } : undefined;
}
