// PostgreSQL for tests: the run's server (started by the first test that asks, see postgres-setup.testing.ts) and a fresh schema per test.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { until } from '../testing.ts';
import { startTestCluster } from './postgres-cluster.testing.ts';
import { CLUSTER_DIR_FILE, type PostgresRun } from './postgres-setup.testing.ts';

// How long a worker waits for another worker's cluster to start: initdb and a start take a few seconds on a
// loaded machine; this only bounds a start that hangs.
const CLUSTER_START_WAIT_MS = 180_000;

let serverUrl: Promise<string> | undefined;

/** Starts the run's cluster in this worker, or waits for the worker that got there first; the URL either way. */
async function runCluster(run: PostgresRun): Promise<string> {
  const urlFile = join(run.runDir, 'url');
  const errorFile = join(run.runDir, 'error');
  let first = true;
  try {
    mkdirSync(join(run.runDir, 'starting'));
  } catch {
    first = false;
  }
  if (!first) {
    await until(() => existsSync(urlFile) || existsSync(errorFile), { timeoutMs: CLUSTER_START_WAIT_MS, what: "the run's PostgreSQL cluster to start" });
    if (existsSync(errorFile)) throw new Error(readFileSync(errorFile, 'utf8'));
    return readFileSync(urlFile, 'utf8');
  }
  try {
    const cluster = await startTestCluster(run.binDir, { ownerPid: run.ownerPid });
    writeFileSync(join(run.runDir, CLUSTER_DIR_FILE), cluster.dir);
    // written whole, then renamed: a waiting worker never reads half a URL
    writeFileSync(`${urlFile}.tmp`, cluster.url);
    renameSync(`${urlFile}.tmp`, urlFile);
    return cluster.url;
  } catch (err) {
    const reason = `the suite's PostgreSQL cluster did not start: ${(err as Error).message}`;
    writeFileSync(errorFile, reason);
    throw new Error(reason);
  }
}

/** The run's PostgreSQL server; rejects with the reason there is none (the PostgreSQL tests fail with it rather than skip). */
export function testPostgresUrl(): Promise<string> {
  serverUrl ??= (async () => {
    const postgres = inject('postgres');
    if (!postgres) throw new Error('no PostgreSQL server for the suite (the global setup did not run)');
    if ('url' in postgres) return postgres.url;
    if ('unavailable' in postgres) throw new Error(postgres.unavailable);
    return runCluster(postgres.run);
  })();
  return serverUrl;
}

export interface TestSchema {
  /** The server's URL with search_path set to the schema: every table a Gateway or store makes lands in it. */
  url: string;
  schema: string;
  /** Drops the schema and everything in it (on a server the suite did not start: its own cluster is removed whole at the end). */
  drop(): Promise<void>;
}

/** Runs statements on the run's server as its superuser, outside any schema under test. */
export async function adminQuery(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: await testPostgresUrl() });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** A new, empty schema on the run's server. */
export async function freshSchema(): Promise<TestSchema> {
  const schema = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const url = new URL(await testPostgresUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  const throwaway = 'run' in inject('postgres');
  const drop = async () => {
    if (!throwaway) await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  };
  return { url: url.toString(), schema, drop };
}
