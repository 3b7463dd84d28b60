// Transcript rows as a query returns them, checked field by field: everything read back from the database is hostile.
//
// A row may have been edited by hand, written by another build, or typed differently by the backend
// (PostgreSQL's BIGINT arrives as text). Readers here never trust a field's type: a damaged row costs at most
// its own session a clear SessionStoreError, and a store entry that does not parse costs nothing (it reads as
// an empty write set). The branch is rebuilt from parent links here rather than ordered by the query, so a
// loop a hand edit made is reported instead of walked forever.
import { integerColumn, SessionStoreError, textColumn } from './database.ts';
import type { EntryType, TranscriptEntry } from './types.ts';

export const ENTRY_TYPES: readonly EntryType[] = Object.freeze([
  'tool-call',
  'tool-result',
  'nested-activity',
  'code-mode-store',
  'compaction',
  'message',
]);

/** An entry row as a query returns it: every field unchecked. */
export interface EntryRow {
  id: unknown;
  session_id: unknown;
  parent_id: unknown;
  type: unknown;
  payload: unknown;
  created_at: unknown;
}

export function isEntryType(type: unknown): type is EntryType {
  return typeof type === 'string' && (ENTRY_TYPES as readonly string[]).includes(type);
}

/** A session row's leaf: an entry id or null; anything else a hand edit left is damage the caller must not build on. */
export function leafColumn(sessionId: string, value: unknown): string | null {
  if (value === null || typeof value === 'string') return value;
  throw new SessionStoreError(`the leaf of session "${sessionId}" is not an entry id; the transcript is damaged, branch from a listed entry`);
}

/** The branch rows in order, root first, rebuilt by walking parent links from the leaf; damage (a missing leaf, a broken or looping chain) throws. */
export function branchEntries(sessionId: string, leafId: string, rows: readonly EntryRow[]): TranscriptEntry[] {
  return branchPath(sessionId, leafId, rows).flatMap((row) => {
    const entry = toEntry(sessionId, row);
    return entry ? [entry] : [];
  });
}

/**
 * Rows of a branch (whole entries, or only their ids and parents) in order, root first, rebuilt by walking parent
 * links from the leaf: a missing leaf, a broken chain, a loop or a parent that is not an id throws.
 */
export function branchPath<Row extends { id: unknown; parent_id: unknown }>(sessionId: string, leafId: string, rows: readonly Row[]): Row[] {
  const byId = new Map<string, Row>();
  for (const row of rows) {
    const id = textColumn(row.id);
    if (id !== undefined) byId.set(id, row);
  }
  if (!byId.has(leafId)) {
    throw new SessionStoreError(
      `the leaf "${leafId}" of session "${sessionId}" matches no entry of that session; the transcript is damaged, branch from a listed entry`,
    );
  }
  const path: Row[] = [];
  const seen = new Set<string>();
  let id: string | null = leafId;
  while (id !== null) {
    const row = byId.get(id);
    if (!row) {
      const child = path.at(-1);
      throw new SessionStoreError(
        `the branch of session "${sessionId}" breaks at entry "${String(child?.id)}" (its parent "${id}" is not in the session); the transcript is damaged`,
      );
    }
    if (seen.has(id)) throw new SessionStoreError(`the branch of session "${sessionId}" loops back to entry "${id}"; the transcript is damaged`);
    seen.add(id);
    path.push(row);
    const parent = row.parent_id;
    if (parent !== null && typeof parent !== 'string') {
      throw new SessionStoreError(`entry "${id}" of session "${sessionId}" has a parent that is not an entry id; the transcript is damaged`);
    }
    id = parent;
  }
  return path.reverse();
}

/**
 * One row as an entry. A type a newer build wrote is kept in the database but not shown (undefined). A payload
 * that is not a JSON object: a store entry reads as an empty write set (replay and history skip it) rather than
 * failing every key of the session; any other entry fails the read, since what it said is lost.
 */
export function toEntry(sessionId: string, row: EntryRow): TranscriptEntry | undefined {
  if (!isEntryType(row.type)) return undefined;
  const id = String(row.id);
  const parentId = typeof row.parent_id === 'string' ? row.parent_id : null;
  const createdAt = integerColumn(row.created_at) ?? 0;
  const text = textColumn(row.payload);
  let payload: unknown;
  try {
    payload = text === undefined ? undefined : JSON.parse(text);
  } catch {
    payload = undefined;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    if (row.type === 'code-mode-store') {
      return { id, parentId, sessionId, type: row.type, payload: { runId: '', sets: [], deletes: [] }, createdAt };
    }
    throw new SessionStoreError(`entry "${id}" of session "${sessionId}" does not hold a JSON object; the transcript is damaged`);
  }
  return { id, parentId, sessionId, type: row.type, payload, createdAt } as TranscriptEntry;
}
