// The session store behind store()/load(): committed values per session, plus each cell's buffered writes.
//
// Only a cell that completes commits its write set, as one entry; failed, timed-out, aborted and
// expired cells discard theirs. Values carry network-content provenance per key. This store keeps
// committed entries in memory as an append-only log per session (the transcript-backed SQLite store
// is a later issue); the interface is what a persistent store must provide.

export interface StoredValue {
  /** undefined = deleted */
  json: string | undefined;
  networkContent: boolean;
}

export interface StoreCommit {
  at: number;
  runId: string;
  writes: Record<string, StoredValue>;
}

export class SessionStore {
  private readonly logs = new Map<string, StoreCommit[]>();
  private readonly projections = new Map<string, Map<string, StoredValue>>();

  /** Committed value of `key` in `sessionId`, or undefined. */
  get(sessionId: string, key: string): StoredValue | undefined {
    return this.projection(sessionId).get(key);
  }

  commit(sessionId: string, runId: string, writes: Map<string, StoredValue>): void {
    if (writes.size === 0) return;
    const entry: StoreCommit = { at: Date.now(), runId, writes: Object.fromEntries(writes) };
    const log = this.logs.get(sessionId) ?? [];
    log.push(entry);
    this.logs.set(sessionId, log);
    const proj = this.projection(sessionId);
    for (const [k, v] of writes) {
      if (v.json === undefined) proj.delete(k);
      else proj.set(k, v);
    }
  }

  /** Current key -> value view of a session (for the playground's store panel). */
  entries(sessionId: string): Array<{ key: string; json: string; networkContent: boolean }> {
    return [...this.projection(sessionId)].flatMap(([key, v]) => (v.json === undefined ? [] : [{ key, json: v.json, networkContent: v.networkContent }]));
  }

  history(sessionId: string): StoreCommit[] {
    return [...(this.logs.get(sessionId) ?? [])];
  }

  private projection(sessionId: string): Map<string, StoredValue> {
    let p = this.projections.get(sessionId);
    if (!p) {
      p = new Map();
      this.projections.set(sessionId, p);
    }
    return p;
  }
}
