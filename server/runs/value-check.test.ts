// The host checks a completed cell's value JSON from the worker before it parses or keeps it.
import { describe, expect, it } from 'vitest';
import type { Executor, Leg, LegOutcome } from '../executors/types.ts';
import { testGateway } from '../testing.ts';
import { MAX_VALUE_DEPTH } from './bound.ts';

/** An executor whose every leg completes at once with `valueJson`: a worker that skipped the guest controller's checks. */
function completingWith(valueJson: string): Executor {
  const leg = (): Leg => ({
    done: Promise.resolve<LegOutcome>({ kind: 'completed', valueJson, droppedBytes: 0 }),
    deliver() {},
    park() {},
    setDeadline() {},
    abort() {},
  });
  return {
    kind: 'quickjs',
    pressureParking: false,
    start: leg,
    resume: leg,
    release() {},
    stats: () => ({ workers: 0, activeLegs: 0 }),
    leaks: () => [],
    close: async () => {},
  };
}

async function execWith(valueJson: string) {
  const gw = await testGateway({ executor: completingWith(valueJson) });
  try {
    const t = gw.prepareTurn({});
    return { result: await gw.exec(t.agentRunId, { code: 'return 1' }), slots: gw.diagnostics.suspendedSlots() };
  } finally {
    await gw.close();
  }
}

describe('a completed value from the worker', () => {
  it('on JSON nested deeper than MAX_VALUE_DEPTH: the run fails with invalid_input saying so', async () => {
    const deep = '['.repeat(MAX_VALUE_DEPTH + 1) + ']'.repeat(MAX_VALUE_DEPTH + 1);
    const { result, slots } = await execWith(deep);
    expect(result).toMatchObject({ status: 'failed', code: 'invalid_input', error: expect.stringMatching(/nested more than 1000 levels/) });
    expect(slots).toBe(0);
  });

  it('on text that is not JSON: the run fails with invalid_input instead of throwing in the host', async () => {
    const { result } = await execWith('{"half":');
    expect(result).toMatchObject({ status: 'failed', code: 'invalid_input', error: expect.stringMatching(/not valid JSON/) });
  });

  it('on plain JSON: completes with it', async () => {
    expect((await execWith('{"a":[1,2]}')).result).toMatchObject({ status: 'completed', value: { a: [1, 2] } });
  });
});
