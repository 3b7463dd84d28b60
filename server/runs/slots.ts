// Slots of the suspended-run cap: a run holds one from its first host request until it ends. The process
// has MAX_SUSPENDED_RUNS (spec 01); one turn may hold at most MAX_SLOTS_PER_TURN of them, and one owner (the
// turn's owner: the operator, an API key's client, the keyless clients together) at most its share
// (server.shares.<class>.suspendedRuns, below the process cap), so neither a burst of parked cells in one turn
// nor one client's many turns can take every slot from the others. The ledger only counts: whether a run holds a
// slot is a fact of the run record (Run.claimSlot), which asks here and gives its slot back when it ends.
import type { Owner } from '../access/owners.ts';
import { ShareCount } from '../access/share-count.ts';
import { MAX_SUSPENDED_RUNS } from '../config/shares.ts';
import { ownerSlotsFullMessage, tooManyRunsMessage, turnSlotsFullMessage } from './messages.ts';

export { MAX_SUSPENDED_RUNS };
/** A turn's share: a model that needs more waiting cells than this at once is better served by one cell's Promise.all. */
export const MAX_SLOTS_PER_TURN = 16;

/** Whose slot it is: the turn (its share) and the turn's owner (theirs). */
export interface SlotHolder {
  agentRunId: string;
  owner: Owner;
}

export class SlotLedger {
  private inUse = 0;
  private readonly byTurn = new Map<string, number>();
  private readonly byOwner = new ShareCount('suspendedRuns');

  get held(): number {
    return this.inUse;
  }

  /** Slots the owner with `ownerId` holds, across its turns. */
  heldBy(ownerId: string): number {
    return this.byOwner.held({ id: ownerId });
  }

  /** Takes a slot for a run of `turn`; returns why it cannot (the message for runtime_unavailable), else undefined. */
  claim(turn: SlotHolder): string | undefined {
    const turnId = turn.agentRunId;
    const owner = turn.owner;
    const turnHeld = this.byTurn.get(turnId) ?? 0;
    if (turnHeld >= MAX_SLOTS_PER_TURN) return turnSlotsFullMessage(MAX_SLOTS_PER_TURN, MAX_SUSPENDED_RUNS);
    if (this.byOwner.full(owner)) return ownerSlotsFullMessage(owner, MAX_SUSPENDED_RUNS);
    if (this.inUse >= MAX_SUSPENDED_RUNS) return tooManyRunsMessage(MAX_SUSPENDED_RUNS, turnHeld);
    this.byOwner.tryTake(owner);
    this.inUse++;
    this.byTurn.set(turnId, turnHeld + 1);
    return undefined;
  }

  /** Gives back a slot `claim(turn)` took (the run record calls it once, when it ends). */
  release(turn: SlotHolder): void {
    this.inUse--;
    this.byOwner.release(turn.owner);
    const turnId = turn.agentRunId;
    const left = (this.byTurn.get(turnId) ?? 1) - 1;
    if (left <= 0) this.byTurn.delete(turnId);
    else this.byTurn.set(turnId, left);
  }
}
