// (r) durable runs: a Gateway with runs.durable on a SQLite file: its RSS idle and with parked runs, and a wait that restores from the store vs from memory.
//
// The issue's targets: 10,000 parked runs keep the Gateway's RSS within 1.5x its idle RSS plus a bounded snapshot
// cache, and a restore from the store costs at most 2x an in-memory restore. The first cannot be measured as asked
// today: the 64-run cap (spec 01, MAX_SUSPENDED_RUNS, no config raises it) counts the rows of the session database
// too, so at most 64 runs park; the row parks that many, reads what each costs the process, and projects 10,000.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gateway } from '../server/gateway.ts';
import { MAX_SUSPENDED_RUNS } from '../server/runs/runs.ts';
import { exposeGc, pairBytes, pairMs, settledMemory, type BenchContext, type Section } from './cases.ts';
import { expectStatus, openGateway, type BenchDurable } from './harness.ts';
import { collectInterleaved, formatBytes, median } from './stats.ts';
import { withTarget, type BenchRow } from './table.ts';

/** The issue's count of parked runs for the RSS target. */
export const TARGET_PARKED_RUNS = 10_000;
const WANTED = TARGET_PARKED_RUNS.toLocaleString('en-US');
/** The issue's bound: RSS with TARGET_PARKED_RUNS parked at most this many times the idle RSS. */
export const MAX_PARKED_RSS_RATIO = 1.5;
/** The issue's bound: a wait that restores from the store at most this many times one on a run held in memory. */
export const MAX_STORE_RESTORE_RATIO = 2;

/** Parks on its own request with a slow call pending (as (d) does), so the snapshot holds a real pending call. */
const PARKED_CELL = (i: number) => `const id = ${i};\nconst pending = sleep({ ms: 60000 });\nawait yield_control("bench");\nreturn (await pending).sleptMs + id`;
/** The restore rows' cell: parks on a yield alone, so the wait after it restores and completes at once. */
const YIELD_CELL = 'let n = 1;\nawait yield_control("bench");\nreturn n + 1';

export interface ParkedRssVerdict {
  /** Idle RSS plus `wanted` times the measured growth per parked run. */
  projectedRss: number;
  /** projectedRss / idle RSS. */
  ratio: number;
  /** Only when `wanted` runs actually parked and the ratio is within the bound. */
  met: boolean;
}

/**
 * The RSS target read from what could be measured: `parked` runs grew RSS by `growth` over `idleRss`. A projection to
 * `wanted` runs is printed, but the target is met only by runs that parked: a cap short of `wanted` is short.
 */
export function parkedRssVerdict(m: { idleRss: number; growth: number; parked: number; wanted: number; maxRatio: number }): ParkedRssVerdict {
  if (!(m.idleRss > 0) || !(m.parked > 0)) throw new RangeError(`parkedRssVerdict: needs an idle RSS and at least one parked run (got ${m.idleRss} bytes, ${m.parked} runs)`);
  // a round that reads RSS going down (the process gave memory back during it) counts as no growth
  const perRun = Math.max(0, m.growth) / m.parked;
  const projectedRss = m.idleRss + perRun * m.wanted;
  const ratio = projectedRss / m.idleRss;
  return { projectedRss, ratio, met: m.parked >= m.wanted && ratio <= m.maxRatio };
}

export async function durableRuns(ctx: BenchContext): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-bench-durable-'));
  const key = randomBytes(32).toString('base64');
  try {
    const memory = await parkedMemory(ctx, { sessionsPath: join(dir, 'parked.db'), key });
    const restore = await restoreFromStore(ctx, { sessionsPath: join(dir, 'restore.db'), key });
    return {
      rows: [...memory.rows, ...restore.rows],
      notes: [
        `(r) runs.durable on a SQLite file in ${tmpdir()}; the RSS rows read the whole bench process (a full run's earlier sections included), after a first round of ${MAX_SUSPENDED_RUNS} parked and released; ${memory.refusal}`,
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

/** Ends the turns (their runs end, their rows are deleted) and waits until the store holds no row. */
async function release(gw: Gateway, park: Park): Promise<void> {
  for (const id of park.turns) gw.endTurn(id);
  for (let i = 0; (await gw.diagnostics.durableRuns()).length > 0; i++) {
    if (i > 200) throw new Error('(r) the durable rows of ended runs were not deleted within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
    // one more than the cap, on turns of their own: the last is refused, so 10,000 cannot be parked
    const park = await parkRound(gw);
    const extra = gw.prepareTurn({}).agentRunId;
    const over = await gw.exec(extra, { code: PARKED_CELL(MAX_SUSPENDED_RUNS) });
    gw.endTurn(extra);
    await release(gw, park);
    const refusal =
      over.status === 'waiting'
        ? `a ${MAX_SUSPENDED_RUNS + 1}th run parked too (the cap no longer holds it back).`
        : `a ${MAX_SUSPENDED_RUNS + 1}th run is refused (${over.status}${over.status === 'failed' ? `, ${over.code}` : ''}): the cap counts the database's rows, and no config raises it.`;
    const parked = Math.min(...rounds.map((r) => r.rowsHeld));
    const idleRss = med((r) => r.idleRss);
    const stored = med((r) => r.storedSum);
    // the projection uses what the main thread keeps per parked run (snapshot bytes and records): RSS growth moves with
    // what the workers' heaps and the allocator give back during a round, these do not; it is a lower bound of the RSS
    const held = med((r) => r.external + r.heapUsed);
    const verdict = parkedRssVerdict({ idleRss, growth: held, parked, wanted: TARGET_PARKED_RUNS, maxRatio: MAX_PARKED_RSS_RATIO });
    return {
      refusal,
      rows: [
        { id: 'r1', measure: `idle RSS: the bench process with a runs.durable Gateway open on a SQLite file, no run parked (median of ${PARK_ROUNDS})`, a: formatBytes(idleRss) },
        pairBytes('r2', `${parked} parked durable runs (the cap; a row each in the store), median of ${PARK_ROUNDS} rounds: process RSS growth vs their stored snapshots`, med((r) => r.rss), stored),
        pairBytes('r3', `${parked} parked durable runs: V8 external memory growth vs their stored snapshots (1.00x: every snapshot is held in memory beside its row)`, med((r) => r.external), stored),
        { id: 'r4', measure: `${parked} parked durable runs: V8 heap used growth (the Run records, kept in memory beside their rows)`, a: formatBytes(med((r) => r.heapUsed)) },
        {
          ...withTarget(
            pairBytes(
              'r5',
              `${WANTED} parked durable runs: RSS projected at least (idle + ${WANTED} x r3 + r4 per run, ${formatBytes(Math.max(0, held) / parked)}) vs idle RSS; only ${parked} can park (the 64-run cap)`,
              verdict.projectedRss,
              idleRss,
            ),
            `${WANTED} parked ≤ ${MAX_PARKED_RSS_RATIO}x idle`,
            verdict.ratio,
            MAX_PARKED_RSS_RATIO,
          ),
          met: verdict.met,
        },
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
