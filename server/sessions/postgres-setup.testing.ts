// Vitest global setup: one throwaway PostgreSQL cluster for the whole run, its URL provided to the tests (postgres.testing.ts).
//
// With CODEMODE_TEST_POSTGRES_URL set, that server is used as it is (nothing is started). Otherwise the
// programs scripts/ensure-postgres.mjs found or installed start a cluster (postgres-cluster.testing.ts),
// stopped and removed when the run ends, passed or failed, and by an exit handler if the run ends another
// way. A missing PostgreSQL does not stop the rest of the suite: the PostgreSQL tests fail with the reason.
import type { TestProject } from 'vitest/node';
import { findPostgresBin } from '../../scripts/ensure-postgres.mjs';
import { removeStaleClusters, startTestCluster } from './postgres-cluster.testing.ts';

declare module 'vitest' {
  interface ProvidedContext {
    /** The suite's PostgreSQL server (postgres://...), when there is one. */
    postgresUrl: string;
    /** Why there is none, and what to do. */
    postgresUnavailable: string;
    /** The server is this run's own cluster, removed at the end: tests need not drop what they made in it. */
    postgresThrowaway: boolean;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.CODEMODE_TEST_POSTGRES_URL;
  if (given) {
    project.provide('postgresUrl', given);
    return undefined;
  }
  const binDir = findPostgresBin({ binDir: process.env.CODEMODE_PG_BIN || undefined, root: process.env.CODEMODE_PG_ROOT || undefined });
  if (!binDir) {
    project.provide(
      'postgresUnavailable',
      'PostgreSQL is not installed: run `node scripts/ensure-postgres.mjs` (npm run test:unit does), set CODEMODE_PG_BIN to its programs, or CODEMODE_TEST_POSTGRES_URL to a server',
    );
    return undefined;
  }
  removeStaleClusters(binDir);
  let cluster;
  try {
    cluster = await startTestCluster(binDir);
  } catch (err) {
    project.provide('postgresUnavailable', `the suite's PostgreSQL cluster did not start: ${(err as Error).message}`);
    return undefined;
  }
  const stopOnExit = () => cluster.stopSync();
  process.once('exit', stopOnExit);
  project.provide('postgresUrl', cluster.url);
  project.provide('postgresThrowaway', true);
  return async () => {
    process.off('exit', stopOnExit);
    await cluster.stop();
  };
}
