// The turn request the page's queries are keyed by (agent, model, client tools), shared by the page and the
// loader that prefetches the first view's catalog before the page's own code has arrived.
import type { Agent, ClientToolSpec, TurnRequest } from '../api.ts';

/** The agent the page uses: the chosen one when the Gateway lists it, else the Gateway's first. */
export function effectiveAgentId(chosen: string | undefined, agents: readonly Pick<Agent, 'id'>[] | undefined): string | undefined {
  if (!agents || agents.length === 0) return chosen;
  return agents.some((a) => a.id === chosen) ? chosen : agents[0]?.id;
}

/** What the catalog, surface and turn queries ask for; none before an agent is known. */
export function turnRequestOf(agentId: string | undefined, model: string, clientTools: ClientToolSpec[]): TurnRequest | undefined {
  if (!agentId) return undefined;
  const req: TurnRequest = { agentId, clientTools };
  if (model.trim()) req.model = model.trim();
  return req;
}
