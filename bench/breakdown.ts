// Where one nested call's cost goes (issue 14): CPU per call on the main thread and in the worker, and a
// main-thread profile of a 1000-call cell split into the stages a call passes through. Printed as rows
// beside the postMessage floor; nothing here is asserted.
import { readdirSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';
import { hostPollTotals } from '../server/executors/host-poll.ts';
import { formatMs, ratio } from './stats.ts';
import type { BenchRow } from './table.ts';

/** Process CPU (all threads) in ms. */
function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Main-thread stages of a nested call, by the functions that do them (inclusive time). Each is the
 * function's own file and name, so a rename shows up as a stage at zero rather than a wrong figure.
 */
const STAGES: Array<{ label: string; fn: string; file: string }> = [
  { label: 'worker -> main: message check and routing (pool)', fn: 'onMessage', file: 'pool.ts' },
  { label: 'dispatch: frontier check, call record, input preview, policy, the tool', fn: 'onRequests', file: 'nested.ts' },
  { label: 'reply record: output preview', fn: 'recordReply', file: 'nested.ts' },
  { label: 'run events (nested.started/finished) and their listeners', fn: 'emit', file: 'runs.ts' },
  { label: 'transcript rows (batched writes)', fn: 'flushDeferred', file: 'transcript.ts' },
  { label: 'main -> worker: postMessage of the replies (on the leg port)', fn: 'postMessage', file: '' },
  { label: 'garbage collection', fn: '(garbage collector)', file: '' },
];

interface StageTimes {
  total: number;
  idle: number;
  stages: number[];
}

function stageTimes(profile: Profiler.Profile): StageTimes {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i] ?? 0, (self.get(samples[i] ?? 0) ?? 0) + (deltas[i] ?? 0));
  const out: StageTimes = { total: 0, idle: 0, stages: STAGES.map(() => 0) };
  const stageOf = (n: Profiler.ProfileNode) =>
    STAGES.findIndex((s) => n.callFrame.functionName === s.fn && (s.file === '' ? n.callFrame.url === '' : n.callFrame.url.endsWith(`/${s.file}`)));
  // depth-first with the set of stages open on the stack, so a stage inside another counts for both once
  const walk = (id: number, open: Set<number>) => {
    const node = byId.get(id);
    if (!node) return;
    const stage = stageOf(node);
    const added = stage >= 0 && !open.has(stage);
    if (added) open.add(stage);
    const t = (self.get(id) ?? 0) / 1000;
    out.total += t;
    if (node.callFrame.functionName === '(idle)') out.idle += t;
    for (const s of open) out.stages[s] = (out.stages[s] ?? 0) + t;
    for (const c of node.children ?? []) walk(c, open);
    if (added) open.delete(stage);
  };
  const root = profile.nodes[0];
  if (root) walk(root.id, new Set());
  return out;
}

/** CPU time (ms) of each thread of this process, by thread id, from /proc (Linux); undefined elsewhere. */
function threadCpuMs(): Map<string, number> | undefined {
  try {
    const out = new Map<string, number>();
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
    }
    return out;
  } catch {
    return undefined;
  }
}

/** CPU a cell's nested calls cost, per thread, over `runs` runs of `runCell` (which makes `calls` calls). */
export interface CellCpu {
  /** Calls measured: runs x calls. */
  n: number;
  /** All threads of the process, ms. */
  procMs: number;
  /** Of the main thread's CPU, the Gateway's polling for the guest's next message (host-poll.ts, timed by the poller). */
  pollMs: number;
  /** The main thread, and the busiest other thread (the QuickJS worker that ran the cells), ms; from /proc, so Linux only. */
  threads?: { mainMs: number; workerMs: number };
}

export async function cellCpu(o: { runCell: () => Promise<void>; calls: number; runs: number }): Promise<CellCpu> {
  const threads0 = threadCpuMs();
  const proc0 = processCpuMs();
  const poll0 = hostPollTotals.waitMs;
  for (let i = 0; i < o.runs; i++) await o.runCell();
  const threads1 = threadCpuMs();
  const c: CellCpu = { n: o.runs * o.calls, procMs: processCpuMs() - proc0, pollMs: hostPollTotals.waitMs - poll0 };
  if (!threads0 || !threads1) return c;
  const main = String(process.pid);
  let workerMs = 0;
  for (const [tid, ms] of threads1) if (tid !== main) workerMs = Math.max(workerMs, ms - (threads0.get(tid) ?? 0));
  return { ...c, threads: { mainMs: (threads1.get(main) ?? 0) - (threads0.get(main) ?? 0), workerMs } };
}

