// A throwaway PostgreSQL cluster for the test suite: initdb into a temp folder, trust auth, loopback TCP on a free port, removed afterwards.
//
// The first PostgreSQL test of a `vitest run` starts one (postgres.testing.ts), from Debian's programs
// (scripts/ensure-postgres.mjs finds or installs them), and the run's global setup stops it at the end
// (postgres-setup.testing.ts). initdb refuses to run as root, so as root every
// program runs as the `postgres` user the package creates, in a folder handed to it. The server listens on
// 127.0.0.1 only, keeps its socket in the cluster's folder (nothing in /var/run), and skips fsync: a test
// cluster never needs to survive a crash. stop() kills it (immediate mode) and removes the folder; a cluster
// a killed test run left behind is found by its owner.pid file (the run's main process) and removed by the next run.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Folder names of test clusters under the temp folder (stale ones are found by it). */
export const CLUSTER_DIR_PREFIX = 'codemode-pg-';
// Ports a start may try: a free port can be taken by another process between finding it and the server binding it.
const START_ATTEMPTS = 3;
// How long pg_ctl waits for the server to accept connections. A loaded machine starts one in about a second.
const START_WAIT_SECONDS = 120;

export interface TestCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth: no password). */
  url: string;
  dir: string;
  /** Stops the server and removes its folder; idempotent. */
  stop(): Promise<void>;
  /** The same, synchronously (for a process `exit` handler). */
  stopSync(): void;
}

interface RunAs {
  uid: number;
  gid: number;
}

/** The `postgres` user's ids from /etc/passwd (Debian's package creates it), when we are root and must drop to it. */
function postgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    // no passwd file: reported below
  }
  for (const line of passwd.split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === 'postgres' && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error('running as root, and there is no "postgres" user to run initdb as (initdb refuses root); install Debian\'s postgresql package, which creates it');
}

/** Runs a PostgreSQL program to its end; rejects with its output when it fails. */
function runProgram(program: string, args: string[], cwd: string, as: RunAs | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...(as ? { uid: as.uid, gid: as.gid } : {}), env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${program} ${args.join(' ')} exited with ${code}: ${output.trim().slice(-2000)}`))));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Stops the cluster in `dir` (immediate mode, then SIGKILL from its pid file) and removes the folder. Never throws. */
export function stopTestCluster(binDir: string, dir: string): void {
  let as: RunAs | undefined;
  try {
    as = postgresUser();
  } catch {
    as = undefined;
  }
  stopClusterSync(binDir, dir, as);
}

function stopClusterSync(binDir: string, dir: string, as: RunAs | undefined): void {
  const data = join(dir, 'data');
  if (existsSync(join(data, 'postmaster.pid'))) {
    spawnSync(join(binDir, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop'], { cwd: dir, stdio: 'ignore', ...(as ? { uid: as.uid, gid: as.gid } : {}) });
    try {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // stopped: pg_ctl removed the pid file
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Removes clusters whose test run died without stopping them (their owner.pid names a process that is gone). */
export function removeStaleClusters(binDir: string): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(CLUSTER_DIR_PREFIX));
  } catch {
    return;
  }
  let as: RunAs | undefined;
  try {
    as = postgresUser();
  } catch {
    as = undefined;
  }
  for (const name of names) {
    const dir = join(tmpdir(), name);
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // a cluster being made right now has no owner file yet
    }
    if (Number.isInteger(owner) && !pidAlive(owner)) stopClusterSync(binDir, dir, as);
  }
}

/**
 * Makes and starts a cluster from the programs in `binDir`. Rejects with the programs' output when it cannot.
 * `ownerPid`: the process whose end makes the cluster stale (default this one; a test worker passes the run's main process).
 */
export async function startTestCluster(binDir: string, { ownerPid = process.pid }: { ownerPid?: number } = {}): Promise<TestCluster> {
  const as = postgresUser();
  const dir = mkdtempSync(join(tmpdir(), CLUSTER_DIR_PREFIX));
  writeFileSync(join(dir, 'owner.pid'), String(ownerPid));
  if (as) chownSync(dir, as.uid, as.gid);
  const data = join(dir, 'data');
  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    stopClusterSync(binDir, dir, as);
  };
  try {
    await runProgram(join(binDir, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], dir, as);
    let lastError: unknown;
    for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      const port = await freePort();
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      try {
        await runProgram(join(binDir, 'pg_ctl'), ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', String(START_WAIT_SECONDS), '-o', options, 'start'], dir, as);
        return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dir, stop: async () => stopSync(), stopSync };
      } catch (err) {
        lastError = err;
        const log = existsSync(join(dir, 'postgres.log')) ? readFileSync(join(dir, 'postgres.log'), 'utf8') : '';
        // only a port someone took in between is worth another try
        if (!/could not bind|Address already in use/i.test(log)) break;
      }
    }
    throw lastError;
  } catch (err) {
    stopSync();
    throw err;
  }
}
