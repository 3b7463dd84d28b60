// The session database contract: a small asynchronous SQL interface that the SQLite and PostgreSQL backends implement.
//
// Everything sessions persist goes through this interface, so one transcript and one store implementation
// run on either backend with the same semantics, and later tables (durable runs, leases) add migrations
// (migrations.ts) and queries here instead of a second persistence layer. SQL is written once, with `?`
// for each parameter: the PostgreSQL backend numbers them. Where the dialects differ (row locks, DDL types)
// the caller branches on `dialect`, in the few places that need it.
//
// Everything a query returns is hostile: rows are whatever is in the database, edited by hand or written by
// another build, so readers check each field's type before they use it.

/** Which backend a database is; SQL that differs between them branches on it. */
export type SqlDialect = 'sqlite' | 'postgres';

/** A statement parameter: text, integers and nulls, and bytes (BLOB / BYTEA: a durable run's sealed snapshot). */
export type SqlParam = string | number | null | Uint8Array;

/** Statements on one connection: the database itself, or the connection a transaction holds. */
export interface SqlRunner {
  /** The rows one statement returns (`?` marks each parameter); columns as the backend reads them, unchecked. */
  all<Row = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<Row[]>;
  /** One statement for its effect; resolves to how many rows it changed. */
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
  /** Several statements without parameters, as one script (migrations' DDL). */
  script(sql: string): Promise<void>;
}

export interface SqlDatabase extends SqlRunner {
  readonly dialect: SqlDialect;
  /** Where the database lives, for messages: a file path, ":memory:", or a postgres URL without its password. */
  readonly location: string;
  /** The config field that chose it (`sessions.path` or `sessions.url`): errors tell the operator what to change. */
  readonly configField: 'sessions.path' | 'sessions.url';
  /** False once close() began: every later statement fails with a SessionStoreError. */
  readonly open: boolean;
  /**
   * Runs `fn` in one transaction on one connection and commits when it resolves; rolls back and rethrows when it
   * throws. SQLite takes the write lock up front (BEGIN IMMEDIATE: one writer at a time). PostgreSQL runs READ
   * COMMITTED, so a reader that will write a row locks it (`SELECT ... FOR UPDATE`); a serialization failure or a
   * deadlock reruns `fn` from the start (a bounded number of times), so `fn` must keep its effects to `tx`.
   * Statements inside `fn` go to `tx` only: the database itself waits for the transaction to end.
   */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /** Waits for statements under way, then closes the file or the connection pool. Idempotent. */
  close(): Promise<void>;
}

/** The in-memory SQLite database: tests and configs built in code, where nothing should outlive the process. */
export const MEMORY_DB_PATH = ':memory:';

/** A storage fault of the session database. The message says what was being done and what to do. */
export class SessionStoreError extends Error {
  override name = 'SessionStoreError';
  /** The code a guest sees when a store op fails on it (the bridge forwards an error's `code`). */
  readonly code = 'session_unavailable';
}

/** What a closed database says to every statement after close(). */
export function closedDatabaseError(db: Pick<SqlDatabase, 'location'>): SessionStoreError {
  return new SessionStoreError(`the session database at ${db.location} is closed (the Gateway is shutting down)`);
}

/** A column read as an integer: PostgreSQL's BIGINT and COUNT arrive as numbers or numeric text; anything else is undefined. */
export function integerColumn(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A column read as bytes (BLOB / BYTEA arrive as a Buffer); anything else (text a hand edit left, a number) is undefined. */
export function bytesColumn(value: unknown): Uint8Array | undefined {
  return value instanceof Uint8Array ? value : undefined;
}

/** A column read as text (ids, types, payloads); anything else (a number a hand edit left, a blob) is undefined. */
export function textColumn(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
