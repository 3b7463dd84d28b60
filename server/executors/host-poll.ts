// The Gateway's half of reply polling (reply-spin.ts says why): after it posts replies into a worker's VM, the
// host polls that worker's leg port for the guest's next message for a moment instead of sleeping until it wakes.
//
// Only while one leg runs in the pool: then the Gateway thread and the worker take turns (one computes while
// the other polls), and a nested call costs neither a wake of the worker nor one of the Gateway. With more legs
// the Gateway thread is busy with their messages anyway, and polling would only take a core from a guest. A poll
// runs in a setImmediate, after the microtasks that end the replied call's records, so the Gateway's own work
// (and any HTTP request waiting) goes first; it lasts at most the window, once per reply.
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { replySpinAllowed } from './reply-spin.ts';
import { SpinPolicy } from './spin-policy.mjs';

export interface HostPollOptions {
  /** The leg port of the worker (messages the poll takes are not emitted as 'message' events). */
  port: MessagePort;
  /** The polling window in ms (0: never poll). */
  windowMs: number;
  /** Whether polling is worth it now (the pool: exactly one leg is active). */
  eligible: () => boolean;
  /** Handles a message the poll took, as the port's 'message' listener would. */
  onMessage: (raw: unknown) => void;
  /** Whether the process may poll now (default: the steal guard's verdict, reply-spin.ts). */
  allowed?: () => boolean;
  /** Test hooks: the clock and the receive call. */
  now?: () => number;
  receive?: (port: MessagePort) => { message: unknown } | undefined;
}

/**
 * What the Gateway's polls have cost in this process: how many, how many took a message, and the time spent waiting
 * (the bench's breakdown reads it: a CPU profile marks these waits idle, since they run in a setImmediate).
 */
export const hostPollTotals = { polls: 0, hits: 0, waitMs: 0 };

/** Returns `afterReply()`: call it after posting replies to the worker; it schedules one poll (at most one pending). */
export function hostPoller(o: HostPollOptions): () => void {
  if (!(o.windowMs > 0)) return () => undefined;
  const now = o.now ?? (() => performance.now());
  const receive = o.receive ?? receiveMessageOnPort;
  const allowed = o.allowed ?? replySpinAllowed;
  const policy = new SpinPolicy();
  let scheduled = false;
  const poll = () => {
    scheduled = false;
    // the steal guard first: it pauses every poller of the process while the host takes CPU back
    if (!allowed() || !o.eligible() || !policy.shouldPoll()) return;
    const start = now();
    const got = policy.poll(() => receive(o.port), now, start + o.windowMs);
    hostPollTotals.polls++;
    hostPollTotals.waitMs += now() - start;
    if (!got) return;
    hostPollTotals.hits++;
    o.onMessage(got.message);
  };
  return () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(poll);
  };
}
