// PostgreSQL for tests: the suite's server (postgres-setup.testing.ts) and a fresh schema per test, so each test starts from an empty database.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** The suite's PostgreSQL server; throws the reason there is none (the PostgreSQL tests fail with it rather than skip). */
export function testPostgresUrl(): string {
  const url = inject('postgresUrl');
  if (url) return url;
  throw new Error(inject('postgresUnavailable') ?? 'no PostgreSQL server for the suite (the global setup did not run)');
}

export interface TestSchema {
  /** The server's URL with search_path set to the schema: every table a Gateway or store makes lands in it. */
  url: string;
  schema: string;
  /** Drops the schema and everything in it (on a server the suite did not start: its own cluster is removed whole at the end). */
  drop(): Promise<void>;
}

/** Runs statements on the suite's server as its superuser, outside any schema under test. */
export async function adminQuery(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: testPostgresUrl() });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** A new, empty schema on the suite's server. */
export async function freshSchema(): Promise<TestSchema> {
  const schema = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const url = new URL(testPostgresUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  const drop = async () => {
    if (!inject('postgresThrowaway')) await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  };
  return { url: url.toString(), schema, drop };
}
