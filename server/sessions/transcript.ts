// Session transcripts in SQLite: a tree of entries per session with a current leaf, branches, compaction.
//
// Every append hangs the new entry under the session's current leaf and makes it the leaf, so a session
// is a linear log until `branchFrom` moves the leaf back to an older entry: later appends then form a new
// branch and the old one stays in the tree, unreachable from the leaf. "The branch" is always the path
// from the current leaf to its root. Compaction appends a marker: model context starts there, but
// everything older stays on the branch (store replay and display read the whole path).
import { InvalidInputError } from '../errors.ts';
import { SessionStoreError, type SessionDatabase } from './db.ts';
import { newEntryId } from './entry-id.ts';
import type { EntryPayloads, EntryType, SessionSummary, TranscriptEntry } from './types.ts';

/** Session ids come from callers (the playground URL, the CLI); longer ones are a mistake, not an id. */
export const MAX_SESSION_ID_CHARS = 200;

export const ENTRY_TYPES: readonly EntryType[] = Object.freeze([
  'tool-call',
  'tool-result',
  'nested-activity',
  'code-mode-store',
  'compaction',
  'message',
]);

/** Entry types a model's context replays: control calls, their results, prose and compaction summaries. */
const CONTEXT_TYPES: ReadonlySet<EntryType> = new Set<EntryType>(['tool-call', 'tool-result', 'compaction', 'message']);

export interface EntryRow {
  id: string;
  session_id: string;
  parent_id: string | null;
  type: string;
  payload: string;
  created_at: number;
}

interface SessionRow {
  id: string;
  leaf_id: string | null;
  created_at: number;
  updated_at: number;
}

export function assertSessionId(sessionId: unknown, field = 'sessionId'): asserts sessionId is string {
  if (typeof sessionId !== 'string' || sessionId.trim() === '') {
    throw new InvalidInputError(`${field} must be a non-empty string; pass the session id a turn was prepared with`);
  }
  if (sessionId.length > MAX_SESSION_ID_CHARS) {
    throw new InvalidInputError(`${field} is ${sessionId.length} characters, over ${MAX_SESSION_ID_CHARS}; use a shorter session id`);
  }
}

function isEntryType(type: unknown): type is EntryType {
  return typeof type === 'string' && (ENTRY_TYPES as readonly string[]).includes(type);
}

/** How long a deferred (display-only) entry may wait for its batch: well under what a person notices. */
export const DEFERRED_APPEND_MS = 25;

export class Transcript {
  /** Bumped by branchFrom in this process, so cached projections of the old branch know to rebuild. */
  private readonly generations = new Map<string, number>();
  private readonly stmts;
  /** Told of every entry once it is written (the Gateway announces it as a `session.appended` event). */
  private readonly appendListeners = new Set<(entry: TranscriptEntry) => void>();
  /** Display-only entries waiting for their batch write (appendDeferred). */
  private deferred: Array<{ sessionId: string; type: EntryType; payload: unknown; json: string; at: number; onError: (message: string) => void }> = [];
  private deferTimer?: ReturnType<typeof setTimeout>;

