// The benchmark's measurements, one function per table section (a) to (e); each returns its rows and notes.
//
// Every pair is measured back to back in the same process, so ratios compare like with like on
// this machine. Times are medians after a warm-up; byte counts are medians too, though they barely
// vary. Nothing here asserts a time: the rows are printed, never checked against a threshold.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ExecutorKind } from '../server/config/types.ts';
import type { Executor } from '../server/executors/types.ts';
import type { Gateway } from '../server/gateway.ts';
import { QuickJsExecutor } from '../server/executors/quickjs/executor.ts';
import { MAX_SUSPENDED_RUNS } from '../server/runs/runs.ts';
import { expectStatus, NOOP_TOOL, openGateway } from './harness.ts';
import type { NodeExecutorProbe } from './node-executor.ts';
import { codecRoundTrip, type BareQuickJs } from './quickjs-bare.ts';
import { collectInterleaved, formatBytes, formatMs, measureInterleaved, median, ratio, type MeasureOptions, type Sample } from './stats.ts';
import { withTarget, type BenchRow } from './table.ts';
import { postMessageFloorMs } from './floor.ts';
import { cellCpu, cellCpuRow, nestedBreakdown } from './breakdown.ts';

export interface Section {
  rows: BenchRow[];
  notes: string[];
}

export interface BenchCounts {
  /** Cells that take about a millisecond: many iterations are cheap. */
  fast: MeasureOptions;
  /** Cells that take a fraction of a second or more (1000 nested calls). */
  slow: MeasureOptions;
  /** Suspend-and-resume cells through the Gateway (c): each takes about a third of a second. */
  suspend: MeasureOptions;
  /** New executors (worker start-up): each iteration spawns and closes workers. */
  cold: MeasureOptions;
}

export interface BenchContext {
  quickjs: Executor;
  bare: BareQuickJs;
  counts: BenchCounts;
  /** Suspension rows: exec deadline (resolved through the config schema, so clamped like any config) and the slow call. */
  suspend: { timeoutMs: number; sleepMs: number };
  memoryLimitBytes: number;
}

const TRIVIAL_CELL = 'return 1';

/** Sequential nested calls in one cell for (b): enough that the exec's own overhead is noise per call. */
export const NESTED_CALLS = 1000;
const NESTED_CELL = `for (let i = 0; i < ${NESTED_CALLS}; i++) await ${NOOP_TOOL}({});\nreturn ${NESTED_CALLS}`;

/** A cell that parks on its own request (no timer involved), for suspend/resume round trips. */
const YIELD_CELL = 'let n = 1;\nawait yield_control("bench");\nreturn n + 1';

/** About 1 MiB of live data: 131072 doubles. Random values do not compress: the worst case for stored bytes. */
const MIB_DOUBLES = (1024 * 1024) / 8;
const MIB_CHARS = 1024 * 1024;

interface SnapshotCase {
  label: string;
  /** Statements that define `data`: the cell's live state across the suspension. */
  build: string;
  /** An expression over `data` that is true only if the state survived snapshot and restore. */
  check: string;
}

const SNAPSHOT_CASES: SnapshotCase[] = [
  { label: 'trivial cell', build: 'const data = 1;', check: 'data === 1' },
  {
    label: '1 MiB random Float64Array',
    build: `const data = new Float64Array(${MIB_DOUBLES});\nfor (let i = 0; i < data.length; i++) data[i] = Math.random();`,
    check: `data.length === ${MIB_DOUBLES} && data[7] !== data[8]`,
  },
  { label: '1 MiB repeated string', build: `const data = "x".repeat(${MIB_CHARS});`, check: `data.length === ${MIB_CHARS}` },
];

// ---- (a) trivial cell --------------------------------------------------------------------------

