// Live turns per client: a cap, so one client cannot make the Gateway hold unbounded turns (each holds its
// catalog, declarations and result store until turns.end or the 6 h idle sweep).
import { TRPCError } from '@trpc/server';

export class TurnQuota {
  /** clientId -> the agentRunIds of the turns it prepared, live or ended since the last count. */
  private readonly held = new Map<string, Set<string>>();

  /**
   * Throws TOO_MANY_REQUESTS naming `limitName` (the config field that sets `limit`) when `clientId` already
   * holds `limit` live turns; otherwise returns nothing and the caller prepares the turn and `record`s it.
   * `alive` says whether a turn is still live: ended turns free their place when the client is next counted.
   */
  admit(clientId: string, limit: number, limitName: string, alive: (agentRunId: string) => boolean): void {
    const turns = this.held.get(clientId);
    if (!turns || turns.size < limit) return;
    for (const id of turns) if (!alive(id)) turns.delete(id);
    if (turns.size < limit) return;
    throw new TRPCError({
      code: 'TOO_MANY_REQUESTS',
      message:
        `this client already holds ${turns.size} live turns, the limit (${limitName}); ` +
        'end the turns you no longer use (turns.end) and prepare again, or reuse a turn for several exec calls',
    });
  }

  record(clientId: string, agentRunId: string): void {
    const turns = this.held.get(clientId) ?? new Set<string>();
    turns.add(agentRunId);
    this.held.set(clientId, turns);
  }
}
