// Reads a session's transcript the way the API serves it, a bounded page at a time, into the branch the panel shows.
import type { TranscriptEntry, TranscriptPage } from '../api.ts';

/** Pages read for one branch at most: a branch longer than this many full pages is shown up to there, with a note. */
export const MAX_TRANSCRIPT_PAGES = 50;

export interface LoadedBranch {
  entries: TranscriptEntry[];
  /** Entries on the branch; more than `entries.length` when the page cap stopped the reading. */
  total: number;
}

/**
 * Every page of the branch, root first: `fetchPage(after)` is sessions.transcript with the cursor. Each answer is
 * bounded on the server (MAX_TRANSCRIPT_PAGE_BYTES), so no single response carries a long session whole.
 */
export async function loadBranch(fetchPage: (after: string | undefined) => Promise<TranscriptPage>, maxPages = MAX_TRANSCRIPT_PAGES): Promise<LoadedBranch> {
  const entries: TranscriptEntry[] = [];
  let after: string | undefined;
  let total = 0;
  for (let page = 0; page < maxPages; page++) {
    const answer = await fetchPage(after);
    entries.push(...answer.entries);
    total = answer.total;
    if (answer.nextCursor === null) break;
    after = answer.nextCursor;
  }
  return { entries, total };
}
