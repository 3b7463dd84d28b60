// Validators for every bridge message that carries guest-controlled data: the guest's requests, its
// settled outcome and output lines (checked in the worker), and every worker-to-host message (checked
// again on the Gateway's thread before anything reads it).
//
// The guest controller (server/guest/prelude.js) builds these messages in hostile memory: a cell can
// replace builtins, set Object.prototype.toJSON or call the raw host primitive with any payload. So
// nothing here trusts a shape; each check returns `{ ok: true, value }` with a fresh, normalized copy
// or `{ ok: false, error }` naming what is wrong, and never throws. A failed check fails that run with
// invalid_input; the host never reads a message it has not checked.
//
// Plain JavaScript on purpose: worker entry files import it as it is. tsc checks it against the protocol's types
// (protocol.ts): every check takes `unknown` and returns the type it promises.
/** @import { BridgeRequest, ClockReadings, CodeModeOutput, ParkedInfo, SettledOutcome, WorkerToHost } from './protocol.ts' */
/** @import { CodeModeErrorCode } from '../errors.ts' */
import { CODE_MODE_ERROR_CODES } from '../error-codes.mjs';
import { isRecord } from '../util/is-record.mjs';

/**
 * A check's answer: a fresh, normalized value, or what is wrong with the input.
 * @template T
 * @typedef {{ ok: true, value: T } | { ok: false, error: string }} Checked
 */
/** @typedef {(text: unknown, what: string) => Checked<string>} JsonTextCheck */

/** The prelude numbers its requests `r1`, `r2`, ...; anything longer than this is not an id it made. */
export const MAX_REQUEST_ID_CHARS = 64;
/** Tool, MCP server and store key names, result refs: far above any real name, small enough to log. */
export const MAX_NAME_CHARS = 1024;
/** Error messages, stacks and yield reasons the guest reports: longer text is cut, not refused. */
export const MAX_MESSAGE_CHARS = 64 * 1024;
/** A catalog.search query: far above any real query (a few keywords), refused past it. */
export const MAX_QUERY_CHARS = 64 * 1024;
/**
 * Clock reading pairs ([difference from the previous reading, readings in a row with that value]) one run keeps:
 * a cell that reads a moving clock in a loop for its whole budget changes value about once a millisecond, and
 * 10,000 changes (about 10 s of that, ~100 KB of JSON at most) is far past what a cell that reads the time
 * to use it makes. Past it, readings are only counted (`dropped`). The guest keeps the same cap
 * (MAX_CLOCK_RUNS in server/guest/prelude.js; the clock test holds them equal).
 */
export const MAX_CLOCK_RUNS = 10_000;
/** Cleared timers reported in one frontier: each names a request of the leg, so more than the in-flight cap plus the queue is forged. */
export const MAX_CANCELS_PER_FRONTIER = 1024;

/** @type {ReadonlySet<unknown>} */
const OUTPUT_KINDS = new Set(['log', 'info', 'warn', 'error', 'debug', 'text', 'json']);
/** Spec error codes a failed leg may carry. @type {ReadonlySet<unknown>} */
const ERROR_CODES = new Set(CODE_MODE_ERROR_CODES);
/** The only code the guest controller itself reports for a cell's outcome (a value that is not JSON). @type {ReadonlySet<unknown>} */
const GUEST_SETTLE_CODES = new Set(['invalid_input']);

/** @param {string} error @returns {{ ok: false, error: string }} */
const bad = (error) => ({ ok: false, error });
/** @template T @param {T} value @returns {{ ok: true, value: T }} */
const good = (value) => ({ ok: true, value });
/** @param {unknown} v @returns {v is string} */
const isString = (v) => typeof v === 'string';
/** @param {unknown} v @returns {v is string} */
const isName = (v) => isString(v) && v.length > 0 && v.length <= MAX_NAME_CHARS;
/** @param {string} s */
const clip = (s) => (s.length > MAX_MESSAGE_CHARS ? s.slice(0, MAX_MESSAGE_CHARS) : s);
/** A failure always says something: `throw ""` still reaches the model as a readable error. @param {string} s */
const errorText = (s) => clip(s) || 'the cell failed with an empty error message';
/** @param {unknown} v */
const describe = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);
/** What a text field holds, length first: a string that is too long is named as such, not as "not a string". @param {unknown} v */
const describeText = (v) => (isString(v) ? (v.length === 0 ? 'an empty string' : `a string of ${v.length} characters`) : describe(v));
/** @param {unknown} v @returns {v is number} */
const isFiniteNumber = (v) => typeof v === 'number' && Number.isFinite(v);
/** @param {unknown} v @returns {v is number} */
const isSafeInteger = (v) => Number.isSafeInteger(v);
/** @param {unknown} v @returns {v is number} */
const isCount = (v) => isSafeInteger(v) && v >= 0;
/** @param {unknown} v @returns {v is CodeModeErrorCode} */
const isErrorCode = (v) => ERROR_CODES.has(v);
/** @param {unknown} v @returns {v is number} */
const isDuration = (v) => isFiniteNumber(v) && v >= 0;

