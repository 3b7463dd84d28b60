// Session transcripts on either backend (database.ts): a tree of entries per session with a current leaf, branches, compaction.
//
// Every append hangs the new entry under the session's current leaf and makes it the leaf, so a session
// is a linear log until `branchFrom` moves the leaf back to an older entry: later appends then form a new
// branch and the old one stays in the tree, unreachable from the leaf. "The branch" is always the path
// from the current leaf to its root. Compaction appends a marker: model context starts there, but
// everything older stays on the branch (store replay and display read the whole path).
//
// An append reads the leaf and moves it in one transaction that holds the session's row (SQLite: the
// database's write lock; PostgreSQL: `SELECT ... FOR UPDATE`), so appends from several Gateways to one
// session form one chain in commit order and never fork the branch. Every operation first waits for the
// schema (migrations.ts) and for display-only rows queued before it (appendDeferred), so each reader sees
// the transcript in append order. Rows read back are checked field by field (rows.ts): a damaged row costs
// at most its session a clear SessionStoreError, never a crash (a store entry that does not parse costs nothing).
// long: one concept, the entry tree over its two tables (appends, batched display rows, branches, compaction, whole and paged branch reads); its row checks live in rows.ts and a page's bounds in transcript-page.ts.
import { InvalidInputError } from '../errors.ts';
import { integerColumn, SessionStoreError, textColumn, type SqlDatabase, type SqlDialect, type SqlRunner } from './database.ts';
import { newEntryId } from './entry-id.ts';
import { migrate } from './migrations.ts';
import { branchEntries, branchPath, ENTRY_TYPES, isEntryType, leafColumn, toEntry, type EntryRow } from './rows.ts';
import { pickPage, type TranscriptPage, type TranscriptPageOptions } from './transcript-page.ts';
import type { EntryPayloads, EntryType, SessionSummary, TranscriptEntry } from './types.ts';

/** Session ids come from callers (the playground URL, the CLI); longer ones are a mistake, not an id. */
export const MAX_SESSION_ID_CHARS = 200;

/** Entry types a model's context replays: control calls, their results, prose and compaction summaries. */
const CONTEXT_TYPES: ReadonlySet<EntryType> = new Set<EntryType>(['tool-call', 'tool-result', 'compaction', 'message']);

/** How long a deferred (display-only) entry may wait for its batch: well under what a person notices. */
export const DEFERRED_APPEND_MS = 25;

// Rows one INSERT of a batch carries: one statement per hundred rows instead of one per row (a round trip each
// on PostgreSQL), and 600 parameters, far below either backend's limit.
const MAX_ROWS_PER_INSERT = 100;

const ENTRY_COLUMNS = 'id, session_id, parent_id, type, payload, created_at';
const SET_LEAF = 'UPDATE sessions SET leaf_id = ?, updated_at = ? WHERE id = ?';
// The entries on the path from the leaf to its root. The recursion carries ids only (rows join on at the end), and
// stops after as many steps as the session has entries: parent links a hand edit turned into a loop end the walk
// instead of running forever, and the order is rebuilt from the links (rows.ts branchEntries), which reports the loop.
const BRANCH_ROWS = `
  WITH RECURSIVE chain(id, parent_id, depth) AS (
    SELECT id, parent_id, 0 FROM entries WHERE id = ? AND session_id = ?
    UNION ALL
    SELECT e.id, e.parent_id, c.depth + 1
      FROM entries e JOIN chain c ON e.id = c.parent_id
      WHERE e.session_id = ? AND c.depth < (SELECT COUNT(*) FROM entries WHERE session_id = ?)
  )
  SELECT e.id, e.session_id, e.parent_id, e.type, e.payload, e.created_at FROM chain JOIN entries e ON e.id = chain.id`;

