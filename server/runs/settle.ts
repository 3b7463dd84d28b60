// How a leg's outcome settles its run: a completed value is bounded and the cell's store() writes are
// committed; a failure or completion ends the run; a parked leg keeps its continuation (snapshot record,
// TTL) and the run waits. The transitions are the run record's (run.ts); this module picks which one an
// outcome is, and returns the exec/wait call's result (the RunManager records it on the call).
import type { CodeModeErrorCode } from '../errors.ts';
import type { LegOutcome } from '../executors/types.ts';
import type { SessionStore } from '../sessions/store.ts';
import { RUN_ABORTED_MESSAGE } from '../bridge/leg-control.mjs';
import { parseValueJson } from './bound.ts';
import { boundCompletedValue, completedResult, describeUncaught, failedResult, waitingResult } from './results.ts';
import type { LiveLeg, Run } from './run.ts';
import { explainDeniedTool } from './denied.ts';
import type { CodeModeResult } from './types.ts';

/** The live leg ended with `outcome` (`dropped`: output bytes the worker dropped). A host failure wins over the outcome. */
export async function settleLeg(run: Run, live: LiveLeg, outcome: LegOutcome, dropped: number, sessions: SessionStore): Promise<CodeModeResult> {
  // the leg's clock readings join the run's recording whatever the outcome (its cassette replays them)
  if (outcome.clock) run.appendClock(outcome.clock);
  const hostFailure = run.hostFailure;
  if (hostFailure && run.state !== 'aborted') return settleFailed(run, live, hostFailure.code, hostFailure.error, dropped);
  switch (outcome.kind) {
    case 'completed':
      return settleCompleted(run, live, outcome.valueJson, dropped, sessions);
    case 'failed': {
      // an uncaught error on a tool the agent's policy denied names the rule that denied it (denied.ts)
      const err = outcome.code ? outcome.error : explainDeniedTool(describeUncaught(outcome.error, outcome.stack), run.cell.code, run.turn.denied);
      return settleFailed(run, live, outcome.code, err, dropped);
    }
    case 'parked':
      return park(run, live, outcome, dropped);
  }
}

async function settleCompleted(run: Run, live: LiveLeg, valueJson: string, dropped: number, sessions: SessionStore): Promise<CodeModeResult> {
  const parsed = parseValueJson(valueJson);
  if (!parsed.ok) return settleFailed(run, live, 'invalid_input', parsed.error, dropped);
  const { value, truncated, warnings } = boundCompletedValue(run, parsed);
  if (run.storeBuffer.size > 0) {
    try {
      // the cell completed: an abort that lands while the commit is written comes too late to discard it
      await sessions.forTurn(run.turn).commit(run.turn.sessionId, run.runId, run.storeBuffer);
    } catch (err) {
      warnings.push(`store() writes were not committed: ${(err as Error).message}`);
    }
  }
  run.complete();
  return completedResult(run, live, value, warnings, dropped, truncated);
}

/** The run fails (or stays aborted: an abort that ended it first keeps its end). */
export function settleFailed(run: Run, live: LiveLeg, code: CodeModeErrorCode | undefined, error: string, dropped: number): CodeModeResult {
  run.fail();
  return failedResult(run, code, error, live.output, dropped, live.budget, live);
}

function park(run: Run, live: LiveLeg, outcome: Extract<LegOutcome, { kind: 'parked' }>, dropped: number): CodeModeResult {
  // an abort already released the run
  if (!run.park(outcome)) return failedResult(run, 'aborted', RUN_ABORTED_MESSAGE, live.output, dropped, live.budget, live);
  return waitingResult(run, live.output, dropped, live.budget, live);
}
