// A worker's warm-up: one trivial cell through the whole leg loop before the worker serves the host.
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
/** @import { HostToWorker, WorkerToHost } from '../bridge/protocol.ts' */
/** @import { WorkerEngine } from './worker-types.ts' */
import { MessageChannel } from 'node:worker_threads';
import { CONTROL_BUDGET, CONTROL_DEADLINE, CONTROL_SLOTS } from '../bridge/leg-control.mjs';
import { NO_DECLARATION_FILES } from '../bridge/declaration-files.mjs';
import { legLoop } from './worker-runtime.mjs';
import { WARM_UP_BODY, WARM_UP_BOOT, WARM_UP_LIMITS, WARM_UP_VALUE_JSON } from './warm-up-cell.mjs';

/**
 * Runs one trivial cell (an output line, a nested call answered at once, a value) through the whole leg
 * loop in this worker before it serves the host, so the first real cell finds the worker's code paths
 * compiled (a cold worker's first cell took 2-4x a warm one). Best effort: resolves either way.
 * @param {WorkerEngine} engine
 * @returns {Promise<boolean>} whether the warm-up cell completed with its value
 */
export function warmUp(engine) {
  return new Promise((resolve) => {
    const legId = 'warm-up';
    const control = new SharedArrayBuffer(CONTROL_SLOTS * Float64Array.BYTES_PER_ELEMENT);
    const slots = new Float64Array(control);
    slots[CONTROL_DEADLINE] = Infinity;
    slots[CONTROL_BUDGET] = 10_000;
    // both directions cross a message channel, as the host's messages do: its (de)serialization warms too
    const { port1: workerSide, port2: hostSide } = new MessageChannel();
    /** @param {boolean} ok */
    const done = (ok) => {
      workerSide.close();
      hostSide.close();
      resolve(ok);
    };
    workerSide.on('message', legLoop(engine, (msg, transfer) => workerSide.postMessage(msg, transfer ?? [])));
    hostSide.on('message', (/** @type {WorkerToHost} */ msg) => {
      if (msg.t === 'requests') {
        hostSide.postMessage({ t: 'deliver', legId, replies: msg.requests.map((r) => ({ id: r.id, ok: true, value: null })) });
      } else if (msg.t === 'settled') {
        done(msg.ok === true && msg.valueJson === WARM_UP_VALUE_JSON);
      } else if (msg.t === 'parked') {
        done(false);
      }
    });
    /** @type {HostToWorker} */
    const start = {
      t: 'start',
      legId,
      body: WARM_UP_BODY,
      boot: WARM_UP_BOOT,
      limits: WARM_UP_LIMITS,
      control,
      files: NO_DECLARATION_FILES,
    };
    hostSide.postMessage(start);
  });
}
