// The session database's schema, as numbered migrations applied in order and recorded in `schema_migrations`.
//
// A table is added by appending a migration (never by editing an applied one): migrate() applies those a
// database has not seen, each in the same transaction as its record, and refuses a database recorded at a
// version newer than this build knows, rather than misreading it. On PostgreSQL the migration transaction
// first takes an advisory lock, so two Gateways starting on one database do not migrate it twice. On SQLite
// the version is also kept in `PRAGMA user_version`, which builds from before this table checked.
//
// The transcript is the only owner of session data (spec: "no separate database table, sidecar, or disk
// cache"): the session store is not a table of its own but is replayed from `code-mode-store` entries, and
// `sessions` holds only each session's current leaf. The later tables hold what outlives a process beside it
// (runs.durable, a departure from spec 01's in-process map): parked runs, sealed (durable-runs.ts), and the
// digests of turn and session tokens (access/token-store.ts); and which Gateways are up (gateway-presence.ts), and what a page shows of each Gateway's live runs (run-views.ts).
import { SessionStoreError, type SqlDatabase, type SqlDialect, type SqlRunner } from './database.ts';

export interface Migration {
  version: number;
  /** What it adds, for the record and for messages. */
  name: string;
  /** The DDL for each dialect (the column types differ: SQLite's INTEGER is 64-bit, PostgreSQL's is not). */
  sql: Record<SqlDialect, string>;
}

export const SESSION_MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'sessions and transcript entries',
    // IF NOT EXISTS: a file an earlier build made (these tables, user_version 1, no schema_migrations) is adopted as is
    sql: {
      sqlite: `
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
        CREATE INDEX IF NOT EXISTS entries_by_parent ON entries(parent_id);`,
      postgres: `
        CREATE TABLE IF NOT EXISTS sessions (
          id TEXT PRIMARY KEY,
          leaf_id TEXT,
          created_at BIGINT NOT NULL,
          updated_at BIGINT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS entries (
          id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL REFERENCES sessions(id),
          parent_id TEXT REFERENCES entries(id),
          type TEXT NOT NULL,
          payload TEXT NOT NULL,
          created_at BIGINT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS entries_by_session ON entries(session_id);
        CREATE INDEX IF NOT EXISTS entries_by_parent ON entries(parent_id);`,
    },
  },
  {
    version: 2,
    // durable-runs.ts: one row per parked run (runs.durable), its sealed snapshot opaque here; the lease fields say
    // which Gateway is resuming it and the fence refuses the writes of one whose lease was taken over
    name: 'durable runs',
    sql: {
      sqlite: `
        CREATE TABLE durable_runs (
          run_id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          agent_run_id TEXT NOT NULL,
          owner_id TEXT NOT NULL,
          base_image_id TEXT NOT NULL,
          sealed BLOB NOT NULL,
          sealed_bytes INTEGER NOT NULL,
          snapshot_raw_bytes INTEGER NOT NULL,
          snapshot_stored_bytes INTEGER NOT NULL,
          parked_at INTEGER NOT NULL,
          parked_by TEXT NOT NULL,
          expires_at INTEGER NOT NULL,
          state TEXT NOT NULL,
          lease_holder TEXT,
          lease_expires_at INTEGER,
          fence INTEGER NOT NULL
        );
        CREATE INDEX durable_runs_by_expiry ON durable_runs(expires_at);
        CREATE INDEX durable_runs_by_turn ON durable_runs(agent_run_id);
        CREATE INDEX durable_runs_by_owner ON durable_runs(owner_id);
        CREATE INDEX durable_runs_by_session ON durable_runs(session_id);`,
      postgres: `
        CREATE TABLE durable_runs (
          run_id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          agent_run_id TEXT NOT NULL,
          owner_id TEXT NOT NULL,
          base_image_id TEXT NOT NULL,
          sealed BYTEA NOT NULL,
          sealed_bytes BIGINT NOT NULL,
          snapshot_raw_bytes BIGINT NOT NULL,
          snapshot_stored_bytes BIGINT NOT NULL,
          parked_at BIGINT NOT NULL,
          parked_by TEXT NOT NULL,
          expires_at BIGINT NOT NULL,
          state TEXT NOT NULL,
          lease_holder TEXT,
          lease_expires_at BIGINT,
          fence BIGINT NOT NULL
        );
        CREATE INDEX durable_runs_by_expiry ON durable_runs(expires_at);
        CREATE INDEX durable_runs_by_turn ON durable_runs(agent_run_id);
        CREATE INDEX durable_runs_by_owner ON durable_runs(owner_id);
        CREATE INDEX durable_runs_by_session ON durable_runs(session_id);`,
    },
  },
  {
    version: 3,
    // access/token-store.ts: turn and session tokens that outlive the process, as SHA-256 digests (never the token);
    // a session has one session token and a turn one turn token, so two Gateways minting one race to a single winner
    name: 'access tokens',
    sql: {
      sqlite: `
        CREATE TABLE access_tokens (
          digest TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          session_id TEXT NOT NULL,
          agent_run_id TEXT,
          agent_id TEXT,
          owner_id TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX access_tokens_one_per_session ON access_tokens(session_id) WHERE kind = 'session';
        CREATE UNIQUE INDEX access_tokens_one_per_turn ON access_tokens(agent_run_id) WHERE kind = 'turn';
        CREATE INDEX access_tokens_by_expiry ON access_tokens(expires_at);`,
      postgres: `
        CREATE TABLE access_tokens (
          digest TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          session_id TEXT NOT NULL,
          agent_run_id TEXT,
          agent_id TEXT,
          owner_id TEXT NOT NULL,
          created_at BIGINT NOT NULL,
          expires_at BIGINT NOT NULL
        );
        CREATE UNIQUE INDEX access_tokens_one_per_session ON access_tokens(session_id) WHERE kind = 'session';
        CREATE UNIQUE INDEX access_tokens_one_per_turn ON access_tokens(agent_run_id) WHERE kind = 'turn';
        CREATE INDEX access_tokens_by_expiry ON access_tokens(expires_at);`,
    },
  },
  {
    version: 4,
    // gateway-presence.ts: which Gateways on this database are up (a heartbeat each), so a `wait` that reaches the
    // wrong Gateway can say which one holds the run while it lives, and recover the run only once it is gone
    name: 'gateway presence',
    sql: {
      sqlite: `
        CREATE TABLE gateways (
          instance_id TEXT PRIMARY KEY,
          started_at INTEGER NOT NULL,
          seen_at INTEGER NOT NULL,
          durable INTEGER NOT NULL,
          host TEXT NOT NULL,
          pid INTEGER NOT NULL
        );`,
      postgres: `
        CREATE TABLE gateways (
          instance_id TEXT PRIMARY KEY,
          started_at BIGINT NOT NULL,
          seen_at BIGINT NOT NULL,
          durable INTEGER NOT NULL,
          host TEXT NOT NULL,
          pid INTEGER NOT NULL
        );`,
    },
  },
  {
    version: 5,
    // run-views.ts: what a page shows of each live run, written by the Gateway that holds it, so a page on any other
    // Gateway of the group lists it (notices carry ids only); the view is sealed (NULL without runs.durable: no key)
    name: 'run views',
    sql: {
      sqlite: `
        CREATE TABLE run_views (
          run_id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          agent_run_id TEXT NOT NULL,
          holder TEXT NOT NULL,
          executor TEXT NOT NULL,
          state TEXT NOT NULL,
          approvals INTEGER NOT NULL,
          client_calls INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          sealed BLOB
        );
        CREATE INDEX run_views_by_holder ON run_views(holder);`,
      postgres: `
        CREATE TABLE run_views (
          run_id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          agent_run_id TEXT NOT NULL,
          holder TEXT NOT NULL,
          executor TEXT NOT NULL,
          state TEXT NOT NULL,
          approvals INTEGER NOT NULL,
          client_calls INTEGER NOT NULL,
          created_at BIGINT NOT NULL,
          updated_at BIGINT NOT NULL,
          sealed BYTEA
        );
        CREATE INDEX run_views_by_holder ON run_views(holder);`,
    },
  },
  {
    version: 6,
    // run-requests.ts: a decision or an answer a page on one Gateway sends to the Gateway that holds the run (sealed),
    // and that Gateway's outcome, so an approval or client call is acted on from any Gateway's page
    name: 'run requests',
    sql: {
      sqlite: `
        CREATE TABLE run_requests (
          request_id TEXT PRIMARY KEY,
          run_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          holder TEXT NOT NULL,
          sender TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          state TEXT NOT NULL,
          outcome TEXT,
          sealed BLOB NOT NULL
        );
        CREATE INDEX run_requests_by_holder ON run_requests(holder, state);`,
      postgres: `
        CREATE TABLE run_requests (
          request_id TEXT PRIMARY KEY,
          run_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          holder TEXT NOT NULL,
          sender TEXT NOT NULL,
          created_at BIGINT NOT NULL,
          state TEXT NOT NULL,
          outcome TEXT,
          sealed BYTEA NOT NULL
        );
        CREATE INDEX run_requests_by_holder ON run_requests(holder, state);`,
    },
  },
]);

