// The model face: a turn's lifecycle and its exec and wait calls, what an agent loop (and the MCP face) drives.
import type { ModelFace } from '../gateway-types.ts';
import { resultToModelText } from '../runs/model-text.ts';
import type { GatewayParts } from './parts.ts';

/** `assertOpen` refuses new turns and client-tool changes once the Gateway is shutting down. */
export function modelFace(parts: Pick<GatewayParts, 'turns' | 'calls'>, assertOpen: () => void): ModelFace {
  const { turns, calls } = parts;
  return {
    prepareTurn: (req) => {
      assertOpen();
      return turns.prepare(req);
    },
    // new cells see the new client tools; running and parked cells keep theirs (see TurnRegistry.updateClientTools)
    updateClientTools: (agentRunId, clientTools) => {
      assertOpen();
      return turns.updateClientTools(agentRunId, clientTools);
    },
    turnOptions: (agentRunId) => turns.options(agentRunId),
    endTurn: (agentRunId) => turns.end(agentRunId),
    exec: (agentRunId, input, opts = {}) => calls.exec(turns.use(agentRunId), agentRunId, input, opts),
    wait: (agentRunId, input, opts = {}) => calls.wait(turns.use(agentRunId), agentRunId, input, opts),
    modelText: (result) => resultToModelText(result),
    inferredTypes: (agentRunId) => turns.inferredTypes(agentRunId),
  };
}
