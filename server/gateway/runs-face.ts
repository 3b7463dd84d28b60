// The runs face: what the boards show and do with runs (list, one run, trajectories, abort, client-call answers, approvals, live events).
import type { RunsFace } from '../gateway-types.ts';
import type { GatewayParts } from './parts.ts';

export function runsFace(parts: Pick<GatewayParts, 'runs' | 'approvals' | 'events' | 'durable'>): RunsFace {
  const { runs, approvals, events, durable } = parts;
  return {
    runs: () => runs.list(),
    storedRuns: async () => (durable ? durable.storedRuns() : []),
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
    answerClientCall: (req) => runs.answerClientCall(req.runId, req.callId, req),
    approvals: () => approvals.list(),
    decideApproval: (req) => approvals.decide(req.approvalId, req.approve, req.reason),
    subscribe: (listener) => events.subscribe(listener),
  };
}