/** The branch's shape from its leaf: ids, parents and stored payload bytes, no payloads; bounded like BRANCH_ROWS. */
function branchShapeSql(dialect: SqlDialect): string {
  const bytes = dialect === 'postgres' ? 'octet_length(payload)' : 'length(CAST(payload AS BLOB))';
  return `
  WITH RECURSIVE chain(id, parent_id, depth) AS (
    SELECT id, parent_id, 0 FROM entries WHERE id = ? AND session_id = ?
    UNION ALL
    SELECT e.id, e.parent_id, c.depth + 1
      FROM entries e JOIN chain c ON e.id = c.parent_id
      WHERE e.session_id = ? AND c.depth < (SELECT COUNT(*) FROM entries WHERE session_id = ?)
  )
  SELECT e.id, e.parent_id, ${bytes} AS bytes FROM chain JOIN entries e ON e.id = chain.id`;
}

export function assertSessionId(sessionId: unknown, field = 'sessionId'): asserts sessionId is string {
  if (typeof sessionId !== 'string' || sessionId.trim() === '') {
    throw new InvalidInputError(`${field} must be a non-empty string; pass the session id a turn was prepared with`);
  }
  if (sessionId.length > MAX_SESSION_ID_CHARS) {
    throw new InvalidInputError(`${field} is ${sessionId.length} characters, over ${MAX_SESSION_ID_CHARS}; use a shorter session id`);
  }
  // PostgreSQL text cannot hold NUL; refused on every backend so a session id means the same on both
  if (sessionId.includes('\0')) throw new InvalidInputError(`${field} contains a NUL character; use a session id of printable text`);
}

interface DeferredRow {
  sessionId: string;
  type: EntryType;
  payload: unknown;
  json: string;
  at: number;
  onError: (message: string) => void;
}

export class Transcript {
  /** Bumped by branchFrom in this process, so cached projections of the old branch know to rebuild. */
  private readonly generations = new Map<string, number>();
  /** Told of every entry once it is written (the Gateway announces it as a `session.appended` event). */
  private readonly appendListeners = new Set<(entry: TranscriptEntry) => void>();
  /** Display-only entries waiting for their batch write (appendDeferred). */
  private deferred: DeferredRow[] = [];
  private deferTimer?: ReturnType<typeof setTimeout>;
  /** The batch writes in order: it settles once every row queued before the last flushDeferred() is written. */
  private flushing: Promise<void> = Promise.resolve();
  /** The schema brought up to date; every operation waits for it. */
  private readonly migrated: Promise<void>;
  private closing?: Promise<void>;

  constructor(readonly db: SqlDatabase) {
    this.migrated = migrate(db);
    // every operation awaits it and reports its failure; this handler only keeps an unawaited failure from being "unhandled"
    this.migrated.catch(() => {});
  }

  /** Resolves once the schema is current; rejects with the SessionStoreError every operation would get (a start-up check). */
  ready(): Promise<void> {
    return this.migrated;
  }

