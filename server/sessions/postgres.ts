// The PostgreSQL backend of the session database (node-postgres): a bounded pool, transactions that rerun on a serialization failure or a deadlock.
//
// Nothing connects until the first statement: the pool (and node-postgres itself, loaded on demand so a
// SQLite Gateway never pays for it) is made then, and connections open as statements need them, at most
// DEFAULT_POSTGRES_POOL_SIZE. A database that cannot be reached, refuses the login or is shutting down fails
// the statement with a SessionStoreError naming the database (password hidden) and sessions.url; SQL errors
// go to the caller as they are. close() waits for the statements under way, then ends the pool, so a closed
// Gateway holds no socket.
import type { Client, Pool, PoolClient } from 'pg';
import { closedDatabaseError, SessionStoreError, type SqlDatabase, type SqlParam, type SqlRunner } from './database.ts';

// Connections one Gateway holds at most. A statement here is a short indexed read or a small insert, so a few
// connections carry a busy Gateway; several Gateways share one server, whose default max_connections is 100.
export const DEFAULT_POSTGRES_POOL_SIZE = 8;
// How long opening a connection may take: a server that does not answer by then is down, and a cell's store()
// commit should fail with session_unavailable rather than hang its exec.
export const POSTGRES_CONNECT_TIMEOUT_MS = 10_000;
// The server cancels a statement that runs longer (statement_timeout), which also bounds waiting for a row lock
// another Gateway holds: every session statement is milliseconds, so this is only ever a stuck server or lock.
export const POSTGRES_STATEMENT_TIMEOUT_MS = 30_000;
// An idle connection is closed after this long, so a quiet Gateway does not hold server slots.
export const POSTGRES_IDLE_TIMEOUT_MS = 10_000;
// A transaction that loses a serialization or deadlock race is run again this many times in all before it fails:
// two Gateways racing on one session take turns on its row lock, so a second attempt nearly always wins.
export const MAX_TRANSACTION_ATTEMPTS = 5;

/** SQLSTATEs after which rerunning the whole transaction is safe and likely to succeed: serialization_failure, deadlock_detected. */
const RETRYABLE_STATES = new Set(['40001', '40P01']);
/** SQLSTATE classes that mean the database cannot be used at all (connection, login, no such database, resources, shutdown). */
const UNREACHABLE_CLASSES = new Set(['08', '28', '3D', '53', '57']);

export interface PostgresOptions {
  /** Connections at most (default DEFAULT_POSTGRES_POOL_SIZE). */
  poolSize?: number;
  /** Where faults nobody awaits go (an idle connection the server dropped). */
  log?: (line: string) => void;
}