export async function trivialCell(ctx: BenchContext): Promise<Section> {
  const gw = await openGateway('quickjs', ctx.quickjs);
  const { agentRunId } = gw.prepareTurn({});
  try {
    const t = await measureInterleaved(
      {
        gateway: () => trivialOnce(gw, agentRunId, 'quickjs'),
        bare: () => expectOne(ctx.bare.createAndEval('1'), 'bare create-and-eval'),
        prelude: () => expectOne(ctx.bare.createPreludeAndEval('1'), 'bare create + prelude'),
      },
      ctx.counts.fast,
    );
    return {
      rows: [
        pairMs('a1', 'trivial cell `return 1`: Gateway exec round trip vs bare quickjs-wasi create+eval', t.gateway, t.bare),
        withTarget(pairMs('a2', 'trivial cell: Gateway exec round trip vs bare create + guest prelude + eval', t.gateway, t.prelude), '≤ 1.3x', t.gateway.median / t.prelude.median, 1.3),
      ],
      notes: [],
    };
  } finally {
    await gw.close();
  }
}

async function trivialOnce(gw: Gateway, agentRunId: string, kind: ExecutorKind): Promise<void> {
  const r = expectStatus(await gw.exec(agentRunId, { code: TRIVIAL_CELL }), 'completed', `${kind} trivial cell`);
  if (r.value !== 1) throw new Error(`${kind} trivial cell returned ${JSON.stringify(r.value)}, expected 1`);
}

async function expectOne(p: Promise<number>, what: string): Promise<void> {
  const v = await p;
  if (v !== 1) throw new Error(`${what} returned ${v}, expected 1`);
}

// ---- (b) nested-call overhead ------------------------------------------------------------------

/** Calls per Promise.all in (b2): one frontier of this many requests, one of replies. */
export const FRONTIER_CALLS = 100;
/** Promise.all rounds in one (b2) cell, so the cell holds NESTED_CALLS calls like (b1). */
const FRONTIER_ROUNDS = NESTED_CALLS / FRONTIER_CALLS;
/** Promise.all cells before the work per call is measured (a nested-call cell reaches its pace after a few thousand calls). */
const WORK_WARMUP_CELLS = 3;
/** The floor-with-work probe's size: each round trip takes the call's work besides the hop, so fewer than the bare floor's. */
const WORK_FLOOR_ROUNDS = { warmup: 100, rounds: 5, perBatch: 100 };
const FRONTIER_CELL = `let n = 0;\nfor (let r = 0; r < ${FRONTIER_ROUNDS}; r++) n += (await Promise.all(Array.from({ length: ${FRONTIER_CALLS} }, () => ${NOOP_TOOL}({})))).length;\nreturn n`;

