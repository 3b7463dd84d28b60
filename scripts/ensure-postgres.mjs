// Before the unit suite: makes sure Debian's PostgreSQL server programs are there, installing them with apt-get when missing.
//
// The unit suite runs the session-store conformance suite on PostgreSQL as well as SQLite, in a throwaway
// cluster it starts itself (server/sessions/postgres-cluster.testing.ts): initdb, pg_ctl and postgres from
// /usr/lib/postgresql/<major>/bin (Debian's layout; the newest major wins), or from the folder CODEMODE_PG_BIN
// names. When they are missing this runs `apt-get update` and `apt-get install -y postgresql`, through sudo
// when not root, the same as .ci/run. When that cannot work (no apt-get, no sudo, no network) it exits 1
// with what to do instead. With CODEMODE_TEST_POSTGRES_URL set the suite uses that server and nothing is
// needed here. CODEMODE_APT_GET names another apt-get program and CODEMODE_PG_ROOT another root than
// /usr/lib/postgresql (tests use a fake apt-get and an empty root).
import { accessSync, constants, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptInstallCommands, runCommand } from './apt.mjs';

/** Where Debian's postgresql packages put each major version's programs (<root>/<major>/bin). */
export const DEFAULT_POSTGRES_ROOT = '/usr/lib/postgresql';
/** The programs a throwaway cluster needs. */
export const REQUIRED_PROGRAMS = Object.freeze(['initdb', 'pg_ctl', 'postgres']);

/** @param {string} path */
function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `dir` holds every required program. @param {string} dir */
export function hasPostgresPrograms(dir) {
  return REQUIRED_PROGRAMS.every((program) => isExecutable(join(dir, program)));
}

/**
 * The folder with initdb, pg_ctl and postgres: `binDir` when given (it must hold them), else the newest major
 * version under `root` that does; undefined when there is none.
 * @param {{ binDir?: string | undefined, root?: string | undefined }} [options]
 * @returns {string | undefined}
 */
export function findPostgresBin({ binDir, root = DEFAULT_POSTGRES_ROOT } = {}) {
  if (binDir) return hasPostgresPrograms(binDir) ? binDir : undefined;
  let majors;
  try {
    majors = readdirSync(root).filter((name) => /^\d+(\.\d+)?$/.test(name));
  } catch {
    return undefined;
  }
  majors.sort((a, b) => Number(b) - Number(a));
  for (const major of majors) {
    const dir = join(root, major, 'bin');
    if (hasPostgresPrograms(dir)) return dir;
  }
  return undefined;
}

/**
 * The commands that install Debian's postgresql package, each an argv array; sudo first when not root.
 * @param {{ isRoot: boolean, aptGet?: string | undefined }} options
 */
export function installCommands(options) {
  return aptInstallCommands('postgresql', options);
}

/**
 * Ensures the PostgreSQL programs. Returns { ok: true, binDir, installed } or { ok: false, message }, where the
 * message says what went wrong and how to get PostgreSQL by hand.
 * @param {{ binDir?: string | undefined, root?: string, isRoot: boolean, aptGet?: string | undefined, run?: (argv: string[]) => string | null, log?: (line: string) => void }} options
 */
export function ensurePostgres({ binDir, root = DEFAULT_POSTGRES_ROOT, isRoot, aptGet, run = runCommand, log = (line) => console.log(line) }) {
  const found = findPostgresBin({ binDir, root });
  if (found) return { ok: true, binDir: found, installed: false };
  const where = binDir ? `in ${binDir} (CODEMODE_PG_BIN)` : `under ${root}/<version>/bin`;
  const by = (/** @type {string} */ reason) =>
    `PostgreSQL's server programs (${REQUIRED_PROGRAMS.join(', ')}) are missing ${where} and could not be installed: ${reason}.\n` +
    `Install Debian's PostgreSQL yourself (sudo apt-get install -y postgresql), set CODEMODE_PG_BIN to a folder with those programs, ` +
    `or set CODEMODE_TEST_POSTGRES_URL to a server the suite may create schemas in.`;
  if (binDir) return { ok: false, message: by('CODEMODE_PG_BIN names the folder to use, so nothing was installed') };
  log(`PostgreSQL is missing ${where}: installing Debian's postgresql package (${isRoot ? 'as root' : 'through sudo'})...`);
  for (const argv of installCommands({ isRoot, aptGet })) {
    const failure = run(argv);
    if (failure) return { ok: false, message: by(failure) };
  }
  const installed = findPostgresBin({ root });
  if (!installed) return { ok: false, message: by(`the postgresql package installed, but ${root} still holds no version with ${REQUIRED_PROGRAMS.join(', ')}`) };
  log(`PostgreSQL installed at ${installed}.`);
  return { ok: true, binDir: installed, installed: true };
}

function main() {
  if (process.env.CODEMODE_TEST_POSTGRES_URL) {
    console.log('CODEMODE_TEST_POSTGRES_URL is set: the suite uses that PostgreSQL server.');
    return;
  }
  const result = ensurePostgres({
    binDir: process.env.CODEMODE_PG_BIN || undefined,
    root: process.env.CODEMODE_PG_ROOT || DEFAULT_POSTGRES_ROOT,
    isRoot: process.getuid?.() === 0,
    aptGet: process.env.CODEMODE_APT_GET || 'apt-get',
  });
  if (!result.ok) {
    console.error(result.message);
    process.exitCode = 1;
  }
}

// run when executed (npm run test:unit), not when a test or the suite's setup imports the functions
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main();
