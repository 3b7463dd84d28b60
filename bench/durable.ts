// (r) durable runs: a Gateway with runs.durable on a SQLite file: its RSS idle and with parked runs, and a wait that restores from the store vs from memory.
//
// The issue's targets: 10,000 parked runs keep the Gateway's RSS within 1.5x its idle RSS plus a bounded snapshot
// cache, and a restore from the store costs at most 2x an in-memory restore. The bench Gateway raises runs.maxParked
// to 10,000 and keeps runs.parkedInMemory small: a parked run whose row is written and that has no call in flight is
// evicted to its row (gateway/durable-runs.ts), so the 10,000 actually park and the RSS is read with them parked.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gateway } from '../server/gateway.ts';
import { MAX_SLOTS_PER_TURN, MAX_SUSPENDED_RUNS } from '../server/runs/runs.ts';
import { exposeGc, pairBytes, pairMs, settledMemory, type BenchContext, type Section } from './cases.ts';
import { expectStatus, openGateway, type BenchDurable } from './harness.ts';
import { collectInterleaved, formatBytes, formatMs, median } from './stats.ts';
import { withTarget, type BenchRow } from './table.ts';

/** The issue's count of parked runs for the RSS target. */
export const TARGET_PARKED_RUNS = 10_000;
const WANTED = TARGET_PARKED_RUNS.toLocaleString('en-US');
/** The issue's bound: RSS with TARGET_PARKED_RUNS parked at most this many times the idle RSS. */
export const MAX_PARKED_RSS_RATIO = 1.5;
/** The issue's bound: a wait that restores from the store at most this many times one on a run held in memory. */
export const MAX_STORE_RESTORE_RATIO = 2;

/**
 * runs.parkedInMemory of the bench Gateway: the bounded cache the target allows beside idle (the most recently parked
 * quiescent runs keep their copy). Small, so the in-process slots (64) also cover the cells started at once.
 */
export const BENCH_PARKED_IN_MEMORY = 16;
/** Cells of the 10,000 started at once: each holds a slot until its row is written and it is evicted (with the cache, under 64). */
const PARK_CONCURRENCY = 32;
/** How long the rows of the 10,000 may take to be deleted once their turns end (a limit for a loaded machine, not a timing). */
const RELEASE_MANY_LIMIT_MS = 300_000;

/** Parks on its own request with a slow call pending (as (d) does), so the snapshot holds a real pending call. */
const PARKED_CELL = (i: number) => `const id = ${i};\nconst pending = sleep({ ms: 60000 });\nawait yield_control("bench");\nreturn (await pending).sleptMs + id`;
/**
 * r5's cell: its call completes before it parks (a call still in flight lives in the process, so a run with one is
 * never evicted), then it yields: parked with nothing but its row to hold it.
 */
const QUIESCENT_CELL = (i: number) => `const id = ${i};\nawait sleep({ ms: 1 });\nawait yield_control("bench");\nreturn id`;
/** The restore rows' cell: parks on a yield alone, so the wait after it restores and completes at once. */
const YIELD_CELL = 'let n = 1;\nawait yield_control("bench");\nreturn n + 1';

export interface ParkedRssVerdict {
  /** RSS with the runs parked / idle RSS. */
  ratio: number;
  /** Only when `wanted` runs actually parked (rows in the store) and the ratio is within the bound. */
  met: boolean;
}

/**
 * The RSS target from what was measured: `rss` with `parked` runs parked against `idleRss`. Met only by runs that
 * parked: fewer than `wanted` is short, whatever the ratio (never a projection).
 */
export function parkedRssVerdict(m: { idleRss: number; rss: number; parked: number; wanted: number; maxRatio: number }): ParkedRssVerdict {
  if (!(m.idleRss > 0) || !(m.rss > 0)) throw new RangeError(`parkedRssVerdict: needs an idle RSS and one with the runs parked (got ${m.idleRss} and ${m.rss} bytes)`);
  const ratio = m.rss / m.idleRss;
  return { ratio, met: m.parked >= m.wanted && ratio <= m.maxRatio };
}

