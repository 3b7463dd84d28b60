// Calls a run starts while one of its approvals is pending. The approval stops the run's budget (spec 01:
// "resumes with exactly its unused budget"), so the guest's other calls meanwhile are not charged: without a
// bound a cell looping over tool calls beside a pending approval ran free (1,800 calls a second, 70,000 nested
// records in 40 s). Past MAX_CALLS_DURING_APPROVAL a call waits, queued, for the decision.

/** Calls a run may start while an approval of it is pending; later ones wait for the decision. */
export const MAX_CALLS_DURING_APPROVAL = 256;

export class ApprovalGate {
  private calls = 0;
  private decided: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(private readonly signal: AbortSignal) {}

  /** The run's first pending approval began: calls are counted from here. */
  began(): void {
    this.calls = 0;
  }

  /** No approval of the run is pending any more: held calls go on. */
  ended(): void {
    this.decided?.resolve();
    this.decided = undefined;
  }

  /** For a call starting while `pending` approvals wait: undefined to go on, or what to wait for. */
  hold(pending: number): Promise<void> | undefined {
    if (pending === 0 || ++this.calls <= MAX_CALLS_DURING_APPROVAL) return undefined;
    if (!this.decided) {
      let settle!: () => void;
      const promise = new Promise<void>((r) => (settle = r));
      // an abort ends the wait too: the held call then finds the run aborted and fails as such
      const onAbort = () => settle();
      this.signal.addEventListener('abort', onAbort, { once: true });
      this.decided = {
        promise,
        resolve: () => {
          this.signal.removeEventListener('abort', onAbort);
          settle();
        },
      };
    }
    return this.decided.promise;
  }
}