export async function nestedCalls(ctx: BenchContext): Promise<Section> {
  const gw = await openGateway('quickjs', ctx.quickjs, { maxPendingToolCalls: FRONTIER_CALLS });
  const { agentRunId } = gw.prepareTurn({});
  const sleepyExecutor = new QuickJsExecutor({ replySpinUs: 0 });
  await sleepyExecutor.ready();
  const sleepyGw = await openGateway('quickjs', sleepyExecutor, { maxPendingToolCalls: FRONTIER_CALLS });
  const sleepy = { gw: sleepyGw, agentRunId: sleepyGw.prepareTurn({}).agentRunId };
  try {
    const hostNoop = async (_input: unknown): Promise<null> => null;
    // the two threads' work per call, first (a wide frontier is never polled for, so its CPU is work, not waiting):
    // the floor with work below gives each side as much; /proc counts CPU in 10 ms ticks, so ten cells (~0.7 s)
    for (let i = 0; i < WORK_WARMUP_CELLS; i++) await frontierOnce(gw, agentRunId);
    const work = await cellCpu({ runCell: () => frontierOnce(gw, agentRunId), calls: NESTED_CALLS, runs: 10 });
    // each side's CPU per call in µs, the work the floor probe gives each side
    const workUs = work.threads && { main: (1000 * work.threads.mainMs) / work.n, worker: (1000 * work.threads.workerMs) / work.n };
    const t = await collectInterleaved(
      {
        // the floor probe spawns its own worker and times the hop inside it
        floor: async () => ({ ms: await postMessageFloorMs() }),
        // the same hop where each side first computes a call's work (b2c), so each goes idle while the other computes
        floorWork: async () => ({ ms: workUs ? await postMessageFloorMs({ ...WORK_FLOOR_ROUNDS, workUs }) : Number.NaN }),
        cell: () => timed(() => nestedOnce(gw, agentRunId, 'quickjs')),
        frontier: () => timed(() => frontierOnce(gw, agentRunId)),
        trivial: () => timed(() => trivialOnce(gw, agentRunId, 'quickjs')),
        // the same cell on workers that sleep until each reply comes (reply polling off: reply-spin.ts)
        sleeping: () => timed(() => nestedOnce(sleepy.gw, sleepy.agentRunId, 'quickjs')),
        host: () =>
          timed(async () => {
            for (let i = 0; i < NESTED_CALLS; i++) await hostNoop({});
          }),
      },
      ctx.counts.slow,
    );
    const floor = t.floor.ms.median;
    // the exec's own cost (a trivial cell, measured beside) is taken out, so what is left is the calls
    const perCall = (s: Record<'ms', Sample>) => Math.max(0, s.ms.median - t.trivial.ms.median) / NESTED_CALLS;
    const seq = perCall(t.cell);
    const batched = perCall(t.frontier);
    const breakdown = await nestedBreakdown({ runCell: () => nestedOnce(gw, agentRunId, 'quickjs'), calls: NESTED_CALLS, runs: 3, floorMs: floor });
    return {
      rows: [
        { id: 'b0', measure: 'the floor: bare postMessage round trip worker -> main -> worker (median of batch means)', a: formatMs(floor) },
        withTarget(
          pairMs('b1', `per nested no-op call, ${NESTED_CALLS} sequential awaits in a cell (minus a trivial cell) vs the floor`, seq, floor),
          '≤ 1.5x floor',
          seq / floor,
          1.5,
        ),
        withTarget(
          pairMs('b2', `per call, Promise.all of ${FRONTIER_CALLS} no-op calls (${FRONTIER_ROUNDS} rounds in a cell, minus a trivial cell) vs the floor`, batched, floor),
          '≤ 0.3x floor',
          batched / floor,
          0.3,
        ),
        cellCpuRow('b2c', 'b2 split', work, floor),
        ...(workUs
          ? [
              pairMs(
                'b0w',
                "the floor with a call's work: the same round trip where the main thread and the worker each first compute b2c's CPU per call (each side goes idle while the other computes) vs the floor",
                t.floorWork.ms.median,
                floor,
              ),
            ]
          : []),
        pairMs('b1s', `b1 beside the same cell on workers that sleep until each reply (reply polling off, CODEMODE_REPLY_SPIN_US=0)`, seq, perCall(t.sleeping)),
        pairMs('b3', `per call, ${NESTED_CALLS} sequential awaits: no-op tool nested in a cell vs plain async host function`, seq, t.host.ms.median / NESTED_CALLS),
        ...breakdown,
      ],
      notes: [],
    };
  } finally {
    await gw.close();
    await sleepyGw.close();
    await sleepyExecutor.close();
  }
}

async function timed(fn: () => Promise<unknown>): Promise<Record<'ms', number>> {
  const t0 = performance.now();
  await fn();
  return { ms: performance.now() - t0 };
}

async function frontierOnce(gw: Gateway, agentRunId: string): Promise<void> {
  const r = expectStatus(await gw.exec(agentRunId, { code: FRONTIER_CELL }), 'completed', 'Promise.all cell');
  if (r.value !== NESTED_CALLS || r.telemetry.counters.call !== NESTED_CALLS) {
    throw new Error(`Promise.all cell returned ${JSON.stringify(r.value)} after ${r.telemetry.counters.call} calls, expected ${NESTED_CALLS}`);
  }
}

async function nestedOnce(gw: Gateway, agentRunId: string, kind: ExecutorKind): Promise<void> {
  const r = expectStatus(await gw.exec(agentRunId, { code: NESTED_CELL }), 'completed', `${kind} nested-call cell`);
  if (r.telemetry.counters.call !== NESTED_CALLS) {
    throw new Error(`${kind} nested-call cell made ${r.telemetry.counters.call} calls, expected ${NESTED_CALLS}`);
  }
}

