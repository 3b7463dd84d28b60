// Test fixtures for the page's run state: one plain RunView to override field by field.
import type { RunView } from '../../server/runs/types.ts';

/** A running QuickJS run of turn ar1 in session s1 with no calls yet; `over` replaces any field. */
export function runViewFixture(runId: string, over: Partial<RunView> = {}): RunView {
  return {
    runId,
    agentRunId: 'ar1',
    sessionId: 's1',
    agentId: 'main',
    executor: 'quickjs',
    state: 'running',
    language: 'javascript',
    code: 'return 1',
    seed: 1,
    clock: 'real',
    createdAt: 1000,
    updatedAt: 1000,
    maxSnapshotBytes: 10 * 1024 * 1024,
    pendingToolCalls: [],
    clientCalls: [],
    snapshots: [],
    calls: [],
    nested: [],
    ...over,
  };
}
