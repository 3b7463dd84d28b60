// Large allocations on the Node executor never take the host process down: each shape through the real CLI, and a process that runs them all then keeps serving.
//
// Every cell runs in a child process: before the heap watch (heap-watch.ts), V8 aborted the whole
// process on these (FatalProcessOutOfMemory, or a fatal "invalid size" when an array outgrows its
// maximum), and that must never happen to the Vitest worker that runs this file.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../tools/testing.ts';
import { HEAP_HEADROOM_MB } from './heap-watch.ts';
import { resourceLimitsFor } from './executor.ts';

const BIN = join(REPO_ROOT, 'bin/codemode.mjs');
/** Generous: each cell is a child process that allocates hundreds of MiB, on a machine that may be loaded. */
const CHILD_TIMEOUT_MS = 120_000;

interface Shape {
  name: string;
  code: string;
  /** Final statuses allowed (a value may fit the budget and complete, with a preview past maxOutputBytes). */
  status: Array<'completed' | 'failed'>;
}

const MEMORY = 'memory_limit_exceeded';
const SHAPES: Shape[] = [
  // the finding: a 24 MiB string as the final value (flattened and escaped for JSON)
  { name: 'a 24 MiB string returned', code: 'return "x".repeat(24 * 1024 * 1024)', status: ['completed', 'failed'] },
  // an array's backing store grows by half each time: one allocation larger than V8's 16 MiB grace
  { name: 'an array grown one push at a time', code: 'const a = [];\nfor (;;) a.push(1)', status: ['failed'] },
  { name: 'a Map grown until it fails', code: 'const m = new Map();\nfor (let i = 0; ; i++) m.set(i, i)', status: ['failed'] },
  { name: 'a large string split into characters', code: 'return "x".repeat(24 * 1024 * 1024).split("").length', status: ['completed', 'failed'] },
  // V8 aborts the process when split('') would make more elements than an array holds (a 512 MiB string)
  {
    name: 'a string past the array limit split into characters',
    code: 'try { return "x".repeat(2 ** 29 - 24).split("").length } catch (e) { return e.name }',
    status: ['completed', 'failed'],
  },
  {
    name: 'JSON.stringify of a large value',
    code: 'const rows = [];\nfor (let i = 0; i < 2e6; i++) rows.push({ i, s: "abcdefgh" });\nreturn JSON.stringify(rows).length',
    status: ['completed', 'failed'],
  },
  { name: 'new Array(1e8) (sparse, small)', code: 'return new Array(1e8).length', status: ['completed'] },
  // off the V8 heap: the ArrayBuffer allocator answers (lazily committed memory, or a RangeError)
  { name: 'new ArrayBuffer(2 ** 31)', code: 'try { return new ArrayBuffer(2 ** 31).byteLength } catch (e) { return String(e.name) }', status: ['completed'] },
];

interface Final {
  status: string;
  code?: string;
  error?: string;
}

function cliConfig(dir: string): string {
  const file = join(dir, 'codemode.config.json');
  writeFileSync(
    file,
    JSON.stringify({
      // memoryLimitBytes at its default (64 MiB); time enough that memory, not the budget, ends a bomb
      tools: { codeMode: { enabled: true, executor: 'node', timeoutMs: 20_000 } },
      workspace: join(REPO_ROOT, 'demo/workspace'),
      sessions: { path: join(dir, 'sessions.db') },
    }),
  );
  return file;
}

function runCli(args: string[]): Promise<{ exitCode: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }));
  });
}

function problemsWith(shape: Shape, final: Final | undefined): string[] {
  if (!final) return [`${shape.name}: no result`];
  const out: string[] = [];
  const said = `${final.status}${final.code ? ` (${final.code})` : ''}: ${final.error?.slice(0, 200) ?? ''}`;
  if (!(shape.status as string[]).includes(final.status)) out.push(`${shape.name}: expected ${shape.status.join(' or ')}, got ${said}`);
  if (final.status === 'failed' && final.code !== MEMORY) out.push(`${shape.name}: a failure must be ${MEMORY}, got ${said}`);
  return out;
}

describe('large allocations on the Node executor, through the CLI', () => {
  it(
    'on each shape: the CLI prints a final JSON result and exits 0 or 1, never a signal or a V8 abort',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'codemode-node-alloc-'));
      const config = cliConfig(dir);
      const problems: string[] = [];
      for (const [i, shape] of SHAPES.entries()) {
        const file = join(dir, `cell-${i}.js`);
        writeFileSync(file, shape.code);
        const run = await runCli(['run', '--config', config, '--executor', 'node', file]);
        const crashed = run.signal !== null || (run.exitCode !== 0 && run.exitCode !== 1);
        if (crashed) {
          problems.push(`${shape.name}: the CLI died (exit ${run.exitCode}, signal ${run.signal}): ${run.stderr.slice(0, 400)}`);
          continue;
        }
        const last = run.stdout.trim().split('\n').at(-1) ?? '';
        problems.push(...problemsWith(shape, last ? (JSON.parse(last) as Final) : undefined));
      }
      expect(problems).toEqual([]);
    },
    SHAPES.length * CHILD_TIMEOUT_MS,
  );
});

describe('large allocations on the Node executor, in one process', () => {
  it(
    'on each shape: the cell ends as a result, its worker is replaced, and the next cell completes',
    async () => {
      const fixture = fileURLToPath(new URL('./fixtures/allocation-bombs.mts', import.meta.url));
      const shapes = SHAPES.slice(0, 3);
      const child = await promisify(execFile)(process.execPath, ['--import', 'tsx', fixture, JSON.stringify(shapes.map((s) => s.code))], {
        cwd: REPO_ROOT,
        timeout: CHILD_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      }).catch((err: Error & { code?: unknown; signal?: unknown; stderr?: string }) => {
        throw new Error(`the process died (exit ${String(err.code)}, signal ${String(err.signal)}): ${err.stderr?.slice(0, 2000) ?? err.message}`);
      });
      const stdout = child.stdout;
      const results = JSON.parse(stdout) as Array<{ cell: Final; next: Final & { value?: unknown } }>;
      expect(results).toHaveLength(shapes.length);
      const problems = shapes.flatMap((shape, i) => problemsWith(shape, results[i]?.cell));
      expect(problems).toEqual([]);
      for (const r of results) expect(r.next).toMatchObject({ status: 'completed', value: 1 });
    },
    CHILD_TIMEOUT_MS,
  );
});

describe('worker heap limits with the heap watch', () => {
  it('on a budget enforced by the watch: the V8 limit sits HEAP_HEADROOM_MB above it, the young generation unchanged', () => {
    const tight = resourceLimitsFor(64 * 1024 * 1024);
    const roomy = resourceLimitsFor(64 * 1024 * 1024, HEAP_HEADROOM_MB);
    expect(roomy.maxOldGenerationSizeMb).toBe(tight.maxOldGenerationSizeMb + HEAP_HEADROOM_MB);
    expect(roomy.maxYoungGenerationSizeMb).toBe(tight.maxYoungGenerationSizeMb);
  });
});
