// How a leg's outcome settles its run: a completed value is bounded and the cell's store() writes are
// committed; a failure or completion releases the run; a parked leg keeps its continuation (snapshot
// record, TTL) and the run waits. Each returns the exec/wait call's result; the RunManager records it.
import type { CodeModeErrorCode } from '../errors.ts';
import type { LegOutcome } from '../executors/types.ts';
import type { SessionStore } from '../sessions/store.ts';
import { RUN_ABORTED_MESSAGE } from '../bridge/leg-control.mjs';
import { parseValueJson } from './bound.ts';
import { boundCompletedValue, completedResult, describeUncaught, failedResult, waitingResult } from './results.ts';
import type { LiveLeg, Run } from './run.ts';
import { snapshotRecord } from './trajectory.ts';
import { explainDeniedTool } from './denied.ts';
import type { CodeModeResult, RunState } from './types.ts';

/** What settling needs from the RunManager. */
export interface SettleEnv {
  sessions: SessionStore;
  /** Take the run off the map and release what it holds; its state becomes `state` unless an abort or expiry decided it. */
  release(run: Run, state: RunState): void;
  /** Start the waiting run's snapshot TTL. */
  armTtl(run: Run): void;
}

/** The live leg ended with `outcome` (`dropped`: output bytes the worker dropped). A host failure wins over the outcome. */
export async function settleLeg(run: Run, live: LiveLeg, outcome: LegOutcome, dropped: number, env: SettleEnv): Promise<CodeModeResult> {
  // the leg's clock readings join the run's recording whatever the outcome (its cassette replays them)
  if (outcome.clock) run.clock.append(outcome.clock);
  if (run.hostFailure && run.state !== 'aborted') return settleFailed(run, live, run.hostFailure.code, run.hostFailure.error, dropped, env);
  switch (outcome.kind) {
    case 'completed':
      return settleCompleted(run, live, outcome.valueJson, dropped, env);
    case 'failed': {
      // an uncaught error on a tool the agent's policy denied names the rule that denied it (denied.ts)
      const err = outcome.code ? outcome.error : explainDeniedTool(describeUncaught(outcome.error, outcome.stack), run.cell.code, run.turn.denied);
      return settleFailed(run, live, outcome.code, err, dropped, env);
    }
    case 'parked':
      return park(run, live, outcome, dropped, env);
  }
}

async function settleCompleted(run: Run, live: LiveLeg, valueJson: string, dropped: number, env: SettleEnv): Promise<CodeModeResult> {
  const parsed = parseValueJson(valueJson);
  if (!parsed.ok) return settleFailed(run, live, 'invalid_input', parsed.error, dropped, env);
  const { value, truncated, warnings } = boundCompletedValue(run, parsed);
  if (run.storeBuffer.size > 0) {
    try {
      // the cell completed: an abort that lands while the commit is written comes too late to discard it
      await env.sessions.forTurn(run.turn).commit(run.turn.sessionId, run.runId, run.storeBuffer);
    } catch (err) {
      warnings.push(`store() writes were not committed: ${(err as Error).message}`);
    }
  }
  env.release(run, 'completed');
  return completedResult(run, live, value, warnings, dropped, truncated);
}

/** The run fails (or stays aborted) and is released. */
export function settleFailed(run: Run, live: LiveLeg, code: CodeModeErrorCode | undefined, error: string, dropped: number, env: SettleEnv): CodeModeResult {
  env.release(run, run.state === 'aborted' ? 'aborted' : 'failed');
  return failedResult(run, code, error, live.output, dropped, live.budget, live);
}

function park(run: Run, live: LiveLeg, outcome: Extract<LegOutcome, { kind: 'parked' }>, dropped: number, env: SettleEnv): CodeModeResult {
  // an abort already released the run
  if (run.state === 'aborted' || run.abort.signal.aborted) {
    return failedResult(run, 'aborted', RUN_ABORTED_MESSAGE, live.output, dropped, live.budget, live);
  }
  run.continuation = outcome.continuation;
  run.queued = outcome.queued;
  run.state = 'waiting';
  run.reason = run.yieldRequestId ? 'yield' : 'pending_tools';
  const snapshot = snapshotRecord(outcome, run.reason);
  if (snapshot) run.snapshots.push(snapshot);
  env.armTtl(run);
  return waitingResult(run, live.output, dropped, live.budget, live);
}
