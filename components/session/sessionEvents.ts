// Which live events make a session's transcript and store stale: the page refetches those, and only those.
import type { LiveEvent } from '../api.ts';

/**
 * The session whose views `event` changes, or undefined. The Gateway emits `session.appended` after each
 * transcript entry is written (store commits, results and compactions included), so the page refetches when
 * the entry is there instead of guessing from run states, which can settle before the entry is written.
 */
export function sessionChangedBy(event: LiveEvent): string | undefined {
  return event.type === 'session.appended' ? event.sessionId : undefined;
}
