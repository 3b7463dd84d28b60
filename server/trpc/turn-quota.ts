// Live turns per owner: a share, so one owner cannot make the Gateway hold unbounded turns (each holds its
// catalog, declarations and result store until turns.end or the 6 h idle sweep) or take every client's room.
import { TRPCError } from '@trpc/server';
import { moreRoomHint, shareName, type Owner } from '../access/owners.ts';

export class TurnQuota {
  /** Owner id -> the agentRunIds of the turns it prepared, live or ended since the last count. */
  private readonly held = new Map<string, Set<string>>();

  /**
   * Throws TOO_MANY_REQUESTS naming the config field of the share when `owner` already holds its share of live
   * turns (owner.shares.liveTurns); otherwise returns nothing and the caller prepares the turn and `record`s it.
   * `alive` says whether a turn is still live: ended turns free their place when the owner is next counted.
   */
  admit(owner: Owner, alive: (agentRunId: string) => boolean): void {
    const limit = owner.shares.liveTurns;
    const turns = this.held.get(owner.id);
    if (!turns || turns.size < limit) return;
    for (const id of turns) if (!alive(id)) turns.delete(id);
    if (turns.size < limit) return;
    throw new TRPCError({
      code: 'TOO_MANY_REQUESTS',
      message:
        `this owner (${owner.label}) already holds ${turns.size} live turns, the limit (${shareName(owner, 'liveTurns')}); ` +
        `end the turns you no longer use (turns.end) and prepare again, or reuse a turn for several exec calls; ${moreRoomHint(owner)}`,
    });
  }

  record(owner: Owner, agentRunId: string): void {
    const turns = this.held.get(owner.id) ?? new Set<string>();
    turns.add(agentRunId);
    this.held.set(owner.id, turns);
  }
}