  constructor(readonly db: SessionDatabase) {
    this.stmts = {
      session: db.prepare<[string], SessionRow>('SELECT id, leaf_id, created_at, updated_at FROM sessions WHERE id = ?'),
      ensureSession: db.prepare<[string, number, number]>('INSERT OR IGNORE INTO sessions (id, leaf_id, created_at, updated_at) VALUES (?, NULL, ?, ?)'),
      setLeaf: db.prepare<[string | null, number, string]>('UPDATE sessions SET leaf_id = ?, updated_at = ? WHERE id = ?'),
      insert: db.prepare<[string, string, string | null, string, string, number]>(
        'INSERT INTO entries (id, session_id, parent_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      entry: db.prepare<[string], EntryRow>('SELECT id, session_id, parent_id, type, payload, created_at FROM entries WHERE id = ?'),
      hasEntries: db.prepare<[string], { found: number }>('SELECT 1 AS found FROM entries WHERE session_id = ? LIMIT 1'),
      // root-first: depth counts up from the leaf, so ORDER BY depth DESC walks root -> leaf
      branch: db.prepare<[string, string, string], EntryRow & { depth: number }>(`
        WITH RECURSIVE chain(id, session_id, parent_id, type, payload, created_at, depth) AS (
          SELECT id, session_id, parent_id, type, payload, created_at, 0 FROM entries WHERE id = ? AND session_id = ?
          UNION ALL
          SELECT e.id, e.session_id, e.parent_id, e.type, e.payload, e.created_at, c.depth + 1
            FROM entries e JOIN chain c ON e.id = c.parent_id WHERE e.session_id = ?
        )
        SELECT id, session_id, parent_id, type, payload, created_at, depth FROM chain ORDER BY depth DESC`),
      sessions: db.prepare<[], SessionRow & { entry_count: number }>(`
        SELECT s.id, s.leaf_id, s.created_at, s.updated_at, (SELECT COUNT(*) FROM entries e WHERE e.session_id = s.id) AS entry_count
          FROM sessions s ORDER BY s.updated_at DESC`),
    };
  }

  /** Appends one entry under the current leaf and makes it the leaf. */
  appendEntry<K extends EntryType>(sessionId: string, type: K, payload: EntryPayloads[K]): Extract<TranscriptEntry, { type: K }> {
    const json = this.checkedJson(sessionId, type, payload);
    const id = newEntryId();
    const at = Date.now();
    const parentId = this.write(`append a "${type}" entry to session "${sessionId}"`, () => {
      this.stmts.ensureSession.run(sessionId, at, at);
      const parent = this.stmts.session.get(sessionId)?.leaf_id ?? null;
      this.stmts.insert.run(id, sessionId, parent, type, json, at);
      this.stmts.setLeaf.run(id, at, sessionId);
      return parent;
    });
    const entry = { id, parentId, sessionId, type, payload, createdAt: at } as Extract<TranscriptEntry, { type: K }>;
    for (const listener of this.appendListeners) listener(entry);
    return entry;
  }

  /**
   * Appends a display-only entry (nested activity) in a batch: rows queued within DEFERRED_APPEND_MS
   * are written in one transaction, before any other read or write of this transcript and when it
   * closes, so every reader sees them in order. A cell's thousand nested calls then cost a few
   * transactions instead of a thousand. Input is checked now (throws like appendEntry); a failed
   * batch write is reported to `onError`, since nobody awaits it.
   */
  appendDeferred<K extends EntryType>(sessionId: string, type: K, payload: EntryPayloads[K], onError: (message: string) => void): void {
    const json = this.checkedJson(sessionId, type, payload);
    this.deferred.push({ sessionId, type, payload, json, at: Date.now(), onError });
    if (!this.deferTimer) {
      this.deferTimer = setTimeout(() => this.flushDeferred(), DEFERRED_APPEND_MS);
      this.deferTimer.unref();
    }
  }

  /** Writes the queued deferred entries now (in one transaction), then tells the append listeners. */
  flushDeferred(): void {
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferTimer = undefined;
    if (this.deferred.length === 0 || !this.db.open) return;
    const batch = this.deferred;
    this.deferred = [];
    const written: TranscriptEntry[] = [];
    try {
      this.db
        .transaction(() => {
          // each session's leaf is read once and moved once per batch; the rows chain from it in order
          const leaves = new Map<string, { id: string | null; at: number }>();
          for (const d of batch) {
            let leaf = leaves.get(d.sessionId);
            if (!leaf) {
              this.stmts.ensureSession.run(d.sessionId, d.at, d.at);
              leaf = { id: this.stmts.session.get(d.sessionId)?.leaf_id ?? null, at: d.at };
              leaves.set(d.sessionId, leaf);
            }
            const id = newEntryId();
            this.stmts.insert.run(id, d.sessionId, leaf.id, d.type, d.json, d.at);
            written.push({ id, parentId: leaf.id, sessionId: d.sessionId, type: d.type, payload: d.payload, createdAt: d.at } as TranscriptEntry);
            leaf.id = id;
            leaf.at = d.at;
          }
          for (const [sessionId, leaf] of leaves) this.stmts.setLeaf.run(leaf.id, leaf.at, sessionId);
        })
        .immediate();
    } catch (err) {
      const message = `the session transcript did not record ${batch.length} nested-activity entries: ${(err as Error).message}`;
      for (const report of new Set(batch.map((d) => d.onError))) report(message);
      return;
    }
    for (const entry of written) for (const listener of this.appendListeners) listener(entry);
  }

  /** Calls `listener` after each append, whichever part of the house wrote it (control calls, store commits, compaction); returns an unsubscribe. */
  onAppend(listener: (entry: TranscriptEntry) => void): () => void {
    this.appendListeners.add(listener);
    return () => this.appendListeners.delete(listener);
  }

  /**
   * Moves the session's leaf to `entryId` (null: before the first entry). Later appends form a new branch;
   * the entries after `entryId` on the old branch stay stored but leave the branch.
   */
  branchFrom(sessionId: string, entryId: string | null): void {
    assertSessionId(sessionId);
    if (entryId !== null) {
      if (typeof entryId !== 'string' || entryId === '') {
        throw new InvalidInputError('entryId must be the id of an entry of this session, or null to branch from the root');
      }
      const row = this.read(() => this.stmts.entry.get(entryId));
      if (!row || row.session_id !== sessionId) {
        throw new InvalidInputError(`entryId "${entryId}" is not an entry of session "${sessionId}"; pick one from its transcript`);
      }
    } else if (!this.read(() => this.stmts.session.get(sessionId))) {
      throw new InvalidInputError(`session "${sessionId}" has no transcript yet; nothing to branch from`);
    }
    const at = Date.now();
    this.write(`move the leaf of session "${sessionId}"`, () => {
      this.stmts.setLeaf.run(entryId, at, sessionId);
    });
    this.generations.set(sessionId, this.generation(sessionId) + 1);
  }

  /**
   * Whether the session has any entry, on any branch (one indexed lookup; nothing is parsed). A session branched
   * back to before its first entry still has them.
   */
  hasEntries(sessionId: string): boolean {
    assertSessionId(sessionId);
    return this.read(() => this.stmts.hasEntries.get(sessionId)) !== undefined;
  }

  /** The current leaf (null: no entries on the branch). */
  leaf(sessionId: string): string | null {
    assertSessionId(sessionId);
    return this.read(() => this.stmts.session.get(sessionId))?.leaf_id ?? null;
  }

  /**
   * The branch, root first. Throws SessionStoreError when the leaf does not resolve to an entry of the
   * session or its ancestry is broken: a partial path would expose a different branch than the live one.
   */
  branch(sessionId: string): TranscriptEntry[] {
    assertSessionId(sessionId);
    const leafId = this.leaf(sessionId);
    if (leafId === null) return [];
    const rows = this.read(() => this.stmts.branch.all(leafId, sessionId, sessionId));
    const root = rows[0];
    if (!root) {
      throw new SessionStoreError(
        `the leaf "${leafId}" of session "${sessionId}" matches no entry of that session; the transcript is damaged, branch from a listed entry`,
      );
    }
    if (root.parent_id !== null) {
      throw new SessionStoreError(
        `the branch of session "${sessionId}" breaks at entry "${root.id}" (its parent "${root.parent_id}" is not in the session); the transcript is damaged`,
      );
    }
    return rows.flatMap((row) => {
      const entry = toEntry(row);
      return entry ? [entry] : [];
    });
  }

  /** Appends a compaction entry: model context restarts from `summary`, store replay still sees everything older. */
  compact(sessionId: string, summary: string): Extract<TranscriptEntry, { type: 'compaction' }> {
    assertSessionId(sessionId);
    if (typeof summary !== 'string' || summary.trim() === '') {
      throw new InvalidInputError('summary must be a non-empty string: what the compacted part of the conversation established');
    }
    const branch = this.branch(sessionId);
    let since = 0;
    for (let i = branch.length - 1; i >= 0 && branch[i]?.type !== 'compaction'; i--) since++;
    return this.appendEntry(sessionId, 'compaction', { summary, compactedEntries: since });
  }

  /**
   * What a model replays: the latest compaction (if any) and the control calls, results and messages after it.
   * Nested activity and custom entries stay out (spec: they add no synthetic model turns).
   */
  context(sessionId: string): TranscriptEntry[] {
    const branch = this.branch(sessionId);
    let start = 0;
    for (let i = branch.length - 1; i >= 0; i--) {
      if (branch[i]?.type === 'compaction') {
        start = i;
        break;
      }
    }
    return branch.slice(start).filter((e) => CONTEXT_TYPES.has(e.type));
  }

  sessions(): SessionSummary[] {
    return this.read(() => this.stmts.sessions.all()).map((row) => ({
      sessionId: row.id,
      leafId: row.leaf_id,
      entryCount: row.entry_count,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
  }

  /** Changes whenever this process moves the session's leaf to another branch. */
  generation(sessionId: string): number {
    return this.generations.get(sessionId) ?? 0;
  }

  get open(): boolean {
    return this.db.open;
  }

  close(): void {
    this.flushDeferred();
    if (this.db.open) this.db.close();
  }

  private checkedJson(sessionId: string, type: EntryType, payload: unknown): string {
    assertSessionId(sessionId);
    if (!isEntryType(type)) {
      throw new InvalidInputError(`type must be one of ${ENTRY_TYPES.join(', ')}; got ${JSON.stringify(type)}`);
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new InvalidInputError(`payload of a "${type}" entry must be a JSON object`);
    }
    try {
      return JSON.stringify(payload);
    } catch (err) {
      throw new InvalidInputError(`payload of a "${type}" entry is not JSON-serializable (${(err as Error).message}); pass plain data`);
    }
  }

  private write<T>(what: string, fn: () => T): T {
    // queued activity rows go first: every write (and read) sees the transcript in append order
    this.flushDeferred();
    try {
      // IMMEDIATE takes the write lock up front: reading the leaf and moving it cannot interleave with another writer
      return this.db.transaction(fn).immediate();
    } catch (err) {
      if (err instanceof InvalidInputError || err instanceof SessionStoreError) throw err;
      throw new SessionStoreError(`could not ${what}: ${(err as Error).message}`);
    }
  }

  private read<T>(fn: () => T): T {
    this.flushDeferred();
    try {
      return fn();
    } catch (err) {
      throw new SessionStoreError(`could not read the session transcript: ${(err as Error).message}`);
    }
  }
}

/** The run an entry is about, when it names one (an exec's tool-call entry is written before its run exists). */
export function entryRunId(entry: TranscriptEntry): string | undefined {
  switch (entry.type) {
    case 'tool-call':
    case 'tool-result':
    case 'nested-activity':
      return entry.payload.runId;
    case 'code-mode-store':
      // a damaged store entry reads back with runId ''
      return entry.payload.runId || undefined;
    default:
      return undefined;
  }
}

/** A stored row as an entry; undefined for a type this build does not know (kept in the file, not shown). */
export function toEntry(row: EntryRow): TranscriptEntry | undefined {
  // entries of a type a newer build wrote are kept in the file but not shown by this one
  if (!isEntryType(row.type)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    // a store entry that does not parse names no key: it reads as an empty write set (replay and history skip
    // it) rather than failing every key of the session
    if (row.type === 'code-mode-store') {
      return { id: row.id, parentId: row.parent_id, sessionId: row.session_id, type: row.type, payload: { runId: '', sets: [], deletes: [] }, createdAt: row.created_at };
    }
    throw new SessionStoreError(`entry "${row.id}" of session "${row.session_id}" holds invalid JSON; the transcript is damaged`);
  }
  return { id: row.id, parentId: row.parent_id, sessionId: row.session_id, type: row.type, payload, createdAt: row.created_at } as TranscriptEntry;
}
