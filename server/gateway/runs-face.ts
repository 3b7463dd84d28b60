// The runs face: what the boards show and do with runs (list, one run, trajectories, abort, client-call answers, approvals, live events).
import type { RunsFace } from '../gateway-types.ts';
import { InvalidInputError } from '../errors.ts';
import { MSG_UNAVAILABLE } from '../runs/messages.ts';
import type { GatewayParts } from './parts.ts';

export function runsFace(parts: Pick<GatewayParts, 'runs' | 'approvals' | 'events' | 'durable' | 'views' | 'requests'>): RunsFace {
  const { runs, approvals, events, durable, views, requests } = parts;
  /** An approval or client call of a run another Gateway holds is decided there: say which, rather than "unknown". */
  const heldElsewhere = (what: string, runId: string, holder: string) =>
    new InvalidInputError(
      `${what} belongs to run ${runId}, which Gateway ${holder} holds: the run executes there. Decide it on the page of Gateway ${holder}, or from this Gateway's page (as the operator: it forwards the decision)`,
    );
  return {
    runs: () => runs.list(),
    storedRuns: async () => (durable ? durable.storedRuns() : []),
    heldElsewhere: () => views.heldElsewhere(),
    run: (runId) => runs.get(runId),
    trajectory: (runId) => runs.trajectory(runId),
    trajectoryOtlp: async (runId) => {
      const t = runs.trajectory(runId);
      if (!t) return undefined;
      // the OpenTelemetry encoder loads on the first export, not at start
      const { trajectoryOtlpJson } = await import('./otlp.ts');
      return trajectoryOtlpJson(t);
    },
    // a durable run evicted to its row is aborted there (its row deleted at the fence this Gateway left)
    abortRun: (runId) => runs.abortRun(runId) || (durable?.abortEvicted(runId) ?? false),
    answerClientCall: (req) => {
      const holder = runs.get(req.runId) ? undefined : views.holderOf(req.runId);
      if (holder !== undefined) throw heldElsewhere(`client call ${req.callId}`, req.runId, holder);
      if (durable && !runs.get(req.runId)) {
        // a durable run parked before a restart (or evicted, or parked on another Gateway) is in the session database
        throw new InvalidInputError(
          `${MSG_UNAVAILABLE} Run ${req.runId} is not held by this Gateway: if it was parked before a restart or by another Gateway, wait on it first (the wait restores it and asks its client calls again under the same ids), then answer them.`,
        );
      }
      runs.answerClientCall(req.runId, req.callId, req);
    },
    approvals: () => approvals.list(),
    decideApproval: (req) => {
      const elsewhere = approvals.list().some((a) => a.approvalId === req.approvalId) ? undefined : views.approvalHolder(req.approvalId);
      if (elsewhere) throw heldElsewhere(`approval ${req.approvalId}`, elsewhere.runId, elsewhere.holder);
      approvals.decide(req.approvalId, req.approve, req.reason);
    },
    abortStored: async (runId) => {
      const ended = durable ? await durable.abortStored(runId) : undefined;
      if (!ended?.aborted) return ended;
      // no Run here to announce it: this Gateway's pages, and the others' (a notice), drop the stored row now
      await views.storedEnded(runId, ended.sessionId);
      return { aborted: true };
    },
    actElsewhere: (action) => requests.forward(action),
    // this Gateway's run events, and what changes of the runs the others hold (remote.run, remote.gone)
    subscribe: (listener) => {
      const stops = [events.subscribe(listener), views.subscribe(listener)];
      return () => stops.forEach((stop) => stop());
    },
  };
}
