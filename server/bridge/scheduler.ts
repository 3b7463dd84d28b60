// executionMode scheduling shared by every cell of one run catalog (spec: nested tool execution).
//
// A sequential call waits for every earlier call to finish and blocks later calls until its own
// result is in; parallel calls overlap freely between sequential barriers.

export class CallScheduler {
  private barrier: Promise<unknown> = Promise.resolve();
  private readonly inflight = new Set<Promise<unknown>>();

  schedule<T>(mode: 'parallel' | 'sequential', fn: () => Promise<T>): Promise<T> {
    let p: Promise<T>;
    if (mode === 'sequential') {
      const earlier = Promise.allSettled([this.barrier, ...this.inflight]);
      p = earlier.then(fn);
      this.barrier = p.then(
        () => undefined,
        () => undefined,
      );
    } else {
      p = this.barrier.then(fn);
    }
    this.inflight.add(p);
    const done = () => this.inflight.delete(p);
    p.then(done, done);
    return p;
  }
}
