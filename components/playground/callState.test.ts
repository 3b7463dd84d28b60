// Tests for which call the result panel shows: the page's latest call, or the last result of a run the user picked.
import { describe, expect, it } from 'vitest';
import { shownCall } from './callState.ts';
import type { CellCall } from './callState.ts';
import type { Run } from '../api.ts';
import { runViewFixture } from '../live/testing.ts';

const telemetry = { executor: 'quickjs' as const, durationMs: 1, budgetUsedMs: 1, counters: { search: 0, describe: 0, call: 0 }, nestedCalls: 0, outputBytes: 0 };

function run(runId: string, value: unknown): Run {
  return runViewFixture(runId, {
    state: 'completed',
    calls: [{ callId: 'c1', toolCallId: 't1', tool: 'exec', startedAt: 1, endedAt: 2, status: 'completed' }],
    lastResult: { status: 'completed', value, telemetry: { ...telemetry, runId } },
  }) as Run;
}

const own: CellCall = { seq: 3, tool: 'exec', startedAt: 1, endedAt: 2, result: { status: 'completed', value: 'own', telemetry: { ...telemetry, runId: 'run_own' }, modelText: '' } };

describe('shownCall', () => {
  it("shows the page's call for its own run", () => {
    expect(shownCall(own, run('run_own', 'own'))).toBe(own);
  });
  it("shows a picked run's last result, marked as picked, with the page's call sequence", () => {
    const shown = shownCall(own, run('run_other', 'other'));
    expect(shown).toMatchObject({ seq: 3, picked: true, runId: 'run_other', result: { value: 'other' } });
  });
  it('keeps a call in flight on screen whatever run is picked', () => {
    const inFlight: CellCall = { seq: 4, tool: 'exec', startedAt: 1 };
    expect(shownCall(inFlight, run('run_other', 'other'))).toBe(inFlight);
  });
  it('shows the call when nothing is picked (a cell the typecheck rejected has no run)', () => {
    expect(shownCall(own, undefined)).toBe(own);
  });
});
