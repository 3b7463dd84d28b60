// The executor worker's leg loop, shared by every engine (QuickJS, node:vm): runs guest code, collects
// each synchronous frontier of bridge requests, delivers replies, and ends each leg exactly once.
//
// A leg is one exec or wait call's stretch of guest execution. The engine adapter owns the VM; this
// loop owns the protocol (server/bridge/protocol.ts): it never dispatches a partial frontier (an
// overflow fails the leg before anything of that frontier leaves the worker), bounds output bytes,
// detects a cell that awaits something that can never settle, and parks on the host's request.
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
import { parentPort } from 'node:worker_threads';

/**
 * Guest code gets at least this long per entry, so a queue of VMs on one worker cannot starve a late
 * one: booting a cell (prelude + boot + first frontier) takes 1-10 ms, but up to ~35 ms was seen with
 * 64 cells starting at once on two cores. A CPU-bound cell may overrun its deadline by at most this.
 */
export const MIN_SLICE_MS = 100;

const CONTROL_DEADLINE = 0;
const CONTROL_ABORT = 1;

/** A failure that ends a leg with one spec error code. */
export class LegFailure extends Error {
  constructor(code, message, stack) {
    super(message);
    this.name = 'LegFailure';
    this.code = code;
    this.guestStack = stack;
  }
}

/**
 * @param {{ name: string, create: Function, resume: Function, release?: Function }} engine
 */
