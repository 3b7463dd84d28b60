// Test kit for runs driven through a real Gateway: waiting on a run's state by its events, never by time.
import type { Gateway } from '../gateway.ts';
import type { RunState } from './types.ts';

/** Resolves once run `runId` is in `state`: checked now and at every Gateway event, so no test sleeps. */
export function runReaches(gw: Gateway, runId: string, state: RunState): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (gw.run(runId)?.state !== state) return;
      unsubscribe();
      resolve();
    };
    const unsubscribe = gw.subscribe(check);
    check();
  });
}