// The advisory lock key migrations take on PostgreSQL (any constant works; this one spells "codemode").
const MIGRATION_LOCK_KEY = 0x636f_6465_6d6f;

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

/** The version a database is at (0: never migrated), from the table and, on SQLite, user_version (an earlier build's record). */
async function currentVersion(db: SqlDatabase, tx: SqlRunner): Promise<number> {
  const rows = await tx.all<{ version: unknown }>('SELECT MAX(version) AS version FROM schema_migrations');
  let version = Number(rows[0]?.version ?? 0);
  if (db.dialect === 'sqlite') {
    const pragma = await tx.all<{ user_version: unknown }>('PRAGMA user_version');
    version = Math.max(version, Number(pragma[0]?.user_version ?? 0));
  }
  return Number.isFinite(version) ? version : 0;
}

/**
 * Brings `db` to the newest of `migrations` (ordered by version). Throws SessionStoreError naming the database and
 * its config field when it is newer than this build, or when a migration fails (nothing of that migration stays).
 */
export async function migrate(db: SqlDatabase, migrations: readonly Migration[] = SESSION_MIGRATIONS): Promise<void> {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  try {
    await db.transaction(async (tx) => {
      if (db.dialect === 'postgres') await tx.all('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
      await tx.script(VERSION_TABLE);
      const version = await currentVersion(db, tx);
      if (version > latest) {
        throw new SessionStoreError(
          `the session database at ${db.location} has schema version ${version}, newer than this build's ${latest}; use a newer build or another ${db.configField}`,
        );
      }
      for (const migration of migrations) {
        if (migration.version <= version) continue;
        await tx.script(migration.sql[db.dialect]);
        await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [migration.version, migration.name, Date.now()]);
      }
      if (db.dialect === 'sqlite' && version < latest) await tx.run(`PRAGMA user_version = ${latest}`);
    });
  } catch (err) {
    if (err instanceof SessionStoreError) throw err;
    throw new SessionStoreError(
      `cannot prepare the session database at ${db.location}: ${(err as Error).message}; is it a database this build wrote? Check ${db.configField}`,
    );
  }
}