// ---- (c) snapshots -----------------------------------------------------------------------------

export async function snapshots(ctx: BenchContext): Promise<Section> {
  const gw = await openGateway('quickjs', ctx.quickjs, { timeoutMs: ctx.suspend.timeoutMs, memoryLimitBytes: ctx.memoryLimitBytes });
  const rows: BenchRow[] = [];
  let together: BenchRow | undefined;
  try {
    for (const [n, c] of SNAPSHOT_CASES.entries()) {
      const s = await collectInterleaved(
        {
          gateway: () => suspendAndResume(gw, c, ctx.suspend.sleepMs),
          // top-level `const data` stays a global binding across evalCode calls, like the cell's local across await
          direct: async () => ({ ...(await codecRoundTrip(ctx.bare, c.build, `(${c.check}) ? 1 : 0`, ctx.memoryLimitBytes)) }),
        },
        ctx.counts.suspend,
      );
      const id = (k: number) => `c${n * 4 + k}`;
      const stored = pairBytes(id(1), `${c.label}: Gateway snapshot raw vs stored bytes`, s.gateway.rawBytes.median, s.gateway.storedBytes.median);
      rows.push(
        // the targets are for the trivial cell: its stored size, and take + restore together
        n === 0 ? withTarget(stored, '≤ 32 KiB stored', s.gateway.storedBytes.median, 32 * 1024) : stored,
        pairBytes(id(2), `${c.label}: bare VM (codec direct) raw vs stored bytes`, s.direct.rawBytes.median, s.direct.storedBytes.median),
        pairMs(id(3), `${c.label}: take (snapshot + encode), Gateway telemetry vs codec direct`, s.gateway.takeMs, s.direct.takeMs),
        pairMs(id(4), `${c.label}: restore (decode + restore), Gateway telemetry vs codec direct`, s.gateway.restoreMs, s.direct.restoreMs),
      );
      if (n === 0) {
        const both = s.gateway.takeMs.median + s.gateway.restoreMs.median;
        together = withTarget({ id: 'c13', measure: 'trivial cell: take + restore together (Gateway telemetry, sum of medians)', a: formatMs(both) }, '≤ 5 ms', both, 5);
      }
    }
  } finally {
    await gw.close();
  }
  if (together) rows.push(together);
  return {
    rows,
    notes: [
      `(c) Gateway cells start sleep({ ms: ${ctx.suspend.sleepMs} }) and park on yield_control (timeoutMs ${ctx.suspend.timeoutMs}); wait restores them, they await the sleep and complete.`,
    ],
  };
}

async function suspendAndResume(gw: Gateway, c: SnapshotCase, sleepMs: number): Promise<Record<'rawBytes' | 'storedBytes' | 'takeMs' | 'restoreMs', number>> {
  const { agentRunId } = gw.prepareTurn({});
  try {
    const code = `${c.build}\nconst pending = sleep({ ms: ${sleepMs} });\nawait yield_control("bench");\nconst s = await pending;\nreturn (${c.check}) && s.sleptMs >= ${sleepMs} ? 1 : 0`;
    const parked = expectStatus(await gw.exec(agentRunId, { code }), 'waiting', `${c.label} exec`);
    const snap = parked.telemetry.snapshot;
    if (!snap || snap.takeMs === undefined) throw new Error(`${c.label}: the waiting result carries no snapshot telemetry`);
    let resumed = await gw.wait(agentRunId, { runId: parked.runId });
    // a wait whose budget ends before the tool settles parks again without restoring; ask again
    while (resumed.status === 'waiting') resumed = await gw.wait(agentRunId, { runId: parked.runId });
    const done = expectStatus(resumed, 'completed', `${c.label} wait`);
    if (done.value !== 1) throw new Error(`${c.label}: the restored cell lost its data (returned ${JSON.stringify(done.value)})`);
    const restoreMs = done.telemetry.snapshot?.restoreMs;
    if (restoreMs === undefined) throw new Error(`${c.label}: the completed wait carries no restore telemetry`);
    return { rawBytes: snap.rawBytes, storedBytes: snap.storedBytes, takeMs: snap.takeMs, restoreMs };
  } finally {
    gw.endTurn(agentRunId);
  }
}

