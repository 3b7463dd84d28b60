// The executor worker's leg loop, shared by every engine (QuickJS, node:vm): runs guest code, collects
// each synchronous frontier of bridge requests, delivers replies, and ends each leg exactly once.
//
// A leg is one exec or wait call's stretch of guest execution. The engine adapter owns the VM; this
// loop owns the protocol (server/bridge/protocol.ts): it never dispatches a partial frontier (an
// overflow fails the leg before anything of that frontier leaves the worker), bounds output bytes,
// detects a cell that awaits something that can never settle, and parks on the host's request.
// Everything the guest hands it through the host primitive is guest-controlled (a cell may replace
// builtins or reach the raw primitive): each payload is checked (bridge/protocol-check.mjs), nothing
// here throws back into the VM, and a malformed payload fails the leg with invalid_input. A leg's
// budget starts when its VM is ready and the prelude has booted (`opened`). What the guest sends through the host
// primitive, and the clock readings it carries out at a leg's end, are read in guest-ops.mjs.
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next. The leg, the engine
// and the guest are typed in worker-types.ts.
/** @import { BridgeRequest, HostToWorker, ParkedInfo, WorkerToHost } from '../bridge/protocol.ts' */
/** @import { CodeModeErrorCode } from '../errors.ts' */
/** @import { ExecutorWorkerData, GuestParked, OpenMessage, WorkerEngine, WorkerGuest, WorkerLeg } from './worker-types.ts' */
/** @typedef {Extract<WorkerToHost, { t: 'settled' | 'parked' | 'pressure-parked' }>} LegEnd a leg's final message */
/** @template T @template {PropertyKey} K @typedef {T extends unknown ? Omit<T, K> : never} DistributiveOmit */
/** @import { TransferListItem } from 'node:worker_threads' */
import { workerData } from 'node:worker_threads';
import { checkBridgeRequest, parseGuestJson } from '../bridge/protocol-check.mjs';
import { onSync, protocolFault, takeClock } from './guest-ops.mjs';
import { CONTROL_ABORT, CONTROL_BUDGET, CONTROL_DEADLINE } from '../bridge/leg-control.mjs';
import { declarationFilesReader } from '../bridge/declaration-files.mjs';

/**
 * Guest code gets at least this long per entry, so a queue of VMs on one worker cannot starve a late
 * one: booting a cell (prelude + boot + first frontier) takes 1-10 ms, but up to ~35 ms was seen with
 * 64 cells starting at once on two cores. A CPU-bound cell may overrun its deadline by at most this.
 */
export const MIN_SLICE_MS = 100;

/** A failure that ends a leg with one spec error code. */
export class LegFailure extends Error {
  /** @param {CodeModeErrorCode} code @param {string} message @param {string} [stack] the guest's stack, when the guest threw */
  constructor(code, message, stack) {
    super(message);
    this.name = 'LegFailure';
    this.code = code;
    this.guestStack = stack;
  }
}

/** What the leg loop sends: a worker-to-host message, with the buffers it transfers. @typedef {(msg: WorkerToHost, transfer?: TransferListItem[]) => void} Post */

/**
 * The leg loop: `post` sends to the host; returns the handler for the host's messages (warm-up.mjs feeds it too).
 * @param {WorkerEngine} engine @param {Post} post
 * @returns {(msg: HostToWorker) => Promise<void>}
 */