/**
 * Parse JSON the guest produced; `what` names it in the error.
 * @param {unknown} text @param {string} what
 * @returns {Checked<unknown>}
 */
export function parseGuestJson(text, what) {
  if (!isString(text)) return bad(`${what} is ${describe(text)}, not a JSON string`);
  try {
    return good(/** @type {unknown} */ (JSON.parse(text)));
  } catch (err) {
    return bad(`${what} is not valid JSON (${err instanceof Error && err.message ? err.message : 'parse error'})`);
  }
}

/**
 * Check that `text` is a JSON document (the cell's value, a stored value) without keeping the parse.
 * @param {unknown} text @param {string} what
 * @returns {Checked<string>}
 */
export function checkJsonText(text, what) {
  const parsed = parseGuestJson(text, what);
  return parsed.ok ? good(/** @type {string} */ (text)) : parsed;
}

/**
 * The host's check of the same texts: a string, not parsed. The worker already parsed it off the
 * Gateway's thread, and whoever reads it on the host parses it once anyway (the dispatcher
 * canonicalizes stored and saved values, the run checks the cell's value), so a forged text still
 * fails there; a second parse here would only cost the event loop.
 */
/** @param {unknown} text @param {string} what @returns {Checked<string>} */
function checkJsonString(text, what) {
  return isString(text) ? good(text) : bad(`${what} is ${describe(text)}, not a JSON string`);
}

/** One bridge request (server/bridge/protocol.ts BridgeRequest). @param {unknown} v @returns {Checked<BridgeRequest>} */
export function checkBridgeRequest(v) {
  return checkRequest(v, checkJsonText);
}

/**
 * `jsonText` checks the JSON texts a request carries (a stored or saved value).
 * @param {unknown} v @param {JsonTextCheck} jsonText
 * @returns {Checked<BridgeRequest>}
 */
