// The SQLite backend of the session database (better-sqlite3 12): one connection whose statements take turns.
//
// better-sqlite3 is synchronous, but a transaction's body awaits between its statements (the contract is
// asynchronous so PostgreSQL can implement it too): without a turn order, a statement from elsewhere could
// land inside another caller's open transaction on the shared connection. So every statement and
// transaction queues here, in call order; a transaction holds the turn until it commits or rolls back.
// Connections of one process to one file share the turn order too: a second connection's BEGIN IMMEDIATE
// waits for the lock synchronously (busy_timeout), which would block the very event loop the first
// connection's transaction needs to finish. Other processes on the file wait for the lock as SQLite does.
import { mkdirSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { closedDatabaseError, MEMORY_DB_PATH, SessionStoreError, type SqlDatabase, type SqlParam, type SqlRunner } from './database.ts';

// Several processes (a dev server and a CLI, parallel test files) may open one file; a writer waits this long
// for another's lock instead of failing at once. A few seconds covers any single append here.
export const BUSY_TIMEOUT_MS = 5000;

// Prepared statements kept per connection: the session queries are a few dozen fixed texts (a multi-row insert
// has one text per row count), so this bound is never reached by them and only caps a caller that builds SQL.
const MAX_CACHED_STATEMENTS = 256;

/** The turn order of one database file in this process: the next statement or transaction starts when `tail` settles. */
interface TurnOrder {
  tail: Promise<unknown>;
  /** Open connections sharing it; the entry is dropped when the last closes. */
  users: number;
}

/** Turn orders of file databases, by real path (an in-memory database has its own). */
const fileTurns = new Map<string, TurnOrder>();

export class SqliteDatabase implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  readonly configField = 'sessions.path' as const;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly turns: TurnOrder;
  /** The key of `turns` in fileTurns (undefined: an in-memory database's own order). */
  private readonly turnKey?: string;
  private closing?: Promise<void>;
  /** Statements on the connection as it is, for the one caller that holds the turn (a transaction's body). */
  private readonly direct: SqlRunner = {
    all: async <Row>(sql: string, params: readonly SqlParam[] = []) => {
      const statement = this.statement(sql);
      if (!statement.reader) {
        statement.run(...params);
        return [];
      }
      return statement.all(...params) as Row[];
    },
    run: async (sql: string, params: readonly SqlParam[] = []) => this.statement(sql).run(...params).changes,
    script: async (sql: string) => {
      this.handle.exec(sql);
    },
  };

  constructor(
    /** The better-sqlite3 connection (tests reach it for pragmas and raw rows). */
    readonly handle: Database.Database,
    readonly location: string,
  ) {
    if (!handle.memory) {
      try {
        this.turnKey = realpathSync(handle.name);
      } catch {
        this.turnKey = handle.name;
      }
    }
    const shared = this.turnKey !== undefined ? fileTurns.get(this.turnKey) : undefined;
    this.turns = shared ?? { tail: Promise.resolve(), users: 0 };
    this.turns.users++;
    if (this.turnKey !== undefined && !shared) fileTurns.set(this.turnKey, this.turns);
  }

  get open(): boolean {
    return this.closing === undefined && this.handle.open;
  }

  all<Row = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<Row[]> {
    return this.turn(() => this.direct.all<Row>(sql, params));
  }

  run(sql: string, params?: readonly SqlParam[]): Promise<number> {
    return this.turn(() => this.direct.run(sql, params));
  }

  script(sql: string): Promise<void> {
    return this.turn(() => this.direct.script(sql));
  }

  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.turn(async () => {
      // IMMEDIATE takes the write lock up front: reading the leaf and moving it cannot interleave with another writer
      this.handle.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.direct);
        this.handle.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.handle.inTransaction) this.handle.exec('ROLLBACK');
        throw err;
      }
    });
  }

  close(): Promise<void> {
    if (this.closing) return this.closing;
    const closing = this.turns.tail.then(() => {
      this.statements.clear();
      if (this.handle.open) this.handle.close();
    });
    this.turns.tail = closing.catch(() => undefined);
    this.closing = closing;
    if (--this.turns.users === 0 && this.turnKey !== undefined && fileTurns.get(this.turnKey) === this.turns) fileTurns.delete(this.turnKey);
    return closing;
  }

  /** Queues `fn` behind everything asked for before it (on any connection of this process to the file); refused once close() began. */
  private turn<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.open) return Promise.reject(closedDatabaseError(this));
    const result = this.turns.tail.then(fn);
    this.turns.tail = result.catch(() => undefined);
    return result;
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.handle.prepare(sql);
      if (this.statements.size >= MAX_CACHED_STATEMENTS) {
        const oldest = this.statements.keys().next().value;
        if (oldest !== undefined) this.statements.delete(oldest);
      }
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/**
 * Opens (creating when missing) the SQLite file at `path`, or an in-memory database for ":memory:"; the folder
 * of a file path is created. Throws SessionStoreError naming the path when the file cannot be used. The tables
 * are made by migrate() (migrations.ts), which every transcript runs before its first statement.
 */
export function openSqliteDatabase(path: string): SqliteDatabase {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new SessionStoreError(`sessions.path must be a file path or "${MEMORY_DB_PATH}"; set it in the config file`);
  }
  let handle: Database.Database;
  try {
    if (path !== MEMORY_DB_PATH) mkdirSync(dirname(path), { recursive: true });
    handle = new Database(path);
  } catch (err) {
    throw new SessionStoreError(
      `cannot open the session database at ${path}: ${(err as Error).message}; check that the folder is writable or set sessions.path`,
    );
  }
  try {
    handle.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    handle.pragma('foreign_keys = ON');
    if (path !== MEMORY_DB_PATH) {
      // WAL lets readers (the playground's views) run beside a writer; NORMAL is durable across process crashes.
      handle.pragma('journal_mode = WAL');
      handle.pragma('synchronous = NORMAL');
    }
  } catch (err) {
    handle.close();
    throw new SessionStoreError(`cannot prepare the session database at ${path}: ${(err as Error).message}; is it a SQLite file this build wrote?`);
  }
  return new SqliteDatabase(handle, path);
}