export function legLoop(engine, post) {
  /** @type {Map<string, WorkerLeg>} */
  const legs = new Map();
  // since when this thread has been inside guest code (0: waiting); the pool sends new cells elsewhere
  // while a guest computes (server/executors/quickjs/pool.ts), and the Node heap watch reads a worker's heap
  // only then (server/executors/node/heap-watch.ts)
  const data = /** @type {ExecutorWorkerData | null | undefined} */ (workerData);
  const busySince = data?.busySince instanceof SharedArrayBuffer ? new Float64Array(data.busySince) : null;
  /** @template T @param {() => T} fn */
  const computing = (fn) => {
    if (busySince) busySince[0] = Date.now();
    try {
      return fn();
    } finally {
      if (busySince) busySince[0] = 0;
    }
  };

  /** @param {OpenMessage} msg @returns {WorkerLeg} */
  function newLeg(msg) {
    const control = new Float64Array(msg.control);
    const resumed = msg.t === 'start' ? undefined : msg;
    const outputBytes = msg.t === 'resume' ? msg.outputBytes : undefined;
    // deliver/park messages can arrive while the VM is still being created or restored
    /** @type {() => void} */
    let markOpened = () => undefined;
    /** @type {Promise<void>} */
    const opened = new Promise((resolve) => (markOpened = () => resolve()));
    /** @type {WorkerLeg} */
    const leg = {
      id: msg.legId,
      limits: msg.limits,
      // the catalog's declaration files (shared memory, read when the guest calls API.list / API.read)
      files: declarationFilesReader(msg.files),
      control,
      sliceFloor: 0,
      frontier: [],
      cancels: [],
      output: [],
      // a leg resumed after a pressure checkpoint keeps counting where it stopped (the cap is per leg)
      outputBytes: outputBytes !== undefined && Number.isFinite(outputBytes) && outputBytes > 0 ? outputBytes : 0,
      droppedBytes: 0,
      inFlight: resumed?.inFlight ?? 0,
      // a cell can settle while un-awaited work is still pending; that outcome survives parking
      settled: resumed?.settled ?? null,
      overflow: null,
      // a replay read the clock more often than its recording holds: the leg fails with replay_mismatch
      mismatch: null,
      // a guest message that failed validation: the leg fails with invalid_input after this entry
      fault: null,
      parkRequested: false,
      ended: false,
      vm: null,
      opened,
      markOpened,
      shouldInterrupt: () => control[CONTROL_ABORT] !== 0 || (Date.now() > /** @type {number} */ (control[CONTROL_DEADLINE]) && Date.now() > leg.sliceFloor),
      onSync: (op, payload) => onSync(leg, op, payload),
    };
    legs.set(leg.id, leg);
    return leg;
  }

  /** @param {WorkerLeg} leg @param {unknown} err @returns {LegFailure} */
  function classify(leg, err) {
    if (err instanceof LegFailure) return err;
    // before a VM exists (a restore that failed) the engine classifies its own errors
    const failure = leg.vm?.classify?.(err, leg) ?? engine.classify?.(err, leg) ?? null;
    if (failure) return failure;
    return new LegFailure('internal_error', `executor failure: ${messageOf(err)}`);
  }

  /**
   * Ends the leg with its one final message (`legId` and `droppedBytes` are the leg's).
   * @param {WorkerLeg} leg @param {DistributiveOmit<LegEnd, 'legId' | 'droppedBytes'>} msg @param {TransferListItem[]} [transfer]
   */
  function end(leg, msg, transfer) {
    if (leg.ended) return;
    leg.ended = true;
    legs.delete(leg.id);
    post({ ...msg, legId: leg.id, droppedBytes: leg.droppedBytes }, transfer);
  }

  /** @param {WorkerLeg} leg */
  function flushOutput(leg) {
    if (leg.output.length === 0) return;
    post({ t: 'output', legId: leg.id, lines: leg.output, droppedBytes: 0 });
    leg.output = [];
  }

  /** @param {WorkerLeg} leg @param {LegFailure} failure */
  function fail(leg, failure) {
    flushOutput(leg);
    const clock = leg.vm && !leg.ended ? takeClock(leg) : undefined;
    try {
      leg.vm?.dispose();
    } catch {
      // a broken VM may refuse disposal; the leg result matters more
    }
    end(leg, { t: 'settled', ok: false, error: failure.message, code: failure.code, stack: failure.guestStack, ...(clock ? { clock } : {}) });
  }

  /** After every entry into the VM: settle, fail, dispatch the frontier, or park. @param {WorkerLeg} leg */
  function afterEntry(leg) {
    if (leg.ended) return;
    if (leg.fault || leg.overflow) {
      leg.frontier = [];
      return fail(leg, new LegFailure('invalid_input', /** @type {string} */ (leg.fault ?? leg.overflow)));
    }
    if (leg.mismatch) {
      leg.frontier = [];
      return fail(leg, new LegFailure('replay_mismatch', leg.mismatch));
    }
    flushOutput(leg);
    if (leg.frontier.length > 0 || leg.cancels.length > 0) {
      post({ t: 'requests', legId: leg.id, requests: leg.frontier, cancels: leg.cancels });
      leg.frontier = [];
      leg.cancels = [];
    }
    // completed only when the guest has no pending work: un-awaited calls and timers still finish
    if (leg.settled && leg.inFlight <= 0) {
      const s = leg.settled;
      const clock = takeClock(leg);
      if (leg.fault) return fail(leg, new LegFailure('invalid_input', leg.fault));
      try {
        leg.vm?.dispose();
      } catch {
        // disposal failure cannot change a settled result
      }
      const readings = clock ? { clock } : {};
      if (s.ok) return end(leg, { t: 'settled', ok: true, valueJson: s.json, ...readings });
      const code = s.code ?? undefined;
      return end(leg, { t: 'settled', ok: false, error: s.error, code, stack: s.stack, ...readings });
    }
    if (!leg.settled && leg.inFlight <= 0) {
      return fail(
        leg,
        new LegFailure(
          'internal_error',
          'the cell is awaiting a promise that can never settle: no tool call or timer is pending. Await tool calls or return a value.',
        ),
      );
    }
    if (leg.parkRequested) return park(leg);
  }

  /** One entry into the VM (`fn` runs guest code), then its jobs. @param {WorkerLeg} leg @param {(vm: WorkerGuest) => void} fn */
  function enter(leg, fn) {
    leg.sliceFloor = Date.now() + MIN_SLICE_MS;
    try {
      computing(() => {
        const vm = vmOf(leg);
        fn(vm);
        vm.drain();
      });
    } catch (err) {
      return fail(leg, classify(leg, err));
    }
    afterEntry(leg);
  }

  // `pressure`: the pool needs this worker (pool.ts). Only a VM just waiting on the host whose snapshot
  // fits maxSnapshotBytes moves; any other stays and runs on (declined): pressure never fails a cell.
  /** @param {WorkerLeg} leg */
  async function park(leg, pressure = false) {
    if (leg.ended) return;
    if (pressure && (leg.parkRequested || leg.inFlight <= 0 || leg.fault || leg.overflow || !engine.pressureParking)) {
      return post({ t: 'pressure-declined', legId: leg.id });
    }
    try {
      // an engine may measure asynchronously (Node measures its context's memory); parking runs guest
      // code (the queued inputs' toJSON), so the thread counts as computing until the engine is done
      if (busySince) busySince[0] = Date.now();
      /** @type {GuestParked} */
      let parked;
      // a pressure checkpoint keeps its readings in the guest heap: the leg goes on, and takes them when it ends
      const clock = pressure ? undefined : takeClock(leg);
      if (leg.fault) throw new LegFailure('invalid_input', leg.fault);
      try {
        parked = await vmOf(leg).park(leg, { pressure });
      } finally {
        if (busySince) busySince[0] = 0;
      }
      if (parked.overLimit) return post({ t: 'pressure-declined', legId: leg.id, storedBytes: parked.storedBytes });
      const { queuedJson, overLimit: _overLimit, ...info } = parked;
      // the queue is guest memory, serialized by the guest controller: check it like any request
      const parsed = parseGuestJson(queuedJson, 'the queued requests');
      /** @type {BridgeRequest[]} */
      const queued = [];
      if (!parsed.ok || !Array.isArray(parsed.value)) throw new LegFailure('invalid_input', protocolFault(parsed.ok ? 'the queued requests are not a list' : parsed.error));
      for (const item of parsed.value) {
        const req = checkBridgeRequest(item);
        if (!req.ok) throw new LegFailure('invalid_input', protocolFault(req.error));
        queued.push(req.value);
      }
      /** @type {ParkedInfo} */
      const parkedInfo = { ...info, queued };
      if (leg.settled) parkedInfo.settled = leg.settled;
      if (clock) parkedInfo.clock = clock;
      // the snapshot's bytes are a buffer of their own (snapshot-codec.mjs makes it): it moves to the host, not copied
      const transfer = parkedInfo.snapshot ? [/** @type {ArrayBuffer} */ (parkedInfo.snapshot.buffer)] : [];
      end(leg, { t: pressure ? 'pressure-parked' : 'parked', ...parkedInfo }, transfer);
    } catch (err) {
      fail(leg, classify(leg, err));
    }
  }

  // The VM is ready: the leg's execution budget starts now, not when the host asked (worker start, VM
  // creation and snapshot restore are the machinery's time). The host sets its own deadline when it
  // reads `opened`; until then the worker bounds the guest by the budget the host granted. The host
  // times start-up itself (from when it asked for the leg, queueing and worker start included).
  /** @param {WorkerLeg} leg @param {{ restoreMs?: number, rawBytes?: number }} [restore] */
  function opened(leg, restore) {
    const budgetMs = leg.control[CONTROL_BUDGET];
    if (leg.control[CONTROL_DEADLINE] === Infinity && budgetMs !== undefined && budgetMs >= 0) leg.control[CONTROL_DEADLINE] = Date.now() + budgetMs;
    post({ t: 'opened', legId: leg.id, ...restore });
  }

  return async (msg) => {
    try {
      switch (msg.t) {
        case 'start': {
          const leg = newLeg(msg);
          try {
            const vm = await engine.create(leg, msg);
            leg.vm = vm;
            // the prelude and boot config run before the budget starts (deadline still Infinity; the
            // host bounds start-up as a whole)
            computing(() => vm.prepare(msg.boot));
          } catch (err) {
            leg.markOpened();
            return fail(leg, classify(leg, err));
          }
          opened(leg);
          enter(leg, (vm) => vm.start(msg.body));
          return leg.markOpened();
        }
        case 'resume':
        case 'continue': {
          const leg = newLeg(msg);
          const t0 = performance.now();
          let vm;
          try {
            vm = await engine.resume(leg, msg);
            leg.vm = vm;
          } catch (err) {
            leg.markOpened();
            return fail(leg, classify(leg, err));
          }
          const restoreMs = performance.now() - t0;
          opened(leg, { restoreMs, ...(vm.rawBytes !== undefined ? { rawBytes: vm.rawBytes } : {}) });
          return leg.markOpened();
        }
        case 'deliver': {
          const leg = legs.get(msg.legId);
          if (!leg) return;
          await leg.opened;
          if (leg.ended) return;
          // every reply of the message in one entry into the VM (the guest takes a list)
          leg.inFlight -= msg.replies.length;
          return enter(leg, (vm) => vm.deliver(JSON.stringify(msg.replies)));
        }
        case 'park':
        case 'pressure-park': {
          const leg = legs.get(msg.legId);
          if (!leg) return;
          await leg.opened;
          if (leg.ended) return;
          // messages run in order: replies sent before a pressure-park were delivered, so a VM still
          // waiting now has nothing to compute until the host answers it
          if (msg.t === 'pressure-park') return park(leg, true);
          leg.parkRequested = true;
          return park(leg);
        }
        case 'release': {
          const leg = legs.get(msg.legId);
          if (leg && !leg.ended) {
            leg.ended = true;
            legs.delete(leg.id);
            try {
              leg.vm?.dispose();
            } catch {
              // releasing: nothing left to report to
            }
          }
          if (msg.continuationId) engine.release?.(msg.continuationId);
          return;
        }
        default:
          return;
      }
    } catch (err) {
      const leg = msg.legId ? legs.get(msg.legId) : undefined;
      if (leg) fail(leg, new LegFailure('internal_error', `executor failure: ${messageOf(err)}`));
    }
  };
}

/**
 * What an error says: its message when it has one (a guest realm's error is no instance of this realm's Error), else
 * its text.
 * @param {unknown} err
 */
export function messageOf(err) {
  return typeof err === 'object' && err !== null && 'message' in err && err.message ? String(err.message) : String(err);
}

/**
 * The leg's VM. Every entry after the leg opened has one: a leg whose VM could not be made has ended.
 * @param {WorkerLeg} leg
 */
function vmOf(leg) {
  if (!leg.vm) throw new LegFailure('internal_error', 'executor failure: the leg has no VM');
  return leg.vm;
}
