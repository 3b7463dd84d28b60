// Opens the SQLite session database (better-sqlite3) and creates its two tables: sessions and transcript entries.
//
// The transcript is the only persistence owner (spec: "no separate database table, sidecar, or disk cache"):
// the session store is not a table of its own but is replayed from `code-mode-store` entries. `sessions` only
// holds each session's current leaf.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type SessionDatabase = Database.Database;

/** The in-memory database: tests and configs built in code, where nothing should outlive the process. */
export const MEMORY_DB_PATH = ':memory:';

/** Bumped when the tables change; a newer file is refused rather than misread. */
export const SCHEMA_VERSION = 1;

// Several processes (a dev server and a CLI, parallel test files) may open one file; a writer waits this long
// for another's lock instead of failing at once. A few seconds covers any single append here.
export const BUSY_TIMEOUT_MS = 5000;

/** A storage fault of the session database. The message says what was being done and what to do. */
export class SessionStoreError extends Error {
  override name = 'SessionStoreError';
  /** The code a guest sees when a store op fails on it (the bridge forwards an error's `code`). */
  readonly code = 'session_unavailable';
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  leaf_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  parent_id TEXT REFERENCES entries(id),
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_session ON entries(session_id);
CREATE INDEX IF NOT EXISTS entries_by_parent ON entries(parent_id);
`;

/**
 * Opens (creating when missing) the database at `path`, or an in-memory one for ":memory:". The folder of a
 * file path is created. Throws SessionStoreError naming the path when the file cannot be used.
 */
export function openSessionDatabase(path: string): SessionDatabase {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new SessionStoreError('sessions.path must be a file path or ":memory:"; set it in the config file');
  }
  let db: SessionDatabase;
  try {
    if (path !== MEMORY_DB_PATH) mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
  } catch (err) {
    throw new SessionStoreError(
      `cannot open the session database at ${path}: ${(err as Error).message}; check that the folder is writable or set sessions.path`,
    );
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('foreign_keys = ON');
    if (path !== MEMORY_DB_PATH) {
      // WAL lets readers (the playground's views) run beside a writer; NORMAL is durable across process crashes.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    const version = Number(db.pragma('user_version', { simple: true }));
    if (version > SCHEMA_VERSION) {
      throw new SessionStoreError(
        `the session database at ${path} has schema version ${version}, newer than this build's ${SCHEMA_VERSION}; use a newer build or another sessions.path`,
      );
    }
    db.exec(SCHEMA);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  } catch (err) {
    db.close();
    if (err instanceof SessionStoreError) throw err;
    throw new SessionStoreError(`cannot prepare the session database at ${path}: ${(err as Error).message}; is it a SQLite file this build wrote?`);
  }
  return db;
}
