// The physical floor of a nested call: a bare postMessage round trip worker -> main -> worker, with
// nothing else on either side. Every nested tool call crosses the same hop (guest's worker -> Gateway
// -> worker), so the (b) rows are printed as multiples of this figure. With `workUs`, each side first
// computes for as long as a nested call's work takes it (row b0w): the same hop between threads that went
// idle while the other computed, which in a VM costs more than a tight ping-pong (an idle vCPU halts, and
// waking it goes through the host).
import { Worker } from 'node:worker_threads';
import { median } from './stats.ts';

/**
 * The worker: `rounds` batches of `perBatch` sequential round trips (post, await the main thread's
 * echo), after `warmup` round trips; reports the mean of each batch in ms. Timed inside the worker, so
 * the figure is exactly the hop a nested call's request and reply make.
 */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const { warmup, rounds, perBatch, workUs } = workerData;
const compute = (us) => { const end = performance.now() + us / 1000; while (performance.now() < end); };
const echo = () => new Promise((resolve) => { parentPort.once('message', resolve); compute(workUs ? workUs.worker : 0); parentPort.postMessage({ t: 'ping' }); });
(async () => {
  for (let i = 0; i < warmup; i++) await echo();
  const batches = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < perBatch; i++) await echo();
    batches.push((performance.now() - t0) / perBatch);
  }
  parentPort.postMessage({ t: 'done', batches });
})();
`;

export interface FloorOptions {
  warmup: number;
  rounds: number;
  perBatch: number;
  /** Busy time (µs) each side spends before it answers: the worker before each ping, the main thread before each pong. */
  workUs?: { main: number; worker: number };
}

/** Busy-waits `us` microseconds (the work a side does before it answers). */
function compute(us: number): void {
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
}

/** Median over batches of the mean postMessage round trip (ms), worker -> main -> worker (with each side's work, when given). */
export async function postMessageFloorMs(opts: FloorOptions = { warmup: 500, rounds: 15, perBatch: 200 }): Promise<number> {
  const worker = new Worker(PROBE, { eval: true, workerData: opts, stdout: false, stderr: false });
  try {
    const batches = await new Promise<number[]>((resolve, reject) => {
      worker.on('message', (m: { t?: string; batches?: number[] }) => {
        if (m.t === 'ping') {
          if (opts.workUs) compute(opts.workUs.main);
          worker.postMessage({ t: 'pong' });
        }
        else if (m.t === 'done' && Array.isArray(m.batches)) resolve(m.batches);
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the floor probe worker exited (code ${code}) before reporting`)));
    });
    return median(batches);
  } finally {
    await worker.terminate();
  }
}