/** The URL with its password replaced by "***": what messages and logs show. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured postgres URL';
  }
}

/** `?` parameters numbered as PostgreSQL wants them ($1, $2, ...). The session SQL has no `?` in literals. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export class PostgresDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly configField = 'sessions.url' as const;
  readonly location: string;
  private pool?: Promise<Pool>;
  /** The pool once made (for openConnections). */
  private made?: Pool;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closing?: Promise<void>;
  private readonly texts = new Map<string, string>();

  constructor(
    private readonly url: string,
    private readonly options: PostgresOptions = {},
  ) {
    this.location = redactedUrl(url);
  }

  get open(): boolean {
    return this.closing === undefined;
  }

  all<Row = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<Row[]> {
    return this.track(async () => {
      const pool = await this.connectPool();
      try {
        return (await pool.query(this.text(sql), params ? [...params] : [])).rows as Row[];
      } catch (err) {
        throw this.fault(err);
      }
    });
  }

  run(sql: string, params?: readonly SqlParam[]): Promise<number> {
    return this.track(async () => {
      const pool = await this.connectPool();
      try {
        return (await pool.query(this.text(sql), params ? [...params] : [])).rowCount ?? 0;
      } catch (err) {
        throw this.fault(err);
      }
    });
  }

  script(sql: string): Promise<void> {
    return this.transaction((tx) => tx.script(sql));
  }

  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.track(async () => {
      const pool = await this.connectPool();
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw this.fault(err);
      }
      // a connection that failed mid-transaction is destroyed on release, not handed to the next caller
      let broken: Error | undefined;
      try {
        for (let attempt = 1; ; attempt++) {
          try {
            await client.query('BEGIN');
            const result = await fn(this.runner(client));
            await client.query('COMMIT');
            return result;
          } catch (err) {
            try {
              await client.query('ROLLBACK');
            } catch (rollbackError) {
              broken = rollbackError as Error;
            }
            if (!broken && attempt < MAX_TRANSACTION_ATTEMPTS && RETRYABLE_STATES.has(sqlState(err) ?? '')) continue;
            throw this.fault(err);
          }
        }
      } finally {
        client.release(broken);
      }
    });
  }

  /**
   * A connection of its own, outside the pool, for a session that must stay (LISTEN: notifier.ts): connected, or
   * rejecting with a SessionStoreError naming the database. The caller ends it; it has a no-op 'error' listener
   * so a fault before the caller's own listener cannot crash the process.
   */
  async connectDedicated(applicationName: string): Promise<Client> {
    if (!this.open) throw closedDatabaseError(this);
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS, application_name: applicationName });
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => undefined);
      throw this.fault(err);
    }
    return client;
  }

  /** Connections the pool holds now (checked out or idle): 0 before the first statement and after close(). */
  openConnections(): number {
    return this.made?.totalCount ?? 0;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.inFlight]);
      const pool = await this.pool?.catch(() => undefined);
      await pool?.end();
    })();
    return this.closing;
  }

  /** Statements on one connection a transaction holds. */
  private runner(client: PoolClient): SqlRunner {
    return {
      all: async <Row>(sql: string, params: readonly SqlParam[] = []) => (await client.query(this.text(sql), [...params])).rows as Row[],
      run: async (sql: string, params: readonly SqlParam[] = []) => (await client.query(this.text(sql), [...params])).rowCount ?? 0,
      // no parameters: the simple query protocol, which runs several statements in one call
      script: async (sql: string) => {
        await client.query(sql);
      },
    };
  }

  private connectPool(): Promise<Pool> {
    this.pool ??= import('pg').then(({ default: pg }) => {
      const pool = new pg.Pool({
        connectionString: this.url,
        max: this.options.poolSize ?? DEFAULT_POSTGRES_POOL_SIZE,
        connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
        idleTimeoutMillis: POSTGRES_IDLE_TIMEOUT_MS,
        statement_timeout: POSTGRES_STATEMENT_TIMEOUT_MS,
        application_name: 'codemode-gateway',
      });
      // an idle connection the server dropped is reported here; without a listener node-postgres would crash the process
      pool.on('error', (err) => this.options.log?.(`a connection to the session database at ${this.location} failed while idle: ${err.message}`));
      this.made = pool;
      return pool;
    });
    return this.pool;
  }

  /** Runs `work`, counted until it settles so close() can wait for it; refused once close() began. */
  private track<T>(work: () => Promise<T>): Promise<T> {
    if (!this.open) return Promise.reject(closedDatabaseError(this));
    const promise = work();
    this.inFlight.add(promise);
    const forget = () => void this.inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  private text(sql: string): string {
    let text = this.texts.get(sql);
    if (text === undefined) {
      text = numbered(sql);
      this.texts.set(sql, text);
    }
    return text;
  }

  /** A driver error as the caller should see it: the database being unusable says so with what to check; an SQL error stays as it is. */
  private fault(err: unknown): unknown {
    if (err instanceof SessionStoreError || !(err instanceof Error)) return err;
    const state = sqlState(err);
    const unreachable = state !== undefined ? UNREACHABLE_CLASSES.has(state.slice(0, 2)) : isConnectionFailure(err);
    if (!unreachable) return err;
    return new SessionStoreError(
      `the session database at ${this.location} cannot be used: ${err.message}; check sessions.url (host, port, database and user; a password may also come from PGPASSWORD) and that the server is running`,
    );
  }
}

/** The SQLSTATE of a server error, when the error is one. */
function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Errors of the connection itself rather than of a statement: a socket error, a connect timeout, a dropped connection. */
function isConnectionFailure(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(err.message);
}

/** A database at `url` (postgres://user:password@host:port/database); nothing connects until the first statement. */
export function openPostgresDatabase(url: string, options: PostgresOptions = {}): PostgresDatabase {
  return new PostgresDatabase(url, options);
}
