// How an executor worker talks to its host: the port its leg messages come and go on, and reply polling.
//
// `runWorker` serves the host's leg messages with the leg loop (worker-runtime.mjs). After a message whose handling
// sent a narrow frontier of requests, the guest can only wait on the host: the worker polls its port for the
// replies for a moment instead of sleeping (server/executors/reply-spin.ts says why and how long).
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
/** @import { HostToWorker } from '../bridge/protocol.ts' */
/** @import { ExecutorWorkerData, WorkerEngine } from './worker-types.ts' */
import { MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { MAX_POLLED_FRONTIER, SPIN_ALLOWED, SPIN_POLLERS, SpinPolicy } from './spin-policy.mjs';
import { legLoop } from './worker-runtime.mjs';

/**
 * How long one polling stretch may keep serving messages before the worker yields to its event loop (ms): replies
 * that keep arriving within the window are served without sleeping, but never for longer than this at a time.
 */
export const MAX_POLL_STRETCH_MS = 20;

/** Serves the host's leg messages on this worker's port. @param {WorkerEngine} engine */
export function runWorker(engine) {
  // leg messages come and go on a port of their own when the host made one (it polls it: host-poll.ts)
  const data = /** @type {ExecutorWorkerData | null | undefined} */ (workerData);
  const port = data?.legPort instanceof MessagePort ? data.legPort : parentPort;
  if (!port) throw new Error('an executor worker runs on a worker thread: it has no parent port');
  // requests sent while the current message was handled (a guest that sent none waits on nothing of the host's)
  let sentRequests = 0;
  const handle = legLoop(engine, (msg, transfer) => {
    if (msg.t === 'requests') sentRequests += msg.requests.length;
    port.postMessage(msg, transfer ?? []);
  });
  const poll = replyPoller(data, () => receiveMessageOnPort(port));
  const waitsBriefly = () => sentRequests > 0 && sentRequests <= MAX_POLLED_FRONTIER;
  /** The host's messages on this port (the host made them: their shapes are the protocol's). @param {HostToWorker} msg */
  const serve = async (msg) => {
    sentRequests = 0;
    await handle(msg);
    if (!poll || !waitsBriefly()) return;
    // a guest now waits on the host: poll the port for its replies (and whatever else comes) for a moment
    // instead of sleeping (server/executors/reply-spin.ts says why and how long)
    await poll(async (next) => {
      sentRequests = 0;
      await handle(/** @type {HostToWorker} */ (next));
      return waitsBriefly();
    });
  };
  port.on('message', serve);
}

/**
 * The polling half of reply-spin.ts: returns `poll(onMessage)`, which takes messages off this worker's port
 * (`receive`: receiveMessageOnPort) as they arrive, in order, for as long as each comes within the window and
 * `onMessage` says a guest waits again; or null when polling is off. At most `replySpinMax` workers of the
 * process poll at once (a shared counter); a worker that finds every slot taken sleeps as before, and one
 * already polling does not start a second stretch. Exported for its tests (`now`: the clock).
 * @param {{ replySpinSlots?: unknown, replySpinMax?: number, replySpinMs?: number } | null | undefined} data
 * @param {() => { message: unknown } | undefined} receive
 * @returns {((onMessage: (message: unknown) => Promise<boolean>) => Promise<void>) | null}
 */
export function replyPoller(data, receive, now = () => performance.now()) {
  const windowMs = data?.replySpinMs;
  const max = data?.replySpinMax;
  if (!(data?.replySpinSlots instanceof SharedArrayBuffer) || windowMs === undefined || !(windowMs > 0) || max === undefined || !(max > 0)) return null;
  const slots = new Int32Array(data.replySpinSlots, 0, 2);
  const policy = new SpinPolicy();
  let polling = false;
  const take = () => {
    if (Atomics.load(slots, SPIN_ALLOWED) !== 1) return false;
    for (;;) {
      const n = Atomics.load(slots, SPIN_POLLERS);
      if (n >= max) return false;
      if (Atomics.compareExchange(slots, SPIN_POLLERS, n, n + 1) === n) return true;
    }
  };
  return async (onMessage) => {
    if (polling || !policy.shouldPoll() || !take()) return;
    polling = true;
    try {
      const stretchEnd = now() + MAX_POLL_STRETCH_MS;
      for (;;) {
        const got = policy.poll(receive, now, Math.min(now() + windowMs, stretchEnd));
        if (!got || !(await onMessage(got.message)) || now() >= stretchEnd) return;
      }
    } finally {
      polling = false;
      Atomics.sub(slots, SPIN_POLLERS, 1);
    }
  };
}
