// The access face: the ownership checks the API edge makes before the Gateway acts, without the records' writers (issue, end, note, prune).
import type { Ownership } from '../access/ownership.ts';
import type { OwnershipApi } from '../gateway-types.ts';

export function ownershipChecks(ownership: Ownership): OwnershipApi {
  return {
    checkTurn: (agentRunId, turnToken) => ownership.checkTurn(agentRunId, turnToken),
    turnsOf: (turnTokens) => ownership.turnsOf(turnTokens),
    runTurn: (runId) => ownership.runTurn(runId),
    turnSession: (agentRunId) => ownership.turnSession(agentRunId),
    sessionHistory: (sessionId) => ownership.sessionHistory(sessionId),
    lookupSession: (sessionId, presented) => ownership.lookupSession(sessionId, presented),
    turnOpensSession: (sessionId, turnTokens) => ownership.turnOpensSession(sessionId, turnTokens),
    sessionJoin: (sessionId, sessionToken, hasHistory) => ownership.sessionJoin(sessionId, sessionToken, hasHistory),
  };
}
