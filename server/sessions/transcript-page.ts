// A transcript branch read a page at a time: the bounds of one page of sessions.transcript, however long the session grew.
//
// The whole branch in one answer was 14 MiB for a long session: held in memory and serialized on the Gateway's
// thread at once, and sent again on every refresh. A page is at most MAX_TRANSCRIPT_PAGE_ENTRIES entries and
// MAX_TRANSCRIPT_PAGE_BYTES of stored payload (always at least one entry), root first; the next page starts
// after the last entry's id. Transcript.page reads the branch's shape without payloads, picks the page here,
// and loads and parses only that page's rows.
import { InvalidInputError } from '../errors.ts';
import type { TranscriptEntry } from './types.ts';

/** Entries a page holds unless the caller asks for fewer: a panel's screenful many times over. */
export const DEFAULT_TRANSCRIPT_PAGE_ENTRIES = 200;
/** The most a caller may ask for in one page. */
export const MAX_TRANSCRIPT_PAGE_ENTRIES = 1000;
/** Stored payload bytes a page holds at most (one entry always fits, whatever its size): a response a browser parses in a blink. */
export const MAX_TRANSCRIPT_PAGE_BYTES = 1024 * 1024;

export interface TranscriptPage {
  /** The page's entries, root first. */
  entries: TranscriptEntry[];
  /** Pass as `after` for the next page; null when this page reaches the leaf. */
  nextCursor: string | null;
  /** Entries on the whole branch (the leaf's depth + 1). */
  total: number;
}

export interface TranscriptPageOptions {
  /** The id of the last entry already read (the previous page's nextCursor); absent: from the root. */
  after?: string;
  limit?: number;
}

/** One entry of a branch's shape: its id and the bytes its stored payload takes. */
export interface ShapeEntry {
  id: string;
  bytes: number;
}

/** The ids one page holds, from the branch's shape (root first), and the cursor after it; InvalidInputError for a cursor off the branch. */
export function pickPage(sessionId: string, shape: readonly ShapeEntry[], opts: TranscriptPageOptions): { ids: string[]; nextCursor: string | null } {
  const limit = Math.max(1, Math.min(MAX_TRANSCRIPT_PAGE_ENTRIES, Math.floor(opts.limit ?? DEFAULT_TRANSCRIPT_PAGE_ENTRIES)));
  let start = 0;
  if (opts.after !== undefined) {
    const at = shape.findIndex((entry) => entry.id === opts.after);
    if (at < 0) {
      throw new InvalidInputError(
        `entry "${opts.after.slice(0, 80)}" is not on the current branch of session "${sessionId}" (it was branched away, or belongs to another session); read the transcript again from its start`,
      );
    }
    start = at + 1;
  }
  const ids: string[] = [];
  let bytes = 0;
  for (let i = start; i < shape.length && ids.length < limit; i++) {
    const entry = shape[i]!;
    if (ids.length > 0 && bytes + entry.bytes > MAX_TRANSCRIPT_PAGE_BYTES) break;
    ids.push(entry.id);
    bytes += entry.bytes;
  }
  const more = start + ids.length < shape.length;
  return { ids, nextCursor: more ? (ids.at(-1) ?? null) : null };
}
