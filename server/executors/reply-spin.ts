// Reply polling: how executor workers and the Gateway wait for each other's next message during nested calls (issue 14).
//
// A worker whose guest just sent requests has nothing to do until the host answers, and the host has nothing to do
// for that leg until the guest's next requests. Each side used to sleep in its event loop and be woken by the
// other's postMessage, and on this machine (a VM, 2 vCPUs) waking a thread whose CPU went idle is the dearest part
// of a nested call: a bare worker -> main -> worker round trip is 68-134 µs, nearly all of it the wakes; with the
// receiving side polling its port (receiveMessageOnPort) instead, the same round trip is 8-12 µs. So:
// - a worker polls its port for up to the window after sending a frontier of at most MAX_POLLED_FRONTIER requests
//   (worker-port.mjs); a tool slower than the window costs the worker that much CPU once and is then delivered
//   the usual way. At most one fewer worker than the machine has cores polls at a time (a counter all workers of
//   the process share), so the Gateway's thread keeps a core;
// - while exactly one leg runs in the QuickJS pool, the Gateway polls that worker's leg port for up to the window
//   after each message of at most MAX_POLLED_FRONTIER replies (host-poll.ts): the two threads take turns, one
//   computing while the other polls.
// A sequential nested call then costs about what the two sides compute (bench rows b1 and b1s, side by side).
// Polling only pays while the other side answers soon and the CPU it burns is otherwise idle. Each poller backs
// off when its polls keep missing (spin-policy.mjs), and while the host takes CPU back from this VM (steal time
// over MAX_STEAL_SHARE in /proc/stat, checked every STEAL_CHECK_MS, until CALM_CHECKS_TO_RESUME calm checks in a
// row) nobody polls: in that state a cell of sequential calls took 2x as long with polling as without.
// `CODEMODE_REPLY_SPIN_US` sets the window; 0 turns polling off on both sides (e.g. a machine shared with other
// work, or on battery, where the CPU matters more than a nested call's latency).
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { SPIN_ALLOWED } from './spin-policy.mjs';

/** Default polling window after a frontier is sent (µs): a no-op call's host side is ~80-270 µs here. */
export const DEFAULT_REPLY_SPIN_US = 500;
/** Upper bound for CODEMODE_REPLY_SPIN_US: longer windows only burn CPU. */
export const MAX_REPLY_SPIN_US = 10_000;

/** How often the steal guard reads /proc/stat (ms). */
export const STEAL_CHECK_MS = 500;
/** Over this share of CPU time taken back by the host (steal) in the last check, nobody polls. */
export const MAX_STEAL_SHARE = 0.05;
/**
 * Checks in a row under MAX_STEAL_SHARE before polling resumes (3 s): steal comes in bursts, and polling that
 * resumed in each lull (one calm check) still lost ~10% per sequential call at 17-23% steal over a bench run.
 */
export const CALM_CHECKS_TO_RESUME = 6;

export interface ReplySpinData {
  /** Int32Array on this buffer: [SPIN_POLLERS] how many of this process's workers poll now, [SPIN_ALLOWED] 1 while polling is allowed (spin-policy.mjs). */
  replySpinSlots: SharedArrayBuffer;
  /** How many may poll at once (cores - 1; 0 turns polling off). */
  replySpinMax: number;
  /** The window in milliseconds (what performance.now() counts in). */
  replySpinMs: number;
}

/** The buffer every executor worker of this process shares, and a view on it. */
let shared: { buffer: SharedArrayBuffer; slots: Int32Array } | undefined;

/** The polling window from the environment: a whole number of µs in [0, MAX_REPLY_SPIN_US]; otherwise an error naming the variable. */
export function replySpinUs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env.CODEMODE_REPLY_SPIN_US;
  if (raw === undefined || raw.trim() === '') return DEFAULT_REPLY_SPIN_US;
  const us = Number(raw);
  if (!Number.isInteger(us) || us < 0 || us > MAX_REPLY_SPIN_US) {
    throw new Error(`CODEMODE_REPLY_SPIN_US must be a whole number of microseconds from 0 to ${MAX_REPLY_SPIN_US} (got ${JSON.stringify(raw.slice(0, 40))}); 0 turns reply polling off`);
  }
  return us;
}

