// The suite's throwaway PostgreSQL cluster: it starts from Debian's programs, answers on loopback, and is gone after stop() or after its test run died.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { findPostgresBin } from '../../scripts/ensure-postgres.mjs';
import { removeStaleClusters, startTestCluster } from './postgres-cluster.testing.ts';

async function answers(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string }>('SELECT version()');
    return rows[0]?.version ?? '';
  } finally {
    await client.end();
  }
}

describe('the test cluster', () => {
  it('starts on a loopback port with trust auth, and a cluster whose test run died is stopped and removed by the next start', async () => {
    const binDir = findPostgresBin({ binDir: process.env.CODEMODE_PG_BIN || undefined });
    if (!binDir) throw new Error('PostgreSQL is not installed: run `node scripts/ensure-postgres.mjs` (npm run test:unit does)');
    const cluster = await startTestCluster(binDir);
    try {
      expect(cluster.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      expect(await answers(cluster.url)).toMatch(/^PostgreSQL \d+/);
      // its test run died: the owner pid names a process that has exited
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      writeFileSync(join(cluster.dir, 'owner.pid'), gone.stdout);
      removeStaleClusters(binDir);
      expect(existsSync(cluster.dir)).toBe(false);
      await expect(answers(cluster.url)).rejects.toThrow();
    } finally {
      await cluster.stop();
    }
    expect(existsSync(cluster.dir)).toBe(false);
  });
});