function checkRequest(v, jsonText) {
  if (!isRecord(v)) return bad(`a bridge request must be an object, got ${describe(v)}`);
  const { id, op } = v;
  if (!isString(id) || id.length === 0 || id.length > MAX_REQUEST_ID_CHARS) {
    return bad(`a bridge request id must be a string of 1 to ${MAX_REQUEST_ID_CHARS} characters, got ${describe(id)}`);
  }
  const where = `bridge request ${id} (${isString(op) ? op.slice(0, 32) : describe(op)})`;
  switch (op) {
    case 'call': {
      /** @type {Extract<BridgeRequest, { op: 'call' }>} */
      const out = { id, op, input: v.input === undefined ? {} : v.input };
      if (v.mcp !== undefined) {
        if (!Array.isArray(v.mcp) || v.mcp.length !== 2 || !isName(v.mcp[0]) || !isName(v.mcp[1])) {
          return bad(`${where}: mcp must be [server, tool], two non-empty names`);
        }
        out.mcp = [v.mcp[0], v.mcp[1]];
      } else if (!isName(v.tool)) {
        return bad(`${where}: tool must be a non-empty name`);
      } else {
        out.tool = v.tool;
      }
      return good(out);
    }
    case 'search': {
      if (!isString(v.query) || v.query.length > MAX_QUERY_CHARS) {
        return bad(`${where}: query must be a string of at most ${MAX_QUERY_CHARS} characters, got ${describeText(v.query)}`);
      }
      // the guest passes its own `limit` through; a non-number means "the default", as the dispatcher reads it
      return good({ id, op, query: v.query, ...(isFiniteNumber(v.limit) ? { limit: v.limit } : {}) });
    }
    case 'all':
      return good({ id, op });
    case 'describe': {
      if (v.mcpServer !== undefined) {
        if (!isName(v.mcpServer)) return bad(`${where}: mcpServer must be a non-empty name`);
        return good({ id, op, mcpServer: v.mcpServer });
      }
      if (!isName(v.tool)) return bad(`${where}: tool must be a non-empty name`);
      return good({ id, op, tool: v.tool });
    }
    case 'timer': {
      if (!isFiniteNumber(v.ms) || v.ms < 0) return bad(`${where}: ms must be a finite number >= 0`);
      if (!isSafeInteger(v.timer)) return bad(`${where}: timer must be an integer id`);
      return good({ id, op, ms: v.ms, timer: v.timer });
    }
    case 'store': {
      if (v.action !== 'set' && v.action !== 'get') return bad(`${where}: action must be "set" or "get"`);
      if (!isName(v.key)) return bad(`${where}: key must be a non-empty string of at most ${MAX_NAME_CHARS} characters, got ${describeText(v.key)}`);
      if (v.action === 'get') return good({ id, op, action: v.action, key: v.key });
      if (v.json === undefined) return good({ id, op, action: v.action, key: v.key });
      const json = jsonText(v.json, `${where}: the stored value`);
      return json.ok ? good({ id, op, action: v.action, key: v.key, json: json.value }) : json;
    }
    case 'results': {
      if (v.action === 'save') {
        if (v.json === undefined) return good({ id, op, action: v.action });
        const json = jsonText(v.json, `${where}: the saved value`);
        return json.ok ? good({ id, op, action: v.action, json: json.value }) : json;
      }
      if (v.action === 'load' || v.action === 'delete') {
        if (!isString(v.ref) || v.ref.length > MAX_NAME_CHARS) {
          return bad(`${where}: ref must be a string of at most ${MAX_NAME_CHARS} characters, got ${describeText(v.ref)}`);
        }
        return good({ id, op, action: v.action, ref: v.ref });
      }
      return bad(`${where}: action must be "save", "load" or "delete"`);
    }
    case 'yield':
      if (!isString(v.reason)) return bad(`${where}: reason must be a string`);
      return good({ id, op, reason: clip(v.reason) });
    default:
      return bad(`${where}: unknown op`);
  }
}

/** The cell's own outcome as the guest controller reports it (SettledOutcome). @param {unknown} v @returns {Checked<SettledOutcome>} */
export function checkSettledOutcome(v) {
  return checkOutcome(v, checkJsonText);
}

/** @param {unknown} v @param {JsonTextCheck} jsonText @returns {Checked<SettledOutcome>} */
function checkOutcome(v, jsonText) {
  if (!isRecord(v)) return bad(`the cell's outcome must be an object, got ${describe(v)}`);
  if (v.ok === true) {
    const json = jsonText(v.json, "the cell's value");
    return json.ok ? good({ ok: true, json: json.value }) : json;
  }
  if (v.ok === false) {
    if (!isString(v.error)) return bad(`the cell's error must be a string, got ${describe(v.error)}`);
    if (v.code !== undefined && v.code !== null && !GUEST_SETTLE_CODES.has(v.code)) {
      return bad(`the cell reported error code ${JSON.stringify(String(v.code).slice(0, 40))}, which only the host may report`);
    }
    /** @type {Extract<SettledOutcome, { ok: false }>} */
    const out = { ok: false, error: errorText(v.error) };
    if (isString(v.code)) out.code = v.code;
    if (isString(v.stack)) out.stack = clip(v.stack);
    if (isString(v.toolCode) && v.toolCode.length <= MAX_NAME_CHARS) out.toolCode = v.toolCode;
    return good(out);
  }
  return bad(`the cell's outcome must have ok: true or ok: false`);
}

/**
 * Clock readings a leg carried out of the guest (prelude.js __cm_clock): `runs` is a flat list of pairs, the
 * difference from the previous reading (ms) and how many readings in a row had that value (at least one);
 * `dropped` counts readings past the cap that were not kept.
 * @param {unknown} v
 * @returns {Checked<ClockReadings>}
 */
