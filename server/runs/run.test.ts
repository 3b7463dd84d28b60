// The run record's state facts: which states end a run.
import { describe, expect, it } from 'vitest';
import { isTerminal } from './run.ts';
import type { RunState } from './types.ts';

describe('isTerminal', () => {
  it('on completed, failed, expired and aborted: the run has ended', () => {
    for (const state of ['completed', 'failed', 'expired', 'aborted'] satisfies RunState[]) expect(isTerminal(state)).toBe(true);
  });

  it('on running and waiting: the run is still live', () => {
    for (const state of ['running', 'waiting'] satisfies RunState[]) expect(isTerminal(state)).toBe(false);
  });
});
