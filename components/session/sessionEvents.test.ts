// Tests for which live events refresh a session's views.
import { describe, expect, it } from 'vitest';
import { sessionChangedBy } from './sessionEvents.ts';
import type { LiveEvent } from '../api.ts';

const approvalResolved: LiveEvent = { type: 'approval.resolved', runId: 'run_1', at: 1, approvalId: 'ap_1', approved: true };

describe('sessionChangedBy', () => {
  it('on an entry appended by a run: names the entry\'s session', () => {
    expect(sessionChangedBy({ type: 'session.appended', runId: 'run_1', sessionId: 's1', at: 1, entryId: 'e1' })).toBe('s1');
  });
  it('on an entry appended outside a run (a compaction): names the entry\'s session', () => {
    expect(sessionChangedBy({ type: 'session.appended', sessionId: 's2', at: 1, entryId: 'e2' })).toBe('s2');
  });
  it('on run, nested-call and approval events: names no session (their entries arrive as their own events)', () => {
    expect(sessionChangedBy(approvalResolved)).toBeUndefined();
    expect(sessionChangedBy({ type: 'approval.requested', runId: 'run_1', at: 1, approval: { approvalId: 'ap_1', runId: 'run_1', tool: 'exec', input: {}, code: '', requestedAt: 1 } })).toBeUndefined();
  });
});
