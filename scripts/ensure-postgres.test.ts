// ensure-postgres.mjs as `npm run test:unit` runs it, in a child process, with a fake apt-get and an empty root (nothing is really installed).
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findPostgresBin, installCommands, REQUIRED_PROGRAMS } from './ensure-postgres.mjs';

const SCRIPT = fileURLToPath(new URL('./ensure-postgres.mjs', import.meta.url));

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
/** A temp folder removed after the file's tests. */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A stand-in for apt-get: logs its arguments; `install` puts the programs under $CODEMODE_PG_ROOT/15/bin unless told to fail. */
function fakeAptGet(exitCode = 0): { program: string; log: string } {
  const dir = tempDir('codemode-apt-');
  const program = join(dir, 'apt-get');
  const log = join(dir, 'calls.log');
  const programs = REQUIRED_PROGRAMS.map((p) => `printf '#!/bin/sh\\n' > "$CODEMODE_PG_ROOT/15/bin/${p}"; chmod +x "$CODEMODE_PG_ROOT/15/bin/${p}"`).join('; ');
  writeFileSync(
    program,
    `#!/bin/sh\necho "$*" >> "${log}"\n[ ${exitCode} -ne 0 ] && exit ${exitCode}\nif [ "$1" = install ]; then mkdir -p "$CODEMODE_PG_ROOT/15/bin"; ${programs}; fi\nexit 0\n`,
  );
  chmodSync(program, 0o755);
  return { program, log };
}

/** A root laid out like /usr/lib/postgresql with the given major versions (complete: all programs; else only initdb). */
function fakeRoot(versions: Record<string, 'complete' | 'partial'>): string {
  const root = tempDir('codemode-pgroot-');
  for (const [major, kind] of Object.entries(versions)) {
    const bin = join(root, major, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const p of kind === 'complete' ? REQUIRED_PROGRAMS : ['initdb']) {
      writeFileSync(join(bin, p), '#!/bin/sh\n');
      chmodSync(join(bin, p), 0o755);
    }
  }
  return root;
}

function ensure(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete childEnv.CODEMODE_TEST_POSTGRES_URL;
    if (!('CODEMODE_PG_BIN' in env)) delete childEnv.CODEMODE_PG_BIN;
    execFile(process.execPath, [SCRIPT], { env: childEnv, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const calls = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

describe('ensure-postgres', () => {
  it('on the programs already there: exits 0 and installs nothing; the newest complete major version wins', async () => {
    const apt = fakeAptGet();
    const root = fakeRoot({ '13': 'complete', '15': 'complete', '16': 'partial' });
    const r = await ensure({ CODEMODE_PG_ROOT: root, CODEMODE_APT_GET: apt.program });
    expect(r.code).toBe(0);
    expect(calls(apt.log)).toEqual([]);
    expect(findPostgresBin({ root })).toBe(join(root, '15', 'bin'));
  });

  it('on no PostgreSQL: runs apt-get update, then apt-get install -y postgresql, and exits 0 once the programs are there', async () => {
    const apt = fakeAptGet();
    const root = fakeRoot({});
    const r = await ensure({ CODEMODE_PG_ROOT: root, CODEMODE_APT_GET: apt.program });
    expect(calls(apt.log)).toEqual(['update', 'install -y postgresql']);
    expect(r.stdout).toContain(`PostgreSQL is missing under ${root}/<version>/bin: installing Debian's postgresql package`);
    expect(r.stdout).toContain(`PostgreSQL installed at ${join(root, '15', 'bin')}`);
    expect(r.code).toBe(0);
  });

  it('on an install that fails: exits 1 saying which command failed and how to get PostgreSQL by hand', async () => {
    const apt = fakeAptGet(100);
    const root = fakeRoot({ '15': 'partial' });
    const r = await ensure({ CODEMODE_PG_ROOT: root, CODEMODE_APT_GET: apt.program });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`are missing under ${root}/<version>/bin and could not be installed: ${apt.program} update exited with 100`);
    expect(r.stderr).toContain('sudo apt-get install -y postgresql');
    expect(r.stderr).toContain('CODEMODE_PG_BIN');
    expect(r.stderr).toContain('CODEMODE_TEST_POSTGRES_URL');
  });

  it('on no apt-get at all: exits 1 with the same advice', async () => {
    const r = await ensure({ CODEMODE_PG_ROOT: fakeRoot({}), CODEMODE_APT_GET: join(tmpdir(), 'no-such-apt-get') });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/could not start: .*ENOENT/);
  });

  it('on CODEMODE_PG_BIN: that folder is used and nothing is installed; one without the programs is refused', async () => {
    const apt = fakeAptGet();
    const root = fakeRoot({ '15': 'complete', '16': 'partial' });
    expect((await ensure({ CODEMODE_PG_BIN: join(root, '15', 'bin'), CODEMODE_APT_GET: apt.program })).code).toBe(0);
    const r = await ensure({ CODEMODE_PG_BIN: join(root, '16', 'bin'), CODEMODE_APT_GET: apt.program });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('CODEMODE_PG_BIN names the folder to use, so nothing was installed');
    expect(calls(apt.log)).toEqual([]);
  });

  it('on CODEMODE_TEST_POSTGRES_URL: nothing is looked for or installed', async () => {
    const apt = fakeAptGet();
    const r = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [SCRIPT],
        { env: { ...process.env, CODEMODE_TEST_POSTGRES_URL: 'postgres://db/test', CODEMODE_PG_ROOT: fakeRoot({}), CODEMODE_APT_GET: apt.program }, encoding: 'utf8' },
        (err, stdout) => resolve({ code: err ? 1 : 0, stdout }),
      );
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('CODEMODE_TEST_POSTGRES_URL is set');
    expect(calls(apt.log)).toEqual([]);
  });

  it('when not root: every apt-get runs through sudo', () => {
    expect(installCommands({ isRoot: false })).toEqual([
      ['sudo', 'apt-get', 'update'],
      ['sudo', 'apt-get', 'install', '-y', 'postgresql'],
    ]);
    expect(installCommands({ isRoot: true })[1]).toEqual(['apt-get', 'install', '-y', 'postgresql']);
  });
});
