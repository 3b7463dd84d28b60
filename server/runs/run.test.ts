// The run record: which states end a run, every transition against the table (RunTransitionError on an illegal one),
// and what an end gives back, once.
import { describe, expect, it } from 'vitest';
import { until } from '../testing.ts';
import { ExecutionBudget } from './budget.ts';
import { isTerminal, RunTransitionError, TRANSITIONS, type Run, type RunTransition } from './run.ts';
import { legTo, parkedOutcome, runIn, scriptedExecutor, scriptedLeg, startedRun, testHost } from './run.testing.ts';
import type { RunState } from './types.ts';

describe('isTerminal', () => {
  it('on completed, failed, expired and aborted: the run has ended', () => {
    for (const state of ['completed', 'failed', 'expired', 'aborted'] satisfies RunState[]) expect(isTerminal(state)).toBe(true);
  });

  it('on running and waiting: the run is still live', () => {
    for (const state of ['running', 'waiting'] satisfies RunState[]) expect(isTerminal(state)).toBe(false);
  });
});

/** Transition `t` on `run`, as its callers make it. */
function apply(run: Run, t: RunTransition): void {
  switch (t) {
    case 'openLeg': {
      const call = run.calls[run.calls.length - 1]!;
      run.openLeg(new ExecutionBudget(60_000), call, () => scriptedLeg());
      return;
    }
    case 'park':
      run.park(parkedOutcome());
      return;
    case 'resume':
      return run.resume();
    case 'rewait':
      return run.rewait();
    case 'complete':
      return run.complete();
    case 'fail':
      return run.fail();
    case 'abort':
      return run.abort('the test aborted it');
    case 'expire':
      throw new Error('expire is the TTL timer\'s (see its own test)');
  }
}

const STATES = ['running', 'waiting', 'completed', 'failed', 'aborted'] as const;
const CALLED = (Object.keys(TRANSITIONS) as RunTransition[]).filter((t) => t !== 'expire');

describe('the run record\'s transitions', () => {
  for (const from of STATES) {
    for (const t of CALLED) {
      const rule = TRANSITIONS[t];
      const legal = rule.from.includes(from) && !isTerminal(from);
      const late = isTerminal(from) && rule.afterEnd === 'ignored';
      const expected = legal ? `enters ${rule.to}` : late ? 'changes nothing (it comes after the end)' : 'throws RunTransitionError';
      it(`${t} from ${from}: ${expected}`, async () => {
        const run = await runIn(from);
        if (legal) {
          apply(run, t);
          expect(run.state).toBe(rule.to);
        } else if (late) {
          const ends = (run.host as ReturnType<typeof testHost>).endedRuns.length;
          apply(run, t);
          expect(run.state).toBe(from);
          expect((run.host as ReturnType<typeof testHost>).endedRuns).toHaveLength(ends);
        } else {
          let thrown: unknown;
          try {
            apply(run, t);
          } catch (err) {
            thrown = err;
          }
          expect(thrown).toBeInstanceOf(RunTransitionError);
          expect(thrown).toMatchObject({ name: 'RunTransitionError', runId: run.runId, transition: t, from });
          expect(run.state).toBe(from);
        }
      });
    }
  }

  it('on park while its leg is still live: throws RunTransitionError saying so, and the run keeps running', async () => {
    const run = startedRun(testHost(), scriptedExecutor());
    run.openLeg(new ExecutionBudget(60_000), run.calls[0]!, () => scriptedLeg());
    expect(() => run.park(parkedOutcome())).toThrow(/cannot park while running \(its leg has not ended\)/);
    expect(() => run.complete()).toThrow(RunTransitionError);
    expect(() => run.openLeg(new ExecutionBudget(60_000), run.calls[0]!, () => scriptedLeg())).toThrow(/a leg is already live/);
    expect(run.state).toBe('running');
  });

  it('on resume of a run a wait already holds: throws RunTransitionError', async () => {
    const run = await runIn('waiting');
    run.resume();
    expect(() => run.resume()).toThrow(RunTransitionError);
  });

  it('on a claim or TTL after the end: throws RunTransitionError (an ended run holds nothing)', async () => {
    const run = await runIn('completed');
    expect(() => run.claimSlot()).toThrow(RunTransitionError);
    expect(() => run.startTtl()).toThrow(RunTransitionError);
  });
});