// ---- (d) 64 suspended runs ---------------------------------------------------------------------

/** Rounds of parking after the first, whose RSS deltas give the steady-state median. */
const STEADY_PARK_ROUNDS = 5;

export async function suspendedRuns(ctx: BenchContext): Promise<Section> {
  const gc = exposeGc();
  // default limits: a short deadline could expire before a busy worker has even started all 64 VMs
  const gw = await openGateway('quickjs', ctx.quickjs);
  try {
    // the first round grows the workers' heaps (64 VMs created at once); later rounds show the steady cost
    const first = await parkAll(gw, gc);
    const steady: ParkRound[] = [];
    for (let i = 0; i < STEADY_PARK_ROUNDS; i++) steady.push(await parkAll(gw, gc));
    const med = (f: (r: ParkRound) => number) => median(steady.map(f));
    const n = first.slots;
    const rss = (r: ParkRound) => r.during.rss - r.before.rss;
    const stored = med((r) => r.storedSum);
    return {
      rows: [
        withTarget({ id: 'd0', measure: `${n} suspended runs (a pending sleep each): stored snapshot bytes together`, a: formatBytes(first.storedSum) }, '≤ 2 MiB', first.storedSum, 2 * 1024 * 1024),
        pairBytes('d1', `${n} suspended runs, first time: process RSS delta vs sum of stored snapshots (${n} x ${formatBytes(first.storedSum / n)})`, rss(first), first.storedSum),
        // the target is read on the repeatable rounds: the first also moves with what earlier sections left to collect
        withTarget(
          pairBytes('d2', `${n} suspended runs, later rounds (median of ${STEADY_PARK_ROUNDS}): RSS delta vs sum of stored snapshots`, med(rss), stored),
          '≤ 2x',
          med(rss) / stored,
          2,
        ),
        pairBytes('d3', `${n} suspended runs: V8 external memory delta (where the snapshots live) vs sum of stored snapshots`, med((r) => r.during.external - r.before.external), stored),
        { id: 'd4', measure: `${n} suspended runs: V8 heap used delta (run records, pending calls)`, a: formatBytes(med((r) => r.during.heapUsed - r.before.heapUsed)) },
        pairBytes('d5', `after releasing all ${n} (first round): RSS delta vs RSS delta while suspended`, first.after.rss - first.before.rss, rss(first)),
      ],
      notes: [
        `(d) RSS covers the whole process, worker threads included; the workers' heaps keep what they grew while creating ${n} VMs at once (V8 rarely returns it to the OS), so RSS moves by more than the snapshots.${gc ? '' : ' No gc() was available, so deltas include uncollected garbage.'}`,
      ],
    };
  } finally {
    await gw.close();
  }
}

const PARKED_CELL = (i: number) => `const id = ${i};\nconst pending = sleep({ ms: 60000 });\nawait yield_control("bench");\nreturn (await pending).sleptMs + id`;

interface ParkRound {
  slots: number;
  storedSum: number;
  before: NodeJS.MemoryUsage;
  during: NodeJS.MemoryUsage;
  after: NodeJS.MemoryUsage;
}

