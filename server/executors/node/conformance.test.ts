// The executor conformance suite, run against the Node executor, with its documented differences asserted.
import { expect } from 'vitest';
import { executorConformance } from '../conformance.testing.ts';
import { NodeExecutor } from './executor.ts';

executorConformance({
  kind: 'node',
  // the probe never reports pressure, so a loaded CI machine cannot turn warm reuse off mid-suite
  // (Node starts workers on demand: `cold` changes nothing)
  createExecutor: (o) => new NodeExecutor({ memoryPressure: () => false, ...(o?.preludePrefix !== undefined ? { preludePrefix: o.preludePrefix } : {}) }),
  // Node parks a live context: no snapshot, only an estimate of the retained heap
  expectParkedBytes: (r) => {
    expect(r.telemetry.snapshot).toBeUndefined();
    expect(r.telemetry.retainedBytesEstimate).toBeGreaterThan(0);
  },
});