  /** Appends one entry under the current leaf and makes it the leaf. Rejects with InvalidInputError on bad input, SessionStoreError on a storage fault. */
  async appendEntry<K extends EntryType>(sessionId: string, type: K, payload: EntryPayloads[K]): Promise<Extract<TranscriptEntry, { type: K }>> {
    const json = this.checkedJson(sessionId, type, payload);
    const entry = await this.write(`append a "${type}" entry to session "${sessionId}"`, async (tx) => {
      const at = Date.now();
      const id = newEntryId(at);
      const parentId = await lockLeaf(tx, this.db.dialect, sessionId, at);
      await tx.run(`INSERT INTO entries (${ENTRY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`, [id, sessionId, parentId, type, json, at]);
      await tx.run(SET_LEAF, [id, at, sessionId]);
      return { id, parentId, sessionId, type, payload, createdAt: at } as Extract<TranscriptEntry, { type: K }>;
    });
    this.announce(entry);
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
      this.deferTimer = setTimeout(() => void this.flushDeferred(), DEFERRED_APPEND_MS);
      this.deferTimer.unref();
    }
  }

  /** Writes the queued deferred entries now (in one transaction), then tells the append listeners. Never rejects: failures go to each row's onError. */
  flushDeferred(): Promise<void> {
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferTimer = undefined;
    if (this.deferred.length > 0) {
      const batch = this.deferred;
      this.deferred = [];
      this.flushing = this.flushing.then(() => this.writeBatch(batch));
    }
    return this.flushing;
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
  async branchFrom(sessionId: string, entryId: string | null): Promise<void> {
    assertSessionId(sessionId);
    if (entryId !== null && (typeof entryId !== 'string' || entryId === '')) {
      throw new InvalidInputError('entryId must be the id of an entry of this session, or null to branch from the root');
    }
    await this.write(`move the leaf of session "${sessionId}"`, async (tx) => {
      const session = await tx.all(`SELECT id FROM sessions WHERE id = ?${rowLock(this.db.dialect)}`, [sessionId]);
      if (entryId !== null) {
        // an id with NUL names no entry (and PostgreSQL could not even compare it)
        const rows = entryId.includes('\0') ? [] : await tx.all<{ session_id: unknown }>('SELECT session_id FROM entries WHERE id = ?', [entryId]);
        if (rows[0]?.session_id !== sessionId) {
          throw new InvalidInputError(`entryId "${entryId}" is not an entry of session "${sessionId}"; pick one from its transcript`);
        }
      } else if (session.length === 0) {
        throw new InvalidInputError(`session "${sessionId}" has no transcript yet; nothing to branch from`);
      }
      await tx.run(SET_LEAF, [entryId, Date.now(), sessionId]);
    });
    this.generations.set(sessionId, this.generation(sessionId) + 1);
  }

  /**
   * Whether the session has any entry, on any branch (one indexed lookup; nothing is parsed). A session branched
   * back to before its first entry still has them.
   */
  async hasEntries(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    const rows = await this.read(() => this.db.all('SELECT 1 AS found FROM entries WHERE session_id = ? LIMIT 1', [sessionId]));
    return rows.length > 0;
  }

  /** The current leaf (null: no entries on the branch). */
  async leaf(sessionId: string): Promise<string | null> {
    assertSessionId(sessionId);
    const rows = await this.read(() => this.db.all<{ leaf_id: unknown }>('SELECT leaf_id FROM sessions WHERE id = ?', [sessionId]));
    return leafColumn(sessionId, rows[0]?.leaf_id ?? null);
  }

  /**
   * The branch, root first. Throws SessionStoreError when the leaf does not resolve to an entry of the
   * session or its ancestry is broken: a partial path would expose a different branch than the live one.
   */
  async branch(sessionId: string): Promise<TranscriptEntry[]> {
    assertSessionId(sessionId);
    const leafId = await this.leaf(sessionId);
    if (leafId === null) return [];
    const rows = await this.read(() => this.db.all<EntryRow>(BRANCH_ROWS, [leafId, sessionId, sessionId, sessionId]));
    return branchEntries(sessionId, leafId, rows);
  }

  /**
   * One page of the branch, root first (transcript-page.ts): the branch's shape is read without payloads, then only
   * the page's rows are loaded and parsed. InvalidInputError for a cursor off the branch; damage throws as branch() does.
   */
  async page(sessionId: string, opts: TranscriptPageOptions = {}): Promise<TranscriptPage> {
    assertSessionId(sessionId);
    const leafId = await this.leaf(sessionId);
    if (leafId === null) return { entries: [], nextCursor: null, total: 0 };
    const shapeRows = await this.read(() =>
      this.db.all<{ id: unknown; parent_id: unknown; bytes: unknown }>(branchShapeSql(this.db.dialect), [leafId, sessionId, sessionId, sessionId]),
    );
    const shape = branchPath(sessionId, leafId, shapeRows).map((row) => ({ id: String(row.id), bytes: integerColumn(row.bytes) ?? 0 }));
    const { ids, nextCursor } = pickPage(sessionId, shape, opts);
    const rows =
      ids.length === 0
        ? []
        : await this.read(() => this.db.all<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE session_id = ? AND id IN (${ids.map(() => '?').join(', ')})`, [sessionId, ...ids]));
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    const entries = ids.flatMap((id) => {
      const row = byId.get(id);
      const entry = row ? toEntry(sessionId, row) : undefined;
      return entry ? [entry] : [];
    });
    return { entries, nextCursor, total: shape.length };
  }

  /** Appends a compaction entry: model context restarts from `summary`, store replay still sees everything older. */
  async compact(sessionId: string, summary: string): Promise<Extract<TranscriptEntry, { type: 'compaction' }>> {
    assertSessionId(sessionId);
    if (typeof summary !== 'string' || summary.trim() === '') {
      throw new InvalidInputError('summary must be a non-empty string: what the compacted part of the conversation established');
    }
    const branch = await this.branch(sessionId);
    let since = 0;
    for (let i = branch.length - 1; i >= 0 && branch[i]?.type !== 'compaction'; i--) since++;
    return this.appendEntry(sessionId, 'compaction', { summary, compactedEntries: since });
  }

  /**
   * What a model replays: the latest compaction (if any) and the control calls, results and messages after it.
   * Nested activity and custom entries stay out (spec: they add no synthetic model turns).
   */
  async context(sessionId: string): Promise<TranscriptEntry[]> {
    const branch = await this.branch(sessionId);
    let start = 0;
    for (let i = branch.length - 1; i >= 0; i--) {
      if (branch[i]?.type === 'compaction') {
        start = i;
        break;
      }
    }
    return branch.slice(start).filter((e) => CONTEXT_TYPES.has(e.type));
  }

  /** Every session, most recently changed first (a row whose id is not text is left out). */
  async sessions(): Promise<SessionSummary[]> {
    const rows = await this.read(() =>
      this.db.all<{ id: unknown; leaf_id: unknown; created_at: unknown; updated_at: unknown; entry_count: unknown }>(`
        SELECT s.id, s.leaf_id, s.created_at, s.updated_at, (SELECT COUNT(*) FROM entries e WHERE e.session_id = s.id) AS entry_count
          FROM sessions s ORDER BY s.updated_at DESC`),
    );
    return rows.flatMap((row) => {
      const sessionId = textColumn(row.id);
      if (sessionId === undefined) return [];
      return [
        {
          sessionId,
          leafId: textColumn(row.leaf_id) ?? null,
          entryCount: integerColumn(row.entry_count) ?? 0,
          createdAt: integerColumn(row.created_at) ?? 0,
          updatedAt: integerColumn(row.updated_at) ?? 0,
        },
      ];
    });
  }

  /** Changes whenever this process moves the session's leaf to another branch. */
  generation(sessionId: string): number {
    return this.generations.get(sessionId) ?? 0;
  }

  get open(): boolean {
    return this.closing === undefined && this.db.open;
  }

  /** Writes what is queued, then closes the database (after the statements under way). Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.flushDeferred().then(() => this.db.close());
    return this.closing;
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

  /** One batch of deferred rows in one transaction; each session's leaf is locked and moved once. Never rejects. */
  private async writeBatch(batch: DeferredRow[]): Promise<void> {
    const report = (message: string) => {
      for (const onError of new Set(batch.map((d) => d.onError))) onError(message);
    };
    let written: TranscriptEntry[];
    try {
      await this.migrated;
      written = await this.db.transaction(async (tx) => {
        const rows: TranscriptEntry[] = [];
        const jsons: string[] = [];
        const leaves = new Map<string, { id: string | null; at: number }>();
        // sessions are locked in one order (sorted ids): two Gateways flushing batches never wait on each other in a cycle
        const firstAt = new Map<string, number>();
        for (const d of batch) if (!firstAt.has(d.sessionId)) firstAt.set(d.sessionId, d.at);
        for (const [sessionId, at] of [...firstAt].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          leaves.set(sessionId, { id: await lockLeaf(tx, this.db.dialect, sessionId, at), at });
        }
        for (const d of batch) {
          const leaf = leaves.get(d.sessionId) ?? { id: null, at: d.at };
          const id = newEntryId();
          rows.push({ id, parentId: leaf.id, sessionId: d.sessionId, type: d.type, payload: d.payload, createdAt: d.at } as TranscriptEntry);
          jsons.push(d.json);
          leaf.id = id;
          leaf.at = d.at;
        }
        for (let i = 0; i < rows.length; i += MAX_ROWS_PER_INSERT) {
          const chunk = rows.slice(i, i + MAX_ROWS_PER_INSERT);
          const params = chunk.flatMap((e, j) => [e.id, e.sessionId, e.parentId, e.type, jsons[i + j] ?? '{}', e.createdAt]);
          await tx.run(`INSERT INTO entries (${ENTRY_COLUMNS}) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`, params);
        }
        for (const [sessionId, leaf] of leaves) await tx.run(SET_LEAF, [leaf.id, leaf.at, sessionId]);
        return rows;
      });
    } catch (err) {
      report(`the session transcript did not record ${batch.length} nested-activity entries: ${(err as Error).message}`);
      return;
    }
    try {
      for (const entry of written) this.announce(entry);
    } catch (err) {
      report(`an append listener failed: ${(err as Error).message}`);
    }
  }

  private announce(entry: TranscriptEntry): void {
    for (const listener of this.appendListeners) listener(entry);
  }

  private async write<T>(what: string, fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    // queued activity rows go first: every write (and read) sees the transcript in append order
    await this.flushDeferred();
    await this.migrated;
    try {
      return await this.db.transaction(fn);
    } catch (err) {
      if (err instanceof InvalidInputError) throw err;
      throw new SessionStoreError(`could not ${what}: ${(err as Error).message}`);
    }
  }

  private async read<T>(fn: () => Promise<T>): Promise<T> {
    await this.flushDeferred();
    await this.migrated;
    try {
      return await fn();
    } catch (err) {
      if (err instanceof SessionStoreError) throw err;
      throw new SessionStoreError(`could not read the session transcript: ${(err as Error).message}`);
    }
  }
}

/** `FOR UPDATE` where the backend has row locks (PostgreSQL); SQLite's transaction already holds the database's write lock. */
function rowLock(dialect: SqlDialect): string {
  return dialect === 'postgres' ? ' FOR UPDATE' : '';
}

/** Makes sure the session has a row, locks it, and returns its leaf (inside a write transaction). */
async function lockLeaf(tx: SqlRunner, dialect: SqlDialect, sessionId: string, at: number): Promise<string | null> {
  await tx.run('INSERT INTO sessions (id, leaf_id, created_at, updated_at) VALUES (?, NULL, ?, ?) ON CONFLICT (id) DO NOTHING', [sessionId, at, at]);
  const rows = await tx.all<{ leaf_id: unknown }>(`SELECT leaf_id FROM sessions WHERE id = ?${rowLock(dialect)}`, [sessionId]);
  return leafColumn(sessionId, rows[0]?.leaf_id ?? null);
}

/** The run an entry is about, when it names one (an exec's tool-call entry is written before its run exists). */
export function entryRunId(entry: TranscriptEntry): string | undefined {
  switch (entry.type) {
    case 'tool-call':
    case 'tool-result':
    case 'nested-activity':
      return typeof entry.payload.runId === 'string' ? entry.payload.runId : undefined;
    case 'code-mode-store':
      // a damaged store entry reads back with runId ''
      return typeof entry.payload.runId === 'string' && entry.payload.runId !== '' ? entry.payload.runId : undefined;
    default:
      return undefined;
  }
}
