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
//   after each reply (host-poll.ts): the two threads take turns, one computing while the other polls.
// A sequential nested call then costs about what the two sides compute (bench rows b1 and b1s, side by side).
// `CODEMODE_REPLY_SPIN_US` sets the window; 0 turns polling off on both sides (e.g. a machine shared with other
// work, or on battery, where the CPU matters more than a nested call's latency).
import { availableParallelism } from 'node:os';

/** Default polling window after a frontier is sent (µs): a no-op call's host side is ~80-270 µs here. */
export const DEFAULT_REPLY_SPIN_US = 500;
/** Upper bound for CODEMODE_REPLY_SPIN_US: longer windows only burn CPU. */
export const MAX_REPLY_SPIN_US = 10_000;

export interface ReplySpinData {
  /** Int32Array[1] on this buffer: how many of this process's workers are polling now. */
  replySpinSlots: SharedArrayBuffer;
  /** How many may poll at once (cores - 1; 0 turns polling off). */
  replySpinMax: number;
  /** The window in milliseconds (what performance.now() counts in). */
  replySpinMs: number;
}

let shared: SharedArrayBuffer | undefined;

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

/** What every executor worker of this process gets in its workerData (one counter for all of them). */
export function replySpinData(env: Readonly<Record<string, string | undefined>> = process.env, cores: number = availableParallelism()): ReplySpinData {
  shared ??= new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const us = replySpinUs(env);
  return { replySpinSlots: shared, replySpinMax: us > 0 ? Math.max(0, cores - 1) : 0, replySpinMs: us / 1000 };
}
