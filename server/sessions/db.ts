// Opens the session database a config names: a SQLite file (`sessions.path`, the embedded default) or PostgreSQL (`sessions.url`).
import type { SessionsConfig } from '../config/types.ts';
import { MEMORY_DB_PATH, type SqlDatabase } from './database.ts';
import { openPostgresDatabase, type PostgresOptions } from './postgres.ts';
import { openSqliteDatabase } from './sqlite.ts';

/**
 * The database for `target` (an in-memory SQLite database when absent). SQLite opens now and throws a
 * SessionStoreError naming the path when the file cannot be used; PostgreSQL connects at its first statement.
 * The tables are made by the transcript's migrate() before its first statement.
 */
export function openSessionDatabase(target: SessionsConfig | undefined, options: PostgresOptions = {}): SqlDatabase {
  if (target?.url !== undefined) return openPostgresDatabase(target.url, options);
  return openSqliteDatabase(target?.path ?? MEMORY_DB_PATH);
}
