// The executor conformance suite, run against the quickjs-emscripten executor, with its documented differences asserted.
import { expect } from 'vitest';
import { executorConformance } from '../conformance.testing.ts';
import { EmscriptenExecutor } from './executor.ts';

executorConformance({
  kind: 'quickjs-emscripten',
  createExecutor: (o) => new EmscriptenExecutor(o?.preludePrefix !== undefined ? { preludePrefix: o.preludePrefix } : {}),
  // a live QuickJS runtime, like Node's context: no snapshot, only an estimate of its live memory
  expectParkedBytes: (r) => {
    expect(r.telemetry.snapshot).toBeUndefined();
    expect(r.telemetry.retainedBytesEstimate).toBeGreaterThan(0);
  },
});
