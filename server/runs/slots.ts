// Slots of the suspended-run cap: a run holds one from its first host request until it ends. The process
// has MAX_SUSPENDED_RUNS (spec 02); one turn may hold at most MAX_SLOTS_PER_TURN of them, so one agent's
// burst of parked cells cannot take every slot from the other turns of the process.
import type { Run } from './run.ts';
import { tooManyRunsMessage, turnSlotsFullMessage } from './messages.ts';

/** Spec: "OpenClaw caps the number of concurrently suspended runs per process (64)". */
export const MAX_SUSPENDED_RUNS = 64;
/** A turn's share: a model that needs more waiting cells than this at once is better served by one cell's Promise.all. */
export const MAX_SLOTS_PER_TURN = 16;

export class SlotLedger {
  private inUse = 0;
  private readonly byTurn = new Map<string, number>();

  get held(): number {
    return this.inUse;
  }

  /** Takes a slot for `run`; returns why it cannot (the message for runtime_unavailable), else undefined. */
  claim(run: Run): string | undefined {
    if (run.holdsSlot) return undefined;
    const turnId = run.turn.agentRunId;
    const turnHeld = this.byTurn.get(turnId) ?? 0;
    if (turnHeld >= MAX_SLOTS_PER_TURN) return turnSlotsFullMessage(MAX_SLOTS_PER_TURN, MAX_SUSPENDED_RUNS);
    if (this.inUse >= MAX_SUSPENDED_RUNS) return tooManyRunsMessage(MAX_SUSPENDED_RUNS, turnHeld);
    run.holdsSlot = true;
    this.inUse++;
    this.byTurn.set(turnId, turnHeld + 1);
    return undefined;
  }

  release(run: Run): void {
    if (!run.holdsSlot) return;
    run.holdsSlot = false;
    this.inUse--;
    const turnId = run.turn.agentRunId;
    const left = (this.byTurn.get(turnId) ?? 1) - 1;
    if (left <= 0) this.byTurn.delete(turnId);
    else this.byTurn.set(turnId, left);
  }
}
