// The physical floor of a nested call: a bare postMessage round trip worker -> main -> worker, with
// nothing else on either side. Every nested tool call crosses the same hop (guest's worker -> Gateway
// -> worker), so the (b) rows are printed as multiples of this figure.
import { Worker } from 'node:worker_threads';
import { median } from './stats.ts';

/**
 * The worker: `rounds` batches of `perBatch` sequential round trips (post, await the main thread's
 * echo), after `warmup` round trips; reports the mean of each batch in ms. Timed inside the worker, so
 * the figure is exactly the hop a nested call's request and reply make.
 */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const { warmup, rounds, perBatch } = workerData;
const echo = () => new Promise((resolve) => { parentPort.once('message', resolve); parentPort.postMessage({ t: 'ping' }); });
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
}

/** Median over batches of the mean postMessage round trip (ms), worker -> main -> worker. */
export async function postMessageFloorMs(opts: FloorOptions = { warmup: 500, rounds: 15, perBatch: 200 }): Promise<number> {
  const worker = new Worker(PROBE, { eval: true, workerData: opts, stdout: false, stderr: false });
  try {
    const batches = await new Promise<number[]>((resolve, reject) => {
      worker.on('message', (m: { t?: string; batches?: number[] }) => {
        if (m.t === 'ping') worker.postMessage({ t: 'pong' });
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