export function checkClockReadings(v) {
  if (!isRecord(v)) return bad(`the clock readings must be an object, got ${describe(v)}`);
  const runs = v.runs;
  if (!Array.isArray(runs) || runs.length % 2 !== 0 || runs.length > 2 * MAX_CLOCK_RUNS) {
    return bad(`the clock readings must be a list of at most ${MAX_CLOCK_RUNS} pairs of numbers`);
  }
  for (let i = 0; i < runs.length; i += 2) {
    const count = runs[i + 1];
    if (!isFiniteNumber(runs[i]) || !isSafeInteger(count) || count < 1) {
      return bad(`clock reading pair ${i / 2} must be a finite difference and a positive count`);
    }
  }
  if (!isCount(v.dropped)) return bad('the clock readings\' dropped count must be a count');
  return good({ runs: [...runs], dropped: v.dropped });
}

/** One output line from console.* / text / json. @param {unknown} v @returns {Checked<CodeModeOutput>} */
export function checkOutputLine(v) {
  if (!isRecord(v)) return bad(`an output line must be an object, got ${describe(v)}`);
  if (!OUTPUT_KINDS.has(v.kind)) return bad(`an output line's kind must be one of ${[...OUTPUT_KINDS].join(', ')}`);
  if (!isString(v.text)) return bad(`an output line's text must be a string, got ${describe(v.text)}`);
  return good({ kind: /** @type {CodeModeOutput['kind']} */ (v.kind), text: v.text });
}

/**
 * @template T
 * @param {unknown} list @param {(item: unknown) => Checked<T>} check @param {string} what
 * @returns {Checked<T[]>}
 */
function checkList(list, check, what) {
  if (!Array.isArray(list)) return bad(`${what} must be an array, got ${describe(list)}`);
  /** @type {T[]} */
  const out = [];
  for (const item of list) {
    const r = check(item);
    if (!r.ok) return r;
    out.push(r.value);
  }
  return good(out);
}

/** @param {unknown} v */
const hostRequestCheck = (v) => checkRequest(v, checkJsonString);

/**
 * One worker-to-host message (WorkerToHost), checked on the Gateway's thread: every shape, but JSON
 * texts only as strings (checkJsonString says why). On failure, `legId` is set when the message names
 * a leg, so the host fails that leg; a message that names none is dropped.
 * @param {unknown} m
 * @returns {{ ok: true, value: WorkerToHost } | { ok: false, error: string, legId?: string }}
 */
