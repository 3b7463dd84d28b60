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
// read. A commit that cannot be appended throws and leaves the projection as it was.
import { InvalidInputError } from '../errors.ts';
import { MEMORY_DB_PATH, openSessionDatabase, SessionStoreError, type SessionDatabase } from './db.ts';
import { assertSessionId, Transcript } from './transcript.ts';
import type { SessionStoreEntry, StoreEntryPayload, TranscriptEntry } from './types.ts';

export interface StoredValue {
  /** undefined = deleted */
  json: string | undefined;
  networkContent: boolean;
}

export interface StoreCommit {
  at: number;
  runId: string;
  writes: Record<string, StoredValue>;
  /** The transcript entry that holds it. */
  entryId: string;
}

interface Projection {
  /** The transcript's branch generation it was built for. */
  generation: number;
  values: Map<string, StoredValue>;
}

export class SessionStore {
  readonly transcript: Transcript;
  private readonly projections = new Map<string, Projection>();
  /** Views of the root store, one per turn scope; collected with the scope. */
  private readonly views = new WeakMap<object, SessionStore>();
  private readonly root: SessionStore;

  /** `source`: a transcript to share, an open database, or a database path (":memory:" by default). */
  constructor(source: Transcript | SessionDatabase | string = MEMORY_DB_PATH, root?: SessionStore) {
    this.transcript = source instanceof Transcript ? source : new Transcript(typeof source === 'string' ? openSessionDatabase(source) : source);
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

  /** Committed value of `key` in `sessionId` as this view sees it, or undefined. */
  get(sessionId: string, key: string): StoredValue | undefined {
    return this.projection(sessionId).values.get(key);
  }

  /**
   * Appends the write set as one `code-mode-store` entry, then applies it to this view's projection.
   * Throws SessionStoreError if the append fails; the projection is then unchanged.
   */
  commit(sessionId: string, runId: string, writes: Map<string, StoredValue>): StoreCommit | undefined {
    assertSessionId(sessionId);
    if (writes.size === 0) return undefined;
    const payload: StoreEntryPayload = { runId, sets: [], deletes: [] };
    for (const [key, value] of writes) {
      if (value.json === undefined) payload.deletes.push(key);
      else payload.sets.push({ key, json: value.json, networkContent: value.networkContent });
    }
    let entry: TranscriptEntry;
    try {
      entry = this.transcript.appendEntry(sessionId, 'code-mode-store', payload);
    } catch (err) {
      if (err instanceof InvalidInputError) throw err;
      throw new SessionStoreError(`${(err as Error).message}; the cell's store() writes were discarded, store them again in a later cell`);
    }
    const projection = this.projections.get(sessionId);
    if (projection) {
      if (projection.generation === this.transcript.generation(sessionId)) apply(projection.values, payload, entry.id);
      else this.projections.delete(sessionId);
    }
    return { at: entry.createdAt, runId, writes: Object.fromEntries(writes), entryId: entry.id };
  }

  /** The store as the current branch holds it, read fresh (the playground's store panel). */
  entries(sessionId: string): SessionStoreEntry[] {
    const values = replay(this.transcript.branch(sessionId));
    return [...values].flatMap(([key, v]) => (v.json === undefined ? [] : [{ key, json: v.json, networkContent: v.networkContent }]));
  }

  /** The commits along the current branch, oldest first. */
  history(sessionId: string): StoreCommit[] {
    return this.transcript.branch(sessionId).flatMap((entry) => {
      if (entry.type !== 'code-mode-store') return [];
      // keys are the guest's: fromEntries defines them, so "__proto__" is a key like any other, never the prototype
      const writes: Record<string, StoredValue> = Object.fromEntries([
        ...entry.payload.sets.map((s): [string, StoredValue] => [s.key, { json: s.json, networkContent: s.networkContent }]),
        ...entry.payload.deletes.map((key): [string, StoredValue] => [key, { json: undefined, networkContent: false }]),
      ]);
      return [{ at: entry.createdAt, runId: entry.payload.runId, writes, entryId: entry.id }];
    });
  }

  /** Closes the database (the root store owns it). */
  close(): void {
    this.root.transcript.close();
  }

  private projection(sessionId: string): Projection {
    assertSessionId(sessionId);
    const generation = this.transcript.generation(sessionId);
    const cached = this.projections.get(sessionId);
    if (cached && cached.generation === generation) return cached;
    const built: Projection = { generation, values: replay(this.transcript.branch(sessionId)) };
    this.projections.set(sessionId, built);
    return built;
  }
}

/** Replays `code-mode-store` entries of a branch, root first, into key -> value. */
export function replay(branch: readonly TranscriptEntry[]): Map<string, StoredValue> {
  const values = new Map<string, StoredValue>();
  for (const entry of branch) if (entry.type === 'code-mode-store') apply(values, entry.payload, entry.id);
  return values;
}

function apply(values: Map<string, StoredValue>, payload: StoreEntryPayload, entryId: string): void {
  if (!Array.isArray(payload.sets) || !Array.isArray(payload.deletes)) {
    throw new SessionStoreError(`store entry "${entryId}" has no sets/deletes lists; the transcript is damaged`);
  }
  for (const s of payload.sets) {
    if (typeof s?.key !== 'string' || typeof s.json !== 'string') {
      throw new SessionStoreError(`store entry "${entryId}" has a set without a string key and json; the transcript is damaged`);
    }
    values.set(s.key, { json: s.json, networkContent: s.networkContent === true });
  }
  for (const key of payload.deletes) values.delete(String(key));
}
