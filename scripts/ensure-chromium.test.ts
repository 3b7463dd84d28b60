// ensure-chromium.mjs as `npm run test:e2e` runs it, in a child process, with a fake apt-get (nothing is really installed).
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { installCommands } from './ensure-chromium.mjs';

const SCRIPT = fileURLToPath(new URL('./ensure-chromium.mjs', import.meta.url));

/** A stand-in for apt-get: logs its arguments; `install` puts an executable at CHROMIUM_PATH unless told to fail. */
function fakeAptGet(exitCode = 0): { program: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-apt-'));
  const program = join(dir, 'apt-get');
  const log = join(dir, 'calls.log');
  writeFileSync(
    program,
    `#!/bin/sh\necho "$*" >> "${log}"\n[ ${exitCode} -ne 0 ] && exit ${exitCode}\nif [ "$1" = install ]; then printf '#!/bin/sh\\n' > "$CHROMIUM_PATH"; chmod +x "$CHROMIUM_PATH"; fi\nexit 0\n`,
  );
  chmodSync(program, 0o755);
  return { program, log };
}

function ensure(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT], { env: { ...process.env, ...env }, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const calls = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

describe('ensure-chromium', () => {
  it('on a browser already at CHROMIUM_PATH: exits 0 and installs nothing', async () => {
    const apt = fakeAptGet();
    const r = await ensure({ CHROMIUM_PATH: process.execPath, CODEMODE_APT_GET: apt.program });
    expect(r.code).toBe(0);
    expect(calls(apt.log)).toEqual([]);
  });

  it('on a missing browser: runs apt-get update, then apt-get install -y chromium, and exits 0 once it is there', async () => {
    const apt = fakeAptGet();
    const path = join(mkdtempSync(join(tmpdir(), 'codemode-chromium-')), 'chromium');
    const r = await ensure({ CHROMIUM_PATH: path, CODEMODE_APT_GET: apt.program });
    expect(calls(apt.log)).toEqual(['update', 'install -y chromium']);
    expect(r.stdout).toContain(`Chromium is missing at ${path}: installing Debian's chromium package`);
    expect(r.code).toBe(0);
  });

  it('on an install that fails: exits 1 saying which command failed and how to get a browser by hand', async () => {
    const apt = fakeAptGet(100);
    const path = join(mkdtempSync(join(tmpdir(), 'codemode-chromium-')), 'chromium');
    const r = await ensure({ CHROMIUM_PATH: path, CODEMODE_APT_GET: apt.program });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Chromium is missing at ${path} and could not be installed: ${apt.program} update exited with 100`);
    expect(r.stderr).toContain('sudo apt-get install -y chromium');
    expect(r.stderr).toContain('CHROMIUM_PATH');
  });

  it('on no apt-get at all: exits 1 with the same advice', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'codemode-chromium-')), 'chromium');
    const r = await ensure({ CHROMIUM_PATH: path, CODEMODE_APT_GET: join(tmpdir(), 'no-such-apt-get') });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/could not start: .*ENOENT/);
  });

  it('when not root: every apt-get runs through sudo', () => {
    expect(installCommands({ isRoot: false })).toEqual([
      ['sudo', 'apt-get', 'update'],
      ['sudo', 'apt-get', 'install', '-y', 'chromium'],
    ]);
    expect(installCommands({ isRoot: true })[1]).toEqual(['apt-get', 'install', '-y', 'chromium']);
  });
});
