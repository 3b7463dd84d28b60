// The lab face (the replay lab): fork a waiting run, a run's cassette, "save as test", and one cell on every executor.
import type { LabFace, ModelFace, RunsFace } from '../gateway-types.ts';
import { compareExecutors } from './compare.ts';
import type { GatewayParts } from './parts.ts';
import { savedTest } from './save-as-test.ts';

/** Comparison rows run through the model face's exec and wait (each row its own run of the turn, recorded like any). */
export function labFace(
  parts: Pick<GatewayParts, 'runs' | 'executors'>,
  cells: Pick<ModelFace, 'exec' | 'wait'> & Pick<RunsFace, 'trajectory'>,
  assertOpen: () => void,
): LabFace {
  const { runs, executors } = parts;
  return {
    forkRun: (req) => {
      assertOpen();
      return runs.fork(req?.runId, req?.replies);
    },
    cassette: (runId) => runs.cassette(runId),
    saveAsTest: (runId) => {
      const cassette = runs.cassette(runId);
      const agentId = runs.get(runId)?.agentId;
      return cassette && agentId !== undefined ? savedTest(cassette, agentId) : undefined;
    },
    compareExecutors: (agentRunId, input, kinds, opts = {}) =>
      compareExecutors(
        {
          exec: (id, i, o) => cells.exec(id, i, o),
          wait: (id, i) => cells.wait(id, i),
          trajectory: (runId) => cells.trajectory(runId),
          executorStarted: (kind) => executors.has(kind),
        },
        agentRunId,
        input,
        kinds,
        opts,
      ),
  };
}
