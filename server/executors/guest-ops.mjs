// The guest's side of a leg as the worker reads it: each operation the guest sends through the host primitive
// (onSync), and the clock readings it carries out at a leg's end (takeClock). Everything here is guest-controlled:
// each payload is parsed and checked (bridge/protocol-check.mjs), nothing throws back into the VM, and a malformed
// payload marks the leg (`fault`), which the leg loop (worker-runtime.mjs) then fails with invalid_input.
//
// Plain JavaScript on purpose: worker entry files load as they are under tsx, Vitest and Next.
/** @import { ClockReadings } from '../bridge/protocol.ts' */
/** @import { WorkerLeg } from './worker-types.ts' */
import { isRecord } from '../util/is-record.mjs';
import { MAX_REQUEST_ID_CHARS, checkBridgeRequest, checkClockReadings, checkOutputLine, checkSettledOutcome, parseGuestJson } from '../bridge/protocol-check.mjs';

/** What a cell that broke the bridge protocol is told: the usual cause, and what to do. @param {string} what */
export function protocolFault(what) {
  return `the cell sent the code mode bridge a malformed message (${what}). This happens when a cell replaces JSON, Object.prototype.toJSON or other builtins the runtime relies on, or calls internal __cm_ functions; leave them intact and run the cell again.`;
}

/**
 * The guest's only way out of its VM. Guest-controlled input: parse and check everything, never
 * throw back into the engine; a bad message marks the leg, which then fails with invalid_input.
 * @param {WorkerLeg} leg @param {unknown} rawOp @param {unknown} rawPayload
 * @returns {string | undefined} the answer the guest gets (API.list / API.read), JSON text
 */
export function onSync(leg, rawOp, rawPayload) {
  // only strings are read: converting anything else would run guest code (a toString) in the host
  const op = typeof rawOp === 'string' ? rawOp : '';
  const payload = typeof rawPayload === 'string' ? rawPayload : rawPayload === undefined ? '' : null;
  try {
    return onSyncChecked(leg, op, payload);
  } catch (err) {
    const message = typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string' ? err.message : 'unknown error';
    leg.fault ??= protocolFault(`the ${op.slice(0, 32)} message could not be read: ${message}`);
    return undefined;
  }
}

/** @param {WorkerLeg} leg @param {string} what @returns {undefined} */
function guestFault(leg, what) {
  leg.fault ??= protocolFault(what);
  return undefined;
}

/** @param {WorkerLeg} leg @param {string} op @param {string | null} payload @returns {string | undefined} */
function onSyncChecked(leg, op, payload) {
  if (leg.ended) return undefined;
  switch (op) {
    case 'send': {
      const parsed = parseGuestJson(payload, 'a bridge request');
      if (!parsed.ok) return guestFault(leg, parsed.error);
      const req = checkBridgeRequest(parsed.value);
      if (!req.ok) return guestFault(leg, req.error);
      // the guest controller counts too, but its state is guest memory (a cell can forge deliveries)
      if (leg.inFlight >= leg.limits.maxPendingToolCalls) {
        leg.overflow ??= `more than maxPendingToolCalls (${leg.limits.maxPendingToolCalls}) requests in flight; await smaller batches`;
        return undefined;
      }
      leg.frontier.push(req.value);
      leg.inFlight++;
      return undefined;
    }
    case 'cancel': {
      if (typeof payload !== 'string' || payload.length === 0 || payload.length > MAX_REQUEST_ID_CHARS) {
        return guestFault(leg, 'a cancel must name a request id');
      }
      leg.cancels.push(payload);
      return undefined;
    }
    case 'overflow':
      leg.overflow = String(payload).slice(0, 4096);
      return undefined;
    case 'replay':
      leg.mismatch ??= String(payload).slice(0, 4096);
      return undefined;
    case 'emit': {
      const parsed = parseGuestJson(payload, 'an output line');
      if (!parsed.ok) return guestFault(leg, parsed.error);
      const line = checkOutputLine(parsed.value);
      if (!line.ok) return guestFault(leg, line.error);
      const bytes = Buffer.byteLength(line.value.text, 'utf8');
      if (leg.outputBytes + bytes > leg.limits.maxOutputBytes) {
        leg.droppedBytes += bytes;
      } else {
        leg.outputBytes += bytes;
        leg.output.push(line.value);
      }
      return undefined;
    }
    case 'settle': {
      if (leg.settled) return undefined;
      const parsed = parseGuestJson(payload, "the cell's outcome");
      if (!parsed.ok) return guestFault(leg, parsed.error);
      const outcome = checkSettledOutcome(parsed.value);
      if (!outcome.ok) return guestFault(leg, outcome.error);
      leg.settled = outcome.value;
      return undefined;
    }
    case 'api': {
      const parsed = parseGuestJson(payload, 'an API request');
      if (!parsed.ok) return guestFault(leg, parsed.error);
      const q = parsed.value;
      if (!isRecord(q) || (q.op !== 'list' && q.op !== 'read')) {
        return guestFault(leg, 'an API request must be { op: "list" | "read", arg }');
      }
      if (q.op === 'list') {
        const prefix = typeof q.arg === 'string' ? q.arg : '';
        return JSON.stringify(leg.files.list(prefix));
      }
      const path = typeof q.arg === 'string' ? q.arg : '';
      const text = leg.files.read(path);
      if (text === undefined) {
        return JSON.stringify({ error: `API.read: no declaration file "${path.slice(0, 200)}"; API.list("") lists the files` });
      }
      return JSON.stringify({ text });
    }
    default:
      return guestFault(leg, `unknown bridge operation ${JSON.stringify(String(op).slice(0, 32))}`);
  }
}

/**
 * The clock readings the guest recorded since the last take (prelude.js __cm_clock), checked, or undefined.
 * Best effort: a VM the host stopped (timeout, memory) may not answer, and its last readings are then lost.
 * @param {WorkerLeg} leg
 * @returns {ClockReadings | undefined}
 */
export function takeClock(leg) {
  let text;
  try {
    text = leg.vm?.takeClock?.();
  } catch {
    return undefined;
  }
  if (typeof text !== 'string' || text === '') return undefined;
  const parsed = parseGuestJson(text, 'the clock readings');
  const checked = parsed.ok ? checkClockReadings(parsed.value) : parsed;
  if (!checked.ok) {
    leg.fault ??= protocolFault(checked.error);
    return undefined;
  }
  return checked.value;
}
