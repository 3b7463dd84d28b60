// Vitest global setup: PostgreSQL for the run. The first test that needs it starts a throwaway cluster (postgres.testing.ts); this stops it at the end.
//
// With CODEMODE_TEST_POSTGRES_URL set, that server is used as it is (nothing is started). Otherwise the
// programs scripts/ensure-postgres.mjs found or installed are handed to the test workers with a folder for
// the run: the first worker to need PostgreSQL starts the cluster (postgres-cluster.testing.ts) and records it
// there, the others wait for that record. So a run without PostgreSQL tests starts nothing, and one with them
// starts the cluster beside the first tests instead of before all of them. The end of the run (passed or
// failed) stops and removes it, and so does an exit handler if the run ends another way; a run killed
// outright leaves it to the next run's stale-cluster sweep. A missing PostgreSQL does not stop the rest of the
// suite: the PostgreSQL tests fail with the reason.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { findPostgresBin } from '../../scripts/ensure-postgres.mjs';
import { removeStaleClusters, stopTestCluster } from './postgres-cluster.testing.ts';

/** Where the run's cluster is recorded (postgres.testing.ts writes these files, in this folder). */
export interface PostgresRun {
  runDir: string;
  binDir: string;
  /** The run's main process: the cluster is stale once it is gone. */
  ownerPid: number;
}

/** The file in a run folder that names the cluster's folder, once a worker started it. */
export const CLUSTER_DIR_FILE = 'cluster-dir';

declare module 'vitest' {
  interface ProvidedContext {
    /** A server to use as it is, a run whose first PostgreSQL test starts a cluster, or why there is none and what to do. */
    postgres: { url: string } | { run: PostgresRun } | { unavailable: string };
  }
}

export default function setup(project: TestProject): (() => void) | undefined {
  const given = process.env.CODEMODE_TEST_POSTGRES_URL;
  if (given) {
    project.provide('postgres', { url: given });
    return undefined;
  }
  const binDir = findPostgresBin({ binDir: process.env.CODEMODE_PG_BIN || undefined, root: process.env.CODEMODE_PG_ROOT || undefined });
  if (!binDir) {
    project.provide('postgres', {
      unavailable: 'PostgreSQL is not installed: run `node scripts/ensure-postgres.mjs` (npm run test:unit does), set CODEMODE_PG_BIN to its programs, or CODEMODE_TEST_POSTGRES_URL to a server',
    });
    return undefined;
  }
  removeStaleClusters(binDir);
  const runDir = mkdtempSync(join(tmpdir(), 'codemode-pgrun-'));
  project.provide('postgres', { run: { runDir, binDir, ownerPid: process.pid } });
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    const recorded = join(runDir, CLUSTER_DIR_FILE);
    if (existsSync(recorded)) stopTestCluster(binDir, readFileSync(recorded, 'utf8'));
    rmSync(runDir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  return () => {
    process.off('exit', stop);
    stop();
  };
}