/**
 * A cell's CPU per call on its two threads (row b2c): the Gateway's main thread and the QuickJS worker that ran the
 * cell. Neither thread can spend more CPU than the time that passes, so the cell's time per call is at least the
 * larger of the two, whatever the hop costs; it is at most about their sum (the threads mostly take turns: the guest
 * waits for its replies, the Gateway for the guest's requests; what overlaps is the Gateway's records after it sent
 * the replies). Measure it where neither side polls, so the figures are work, not waiting.
 */
export function cellCpuRow(id: string, label: string, c: CellCpu, floorMs: number): BenchRow {
  if (!c.threads) {
    return { id, measure: `${label}: CPU per call, all threads (no /proc: no per-thread split)`, a: formatMs(c.procMs / c.n), b: formatMs(floorMs), ratio: ratio(c.procMs / c.n, floorMs) };
  }
  const mainMs = c.threads.mainMs / c.n;
  const workerMs = c.threads.workerMs / c.n;
  return {
    id,
    measure: `${label}: CPU per call, main thread + the cell's QuickJS worker; the larger vs the floor (the cell's time per call is at least the larger)`,
    a: `${formatMs(mainMs)} + ${formatMs(workerMs)}`,
    b: formatMs(floorMs),
    ratio: ratio(Math.max(mainMs, workerMs), floorMs),
  };
}

/**
 * Runs `cell` (which makes `calls` nested calls) `runs` times: CPU per call per thread (the cell's own
 * start and end included, a few percent), then once more under the main-thread profiler for the stage split.
 */
export async function nestedBreakdown(o: { runCell: () => Promise<void>; calls: number; runs: number; floorMs: number }): Promise<BenchRow[]> {
  const { n, procMs, pollMs, threads } = await cellCpu(o);
  const mainMs = threads?.mainMs;
  // the Gateway's polling for the guest's next message (host-poll.ts) is main-thread CPU the profile below counts
  // as idle: it is measured by the poller itself, and the profile's shares apply to the rest
  const rows: BenchRow[] = [];
  const perCall = (ms: number) => formatMs(ms / n);
  if (threads) {
    rows.push(
      { id: 'b4', measure: `breakdown, CPU per sequential call: main thread (Gateway: dispatch, records, events, hops)`, a: perCall(threads.mainMs), b: formatMs(o.floorMs), ratio: ratio(threads.mainMs / n, o.floorMs) },
      { id: 'b5', measure: `breakdown, CPU per sequential call: the cell's QuickJS worker (guest request, checks, delivery, QuickJS, its polling)`, a: perCall(threads.workerMs), b: formatMs(o.floorMs), ratio: ratio(threads.workerMs / n, o.floorMs) },
    );
  } else {
    rows.push({ id: 'b4', measure: 'breakdown, CPU per sequential call: all threads (no /proc: no per-thread split)', a: perCall(procMs) });
  }
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    await o.runCell();
    const { profile } = await session.post('Profiler.stop');
    const t = stageTimes(profile);
    // the profiler's own cost inflates absolute times: each stage is printed as its share of the main
    // thread's busy time, applied to the measured CPU per call (b4)
    const busy = t.total - t.idle;
    const mainPerCall = mainMs !== undefined ? Math.max(0, mainMs - pollMs) / n : undefined;
    rows.push({
      id: 'b6',
      measure: "breakdown, main thread per call: polling the worker's leg port for the guest's next message (host-poll.ts, timed by the poller)",
      a: formatMs(pollMs / n),
      b: mainMs !== undefined && mainMs > 0 ? `${((100 * pollMs) / mainMs).toFixed(0)}%` : '',
    });
    STAGES.forEach((s, i) => {
      const share = busy > 0 ? (t.stages[i] ?? 0) / busy : 0;
      rows.push({
        id: `b${7 + i}`,
        measure: `breakdown, main thread per call besides polling (share of its busy time in a profile): ${s.label}`,
        a: mainPerCall !== undefined ? `~${formatMs(share * mainPerCall)}` : '',
        b: `${(share * 100).toFixed(0)}%`,
      });
    });
    const named = t.stages.reduce((a, b) => a + b, 0);
    const rest = busy > 0 ? Math.max(0, 1 - named / busy) : 0;
    rows.push({
      id: `b${7 + STAGES.length}`,
      measure: 'breakdown, main thread per call besides polling (share): the rest (promise and microtask plumbing, exec start/end, tool scheduler, the profiler)',
      a: mainPerCall !== undefined ? `~${formatMs(rest * mainPerCall)}` : '',
      b: `${(rest * 100).toFixed(0)}%`,
    });
  } finally {
    await session.post('Profiler.disable').catch(() => undefined);
    session.disconnect();
  }
  return rows;
}

