// The hostile corpus through the real `codemode` CLI (a child process per run), on every executor.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutorKind } from '../config/types.ts';
import { REPO_ROOT } from '../tools/testing.ts';
import { checkOutcome, loadCorpus, PROBE_EXPECT, PROBE_FILE, type ResultLike } from './corpus.ts';

const BIN = join(REPO_ROOT, 'bin/codemode.mjs');
/** Generous: the corpus holds one infinite loop and one memory bomb per executor, and CI may be loaded. */
const CORPUS_TEST_TIMEOUT_MS = 300_000;

/** A config of its own: the shipped workspace and shell allow-list, sessions in a fresh file, a budget the loop cell spends. */
function corpusConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-hostile-'));
  const file = join(dir, 'codemode.config.json');
  writeFileSync(
    file,
    JSON.stringify({
      tools: { codeMode: { enabled: true, executor: 'quickjs', timeoutMs: 5000 } },
      workspace: join(REPO_ROOT, 'demo/workspace'),
      shellAllow: ['ls', 'cat', 'wc', 'echo', 'head', 'date'],
      sessions: { path: join(dir, 'sessions.db') },
    }),
  );
  return file;
}

function typescriptProbe(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'codemode-hostile-')), 'probe.ts');
  writeFileSync(file, readFileSync(PROBE_FILE, 'utf8'));
  return file;
}

interface CliRun {
  exitCode: number | null;
  signal: string | null;
  /** One entry per cell: its exec/wait results, the last one final. */
  cells: ResultLike[][];
  stderr: string;
}

function runCli(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (exitCode, signal) => {
      const cells: ResultLike[][] = [];
      let current: ResultLike[] = [];
      for (const line of stdout.split('\n')) {
        if (!line.trim()) continue;
        const result = JSON.parse(line) as ResultLike;
        current.push(result);
        if (result.status !== 'waiting') {
          cells.push(current);
          current = [];
        }
      }
      resolve({ exitCode, signal, cells, stderr });
    });
  });
}

const corpus = loadCorpus();

// the executors' runs are separate child processes with their own config and session: they run side by side
describe.concurrent.each<ExecutorKind>(['quickjs', 'node', 'quickjs-emscripten'])('hostile corpus through the CLI on %s', (executor) => {
  it(
    'every attack ends as expected, the CLI survives, and a normal cell works after each one and after a restart',
    async () => {
      const config = corpusConfig();
      const session = `hostile-${executor}`;
      const common = ['--config', config, '--executor', executor, '--session', session, '--approve'];
      const problems: string[] = [];

      for (const typecheck of [false, true]) {
        const cases = corpus.filter((c) => c.typecheck === typecheck);
        if (cases.length === 0) continue;
        // --typecheck applies to every cell of the run, and only TypeScript cells can be typechecked
        const probe = typecheck ? typescriptProbe() : PROBE_FILE;
        const files: string[] = [];
        const expected: Array<{ name: string; check: (r: ResultLike) => string[] }> = [];
        for (const c of cases) {
          for (let i = 0; i < c.repeat; i++) {
            files.push(c.file);
            expected.push({ name: c.name, check: (r) => checkOutcome({ name: c.name, expect: c.expectFor[executor] ?? c.expect }, r) });
          }
          files.push(probe);
          expected.push({ name: `probe after ${c.name}`, check: (r) => checkOutcome({ name: `probe after ${c.name}`, expect: PROBE_EXPECT }, r) });
        }
        const run = await runCli(['run', ...common, ...(typecheck ? ['--typecheck'] : []), ...files]);
        expect(run.signal, `the CLI was killed: ${run.stderr}`).toBeNull();
        expect([0, 1], `the CLI crashed (exit ${run.exitCode}): ${run.stderr.slice(0, 2000)}`).toContain(run.exitCode);
        expect(run.cells.length, `every cell printed a final result; stderr: ${run.stderr.slice(0, 2000)}`).toBe(files.length);
        run.cells.forEach((results, i) => {
          const final = results[results.length - 1];
          if (final) problems.push(...(expected[i]?.check(final) ?? []));
        });
      }

      // a new process replays the session: whatever the attacks stored, the store still works
      const replay = await runCli(['run', ...common, PROBE_FILE]);
      expect(replay.exitCode, `the probe after a restart failed: ${replay.stderr}`).toBe(0);
      const final = replay.cells[0]?.at(-1);
      expect(final && checkOutcome({ name: 'probe after a restart', expect: PROBE_EXPECT }, final)).toEqual([]);

      expect(problems).toEqual([]);
    },
    CORPUS_TEST_TIMEOUT_MS,
  );
});

describe('hostile corpus files', () => {
  it('each names its attack, the finding it guards and a well-formed expectation', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(18);
    for (const c of corpus) {
      expect(c.attack.length, c.name).toBeGreaterThan(10);
      expect(c.expect.status, c.name).toBeDefined();
    }
  });

  it('the checker rejects internal_error, a wrong status, a wrong value and a wrong code', () => {
    const c = { name: 'x', expect: { status: 'completed', value: { a: 1 } } };
    expect(checkOutcome(c, { status: 'completed', value: { a: 1 } })).toEqual([]);
    expect(checkOutcome(c, { status: 'completed', value: { a: 2 } })).toHaveLength(1);
    expect(checkOutcome(c, { status: 'failed', code: 'internal_error' })).toHaveLength(2);
    expect(checkOutcome({ name: 'y', expect: { status: 'failed', code: ['timeout'] } }, { status: 'failed', code: 'memory_limit_exceeded' })).toHaveLength(1);
  });
});
