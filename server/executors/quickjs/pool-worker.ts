// One worker thread of the QuickJS pool: its start, readiness, the legs it holds, and how it reports messages and death.
import { MessageChannel, Worker } from 'node:worker_threads';
import type { HostToWorker } from '../../bridge/protocol.ts';
import { hostPoller } from '../host-poll.ts';
import { routeWorkerMessage, type RoutedMessage } from '../leg-messages.ts';
import type { PoolLeg } from './pool-leg.ts';

export interface PoolWorker {
  id: number;
  worker: Worker;
  /** Posts a leg message to the worker (on its leg port: worker-runtime.mjs serves it). */
  post: (msg: HostToWorker, transfer?: ArrayBuffer[]) => void;
  /** Call after posting replies: the host polls for the guest's next message for a moment (host-poll.ts). */
  afterReply: () => void;
  ready: Promise<void>;
  /** The legs whose VM lives on this worker (moved legs leave it). */
  legs: Map<string, PoolLeg>;
  dead: boolean;
  /** Reported ready (module instantiated, instances resident). */
  warm: boolean;
  /** Its warm-up cells completed: its first real cell finds the leg loop compiled. */
  warmedUp: boolean;
  /** Started because every worker was taken or full; retires when idle. */
  extra: boolean;
  /** [0]: epoch ms since the worker's guest has been computing, 0 while it waits (written by the worker). */
  busySince: Float64Array;
  idleTimer?: ReturnType<typeof setTimeout>;
}

/**
 * The young generation a QuickJS worker's own V8 heap may grow to (MiB). A worker's JavaScript heap holds
 * little that lives (~6 MiB used: the leg loop, the base image's bookkeeping); what it allocates per call is
 * short-lived marshalling garbage, and the guest's VMs live in WASM memory outside it. Left at V8's default,
 * a burst (64 cells parked at once) grew each worker's new space from 8 to 16 to 32 MiB over three bursts,
 * resident from then on: RSS ratcheted up by 1.4, 3.9 and 5.1 MiB a burst (bench row d2 read 2.7-3.8x the
 * stored snapshots). At 4 MiB the same bursts added 0.6-1.2 MiB, the first burst's RSS growth fell from
 * 16-58 to 11-16 MiB, and a Promise.all of no-op calls cost the worker the same CPU per call (37.5 against
 * 38.8 µs, three alternating runs each): scavenges come more often and each has as little to copy.
 */
export const WORKER_YOUNG_GENERATION_MB = 4;

/** Start a worker on `entry`; every message but `ready` goes to `onMessage` (checked), and `onDeath` runs once. */
export function startPoolWorker(o: {
  id: number;
  entry: URL;
  workerData?: Record<string, unknown>;
  extra: boolean;
  /**
   * Data every worker needs but the host only has after it started (the base image): sent on a port
   * of its own (workerData.initPort) when it settles, so the worker can wait for it before it warms up
   * while the leg messages already sent to it wait in its queue.
   */
  init?: Promise<Record<string, unknown>>;
  onMessage: (routed: RoutedMessage) => void;
  onDeath: (reason: string) => void;
  /** Host polling after replies (host-poll.ts): its window in ms (0: off) and when it is worth it. */
  hostPoll?: { windowMs: number; eligible: () => boolean };
}): PoolWorker {
  const busySince = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT));
  const channel = o.init ? new MessageChannel() : undefined;
  // leg messages both ways go on a port of their own, which the host can poll (receiveMessageOnPort takes a port, not a Worker)
  const legs = new MessageChannel();
  const worker = new Worker(o.entry, {
    workerData: { ...o.workerData, busySince: busySince.buffer, legPort: legs.port2, ...(channel ? { initPort: channel.port2 } : {}) },
    transferList: channel ? [legs.port2, channel.port2] : [legs.port2],
    // the entry is plain JavaScript: skip the parent's loaders (tsx, Vitest), which slow every start
    execArgv: ['--no-warnings'],
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    stdout: false,
    stderr: false,
  });
  let markReady!: () => void;
  let markFailed!: (e: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    markFailed = reject;
  });
  ready.catch(() => undefined);
  if (o.init && channel) {
    const port = channel.port1;
    o.init.then(
      (data) => port.postMessage(data),
      (err: unknown) => port.postMessage({ initError: err instanceof Error ? err.message : String(err) }),
    ).finally(() => port.close());
  }
  const onMessage = (raw: unknown) => {
    const routed = routeWorkerMessage(raw);
    if (routed.kind !== 'ready') return o.onMessage(routed);
    pw.warm = true;
    pw.warmedUp = routed.warmedUp;
    markReady();
  };
  const afterReply = hostPoller({ port: legs.port1, windowMs: o.hostPoll?.windowMs ?? 0, eligible: () => !pw.dead && (o.hostPoll?.eligible() ?? false), onMessage });
  const pw: PoolWorker = {
    id: o.id,
    worker,
    post: (msg, transfer) => legs.port1.postMessage(msg, transfer ?? []),
    afterReply,
    ready,
    legs: new Map(),
    dead: false,
    warm: false,
    warmedUp: false,
    extra: o.extra,
    busySince,
  };
  // an idle extra must not keep a finished host process (a CLI command) alive; the worker's own ref decides, not its port's
  if (o.extra) worker.unref();
  legs.port1.unref();
  // `ready` comes on the worker's own port, leg messages on the leg port
  worker.on('message', onMessage);
  legs.port1.on('message', onMessage);
  const onDeath = (reason: string) => {
    if (pw.dead) return;
    pw.dead = true;
    legs.port1.close();
    if (pw.idleTimer) clearTimeout(pw.idleTimer);
    markFailed(new Error(reason));
    o.onDeath(reason);
  };
  worker.on('error', (err) => onDeath(err.message));
  worker.on('exit', (code) => onDeath(`exit code ${code}`));
  return pw;
}