/** Parks MAX_SUSPENDED_RUNS cells at once (each on its own turn), measures, then releases them all. */
async function parkAll(gw: Gateway, gc: (() => void) | undefined): Promise<ParkRound> {
  if (gw.diagnostics.suspendedSlots() !== 0) throw new Error('(d) needs every suspended slot free; an earlier row left a run parked');
  const turns = Array.from({ length: MAX_SUSPENDED_RUNS }, () => gw.prepareTurn({}).agentRunId);
  const before = await settledMemory(gc);
  // each parks as soon as its VM reaches yield_control, with a real tool call pending beside it; the
  // sleep is never waited for: ending the turns releases the runs and cancels it
  const results = await Promise.all(turns.map((id, i) => gw.exec(id, { code: PARKED_CELL(i) })));
  const storedSum = results.reduce((sum, r, i) => {
    const w = expectStatus(r, 'waiting', `suspended run ${i + 1} of ${MAX_SUSPENDED_RUNS}`);
    return sum + (w.telemetry.snapshot?.storedBytes ?? 0);
  }, 0);
  const during = await settledMemory(gc);
  const slots = gw.diagnostics.suspendedSlots();
  for (const id of turns) gw.endTurn(id);
  const after = await settledMemory(gc);
  return { slots, storedSum, before, during, after };
}

export function exposeGc(): (() => void) | undefined {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  return typeof gc === 'function' ? () => (gc as () => void)() : undefined;
}

/**
 * How long memory is left to settle before it is read: a QuickJS worker collects 50 ms after it last
 * dropped an instance, and V8 frees WASM memories on a background thread after that.
 */
const MEMORY_SETTLE_MS = 1000;

export async function settledMemory(gc: (() => void) | undefined): Promise<NodeJS.MemoryUsage> {
  await new Promise((resolve) => setTimeout(resolve, MEMORY_SETTLE_MS));
  gc?.();
  gc?.();
  return process.memoryUsage();
}

// ---- (e) the three executors side by side: QuickJS (A), Node (B), quickjs-emscripten (C) -------------

interface Side {
  kind: ExecutorKind;
  gw: Gateway;
  agentRunId: string;
  create: () => Promise<Executor>;
}

