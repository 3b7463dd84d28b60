// The session store behind store()/load(): a projection replayed from `code-mode-store` transcript entries.
//
// There is no table of values: a completed cell's write set is appended to the session transcript as ONE
// `code-mode-store` entry (sets, deletes, per-key network-content provenance), and the store is whatever
// replaying those entries along the current branch gives. So other branches' writes are excluded, a
// compaction changes nothing, and committed values survive a restart (continuations do not).
//
// Each agent turn reads through its own view (`forTurn`), matching the spec's "admitted catalog lifetime":
// the view builds its projection lazily at its first read, then applies only its own commits without
// rescanning. If this process moves the session's leaf to another branch, the view rebuilds at its next
// read. A commit that cannot be appended throws and leaves the projection as it was. Reads and commits are
// asynchronous (either backend, database.ts); a loaded projection (projection()) answers without waiting, and
// one view's commits to a session run one after another, so each capacity check sees the commits before it.
//
// The store writes only what it can read back: values reach commit as the dispatcher's bounded
// re-serialization (bridge/dispatcher.ts, the one place a value is parsed on its way in), and commit refuses
// anything that is not text before appending. Replay never fails the session for one bad entry and parses
// no value: a set whose json is not text marks only its key damaged, text that does not parse fails only
// its key when it is loaded (the dispatcher's parseStored), and an entry with no readable sets list is skipped.
import { InvalidInputError } from '../errors.ts';
import { MEMORY_DB_PATH, SessionStoreError, type SqlDatabase } from './database.ts';
import { openSqliteDatabase } from './sqlite.ts';
import { describeType } from './store-value.ts';
import { assertSessionId, Transcript } from './transcript.ts';
import type { SessionStoreEntry, StoreEntryPayload, TranscriptEntry } from './types.ts';

/** Keys one session's store may hold: it is for small values a later turn needs, not a database. */
export const MAX_SESSION_STORE_KEYS = 1024;
/** Encoded JSON bytes one session's store may hold (each value is also capped at maxOutputBytes). */
export const MAX_SESSION_STORE_BYTES = 8 * 1024 * 1024;

export interface StoredValue {
  /** undefined = deleted (or damaged) */
  json: string | undefined;
  networkContent: boolean;
  /** Replay only: the committed value of this key is not text (why). Loads of the key fail; other keys are unaffected. */
  damaged?: string;
}

export interface StoreCommit {
  at: number;
  runId: string;
  writes: Record<string, StoredValue>;
  /** The transcript entry that holds it. */
  entryId: string;
}

/**
 * One session's store as a view holds it, once loaded: read and checked without waiting, so a cell's store()
 * calls can check capacity and buffer a write in one step (no other call of the cell runs in between).
 */
export interface StoreProjection {
  /** Committed value of `key` as this view sees it, or undefined. */
  get(key: string): StoredValue | undefined;
  /**
   * Why the session's store would be over MAX_SESSION_STORE_KEYS or MAX_SESSION_STORE_BYTES with `writes`
   * (a delete is json undefined) applied to what this view holds, or undefined when it fits. The message
   * names the limit and what to do, for a catchable capacity error in store() and the commit's warning.
   */
  capacityProblem(writes: ReadonlyMap<string, StoredValue>): string | undefined;
}

class Projection implements StoreProjection {
  /** Keys and encoded bytes its values hold, measured at the first capacity check after a change (store() checks every write). */
  private totals?: { keys: number; bytes: number };

  constructor(
    /** The transcript's branch generation it was built for. */
    readonly generation: number,
    private readonly values: Map<string, StoredValue>,
  ) {}

  get(key: string): StoredValue | undefined {
    return this.values.get(key);
  }

  apply(payload: StoreEntryPayload): void {
    apply(this.values, payload);
    delete this.totals;
  }

  capacityProblem(writes: ReadonlyMap<string, StoredValue>): string | undefined {
    const values = this.values;
    this.totals ??= measure(values.values());
    let { keys, bytes } = this.totals;
    // only the written keys change the totals: what they held goes, what they are given comes
    for (const [key, value] of writes) {
      const held = values.get(key)?.json;
      if (held !== undefined) {
        keys--;
        bytes -= Buffer.byteLength(held, 'utf8');
      }
      if (value.json !== undefined) {
        keys++;
        bytes += Buffer.byteLength(value.json, 'utf8');
      }
    }
    if (writes.size > MAX_SESSION_STORE_KEYS) {
      return `one cell may write at most ${MAX_SESSION_STORE_KEYS} keys of the session store (this one wrote ${writes.size}); store fewer, larger values`;
    }
    if (keys > MAX_SESSION_STORE_KEYS) {
      return `the session store would hold ${keys} keys, over its ${MAX_SESSION_STORE_KEYS}-key limit; store fewer, larger values, or delete keys you no longer need (store(key, undefined))`;
    }
    if (bytes > MAX_SESSION_STORE_BYTES) {
      return `the session store would hold ${bytes} bytes, over its ${MAX_SESSION_STORE_BYTES}-byte limit; keep summaries there, or delete keys you no longer need (store(key, undefined))`;
    }
    return undefined;
  }
}

