// The sessions face: a session's transcript and store, and moving or compacting its branch (refused while a run of it is live).
import type { SessionsFace } from '../gateway-types.ts';
import { assertSessionIdle, checkedSummary, compactionText } from '../sessions/compaction.ts';
import { assertSessionId } from '../sessions/transcript.ts';
import type { GatewayParts } from './parts.ts';

/** `assertOpen` refuses branching and compacting once the Gateway is shutting down. */
export function sessionsFace(parts: Pick<GatewayParts, 'sessions' | 'runs'>, assertOpen: () => void): SessionsFace {
  const { sessions, runs } = parts;
  const { transcript } = sessions;
  return {
    // display form: nested activity and store entries included
    transcript: (sessionId) => transcript.branch(sessionId),
    transcriptPage: (sessionId, opts = {}) => transcript.page(sessionId, opts),
    sessionStore: (sessionId) => sessions.entries(sessionId),
    branchSession: async (req) => {
      assertOpen();
      const sessionId = req?.sessionId;
      assertSessionId(sessionId);
      assertSessionIdle(runs.list(), sessionId, 'branch');
      await transcript.branchFrom(sessionId, req.entryId);
      return transcript.branch(sessionId);
    },
    // a live run's result would follow the marker: refused like branching
    compactSession: async (req) => {
      assertOpen();
      const sessionId = req?.sessionId;
      assertSessionId(sessionId);
      const summary = checkedSummary(req.summary);
      assertSessionIdle(runs.list(), sessionId, 'compact');
      const text = compactionText(sessionId, await transcript.branch(sessionId), summary);
      return transcript.compact(sessionId, text);
    },
  };
}