export async function executors(
  ctx: BenchContext,
  node: NodeExecutorProbe,
  createQuickJs: () => Promise<Executor>,
  createEmscripten: () => Promise<Executor>,
): Promise<Section> {
  const nodeExecutor = node.available ? await node.create() : undefined;
  const emscripten = await createEmscripten();
  const sides: Side[] = [];
  const open = async (kind: ExecutorKind, ex: Executor, create: () => Promise<Executor>) => {
    const gw = await openGateway(kind, ex);
    sides.push({ kind, gw, agentRunId: gw.prepareTurn({}).agentRunId, create });
  };
  try {
    await open('quickjs', ctx.quickjs, createQuickJs);
    if (node.available && nodeExecutor) await open('node', nodeExecutor, node.create);
    await open('quickjs-emscripten', emscripten, createEmscripten);
    const per = <T>(fn: (s: Side) => T): Record<string, T> => Object.fromEntries(sides.map((s) => [s.kind, fn(s)]));
    const warm = await measureInterleaved(per((s) => () => trivialOnce(s.gw, s.agentRunId, s.kind)), ctx.counts.fast);
    const nested = await measureInterleaved(per((s) => () => nestedOnce(s.gw, s.agentRunId, s.kind)), ctx.counts.slow);
    const parked = await collectInterleaved(per((s) => () => yieldRoundTrip(s.gw, s.kind)), ctx.counts.fast);
    const cold = await collectInterleaved(per((s) => () => coldOnce(s.kind, s.create)), ctx.counts.cold);

    const q = 'quickjs';
    const n = 'node';
    const e = 'quickjs-emscripten';
    const ms = (v: Sample | undefined) => (v ? formatMs(v.median) : 'skipped');
    const perCall = (v: Sample | undefined) => (v ? formatMs(v.median / NESTED_CALLS) : 'skipped');
    const r = (a: Sample | undefined, b: Sample | undefined) => ratio(a?.median, b?.median);
    const bytes = (v: Sample | undefined, estimate: boolean) =>
      v === undefined ? 'skipped' : v.median < 0 ? 'not reported' : `${estimate ? '~' : ''}${formatBytes(v.median)}`;
    const bytesOf = (v: Sample | undefined) => (v && v.median >= 0 ? v.median : undefined);
    const rows: BenchRow[] = [
      { id: 'e1', measure: 'trivial cell, warm worker: QuickJS vs Node vs quickjs-emscripten', a: ms(warm[q]), b: ms(warm[n]), c: ms(warm[e]), ratio: r(warm[q], warm[n]) },
      {
        id: 'e2',
        measure: 'trivial cell, cold (new executor: workers start + first cell): QuickJS vs Node vs quickjs-emscripten',
        a: ms(cold[q]?.ms),
        b: ms(cold[n]?.ms),
        c: ms(cold[e]?.ms),
        ratio: r(cold[q]?.ms, cold[n]?.ms),
      },
      {
        id: 'e3',
        measure: `per nested no-op call (${NESTED_CALLS} in one cell): QuickJS vs Node vs quickjs-emscripten`,
        a: perCall(nested[q]),
        b: perCall(nested[n]),
        c: perCall(nested[e]),
        ratio: r(nested[q], nested[n]),
      },
      {
        id: 'e4',
        measure: 'suspend: exec of a yield_control cell until waiting: QuickJS vs Node vs quickjs-emscripten',
        a: ms(parked[q]?.suspendMs),
        b: ms(parked[n]?.suspendMs),
        c: ms(parked[e]?.suspendMs),
        ratio: r(parked[q]?.suspendMs, parked[n]?.suspendMs),
      },
      {
        id: 'e5',
        measure: 'resume: wait on it until completed: QuickJS vs Node vs quickjs-emscripten',
        a: ms(parked[q]?.resumeMs),
        b: ms(parked[n]?.resumeMs),
        c: ms(parked[e]?.resumeMs),
        ratio: r(parked[q]?.resumeMs, parked[n]?.resumeMs),
      },
      {
        id: 'e6',
        measure: 'parked bytes: QuickJS stored snapshot vs Node and quickjs-emscripten live estimates (~)',
        a: bytes(parked[q]?.parkedBytes, false),
        b: bytes(parked[n]?.parkedBytes, true),
        c: bytes(parked[e]?.parkedBytes, true),
        ratio: ratio(bytesOf(parked[q]?.parkedBytes), bytesOf(parked[n]?.parkedBytes)),
      },
      { id: 'e7', measure: 'QuickJS: cold vs warm trivial cell', a: ms(cold[q]?.ms), b: ms(warm[q]), ratio: r(cold[q]?.ms, warm[q]) },
      { id: 'e8', measure: 'Node: cold vs warm trivial cell', a: ms(cold[n]?.ms), b: ms(warm[n]), ratio: r(cold[n]?.ms, warm[n]) },
      withTarget(
        { id: 'e9', measure: 'QuickJS: first cell after the executor is ready (new Gateway) vs a warm cell', a: ms(cold[q]?.firstMs), b: ms(warm[q]), ratio: r(cold[q]?.firstMs, warm[q]) },
        '≤ 1.5x',
        cold[q] && warm[q] ? cold[q].firstMs.median / warm[q].median : undefined,
        1.5,
      ),
      { id: 'e10', measure: 'Node: first cell after the executor is ready (new Gateway) vs a warm cell', a: ms(cold[n]?.firstMs), b: ms(warm[n]), ratio: r(cold[n]?.firstMs, warm[n]) },
      { id: 'e11', measure: 'quickjs-emscripten: cold vs warm trivial cell', a: ms(cold[e]?.ms), b: ms(warm[e]), ratio: r(cold[e]?.ms, warm[e]) },
      { id: 'e12', measure: 'quickjs-emscripten: first cell after the executor is ready vs a warm cell', a: ms(cold[e]?.firstMs), b: ms(warm[e]), ratio: r(cold[e]?.firstMs, warm[e]) },
    ];
    return { rows, notes: node.available ? [] : [`(e) Node executor rows skipped: ${node.reason}.`] };
  } finally {
    for (const s of sides) await s.gw.close();
    await nodeExecutor?.close();
    await emscripten.close();
  }
}

