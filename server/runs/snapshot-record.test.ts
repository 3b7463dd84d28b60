// Tests for a run's snapshot records: each carries its own take and, once a wait restored it, its own restore.
import { describe, expect, it } from 'vitest';
import { expectCompleted, expectWaiting, testGateway } from '../testing.ts';

describe('snapshot records', () => {
  it('a restored snapshot carries the restore time the wait reports; a snapshot never restored has none', async () => {
    const gw = await testGateway({ codeMode: { executor: 'quickjs' } });
    const t = gw.prepareTurn({});
    const first = expectWaiting(await gw.exec(t.agentRunId, { code: 'await yield_control("one");\nawait yield_control("two");\nreturn 1' }));
    expect(gw.run(first.runId)!.snapshots[0]?.restoreMs).toBeUndefined();
    const second = expectWaiting(await gw.wait(t.agentRunId, { runId: first.runId }));
    const [one, two] = gw.run(first.runId)!.snapshots;
    expect(second.telemetry.restoreMs).toBeDefined();
    // telemetry rounds to a tenth of a millisecond
    expect(one?.restoreMs).toBeCloseTo(second.telemetry.restoreMs!, 0);
    expect(two?.restoreMs).toBeUndefined();
    const done = expectCompleted(await gw.wait(t.agentRunId, { runId: first.runId }));
    expect(gw.run(first.runId)!.snapshots[1]?.restoreMs).toBeCloseTo(done.telemetry.restoreMs!, 0);
  });
});