export async function durableRuns(ctx: BenchContext): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-bench-durable-'));
  const key = randomBytes(32).toString('base64');
  try {
    const memory = await parkedMemory(ctx, { sessionsPath: join(dir, 'parked.db'), key, maxParked: TARGET_PARKED_RUNS, parkedInMemory: BENCH_PARKED_IN_MEMORY });
    const restore = await restoreFromStore(ctx, { sessionsPath: join(dir, 'restore.db'), key });
    return {
      rows: [...memory.rows, ...restore.rows],
      notes: [
        `(r) runs.durable on a SQLite file in ${tmpdir()}, runs.maxParked ${TARGET_PARKED_RUNS}, runs.parkedInMemory ${BENCH_PARKED_IN_MEMORY}; the RSS rows read the whole bench process (a full run's earlier sections included), after a first round of ${MAX_SUSPENDED_RUNS} parked and released; ${memory.refusal}`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- memory: idle, and with every run the caps allow parked ----------------------------------------

interface Park {
  turns: string[];
  storedSum: number;
}

async function parkRound(gw: Gateway): Promise<Park> {
  if (gw.diagnostics.suspendedSlots() !== 0) throw new Error('(r) needs every suspended slot free; an earlier row left a run parked');
  const turns = Array.from({ length: MAX_SUSPENDED_RUNS }, () => gw.prepareTurn({}).agentRunId);
  const results = await Promise.all(turns.map((id, i) => gw.exec(id, { code: PARKED_CELL(i) })));
  const storedSum = results.reduce((sum, r, i) => sum + (expectStatus(r, 'waiting', `durable parked run ${i + 1} of ${MAX_SUSPENDED_RUNS}`).telemetry.snapshot?.storedBytes ?? 0), 0);
  return { turns, storedSum };
}

/** Ends the turns (their runs end, evicted or held, their rows are deleted) and waits until the store holds no row. */
async function release(gw: Gateway, park: Park, limitMs = 10_000): Promise<void> {
  for (const id of park.turns) gw.endTurn(id);
  for (const end = Date.now() + limitMs; (await gw.diagnostics.durableRunCount()) > 0; ) {
    if (Date.now() > end) throw new Error(`(r) the durable rows of ended runs were not deleted within ${limitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Parks `count` QUIESCENT_CELL runs, MAX_SLOTS_PER_TURN per turn (a turn's share), PARK_CONCURRENCY at a time: each
 * exec answers once its row is written, and by then the runs past the cache are evicted.
 */
async function parkMany(gw: Gateway, count: number): Promise<Park & { ms: number }> {
  const turns = Array.from({ length: Math.ceil(count / MAX_SLOTS_PER_TURN) }, () => gw.prepareTurn({}).agentRunId);
  let next = 0;
  let storedSum = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: PARK_CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) {
        const r = await gw.exec(turns[Math.floor(i / MAX_SLOTS_PER_TURN)] as string, { code: QUIESCENT_CELL(i) });
        storedSum += expectStatus(r, 'waiting', `durable parked run ${i + 1} of ${count}`).telemetry.snapshot?.storedBytes ?? 0;
      }
    }),
  );
  return { turns, storedSum, ms: performance.now() - t0 };
}

/** Rounds of parking after the first, whose medians the memory rows read (one round alone can catch the process giving memory back). */
const PARK_ROUNDS = 3;

interface Round {
  storedSum: number;
  rowsHeld: number;
  rss: number;
  external: number;
  heapUsed: number;
}

async function measuredRound(gw: Gateway, gc: (() => void) | undefined): Promise<Round & { idleRss: number }> {
  const idle = await settledMemory(gc);
  const park = await parkRound(gw);
  const during = await settledMemory(gc);
  const rowsHeld = (await gw.diagnostics.durableRuns()).length;
  await release(gw, park);
  return { storedSum: park.storedSum, rowsHeld, idleRss: idle.rss, rss: during.rss - idle.rss, external: during.external - idle.external, heapUsed: during.heapUsed - idle.heapUsed };
}

async function parkedMemory(ctx: BenchContext, durable: BenchDurable): Promise<{ rows: BenchRow[]; refusal: string }> {
  const gc = exposeGc();
  const gw = await openGateway('quickjs', ctx.quickjs, {}, {}, durable);
  try {
    // the first round grows the workers' heaps (64 VMs at once) and warms the store's statements: idle is read after it
    await release(gw, await parkRound(gw));
    const rounds: Array<Round & { idleRss: number }> = [];
    for (let i = 0; i < PARK_ROUNDS; i++) rounds.push(await measuredRound(gw, gc));
    const med = (f: (r: Round & { idleRss: number }) => number) => median(rounds.map(f));
    const parked = Math.min(...rounds.map((r) => r.rowsHeld));
    const idleRss = med((r) => r.idleRss);
    const stored = med((r) => r.storedSum);

    // r5: the issue's count, actually parked (evicted to their rows past the cache), read settled as the rounds are
    const idle = await settledMemory(gc);
    const many = await parkMany(gw, TARGET_PARKED_RUNS);
    const withMany = await settledMemory(gc);
    const manyRows = await gw.diagnostics.durableRunCount();
    const evicted = gw.diagnostics.evictedRuns();
    const heldSlots = gw.diagnostics.suspendedSlots();
    // one more than runs.maxParked, on a turn of its own: refused, naming the field that raises it
    const extra = gw.prepareTurn({}).agentRunId;
    const over = await gw.exec(extra, { code: QUIESCENT_CELL(TARGET_PARKED_RUNS) });
    gw.endTurn(extra);
    await release(gw, many, RELEASE_MANY_LIMIT_MS);
    const refusal =
      over.status === 'waiting'
        ? `one run more than runs.maxParked parked too (the cap no longer holds it back).`
        : `one run more beside the ${WANTED} (runs.maxParked) is refused (${over.status}${over.status === 'failed' ? `, ${over.code}: ${over.error.includes('runs.maxParked') ? 'the message names runs.maxParked' : 'the message does not name runs.maxParked'}` : ''}).`;
    const verdict = parkedRssVerdict({ idleRss: idle.rss, rss: withMany.rss, parked: manyRows, wanted: TARGET_PARKED_RUNS, maxRatio: MAX_PARKED_RSS_RATIO });
    const keptPerRun = Math.max(0, withMany.heapUsed + withMany.external - idle.heapUsed - idle.external) / Math.max(1, manyRows);
    return {
      refusal,
      rows: [
        { id: 'r1', measure: `idle RSS: the bench process with a runs.durable Gateway open on a SQLite file, no run parked (median of ${PARK_ROUNDS})`, a: formatBytes(idleRss) },
        pairBytes('r2', `${parked} parked durable runs, each with a 60 s sleep in flight (so held in memory), median of ${PARK_ROUNDS} rounds: process RSS growth vs their stored snapshots`, med((r) => r.rss), stored),
        pairBytes('r3', `${parked} parked durable runs with a call in flight: V8 external memory growth vs their stored snapshots (1.00x: each snapshot is held in memory beside its row)`, med((r) => r.external), stored),
        { id: 'r4', measure: `${parked} parked durable runs with a call in flight: V8 heap used growth (the Run records, kept in memory beside their rows)`, a: formatBytes(med((r) => r.heapUsed)) },
        {
          ...withTarget(
            pairBytes(
              'r5',
              `${WANTED} parked durable runs (their sleep done before they yield; ${manyRows} rows, ${evicted} evicted to their rows, ${heldSlots} held in memory): process RSS vs idle RSS just before`,
              withMany.rss,
              idle.rss,
            ),
            `${WANTED} parked ≤ ${MAX_PARKED_RSS_RATIO}x idle`,
            verdict.ratio,
            MAX_PARKED_RSS_RATIO,
          ),
          met: verdict.met,
        },
        { id: 'r5a', measure: `r5: what the process keeps per parked run (V8 heap + external growth / ${manyRows} runs; their stored snapshots average ${formatBytes(many.storedSum / TARGET_PARKED_RUNS)})`, a: formatBytes(keptPerRun) },
        { id: 'r5b', measure: `r5: parking the ${WANTED} (${PARK_CONCURRENCY} execs at a time, ${many.turns.length} turns of ${MAX_SLOTS_PER_TURN})`, a: `${formatMs(many.ms)} (${Math.round(TARGET_PARKED_RUNS / (many.ms / 1000))} runs/s)` },
      ],
    };
  } finally {
    await gw.close();
  }
}

// ---- restore: a wait on a run from the store (a new Gateway on the same file) vs one held in memory -----

interface Stored {
  runId: string;
}

async function restoreFromStore(ctx: BenchContext, durable: BenchDurable): Promise<{ rows: BenchRow[] }> {
  const count = ctx.counts.suspend.warmup + ctx.counts.suspend.iterations;
  // one turn holds them all (a turn's share is 16): the turn is opened again by the first wait, and each later wait on
  // a stored run is the claim, the unsealing and the restore alone; the in-memory runs park on the same turn
  const first = await openGateway('quickjs', ctx.quickjs, {}, {}, durable);
  const turn = first.prepareTurn({});
  const stored: Stored[] = [];
  try {
    for (let i = 0; i <= count; i++) stored.push({ runId: expectStatus(await first.exec(turn.agentRunId, { code: YIELD_CELL }), 'waiting', `durable run ${i + 1} to store`).runId });
  } finally {
    // a Gateway closing keeps its rows: the runs are in the store only
    await first.close();
  }
  const gw = await openGateway('quickjs', ctx.quickjs, {}, {}, durable);
  try {
    const waitOn = async (runId: string, what: string) => {
      const t0 = performance.now();
      const done = expectStatus(await gw.wait(turn.agentRunId, { runId }, { turnToken: turn.turnToken }), 'completed', what);
      const ms = performance.now() - t0;
      if (done.value !== 2) throw new Error(`${what} returned ${JSON.stringify(done.value)}, expected 2`);
      return { ms, restoreMs: done.telemetry.snapshot?.restoreMs ?? Number.NaN };
    };
    const opened = await waitOn((stored.shift() as Stored).runId, 'the first wait after the restart');
    const t = await collectInterleaved(
      {
        store: async () => waitOn((stored.shift() as Stored).runId, 'a wait on a stored run'),
        memory: async () => {
          const parked = expectStatus(await gw.exec(turn.agentRunId, { code: YIELD_CELL }), 'waiting', 'a run parked in memory');
          return waitOn(parked.runId, 'a wait on a run held in memory');
        },
      },
      ctx.counts.suspend,
    );
    const ratio = t.store.ms.median / t.memory.ms.median;
    return {
      rows: [
        withTarget(
          pairMs('r6', 'wait that restores a parked run from its durable row (a new Gateway on the same file) vs a wait on a run held in memory: same cell, same turn', t.store.ms, t.memory.ms),
          `≤ ${MAX_STORE_RESTORE_RATIO}x`,
          ratio,
          MAX_STORE_RESTORE_RATIO,
        ),
        pairMs('r7', 'r6 breakdown: the VM restore inside each wait (Gateway telemetry), from the store vs in memory', t.store.restoreMs, t.memory.restoreMs),
        pairMs('r8', 'the first wait after the restart (its turn opened again from the turn token, then the restore) vs r6 from the store', opened.ms, t.store.ms),
      ],
    };
  } finally {
    gw.endTurn(turn.agentRunId);
    await gw.close();
  }
}