export class SessionStore {
  readonly transcript: Transcript;
  /** Built (or being built) per session, for the transcript generation it reads. */
  private readonly projections = new Map<string, { generation: number; loading: Promise<Projection> }>();
  /** Each session's last commit through this view: commits of one view run one after another, as their capacity checks assume. */
  private readonly commits = new Map<string, Promise<unknown>>();
  /** Views of the root store, one per turn scope; collected with the scope. */
  private readonly views = new WeakMap<object, SessionStore>();
  private readonly root: SessionStore;

  /** `source`: a transcript to share, an open database (either backend), or a SQLite path (":memory:" by default). */
  constructor(source: Transcript | SqlDatabase | string = MEMORY_DB_PATH, root?: SessionStore) {
    this.transcript = source instanceof Transcript ? source : new Transcript(typeof source === 'string' ? openSqliteDatabase(source) : source);
    this.root = root ?? this;
  }

  /** The view one turn (agent run) reads and commits through; the same scope object always gets the same view. */
  forTurn(scope: object): SessionStore {
    const root = this.root;
    let view = root.views.get(scope);
    if (!view) {
      view = new SessionStore(root.transcript, root);
      root.views.set(scope, view);
    }
    return view;
  }

  /** Resolves once the database is ready for use (schema current); rejects with the SessionStoreError every operation would get. */
  ready(): Promise<void> {
    return this.transcript.ready();
  }

  /**
   * The session's store as this view holds it, built from the branch at the first call (and after a branchFrom in
   * this process). Calls made one after another get the same promise, so their continuations run in call order.
   */
  projection(sessionId: string): Promise<StoreProjection> {
    return this.load(sessionId);
  }

  /** Committed value of `key` in `sessionId` as this view sees it, or undefined. */
  async get(sessionId: string, key: string): Promise<StoredValue | undefined> {
    return (await this.load(sessionId)).get(key);
  }

  /**
   * Appends the write set as one `code-mode-store` entry, then applies it to this view's projection.
   * Values must be the host's own serialization (the dispatcher's canonical JSON); commit does not parse them
   * again. Rejects with InvalidInputError, appending nothing, if a key is not a string, a value is not text, or
   * the store would pass its limits. Rejects with SessionStoreError if the append fails; the projection is then unchanged.
   */
  async commit(sessionId: string, runId: string, writes: ReadonlyMap<string, StoredValue>): Promise<StoreCommit | undefined> {
    assertSessionId(sessionId);
    if (writes.size === 0) return undefined;
    // read now: the caller may clear its buffer while the commit waits its turn
    const payload: StoreEntryPayload = { runId, sets: [], deletes: [] };
    const committed = new Map<string, StoredValue>();
    for (const [key, value] of writes) {
      if (typeof key !== 'string' || key === '') {
        throw new InvalidInputError(`store key ${JSON.stringify(String(key))} is not a non-empty string; nothing was stored, store under a string key`);
      }
      const networkContent = value.networkContent === true;
      if (value.json === undefined) {
        payload.deletes.push(key);
        committed.set(key, { json: undefined, networkContent: false });
        continue;
      }
      if (typeof value.json !== 'string') {
        throw new InvalidInputError(`store(${JSON.stringify(key)}): the value is ${describeType(value.json)}, not JSON text; nothing was stored, store plain JSON data`);
      }
      payload.sets.push({ key, json: value.json, networkContent });
      committed.set(key, { json: value.json, networkContent });
    }
    const previous = this.commits.get(sessionId) ?? Promise.resolve();
    const done = previous.catch(() => undefined).then(() => this.append(sessionId, runId, payload, committed));
    this.commits.set(sessionId, done);
    try {
      return await done;
    } finally {
      if (this.commits.get(sessionId) === done) this.commits.delete(sessionId);
    }
  }

  /** The store as the current branch holds it, read fresh (the playground's store panel). Damaged keys are listed with why. */
  async entries(sessionId: string): Promise<SessionStoreEntry[]> {
    const values = replay(await this.transcript.branch(sessionId));
    return [...values].flatMap(([key, v]): SessionStoreEntry[] => {
      if (v.damaged !== undefined) return [{ key, json: '', networkContent: v.networkContent, damaged: v.damaged }];
      return v.json === undefined ? [] : [{ key, json: v.json, networkContent: v.networkContent }];
    });
  }

