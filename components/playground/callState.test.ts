// Tests for which call the result panel shows: the page's latest call, or the last result of a run the user picked.
import { describe, expect, it } from 'vitest';
import { followRun, shownCall } from './callState.ts';
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

describe('followRun: the result panel follows the run after its call returned', () => {
  const waitingResult = (runId: string, durationMs = 1) => ({ status: 'waiting' as const, runId, reason: 'pending_tools' as const, telemetry: { ...telemetry, durationMs, runId } });
  const execWaiting: CellCall = { seq: 1, tool: 'exec', startedAt: 1, endedAt: 2, result: { ...waitingResult('run_w'), modelText: '' } };
  const waitingView = (over: Parameters<typeof runViewFixture>[1] = {}) => runViewFixture('run_w', { state: 'waiting', lastResult: waitingResult('run_w'), ...over }) as Run;

  it('leaves a waiting result alone while the run still waits on it', () => {
    expect(followRun(execWaiting, waitingView())).toBe(execWaiting);
  });
  it('shows the abort once the board aborted the waiting run', () => {
    const aborted = waitingView({ state: 'aborted', lastResult: { status: 'failed', code: 'aborted', error: 'code mode run aborted: operator', telemetry: { ...telemetry, runId: 'run_w' } } });
    expect(followRun(execWaiting, aborted)).toMatchObject({ result: { status: 'failed', code: 'aborted' }, followed: { kind: 'latest' } });
  });
  it('says the run expired once its TTL passed', () => {
    expect(followRun(execWaiting, waitingView({ state: 'expired' }))?.followed).toEqual({ kind: 'expired' });
  });
  it('says the run expired when a Wait on it came back unavailable', () => {
    const refused: CellCall = { seq: 2, tool: 'wait', runId: 'run_w', startedAt: 3, endedAt: 4, result: { status: 'failed', code: 'invalid_input', error: 'code mode run is unavailable or expired.', telemetry, modelText: '' } };
    expect(followRun(refused, waitingView({ state: 'expired' }))?.followed).toEqual({ kind: 'expired' });
  });
  it('shows running while a wait made elsewhere (before a reload) resumes the run', () => {
    expect(followRun(execWaiting, waitingView({ state: 'running' }))?.followed).toEqual({ kind: 'running' });
  });
  it('keeps a fresh waiting result while the run view is older than it (its events not in yet)', () => {
    expect(followRun(execWaiting, waitingView({ state: 'running', lastResult: undefined }))).toBe(execWaiting);
    const newer: CellCall = { ...execWaiting, tool: 'wait', result: { ...waitingResult('run_w', 9), modelText: '' } };
    expect(followRun(newer, waitingView({ state: 'running' }))).toBe(newer);
  });
  it('a wait refused because another is in flight is not the run failing: running, then its next result', () => {
    const refused: CellCall = { seq: 2, tool: 'wait', runId: 'run_w', startedAt: 3, endedAt: 4, result: { status: 'failed', code: 'invalid_input', error: 'a wait is already in flight for this code mode run; wait for it to return.', telemetry, modelText: '' } };
    expect(followRun(refused, waitingView({ state: 'running' }))?.followed).toMatchObject({ kind: 'running', refused: expect.stringContaining('already in flight') });
    const again = followRun(refused, waitingView({ lastResult: waitingResult('run_w', 7) }));
    expect(again).toMatchObject({ result: { status: 'waiting' }, followed: { kind: 'latest' } });
  });
  it('shows the value a wait made elsewhere settled the run with', () => {
    const done = waitingView({ state: 'completed', lastResult: { status: 'completed', value: 42, telemetry: { ...telemetry, runId: 'run_w', durationMs: 5 } } });
    expect(followRun(execWaiting, done)).toMatchObject({ result: { status: 'completed', value: 42 }, followed: { kind: 'latest' } });
  });
  it("leaves a completed call of the page alone (it has the model text the run view lacks)", () => {
    expect(followRun(own, run('run_own', 'own'))).toBe(own);
  });
});
