// `npm start` (scripts/start.mjs) stopped during the UI build: it exits quietly with the signal's status.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const START = fileURLToPath(new URL('./start.mjs', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of start.mjs in a root of its own, with no build yet and a `next` that builds until it is stopped. */
function fakeRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'codemode-start-'));
  dirs.push(root);
  mkdirSync(join(root, 'scripts'));
  copyFileSync(START, join(root, 'scripts', 'start.mjs'));
  const bin = join(root, 'node_modules', 'next', 'dist', 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'next'), "console.log('fake next: building'); setInterval(() => {}, 1000);\n");
  chmodSync(join(bin, 'next'), 0o755);
  return root;
}

describe('npm start during the UI build', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('on %s: stops the build and exits with status %i, without saying the build failed', async (signal, status) => {
    const root = fakeRoot();
    const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CODEMODE_SKIP_BUILD: '' } });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('close', (code, sig) => resolve({ code, signal: sig })));
    // signal only once the build is running: the wrapper forwards it to the build
    await new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if (stdout.includes('fake next: building')) resolve();
      });
    });
    child.kill(signal);
    expect(await ended).toEqual({ code: status, signal: null });
    expect(stderr).not.toContain('next build failed');
  });
});
