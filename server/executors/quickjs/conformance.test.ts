// The executor conformance suite, run against the QuickJS executor.
import { expect } from 'vitest';
import { executorConformance } from '../conformance.testing.ts';
import { QuickJsExecutor } from './executor.ts';

executorConformance({
  kind: 'quickjs',
  createExecutor: async (o) => {
    const ex = new QuickJsExecutor({ workers: 2, ...(o?.preludePrefix !== undefined ? { preludePrefix: o.preludePrefix } : {}) });
    if (!o?.cold) await ex.ready();
    return ex;
  },
  computingWorkers: (ex) => (ex as QuickJsExecutor).computingWorkers(),
  // QuickJS parks as an encoded snapshot: raw heap size and the smaller stored size are reported
  expectParkedBytes: (r) => {
    const snap = r.telemetry.snapshot;
    expect(snap?.rawBytes).toBeGreaterThan(0);
    expect(snap?.storedBytes).toBeGreaterThan(0);
    expect(snap!.storedBytes).toBeLessThan(snap!.rawBytes);
    expect(r.telemetry.retainedBytesEstimate).toBeUndefined();
  },
});
