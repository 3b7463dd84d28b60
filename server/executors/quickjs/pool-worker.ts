// One worker thread of the QuickJS pool: its start, readiness, the legs it holds, and how it reports messages and death.
import { MessageChannel, Worker } from 'node:worker_threads';
import { routeWorkerMessage, type RoutedMessage } from '../leg-messages.ts';
import type { LegState } from './pressure.ts';

export interface PoolWorker {
  id: number;
  worker: Worker;
  ready: Promise<void>;
  /** The legs whose VM lives on this worker (moved legs leave it). */
  legs: Map<string, LegState>;
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
}): PoolWorker {
  const busySince = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT));
  const channel = o.init ? new MessageChannel() : undefined;
  const worker = new Worker(o.entry, {
    workerData: { ...o.workerData, busySince: busySince.buffer, ...(channel ? { initPort: channel.port2 } : {}) },
    transferList: channel ? [channel.port2] : [],
    // the entry is plain JavaScript: skip the parent's loaders (tsx, Vitest), which slow every start
    execArgv: ['--no-warnings'],
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
  const pw: PoolWorker = { id: o.id, worker, ready, legs: new Map(), dead: false, warm: false, warmedUp: false, extra: o.extra, busySince };
  // an idle extra must not keep a finished host process (a CLI command) alive
  if (o.extra) worker.unref();
  worker.on('message', (raw: unknown) => {
    const routed = routeWorkerMessage(raw);
    if (routed.kind !== 'ready') return o.onMessage(routed);
    pw.warm = true;
    pw.warmedUp = routed.warmedUp;
    markReady();
  });
  const onDeath = (reason: string) => {
    if (pw.dead) return;
    pw.dead = true;
    if (pw.idleTimer) clearTimeout(pw.idleTimer);
    markFailed(new Error(reason));
    o.onDeath(reason);
  };
  worker.on('error', (err) => onDeath(err.message));
  worker.on('exit', (code) => onDeath(`exit code ${code}`));
  return pw;
}
