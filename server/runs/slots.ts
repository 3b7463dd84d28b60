// Slots of the suspended-run cap: a run holds one from its first host request until it ends. The process
// has MAX_SUSPENDED_RUNS (spec 01); one turn may hold at most MAX_SLOTS_PER_TURN of them, and one owner (the
// turn's owner: the operator, an API key's client, the keyless clients together) at most its share
// (server.shares.<class>.suspendedRuns, below the process cap), so neither a burst of parked cells in one turn
// nor one client's many turns can take every slot from the others.
import type { Run } from './run.ts';
import { ShareCount } from '../access/share-count.ts';
import { MAX_SUSPENDED_RUNS } from '../config/shares.ts';
import { ownerSlotsFullMessage, tooManyRunsMessage, turnSlotsFullMessage } from './messages.ts';

export { MAX_SUSPENDED_RUNS };
/** A turn's share: a model that needs more waiting cells than this at once is better served by one cell's Promise.all. */
export const MAX_SLOTS_PER_TURN = 16;

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

  /** Takes a slot for `run`; returns why it cannot (the message for runtime_unavailable), else undefined. */
  claim(run: Run): string | undefined {
    if (run.holdsSlot) return undefined;
    const turnId = run.turn.agentRunId;
    const owner = run.turn.owner;
    const turnHeld = this.byTurn.get(turnId) ?? 0;
    if (turnHeld >= MAX_SLOTS_PER_TURN) return turnSlotsFullMessage(MAX_SLOTS_PER_TURN, MAX_SUSPENDED_RUNS);
    if (this.byOwner.full(owner)) return ownerSlotsFullMessage(owner, MAX_SUSPENDED_RUNS);
    if (this.inUse >= MAX_SUSPENDED_RUNS) return tooManyRunsMessage(MAX_SUSPENDED_RUNS, turnHeld);
    this.byOwner.tryTake(owner);
    run.holdsSlot = true;
    this.inUse++;
    this.byTurn.set(turnId, turnHeld + 1);
    return undefined;
  }

  release(run: Run): void {
    if (!run.holdsSlot) return;
    run.holdsSlot = false;
    this.inUse--;
    this.byOwner.release(run.turn.owner);
    const turnId = run.turn.agentRunId;
    const left = (this.byTurn.get(turnId) ?? 1) - 1;
    if (left <= 0) this.byTurn.delete(turnId);
    else this.byTurn.set(turnId, left);
  }
}