export function runWorker(engine) {
  const legs = new Map();
  const post = (msg, transfer) => parentPort.postMessage(msg, transfer ?? []);

  function newLeg(msg) {
    const control = new Float64Array(msg.control);
    const leg = {
      id: msg.legId,
      limits: msg.limits,
      files: msg.files ?? {},
      control,
      sliceFloor: 0,
      frontier: [],
      cancels: [],
      output: [],
      outputBytes: 0,
      droppedBytes: 0,
      inFlight: msg.inFlight ?? 0,
      // a cell can settle while un-awaited work is still pending; that outcome survives parking
      settled: msg.settled ?? null,
      overflow: null,
      parkRequested: false,
      ended: false,
      vm: null,
      opened: null,
    };
    // deliver/park messages can arrive while the VM is still being created or restored
    leg.opened = new Promise((resolve) => (leg.markOpened = resolve));
    leg.shouldInterrupt = () =>
      control[CONTROL_ABORT] !== 0 || (Date.now() > control[CONTROL_DEADLINE] && Date.now() > leg.sliceFloor);
    leg.onSync = (op, payload) => onSync(leg, op, payload);
    legs.set(leg.id, leg);
    return leg;
  }

  function onSync(leg, op, payload) {
    switch (op) {
      case 'send': {
        const req = JSON.parse(payload);
        // the guest controller counts too, but its state is guest memory (a cell can forge deliveries)
        if (leg.inFlight >= leg.limits.maxPendingToolCalls) {
          leg.overflow ??= `more than maxPendingToolCalls (${leg.limits.maxPendingToolCalls}) requests in flight; await smaller batches`;
          return undefined;
        }
        leg.frontier.push(req);
        leg.inFlight++;
        return undefined;
      }
      case 'cancel':
        leg.cancels.push(String(payload));
        return undefined;
      case 'overflow':
        leg.overflow = String(payload);
        return undefined;
      case 'emit': {
        const line = JSON.parse(payload);
        const bytes = Buffer.byteLength(line.text, 'utf8');
        if (leg.outputBytes + bytes > leg.limits.maxOutputBytes) {
          leg.droppedBytes += bytes;
        } else {
          leg.outputBytes += bytes;
          leg.output.push(line);
        }
        return undefined;
      }
      case 'settle':
        if (!leg.settled) leg.settled = JSON.parse(payload);
        return undefined;
      case 'api': {
        const { op: apiOp, arg } = JSON.parse(payload);
        if (apiOp === 'list') {
          const prefix = String(arg ?? '');
          return JSON.stringify(Object.keys(leg.files).filter((p) => p.startsWith(prefix)).sort());
        }
        const text = leg.files[String(arg)];
        if (text === undefined) {
          return JSON.stringify({ error: `API.read: no declaration file "${arg}"; API.list("") lists the files` });
        }
        return JSON.stringify({ text });
      }
      default:
        return undefined;
    }
  }

  function classify(leg, err) {
    if (err instanceof LegFailure) return err;
    const failure = leg.vm?.classify?.(err, leg) ?? null;
    if (failure) return failure;
    return new LegFailure('internal_error', `executor failure: ${err && err.message ? err.message : String(err)}`);
  }

  function end(leg, msg, transfer) {
    if (leg.ended) return;
    leg.ended = true;
    legs.delete(leg.id);
    post({ ...msg, legId: leg.id, droppedBytes: leg.droppedBytes }, transfer);
  }

  function flushOutput(leg) {
    if (leg.output.length === 0) return;
    post({ t: 'output', legId: leg.id, lines: leg.output, droppedBytes: 0 });
    leg.output = [];
  }

  function fail(leg, failure) {
    flushOutput(leg);
    try {
      leg.vm?.dispose();
    } catch {
      // a broken VM may refuse disposal; the leg result matters more
    }
    end(leg, { t: 'settled', ok: false, error: failure.message, code: failure.code, stack: failure.guestStack });
  }

  // After every entry into the VM: settle, fail, dispatch the frontier, or park.
  function afterEntry(leg) {
    if (leg.ended) return;
    if (leg.overflow) {
      leg.frontier = [];
      return fail(leg, new LegFailure('invalid_input', leg.overflow));
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
      try {
        leg.vm.dispose();
      } catch {
        // disposal failure cannot change a settled result
      }
      if (s.ok) return end(leg, { t: 'settled', ok: true, valueJson: s.json });
      const code = s.code ?? undefined;
      return end(leg, { t: 'settled', ok: false, error: s.error, code, stack: s.stack });
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

  function enter(leg, fn) {
    leg.sliceFloor = Date.now() + MIN_SLICE_MS;
    try {
      fn();
      leg.vm.drain();
    } catch (err) {
      return fail(leg, classify(leg, err));
    }
    afterEntry(leg);
  }

  async function park(leg) {
    if (leg.ended) return;
    try {
      // an engine may measure asynchronously (Node measures its context's memory)
      const info = await leg.vm.park(leg);
      if (leg.settled) info.settled = leg.settled;
      const transfer = info.snapshot ? [info.snapshot.buffer] : [];
      end(leg, { t: 'parked', ...info }, transfer);
    } catch (err) {
      fail(leg, classify(leg, err));
    }
  }

  parentPort.on('message', async (msg) => {
    try {
      switch (msg.t) {
        case 'start': {
          const leg = newLeg(msg);
          try {
            leg.vm = await engine.create(leg, msg);
          } catch (err) {
            leg.markOpened();
            return fail(leg, classify(leg, err));
          }
          enter(leg, () => leg.vm.start(msg.boot, msg.body));
          return leg.markOpened();
        }
        case 'resume':
        case 'continue': {
          const leg = newLeg(msg);
          const t0 = performance.now();
          try {
            leg.vm = await engine.resume(leg, msg);
          } catch (err) {
            leg.markOpened();
            return fail(leg, classify(leg, err));
          }
          post({ t: 'resumed', legId: leg.id, restoreMs: performance.now() - t0, rawBytes: leg.vm.rawBytes });
          return leg.markOpened();
        }
        case 'deliver': {
          const leg = legs.get(msg.legId);
          if (!leg) return;
          await leg.opened;
          if (leg.ended) return;
          return enter(leg, () => {
            for (const reply of msg.replies) {
              leg.inFlight--;
              leg.vm.deliver(JSON.stringify(reply));
            }
          });
        }
        case 'park': {
          const leg = legs.get(msg.legId);
          if (!leg) return;
          await leg.opened;
          if (leg.ended) return;
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
      if (leg) fail(leg, new LegFailure('internal_error', `executor failure: ${err?.message ?? err}`));
    }
  });
}