  /** The commits along the current branch, oldest first, each as replay reads it; a row that names no write (it did not parse) is skipped. */
  async history(sessionId: string): Promise<StoreCommit[]> {
    return (await this.transcript.branch(sessionId)).flatMap((entry) => {
      if (entry.type !== 'code-mode-store') return [];
      const writes = readWrites(entry.payload);
      // every commit names at least one write (an empty write set appends nothing)
      if (writes.size === 0) return [];
      const runId = typeof entry.payload?.runId === 'string' ? entry.payload.runId : '';
      // keys are the guest's: fromEntries defines them, so "__proto__" is a key like any other, never the prototype
      return [{ at: entry.createdAt, runId, writes: Object.fromEntries(writes), entryId: entry.id }];
    });
  }

  /** Closes the database (the root store owns it), after the writes under way. */
  close(): Promise<void> {
    return this.root.transcript.close();
  }

  /** One commit, its turn come: the capacity check against this view, the append, then the projection. */
  private async append(sessionId: string, runId: string, payload: StoreEntryPayload, committed: Map<string, StoredValue>): Promise<StoreCommit> {
    const projection = await this.load(sessionId);
    const over = projection.capacityProblem(committed);
    if (over) throw new InvalidInputError(`${over}; nothing was stored`);
    let entry: TranscriptEntry;
    try {
      entry = await this.transcript.appendEntry(sessionId, 'code-mode-store', payload);
    } catch (err) {
      if (err instanceof InvalidInputError) throw err;
      throw new SessionStoreError(`${(err as Error).message}; the cell's store() writes were discarded, store them again in a later cell`);
    }
    // a branchFrom while the append ran: the view rebuilds from the new branch at its next read
    if (projection.generation === this.transcript.generation(sessionId)) projection.apply(payload);
    else this.projections.delete(sessionId);
    return { at: entry.createdAt, runId, writes: Object.fromEntries(committed), entryId: entry.id };
  }

  private load(sessionId: string): Promise<Projection> {
    try {
      assertSessionId(sessionId);
    } catch (err) {
      return Promise.reject(err);
    }
    const generation = this.transcript.generation(sessionId);
    const cached = this.projections.get(sessionId);
    if (cached && cached.generation === generation) return cached.loading;
    const loading = this.transcript.branch(sessionId).then((branch) => new Projection(generation, replay(branch)));
    const record = { generation, loading };
    this.projections.set(sessionId, record);
    // a failed build is not kept: the next read tries again (a reopened database, a repaired leaf)
    loading.catch(() => {
      if (this.projections.get(sessionId) === record) this.projections.delete(sessionId);
    });
    return loading;
  }
}

/** Keys and encoded JSON bytes of stored values (deleted and damaged ones hold none). */
function measure(values: Iterable<StoredValue>): { keys: number; bytes: number } {
  let keys = 0;
  let bytes = 0;
  for (const value of values) {
    if (value.json === undefined) continue;
    keys++;
    bytes += Buffer.byteLength(value.json, 'utf8');
  }
  return { keys, bytes };
}

/** Replays `code-mode-store` entries of a branch, root first, into key -> value. Never throws for a damaged entry. */
export function replay(branch: readonly TranscriptEntry[]): Map<string, StoredValue> {
  const values = new Map<string, StoredValue>();
  for (const entry of branch) if (entry.type === 'code-mode-store') apply(values, entry.payload);
  return values;
}

/**
 * One entry's writes, key -> value (a delete is json undefined), sets first, then deletes. Written by this
 * build, every part is well formed; an entry an older build or a hand edit left damaged costs only what it
 * names: a set whose json is not text marks its key damaged, and parts that name no key (a set without a
 * string key, a sets list that is not a list) are skipped, since there is no key to fail. Values are not
 * parsed here: text that does not parse fails its key when loaded.
 */
function readWrites(payload: StoreEntryPayload | undefined): Map<string, StoredValue> {
  const writes = new Map<string, StoredValue>();
  const sets: unknown = payload?.sets;
  const deletes: unknown = payload?.deletes;
  if (Array.isArray(sets)) {
    for (const s of sets as unknown[]) {
      const set = (typeof s === 'object' && s !== null ? s : {}) as { key?: unknown; json?: unknown; networkContent?: unknown };
      if (typeof set.key !== 'string') continue;
      const networkContent = set.networkContent === true;
      writes.set(
        set.key,
        typeof set.json === 'string' ? { json: set.json, networkContent } : { json: undefined, networkContent, damaged: `the value is ${describeType(set.json)}, not JSON text` },
      );
    }
  }
  if (Array.isArray(deletes)) for (const key of deletes as unknown[]) if (typeof key === 'string') writes.set(key, { json: undefined, networkContent: false });
  return writes;
}

/** Applies one entry's writes to a projection. */
function apply(values: Map<string, StoredValue>, payload: StoreEntryPayload | undefined): void {
  for (const [key, value] of readWrites(payload)) {
    if (value.json === undefined && value.damaged === undefined) values.delete(key);
    else values.set(key, value);
  }
}
