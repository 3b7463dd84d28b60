// A child Gateway for crash tests: a script run with tsx that prints one JSON line once its runs are parked; the test
// reads that line and kills the child with SIGKILL, as a crash would (no close, no row written at shutdown).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Starts `script` (node --import tsx) with `args` and `env` on top of this process's, waits for the first line it
 * prints, kills it with SIGKILL, and gives the line once the child is gone. A child that exits before printing, or
 * by itself before the kill, fails with its stderr.
 */
export async function firstLineThenKill(script: string, args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  let line: string;
  try {
    line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the child Gateway exited (${code}) before it printed what it parked: ${stderr}`)));
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const how = await exited;
  if (how !== 'SIGKILL') throw new Error(`the child Gateway ended by itself (${String(how)}) instead of being killed: ${stderr}`);
  return line;
}
