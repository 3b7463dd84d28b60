// Large allocations on the Node executor never take the host process down: one process runs them, then keeps serving.
//
// The shapes run in a child process: before the heap watch (heap-watch.ts), V8 aborted the whole
// process on these (FatalProcessOutOfMemory, or a fatal "invalid size" when an array outgrows its
// maximum), and that must never happen to the Vitest worker that runs this file. Each shape also runs
// through the real CLI on both executors as a hostile corpus cell (server/hostile/cells/19-27).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../tools/testing.ts';
import { HEAP_HEADROOM_MB } from './heap-watch.ts';
import { resourceLimitsFor } from './executor.ts';

/** Generous: the child process allocates hundreds of MiB, on a machine that may be loaded. */
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
];

interface Final {
  status: string;
  code?: string;
  error?: string;
}

function problemsWith(shape: Shape, final: Final | undefined): string[] {
  if (!final) return [`${shape.name}: no result`];
  const out: string[] = [];
  const said = `${final.status}${final.code ? ` (${final.code})` : ''}: ${final.error?.slice(0, 200) ?? ''}`;
  if (!(shape.status as string[]).includes(final.status)) out.push(`${shape.name}: expected ${shape.status.join(' or ')}, got ${said}`);
  if (final.status === 'failed' && final.code !== MEMORY) out.push(`${shape.name}: a failure must be ${MEMORY}, got ${said}`);
  return out;
}

describe('large allocations on the Node executor, in one process', () => {
  it(
    'on each shape: the cell ends as a result, its worker is replaced, and the next cell completes',
    async () => {
      const fixture = fileURLToPath(new URL('./fixtures/allocation-bombs.mts', import.meta.url));
      const shapes = SHAPES;
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
