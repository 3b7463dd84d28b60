// A transcript branch read a page at a time: bounded answers for sessions.transcript, however long the session grew.
//
// The whole branch in one answer was 14 MiB for a long session: held in memory and serialized on the Gateway's
// thread at once, and sent again on every refresh. A page is at most MAX_TRANSCRIPT_PAGE_ENTRIES entries and
// MAX_TRANSCRIPT_PAGE_BYTES of stored payload (always at least one entry), root first; the next page starts
// after the last entry's id. The branch's shape is read without payloads; only a page's rows are loaded and parsed.
import { InvalidInputError } from '../errors.ts';
import { SessionStoreError } from './db.ts';
import { assertSessionId, toEntry, type EntryRow, type Transcript } from './transcript.ts';
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

interface ShapeRow {
  id: string;
  parent_id: string | null;
  bytes: number;
}

export class TranscriptPages {
  private readonly stmts;

  constructor(private readonly transcript: Transcript) {
    const { db } = transcript;
    this.stmts = {
      // the branch's shape, root first, without its payloads
      shape: db.prepare<[string, string, string], ShapeRow>(`
        WITH RECURSIVE chain(id, parent_id, bytes, depth) AS (
          SELECT id, parent_id, length(CAST(payload AS BLOB)), 0 FROM entries WHERE id = ? AND session_id = ?
          UNION ALL
          SELECT e.id, e.parent_id, length(CAST(e.payload AS BLOB)), c.depth + 1
            FROM entries e JOIN chain c ON e.id = c.parent_id WHERE e.session_id = ?
        )
        SELECT id, parent_id, bytes FROM chain ORDER BY depth DESC`),
      rows: db.prepare<[string, string], EntryRow>(
        'SELECT id, session_id, parent_id, type, payload, created_at FROM entries WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))',
      ),
    };
  }

  /** One page of the session's current branch (see the header); InvalidInputError for a cursor off the branch. */
  page(sessionId: string, opts: TranscriptPageOptions = {}): TranscriptPage {
    assertSessionId(sessionId);
    const limit = Math.max(1, Math.min(MAX_TRANSCRIPT_PAGE_ENTRIES, Math.floor(opts.limit ?? DEFAULT_TRANSCRIPT_PAGE_ENTRIES)));
    const leafId = this.transcript.leaf(sessionId);
    if (leafId === null) return { entries: [], nextCursor: null, total: 0 };
    const shape = this.read(() => this.stmts.shape.all(leafId, sessionId, sessionId));
    if (shape[0]?.parent_id !== null) {
      throw new SessionStoreError(`the branch of session "${sessionId}" does not reach its root from leaf "${leafId}"; the transcript is damaged`);
    }
    let start = 0;
    if (opts.after !== undefined) {
      const at = shape.findIndex((row) => row.id === opts.after);
      if (at < 0) {
        throw new InvalidInputError(
          `entry "${opts.after.slice(0, 80)}" is not on the current branch of session "${sessionId}" (it was branched away, or belongs to another session); read the transcript again from its start`,
        );
      }
      start = at + 1;
    }
    const picked: ShapeRow[] = [];
    let bytes = 0;
    for (let i = start; i < shape.length && picked.length < limit; i++) {
      const row = shape[i]!;
      if (picked.length > 0 && bytes + row.bytes > MAX_TRANSCRIPT_PAGE_BYTES) break;
      picked.push(row);
      bytes += row.bytes;
    }
    const byId = new Map(this.read(() => this.stmts.rows.all(sessionId, JSON.stringify(picked.map((row) => row.id)))).map((row) => [row.id, row]));
    const entries = picked.flatMap((row) => {
      const stored = byId.get(row.id);
      const entry = stored ? toEntry(stored) : undefined;
      return entry ? [entry] : [];
    });
    const last = picked.at(-1);
    const more = start + picked.length < shape.length;
    return { entries, nextCursor: more && last ? last.id : null, total: shape.length };
  }

  private read<T>(fn: () => T): T {
    // queued activity rows are written first, so a page sees the transcript in append order
    this.transcript.flushDeferred();
    try {
      return fn();
    } catch (err) {
      throw new SessionStoreError(`could not read the session transcript: ${(err as Error).message}`);
    }
  }
}
