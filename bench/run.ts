// `npm run bench`: measures the Gateway against its baselines and prints one table (see bench/README.md).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolveCodeModeOptions } from '../server/config/schema.ts';
import { QuickJsExecutor } from '../server/executors/quickjs/executor.ts';
import { EmscriptenExecutor } from '../server/executors/emscripten/executor.ts';
import { executors, fairness, nestedCalls, snapshots, suspendedRuns, trivialCell, type BenchContext, type Section } from './cases.ts';
import { durableRuns } from './durable.ts';
import { probeNodeExecutor } from './node-executor.ts';
import { openApiAtScale } from './openapi.ts';
import { probePageTiming } from './page-timing.ts';
import { openBareQuickJs } from './quickjs-bare.ts';
import { formatMs } from './stats.ts';
import { machineInfo, machineLine, renderTable } from './table.ts';
import { readCpuTimes, stealShare } from '../server/executors/reply-spin.ts';

// Suspension parameters: the cells park on their own request (yield_control) with a slow call pending,
// so no deadline races the work that builds their data on a loaded machine; the budget only bounds it.
/** Exec budget for the suspension rows: generous, since the cells park by yielding, not by timing out. */
export const BENCH_SUSPEND_TIMEOUT_MS = 10_000;
/** The slow nested call pending across the park; the resumed cell awaits it. */
export const BENCH_SLEEP_MS = 50;

async function main(): Promise<void> {
  const started = performance.now();
  const machine = machineInfo();
  // the host's steal (CPU time it took back from this VM) moves every time row here: printed beside the load average
  const cpuTimesAtStart = readCpuTimes();
  const defaults = resolveCodeModeOptions({ enabled: true, executor: 'quickjs' }, 'bench.tools.codeMode');
  const quickjs = new QuickJsExecutor();
  await quickjs.ready();
  const bare = openBareQuickJs({ memoryLimitBytes: defaults.memoryLimitBytes });
  const ctx: BenchContext = {
    quickjs,
    bare,
    counts: {
      fast: { warmup: 10, iterations: 40 },
      // three warm-ups: the nested-call path (the Gateway's JIT, QuickJS's WASM tier-up) reaches its steady pace after a few thousand calls
      slow: { warmup: 3, iterations: 5 },
      // two warm-ups per worker: the first snapshots in a worker run its encoder before the JIT has it
      suspend: { warmup: 4, iterations: 9 },
      cold: { warmup: 1, iterations: 9 },
    },
    suspend: { timeoutMs: BENCH_SUSPEND_TIMEOUT_MS, sleepMs: BENCH_SLEEP_MS },
    memoryLimitBytes: defaults.memoryLimitBytes,
  };
  const sections: Array<[string, () => Promise<Section>]> = [
    ['(a) trivial cell', () => trivialCell(ctx)],
    ['(b) nested calls', () => nestedCalls(ctx)],
    ['(c) snapshots', () => snapshots(ctx)],
    ['(d) 64 suspended runs', () => suspendedRuns(ctx)],
    ['(r) durable runs', () => durableRuns(ctx)],
    ['(f) fairness', () => fairness(ctx)],
    ['(o) OpenAPI at scale', () => openApiAtScale(ctx)],
    [
      '(e) executors',
      async () => {
        const node = await probeNodeExecutor();
        return executors(
          ctx,
          node,
          async () => {
            const ex = new QuickJsExecutor();
            await ex.ready();
            return ex;
          },
          async () => {
            const ex = new EmscriptenExecutor();
            await ex.ready();
            return ex;
          },
        );
      },
    ],
    [
      '(p) page',
      async () => {
        const probe = probePageTiming();
        if (!probe.available) return { rows: [], notes: [`(p) page rows skipped: ${probe.reason}.`] };
        return { rows: await probe.rows(), notes: ['(p) Playwright with /usr/bin/chromium against this checkout\'s build (scripts/start.mjs, CODEMODE_SKIP_BUILD=1).'] };
      },
    ],
  ];
  // BENCH_ONLY=b,c (or BENCH_SECTIONS) runs only those sections (their letters), e.g. while working on one lever; the full table needs all
  const only = (process.env.BENCH_ONLY ?? process.env.BENCH_SECTIONS)?.split(',').map((x) => x.trim()).filter(Boolean);
  const results: Section[] = [];
  try {
    for (const [name, run] of sections) {
      if (only && !only.some((letter) => name.startsWith(`(${letter})`))) continue;
      const t0 = performance.now();
      results.push(await run());
      process.stderr.write(`bench: ${name} done in ${formatMs(performance.now() - t0)}\n`);
    }
  } finally {
    bare.dispose();
    await quickjs.close();
  }
  const header = [
    `Code Mode benchmark: ${machineLine(machine)}${stealLine(cpuTimesAtStart, readCpuTimes())}`,
    `quickjs-wasi ${packageVersion('quickjs-wasi')}, quickjs-emscripten ${packageVersion('quickjs-emscripten')}; medians after warm-up (fast rows ${ctx.counts.fast.warmup}+${ctx.counts.fast.iterations}, slow rows ${ctx.counts.slow.warmup}+${ctx.counts.slow.iterations}, suspension rows ${ctx.counts.suspend.warmup}+${ctx.counts.suspend.iterations}, cold rows ${ctx.counts.cold.warmup}+${ctx.counts.cold.iterations} iterations); whole run ${formatMs(performance.now() - started)}`,
  ];
  process.stdout.write(`${renderTable(header, results.flatMap((s) => s.rows), results.flatMap((s) => s.notes))}\n`);
}

function stealLine(before: string | undefined, after: string | undefined): string {
  if (before === undefined || after === undefined) return '';
  return `; host steal ${(100 * stealShare(before, after)).toFixed(1)}% of CPU time during the run (/proc/stat)`;
}

function packageVersion(name: string): string {
  const require = createRequire(import.meta.url);
  const pkg: unknown = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8'));
  return typeof pkg === 'object' && pkg !== null && typeof (pkg as { version?: unknown }).version === 'string' ? (pkg as { version: string }).version : 'unknown';
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