describe('the end of a run', () => {
  it('on abort of a waiting run holding a slot: its continuation, slot and TTL go back and its host hears once; later ends change nothing', async () => {
    const host = testHost();
    const executor = scriptedExecutor();
    const run = await runIn('waiting', host, executor);
    expect(run.claimSlot()).toBeUndefined();
    expect(host.slots.held).toBe(1);
    expect(run.expiresAt).toBeGreaterThan(Date.now());
    const held = run.continuation;
    run.abort('the operator aborted it');
    expect(run.state).toBe('aborted');
    expect(run.released).toBe(true);
    expect(run.signal.aborted).toBe(true);
    expect(run.continuation).toBeUndefined();
    expect(executor.released).toEqual([held]);
    expect(host.slots.held).toBe(0);
    expect(run.expiresAt).toBeUndefined();
    expect(run.lastResult).toMatchObject({ status: 'failed', code: 'aborted' });
    expect(host.endedRuns).toEqual([run]);
    run.abort('again');
    run.fail();
    expect(host.endedRuns).toEqual([run]);
    expect(run.state).toBe('aborted');
    expect(run.leaks(false)).toEqual([]);
  });

  it('on abort while a leg is live: the leg is stopped, and the parked outcome it reports late leaves the run aborted', async () => {
    const run = startedRun(testHost(), scriptedExecutor());
    const live = run.openLeg(new ExecutionBudget(60_000), run.calls[0]!, () => scriptedLeg());
    const ran = run.runLeg(live, 60_000);
    run.abort('the turn ended');
    expect((live.leg as ReturnType<typeof scriptedLeg>).aborts).toBe(1);
    await ran;
    expect(run.park(parkedOutcome())).toBe(false);
    expect(run.state).toBe('aborted');
  });

  it('on a host failure while a leg is live: the leg is stopped and the failure waits for its outcome; parked, the run fails at once', async () => {
    const live = startedRun(testHost(), scriptedExecutor());
    const leg = live.openLeg(new ExecutionBudget(60_000), live.calls[0]!, () => scriptedLeg());
    live.failByHost('invalid_input', 'a malformed frontier');
    expect(live.state).toBe('running');
    expect(live.hostFailure).toEqual({ code: 'invalid_input', error: 'a malformed frontier' });
    expect((leg.leg as ReturnType<typeof scriptedLeg>).aborts).toBe(1);

    const parked = await runIn('waiting');
    parked.failByHost('runtime_unavailable', 'no slot');
    expect(parked.state).toBe('failed');
    expect(parked.lastResult).toMatchObject({ status: 'failed', code: 'runtime_unavailable', error: 'no slot' });
  });

  it('on a budget spent while the leg runs: the leg is asked to park once', async () => {
    const run = startedRun(testHost(), scriptedExecutor());
    const budget = new ExecutionBudget(0);
    const live = run.openLeg(budget, run.calls[0]!, () => scriptedLeg());
    const ran = run.runLeg(live, 60_000);
    const leg = live.leg as ReturnType<typeof scriptedLeg>;
    await until(() => leg.parks > 0, { what: 'the spent budget to ask the leg to park' });
    leg.finish(parkedOutcome());
    await ran;
    expect(leg.parks).toBe(1);
    expect(run.park(parkedOutcome())).toBe(true);
    expect(run.reason).toBe('pending_tools');
  });

  it('on a leg that completes: legTo and complete end the run completed, its host told once', async () => {
    const host = testHost();
    const run = startedRun(host, scriptedExecutor());
    await legTo(run, { kind: 'completed', valueJson: '2', droppedBytes: 0 });
    run.complete();
    expect(run.state).toBe('completed');
    expect(host.endedRuns).toEqual([run]);
  });
});