export function checkWorkerMessage(m) {
  if (!isRecord(m)) return bad(`a worker message must be an object, got ${describe(m)}`);
  if (m.t === 'ready') return isString(m.engine) ? good({ t: 'ready', engine: m.engine, warmedUp: m.warmedUp === true }) : bad('a ready message must name its engine');
  const legId = isString(m.legId) && m.legId.length > 0 && m.legId.length <= MAX_NAME_CHARS ? m.legId : undefined;
  if (!legId) return bad(`a worker message (${isString(m.t) ? m.t.slice(0, 32) : describe(m.t)}) must name its leg`);
  /** @param {string} error @returns {{ ok: false, error: string, legId: string }} */
  const fail = (error) => ({ ok: false, error, legId });
  /** @param {Checked<WorkerToHost>} r */
  const withLeg = (r) => (r.ok ? r : fail(r.error));
  switch (m.t) {
    case 'requests': {
      const requests = checkList(m.requests, hostRequestCheck, 'requests');
      if (!requests.ok) return fail(requests.error);
      if (!Array.isArray(m.cancels) || m.cancels.length > MAX_CANCELS_PER_FRONTIER || !m.cancels.every((c) => isString(c) && c.length <= MAX_REQUEST_ID_CHARS)) {
        return fail(`cancels must be a list of at most ${MAX_CANCELS_PER_FRONTIER} request ids`);
      }
      return good({ t: 'requests', legId, requests: requests.value, cancels: [...m.cancels] });
    }
    case 'output': {
      const lines = checkList(m.lines, checkOutputLine, 'output lines');
      if (!lines.ok) return fail(lines.error);
      if (!isCount(m.droppedBytes)) return fail('droppedBytes must be a count');
      return good({ t: 'output', legId, lines: lines.value, droppedBytes: m.droppedBytes });
    }
    case 'opened':
      if (m.restoreMs !== undefined && !isDuration(m.restoreMs)) return fail('restoreMs must be a duration');
      if (m.rawBytes !== undefined && !isCount(m.rawBytes)) return fail('rawBytes must be a count');
      return good({
        t: 'opened',
        legId,
        ...(m.restoreMs !== undefined ? { restoreMs: m.restoreMs } : {}),
        ...(m.rawBytes !== undefined ? { rawBytes: m.rawBytes } : {}),
      });
    case 'settled': {
      if (!isCount(m.droppedBytes)) return fail('droppedBytes must be a count');
      const clock = m.clock === undefined ? undefined : checkClockReadings(m.clock);
      if (clock && !clock.ok) return fail(clock.error);
      const readings = clock ? { clock: clock.value } : {};
      if (m.ok === true) {
        return withLeg(
          isString(m.valueJson)
            ? good({ t: 'settled', legId, ok: true, valueJson: m.valueJson, droppedBytes: m.droppedBytes, ...readings })
            : bad(`the cell's value must be a JSON string, got ${describe(m.valueJson)}`),
        );
      }
      if (m.ok !== false) return fail('a settled message must have ok: true or ok: false');
      if (!isString(m.error)) return fail(`a failed leg's error must be a string, got ${describe(m.error)}`);
      if (m.code !== undefined && !isErrorCode(m.code)) return fail(`unknown error code ${JSON.stringify(String(m.code).slice(0, 40))}`);
      return good({
        t: 'settled',
        legId,
        ok: false,
        error: errorText(m.error),
        ...(m.code !== undefined ? { code: m.code } : {}),
        ...(isString(m.stack) ? { stack: clip(m.stack) } : {}),
        droppedBytes: m.droppedBytes,
        ...readings,
      });
    }
    case 'parked':
    case 'pressure-parked': {
      if (!isCount(m.droppedBytes)) return fail('droppedBytes must be a count');
      const queued = checkList(m.queued, hostRequestCheck, 'queued requests');
      if (!queued.ok) return fail(queued.error);
      /** @type {{ t: 'parked' | 'pressure-parked', legId: string, droppedBytes: number } & ParkedInfo} */
      const out = { t: m.t, legId, droppedBytes: m.droppedBytes, queued: queued.value };
      if (m.settled !== undefined) {
        const s = checkOutcome(m.settled, checkJsonString);
        if (!s.ok) return fail(s.error);
        out.settled = s.value;
      }
      if (m.snapshot !== undefined) {
        if (!(m.snapshot instanceof Uint8Array)) return fail('snapshot must be bytes');
        out.snapshot = m.snapshot;
      }
      if (m.continuationId !== undefined) {
        if (!isName(m.continuationId)) return fail('continuationId must be a name');
        out.continuationId = m.continuationId;
      }
      if (out.snapshot === undefined && out.continuationId === undefined) return fail('a parked leg must carry a snapshot or a continuation id');
      for (const k of /** @type {const} */ (['rawBytes', 'storedBytes', 'retainedBytesEstimate'])) {
        if (m[k] === undefined) continue;
        if (!isCount(m[k])) return fail(`${k} must be a count`);
        out[k] = m[k];
      }
      if (m.takeMs !== undefined) {
        if (!isDuration(m.takeMs)) return fail('takeMs must be a duration');
        out.takeMs = m.takeMs;
      }
      if (m.clock !== undefined) {
        const clock = checkClockReadings(m.clock);
        if (!clock.ok) return fail(clock.error);
        out.clock = clock.value;
      }
      // a pressure checkpoint is always a snapshot the host keeps (a live context cannot move workers)
      if (m.t === 'pressure-parked' && out.snapshot === undefined) return fail('a pressure-parked leg must carry a snapshot');
      return good(out);
    }
    case 'pressure-declined':
      if (m.storedBytes !== undefined && !isCount(m.storedBytes)) return fail('storedBytes must be a count');
      return good({ t: 'pressure-declined', legId, ...(m.storedBytes !== undefined ? { storedBytes: m.storedBytes } : {}) });
    default:
      return fail(`unknown worker message type ${JSON.stringify(String(m.t).slice(0, 32))}`);
  }
}
