// Execution budget of one exec/wait call: wall-clock time that pauses while an approval is pending.
//
// Spec: an approval pause suspends the Code Mode execution budget; the call resumes with exactly its
// unused budget, and parked time or earlier approval pauses never add credit. A leg's budget is also
// held while its VM is being readied (worker start, VM creation, snapshot restore): the budget
// measures the guest, not the machinery.

export class ExecutionBudget {
  private usedMs = 0;
  private runningSince: number | null;
  private pauses = 0;
  private timer: NodeJS.Timeout | null = null;
  private onExpire: (() => void) | null = null;
  private readonly holds = new Set<string>();

  constructor(
    readonly totalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.runningSince = now();
  }

  /** Budget spent so far (pauses excluded). */
  get spentMs(): number {
    return this.usedMs + (this.runningSince === null ? 0 : this.now() - this.runningSince);
  }

  get remainingMs(): number {
    return Math.max(0, this.totalMs - this.spentMs);
  }

  get paused(): boolean {
    return this.pauses > 0;
  }

  /** Epoch ms the budget runs out, or Infinity while paused. */
  get deadlineAt(): number {
    return this.runningSince === null ? Infinity : this.now() + this.remainingMs;
  }

  /** Call `fn` once when the budget is spent (re-armed across pauses). */
  whenExpired(fn: () => void): void {
    this.onExpire = fn;
    this.arm();
  }

  /** Pause for a named reason (an approval, a VM being readied); a reason already holding is not counted twice. */
  hold(reason: string): void {
    if (this.holds.has(reason)) return;
    this.holds.add(reason);
    this.pause();
  }

  /** Undo `hold(reason)`; nothing when that reason does not hold. */
  unhold(reason: string): void {
    if (!this.holds.delete(reason)) return;
    this.resume();
  }

  isHeld(reason: string): boolean {
    return this.holds.has(reason);
  }

  pause(): void {
    this.pauses++;
    if (this.pauses === 1 && this.runningSince !== null) {
      this.usedMs += this.now() - this.runningSince;
      this.runningSince = null;
      this.disarm();
    }
  }

  resume(): void {
    if (this.pauses === 0) return;
    this.pauses--;
    if (this.pauses === 0) {
      this.runningSince = this.now();
      this.arm();
    }
  }

  stop(): void {
    if (this.runningSince !== null) {
      this.usedMs += this.now() - this.runningSince;
      this.runningSince = null;
    }
    this.disarm();
    this.onExpire = null;
  }

  private arm(): void {
    this.disarm();
    if (!this.onExpire || this.runningSince === null) return;
    const fn = this.onExpire;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.runningSince !== null && this.remainingMs <= 0) fn();
      else this.arm();
    }, this.remainingMs + 1);
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