async function yieldRoundTrip(gw: Gateway, kind: ExecutorKind): Promise<Record<'suspendMs' | 'resumeMs' | 'parkedBytes', number>> {
  const { agentRunId } = gw.prepareTurn({});
  try {
    const t0 = performance.now();
    const parked = expectStatus(await gw.exec(agentRunId, { code: YIELD_CELL }), 'waiting', `${kind} yield cell`);
    const t1 = performance.now();
    const done = expectStatus(await gw.wait(agentRunId, { runId: parked.runId }), 'completed', `${kind} wait after yield`);
    const t2 = performance.now();
    if (done.value !== 2) throw new Error(`${kind} yield cell returned ${JSON.stringify(done.value)}, expected 2`);
    // -1: the executor reported no size for its continuation
    const parkedBytes = kind === 'quickjs' ? (parked.telemetry.snapshot?.storedBytes ?? -1) : (parked.telemetry.retainedBytesEstimate ?? -1);
    return { suspendMs: t1 - t0, resumeMs: t2 - t1, parkedBytes };
  } finally {
    gw.endTurn(agentRunId);
  }
}

/** A new executor: construction and ready (worker start-up) plus its first cell; building the Gateway is not timed. */
async function coldOnce(kind: ExecutorKind, create: () => Promise<Executor>): Promise<Record<'ms' | 'firstMs', number>> {
  const t0 = performance.now();
  const ex = await create();
  const startMs = performance.now() - t0;
  const gw = await openGateway(kind, ex);
  try {
    // the Gateway's start, as createGateway finishes it (not timed: the row is the first cell after it)
    await gw.warmUp();
    const { agentRunId } = gw.prepareTurn({});
    const t1 = performance.now();
    await trivialOnce(gw, agentRunId, kind);
    const firstMs = performance.now() - t1;
    return { ms: startMs + firstMs, firstMs };
  } finally {
    await gw.close();
    await ex.close();
  }
}

// ---- row builders ------------------------------------------------------------------------------

// ---- (f) fairness: another client's trivial cell beside two infinite loops ----------------------

/** Budget of the loop cells: long enough that they still run while every trivial cell is measured. */
const FAIRNESS_LOOP_TIMEOUT_MS = 60_000;

/**
 * A trivial cell of one turn, measured while two `for(;;){}` cells of another turn compute (the elastic
 * pool gives it a worker of its own), against the same cell on an idle executor. The loops are aborted
 * by ending their turn.
 */
export async function fairness(ctx: BenchContext): Promise<Section> {
  const gw = await openGateway('quickjs', ctx.quickjs, { timeoutMs: FAIRNESS_LOOP_TIMEOUT_MS });
  const client = gw.prepareTurn({});
  const idle = await measureInterleaved({ idle: () => trivialOnce(gw, client.agentRunId, 'quickjs') }, ctx.counts.fast);
  const hogs = gw.prepareTurn({});
  const loops = [0, 1].map(() => gw.exec(hogs.agentRunId, { code: 'for (;;) {}' }));
  try {
    // let both loops take their workers and be seen as computing before measuring
    await new Promise((resolve) => setTimeout(resolve, 500));
    const busy = await measureInterleaved({ busy: () => trivialOnce(gw, client.agentRunId, 'quickjs') }, ctx.counts.fast);
    return {
      rows: [pairMs('f1', 'trivial cell of another turn: while two infinite loops run vs on an idle executor', busy.busy, idle.idle)],
      notes: [],
    };
  } finally {
    gw.endTurn(hogs.agentRunId);
    await Promise.allSettled(loops);
    await gw.close();
  }
}

export function pairMs(id: string, measure: string, a: Sample | number, b: Sample | number): BenchRow {
  const av = typeof a === 'number' ? a : a.median;
  const bv = typeof b === 'number' ? b : b.median;
  return { id, measure, a: formatMs(av), b: formatMs(bv), ratio: ratio(av, bv) };
}

export function pairBytes(id: string, measure: string, a: number, b: number): BenchRow {
  return { id, measure, a: formatBytes(a), b: formatBytes(b), ratio: ratio(a, b) };
}