/** What every executor worker of this process gets in its workerData (one counter for all of them), for a window of `us`. */
export function replySpinData(us: number = replySpinUs(), cores: number = availableParallelism()): ReplySpinData {
  const max = us > 0 ? Math.max(0, cores - 1) : 0;
  if (!shared) {
    const buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
    shared = { buffer, slots: new Int32Array(buffer) };
    Atomics.store(shared.slots, SPIN_ALLOWED, 1);
  }
  return { replySpinSlots: shared.buffer, replySpinMax: max, replySpinMs: us / 1000 };
}

/** Whether polling is allowed now (the steal guard's verdict); true before any executor asked for polling. */
export function replySpinAllowed(): boolean {
  return !shared || Atomics.load(shared.slots, SPIN_ALLOWED) === 1;
}

/**
 * The share of CPU time the host took back (steal) between two readings of /proc/stat's first line
 * (`cpu user nice system idle iowait irq softirq steal ...`, in ticks); 0 when the lines cannot be read.
 */
export function stealShare(before: string, after: string): number {
  const fields = (line: string) => line.trim().split(/\s+/).slice(1, 9).map(Number);
  const a = fields(before);
  const b = fields(after);
  if (a.length < 8 || b.length < 8 || [...a, ...b].some((n) => !Number.isFinite(n))) return 0;
  const total = b.reduce((n, v) => n + v, 0) - a.reduce((n, v) => n + v, 0);
  const steal = (b[7] ?? 0) - (a[7] ?? 0);
  return total > 0 && steal > 0 ? steal / total : 0;
}

/** /proc/stat's first line (the machine's CPU times), or undefined where there is none (not Linux). */
export function readCpuTimes(): string | undefined {
  try {
    return readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return undefined;
  }
}

/** The guard's step: the calm checks in a row after one with `share` of steal, and whether polling is allowed. */
export function stealVerdict(calmChecks: number, share: number): { calmChecks: number; allowed: boolean } {
  const calm = share > MAX_STEAL_SHARE ? 0 : calmChecks + 1;
  return { calmChecks: calm, allowed: calm >= CALM_CHECKS_TO_RESUME };
}

let guard: ReturnType<typeof setInterval> | undefined;
/** Executors (open, polling) that hold the guard: it runs while there is one. */
let holders = 0;

/**
 * Keeps the steal guard running for an executor whose workers poll (`spin.replySpinMax > 0`) until the returned
 * release is called (its close); the guard stops when the last holder releases. Releasing twice is harmless.
 */
export function holdStealGuard(spin: ReplySpinData): () => void {
  if (!(spin.replySpinMax > 0)) return () => undefined;
  holders++;
  startStealGuard(new Int32Array(spin.replySpinSlots));
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    holders--;
    if (holders === 0 && guard) {
      clearInterval(guard);
      guard = undefined;
    }
  };
}

/** How many executors hold the guard now, and whether its timer runs (tests). */
export function stealGuardState(): { holders: number; running: boolean } {
  return { holders, running: guard !== undefined };
}

/**
 * While this process may poll, read the host's steal time every STEAL_CHECK_MS (Linux; elsewhere polling stays
 * allowed): a host that takes CPU back from this VM makes a polling thread eat the time the thread it waits for
 * needs (a cell of sequential calls took 2x as long with polling in such a state here), so polling pauses while
 * the last interval's steal share is over MAX_STEAL_SHARE.
 */
function startStealGuard(flags: Int32Array): void {
  if (guard) return;
  let last = readCpuTimes();
  if (last === undefined) return;
  // allowed from the start (a process starts calm, and so does a guard started again after the last executor closed);
  // one check over the bound pauses polling for CALM_CHECKS_TO_RESUME
  Atomics.store(flags, SPIN_ALLOWED, 1);
  let calmChecks = CALM_CHECKS_TO_RESUME;
  guard = setInterval(() => {
    const now = readCpuTimes();
    if (now === undefined || last === undefined) return;
    const verdict = stealVerdict(calmChecks, stealShare(last, now));
    calmChecks = verdict.calmChecks;
    Atomics.store(flags, SPIN_ALLOWED, verdict.allowed ? 1 : 0);
    last = now;
  }, STEAL_CHECK_MS);
  guard.unref();
}
