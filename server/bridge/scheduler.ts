// executionMode scheduling shared by every cell of one run catalog (spec: nested tool execution).
//
// A sequential call waits for every earlier call to finish and blocks later calls until its own
// result is in; parallel calls overlap freely between sequential barriers. What a call does inside
// its place (its hooks, its approval, the tool) is the caller's `fn`: a sequential call awaiting
// approval therefore holds every later call of the catalog (spec 02: "blocks later calls until its
// result has been accepted").

export class CallScheduler {
  private barrier: Promise<unknown> = Promise.resolve();
  /** Sequential calls scheduled and not yet settled: a parallel call waits while there is one. */
  private sequentialPending = 0;
  private readonly inflight = new Set<Promise<unknown>>();

  /** `onWait` is called at once when the call cannot start yet (an earlier call holds it back). */
  schedule<T>(mode: 'parallel' | 'sequential', fn: () => Promise<T>, onWait?: () => void): Promise<T> {
    let p: Promise<T>;
    if (mode === 'sequential') {
      if (this.inflight.size > 0) onWait?.();
      const earlier = Promise.allSettled([this.barrier, ...this.inflight]);
      p = earlier.then(fn);
      this.sequentialPending++;
      const settled = () => {
        this.sequentialPending--;
      };
      this.barrier = p.then(settled, settled);
    } else {
      if (this.sequentialPending > 0) onWait?.();
      p = this.barrier.then(fn);
    }
    this.inflight.add(p);
    const done = () => this.inflight.delete(p);
    p.then(done, done);
    return p;
  }
}
