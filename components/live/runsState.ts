// Pure reducers that fold the Gateway's run events into the runs and approvals the page shows.
import type { Approval as ApprovalView, LiveEvent as RunEvent, NestedCall as NestedCallRecord, Run as RunView } from '../api.ts';

/** Runs newest first (the board and the runs list read them in this order). */
export function sortRuns(runs: RunView[]): RunView[] {
  return [...runs].sort((a, b) => b.createdAt - a.createdAt);
}

function upsertNested(nested: NestedCallRecord[], call: NestedCallRecord): NestedCallRecord[] {
  const index = nested.findIndex((n) => n.invocationId === call.invocationId);
  if (index === -1) return [...nested, call];
  const next = [...nested];
  next[index] = call;
  return next;
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
      // A late event must not roll a run back to an older view.
      if (current && current.updatedAt > view.updatedAt) return runs;
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
      next[index] = { ...current, nested: upsertNested(current.nested, event.call) };
      return next;
    }
    default:
      return runs;
  }
}

/** Applies one event to the pending approvals. */
export function applyApprovalEvent(approvals: ApprovalView[], event: RunEvent): ApprovalView[] {
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
