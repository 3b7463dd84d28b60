// Result shaping: a run's exec/wait results (completed, failed, waiting), their output and telemetry,
// built from the run record. Nothing here releases, commits or emits (runs.ts does that first); the one
// write is an interactive cell's completed value over maxOutputBytes, saved whole to the results store the
// cell captured, for results.load.
import type { CodeModeErrorCode } from '../errors.ts';
import { boundValue } from './bound.ts';
import type { ExecutionBudget } from './budget.ts';
import type { LiveLeg, Run } from './run.ts';
import { pendingCalls } from './trajectory.ts';
import type { CodeModeOutput } from '../bridge/protocol.ts';
import type { CodeModeResult, CodeModeTelemetry } from './types.ts';

/** The output lines a result carries, with a closing note when the worker dropped some past maxOutputBytes. */
export function outputField(output: CodeModeOutput[], dropped: number, run: Run): { output?: CodeModeOutput[] } {
  const lines = [...output];
  if (dropped > 0) {
    lines.push({ kind: 'warn', text: `[output truncated: ${dropped} bytes omitted; maxOutputBytes is ${run.turn.options.maxOutputBytes}]` });
  }
  return lines.length > 0 ? { output: lines } : {};
}

/** Telemetry of the run's current exec/wait call (`live` when a leg ran, absent when the call never opened one). */
export function telemetry(run: Run, budget: ExecutionBudget, live: LiveLeg | undefined, dropped: number, truncated: boolean): CodeModeTelemetry {
  const call = live?.call ?? run.calls[run.calls.length - 1];
  // the run's own suspensions: a pressure checkpoint inside a call is not what it parked or restored from
  const last = run.snapshots.findLast((s) => s.reason !== 'pressure');
  const restoreMs = live?.opened?.restoreMs;
  const parked = run.continuation;
  const snapshotHeld = parked?.executor === 'quickjs' ? parked : undefined;
  const snapshot =
    run.executorKind === 'quickjs' && (restoreMs !== undefined || (run.state === 'waiting' && last))
      ? {
          // parked now: this suspension's snapshot; resumed: the snapshot it restored from
          rawBytes: snapshotHeld?.rawBytes ?? live?.opened?.rawBytes ?? 0,
          storedBytes: snapshotHeld?.storedBytes ?? last?.storedBytes ?? 0,
          ...(run.state === 'waiting' && last ? { takeMs: last.takeMs } : {}),
          ...(restoreMs !== undefined ? { restoreMs } : {}),
        }
      : undefined;
  const outputBytes = (live?.output ?? []).reduce((n, l) => n + Buffer.byteLength(l.text, 'utf8'), 0);
  return {
    runId: run.runId,
    executor: run.executorKind,
    durationMs: call ? Date.now() - call.startedAt : 0,
    budgetUsedMs: Math.round(budget.spentMs),
    counters: { ...run.counters },
    nestedCalls: run.nestedCount,
    ...(snapshot ? { snapshot } : {}),
    ...(parked && parked.executor !== 'quickjs' && parked.retainedBytesEstimate !== undefined ? { retainedBytesEstimate: parked.retainedBytesEstimate } : {}),
    ...(live?.opened ? { startMs: Math.round(live.opened.startMs) } : {}),
    ...(live?.opened?.restoreMs !== undefined ? { restoreMs: Math.round(live.opened.restoreMs * 10) / 10 } : {}),
    outputBytes,
    ...(truncated || dropped > 0 ? { truncated: true } : {}),
    ...(run.networkContent ? { networkContent: true } : {}),
  };
}

/**
 * A completed value bounded to maxOutputBytes: over it, a preview, and for an interactive cell the whole value
 * saved to the results store the cell captured, when it fits there (the warning says how to load it, or why
 * it was not retained). Spec 02: "only eligible interactive cells request this capture ... Headless and
 * restart-safe execution do not allocate automatic references": theirs stays a preview, and the warning says why.
 */
export function boundCompletedValue(run: Run, parsed: { json: string; value: unknown }): { value: unknown; truncated: boolean; warnings: string[] } {
  const warnings: string[] = [];
  const max = run.turn.options.maxOutputBytes;
  const nonInteractive = run.nonInteractive;
  const bounded = boundValue(parsed, max, (json) => {
    if (nonInteractive) {
      warnings.push(
        `the full value was not retained: ${nonInteractive} cells get no automatic references; return a smaller value (select the fields you need) to see all of it`,
      );
      return undefined;
    }
    try {
      return run.results.save(json, run.networkContent).ref;
    } catch (err) {
      warnings.push(`the full value was not retained: ${(err as Error).message}`);
      return undefined;
    }
  });
  if (bounded.truncated) {
    warnings.push(
      `the value was ${bounded.bytes} bytes, over maxOutputBytes ${max}; a preview is shown${bounded.ref ? ` and results.load("${bounded.ref}") returns it whole in this turn` : ''}`,
    );
  }
  return { value: bounded.value, truncated: bounded.truncated, warnings };
}

/** A completed result: the value already bounded to maxOutputBytes (`truncated` when it was cut). */
export function completedResult(run: Run, live: LiveLeg, value: unknown, warnings: string[], dropped: number, truncated: boolean): CodeModeResult {
  return {
    status: 'completed',
    value,
    ...outputField(live.output, dropped, run),
    ...(warnings.length > 0 ? { warnings } : {}),
    telemetry: telemetry(run, live.budget, live, dropped, truncated),
  };
}

/** A failed result (`code` absent for an uncaught guest error). */
export function failedResult(
  run: Run,
  code: CodeModeErrorCode | undefined,
  error: string,
  output: CodeModeOutput[],
  dropped: number,
  budget: ExecutionBudget,
  live?: LiveLeg,
): CodeModeResult {
  return {
    status: 'failed',
    error,
    ...(code ? { code } : {}),
    ...outputField(output, dropped, run),
    telemetry: telemetry(run, budget, live, dropped, false),
  };
}

/**
 * A waiting result for a run that is parked now, with what it still waits on. Every one is marked replay-safe
 * (spec 01: "Suspended results are marked replay-safe so restart recovery can reconstruct an interrupted turn
 * from its transcript instead of restoring the process-local snapshot"): the mark is about the result, which
 * records no effect of its own, not about the cell, so it does not depend on restartSafe.
 */
export function waitingResult(run: Run, output: CodeModeOutput[], dropped: number, budget: ExecutionBudget, live: LiveLeg | undefined): CodeModeResult {
  return {
    status: 'waiting',
    runId: run.runId,
    reason: run.reason ?? 'pending_tools',
    pendingToolCalls: pendingCalls(run),
    ...outputField(output, dropped, run),
    telemetry: telemetry(run, budget, live, dropped, false),
    replaySafe: true,
  };
}

/** An uncaught guest error with the cell line it was thrown from, when its stack names one. */
export function describeUncaught(error: string, stack?: string): string {
  const where = stack?.split('\n').find((l) => l.includes('cell.js'));
  const m = where?.match(/cell\.js:(\d+)/);
  return m ? `${error} (line ${m[1]})` : error;
}
