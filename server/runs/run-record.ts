// The durable part of a run: what a run is, apart from the process that holds it, as plain JSON (Run.toRecord
// writes it, parseRunRecord reads it back and checks every field, Run.restore makes a run of it again).
// long: one format: its shape, how a run's data is written into it, and how it is read and checked back.
//
// A record names its turn by id and holds no handle: no executor, leg, timer, promise or signal. Its snapshot is
// named by reference (the SHA-256 of the encoded bytes) with its sizes; the bytes travel beside the record, and a
// restore refuses bytes that do not match. Everything a guest wrote is in it (the cell's source, tool inputs and
// replies, buffered store() writes): a record at rest must be encrypted like the snapshot.
import { createHash } from 'node:crypto';
import type { Catalog } from '../catalog/types.ts';
import type { ExecutorKind } from '../config/types.ts';
import { EXECUTOR_KINDS } from '../config/schema.ts';
import type { NestedCallKind } from '../bridge/describe.ts';
import type { BridgeReply, BridgeRequest, SettledOutcome } from '../bridge/protocol.ts';
import { checkBridgeRequest, checkSettledOutcome } from '../bridge/protocol-check.mjs';
import type { Continuation, LiveExecutorKind } from '../executors/types.ts';
import type { StoredValue } from '../sessions/store.ts';
import type { JsonSchema } from '../tools/types.ts';
import { jsonShapeProblem } from '../util/json-shape.ts';
import { parseCassette, type Cassette } from './cassette.ts';
import { checkRecordedClock, ClockRecording, type ClockMode, type RecordedClock } from './clock.ts';
import type { RunCell, TurnScope } from './scope.ts';
import type { CodeModeResult, ControlCallRecord, ForkOrigin, NestedCallRecord, RunState, SnapshotRecord } from './types.ts';

/** One request the guest sent, as the run holds it: the record's part, and the dispatcher's handles while it is pending. */
export interface HostRequest {
  req: BridgeRequest;
  record: NestedCallRecord;
  settled?: BridgeReply;
  /** The guest has the reply (Run.deliverReplies: set together with the in-flight count). */
  delivered: boolean;
  /** Process-local: clears a pending host timer. */
  cancel?: () => void;
  /**
   * Process-local: set while `settled` is on its way into the live VM and its record has not ended yet (with the
   * reply value's JSON when the dispatcher made it): the flush that sends it ends the record and emits
   * nested.finished right after the message left (nested.ts), in the same microtask checkpoint.
   */
  unrecorded?: { outputJson: string | undefined };
}

/**
 * What a run is, as the Run holds it in memory (its `data`): the record's content with live maps and the clock
 * recording. Only the run record (run.ts) changes it; recordOf and dataOf turn it into a RunRecord and back.
 */
export interface RunData {
  state: RunState;
  reason?: 'pending_tools' | 'yield';
  createdAt: number;
  updatedAt: number;
  expiresAt?: number;
  requests: Map<string, HostRequest>;
  guestInFlight: number;
  queued: BridgeRequest[];
  yieldRequestId?: string;
  /** Buffered store() writes (the dispatcher buffers into it; committed only when the cell completes). */
  storeBuffer: Map<string, StoredValue>;
  networkContent: boolean;
  holdsSlot: boolean;
  nestedCount: number;
  counters: { search: number; describe: number; call: number };
  calls: ControlCallRecord[];
  snapshots: SnapshotRecord[];
  lastResult?: CodeModeResult;
  clock: ClockRecording;
  forkedFrom?: ForkOrigin;
  forks: string[];
}

/** A new run's data: running, nothing sent, nothing recorded but its clock's start. */
export function newRunData(createdAt: number, clock: ClockRecording): RunData {
  return {
    state: 'running',
    createdAt,
    updatedAt: createdAt,
    requests: new Map(),
    guestInFlight: 0,
    queued: [],
    storeBuffer: new Map(),
    networkContent: false,
    holdsSlot: false,
    nestedCount: 0,
    counters: { search: 0, describe: 0, call: 0 },
    calls: [],
    snapshots: [],
    clock,
    forks: [],
  };
}

export const RUN_RECORD_FORMAT = 'codemode-run';
/** Bumped when a field changes meaning; a reader refuses a version it does not know rather than guess. */
export const RUN_RECORD_VERSION = 1;
/**
 * Client tools one record names at most: a turn's client tools come in one request body (server.maxRequestBodyBytes,
 * a few MiB), so a real turn has far fewer; a record read back with more is refused rather than built into a catalog.
 */
export const MAX_RECORDED_CLIENT_TOOLS = 4096;
/** A client tool's name, as the API edge bounds it (trpc/schemas.ts MAX_NAME_LENGTH). */
const MAX_CLIENT_TOOL_NAME_CHARS = 200;

/** A client tool of the run's projection (the client answers it): its declaration as the turn was given it. */
export interface RecordedClientTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

/** One request the guest sent: what it asked (with its input), its trajectory record, its reply once settled, and whether the guest has that reply. */
export interface RequestRecord {
  req: BridgeRequest;
  record: NestedCallRecord;
  settled?: BridgeReply;
  delivered: boolean;
}

/** A store() write the cell buffered (committed only if it completes). `json: null`: the key was deleted. */
export interface StoreWriteRecord {
  key: string;
  json: string | null;
  networkContent: boolean;
  damaged?: string;
}

/**
 * The continuation a parked run holds. QuickJS: a snapshot, named by the SHA-256 of its encoded bytes, which travel
 * beside the record. Node and quickjs-emscripten: a live context inside one worker of one process, which no record
 * can carry (`live: true`; such a run cannot be restored elsewhere).
 */
export type ContinuationRecord =
  | { executor: 'quickjs'; snapshotSha256: string; snapshotBytes: number; rawBytes?: number; storedBytes?: number; settled?: SettledOutcome }
  | { executor: LiveExecutorKind; live: true; retainedBytesEstimate?: number };

export interface RunRecord {
  format: typeof RUN_RECORD_FORMAT;
  version: typeof RUN_RECORD_VERSION;
  runId: string;
  /** The cell's replay identity: the prefix of its nested invocation ids. */
  cellId: string;
  /**
   * The turn it belongs to, by id: a restore is given that turn's scope (and checks it is that turn's). `clientTools`:
   * the client tools of the run's projection, so a turn opened again after a restart offers them (sealed with the
   * record: a client's declarations may name anything).
   */
  scope: { agentRunId: string; sessionId: string; agentId: string; ownerId: string; client?: string; clientTools?: RecordedClientTool[] };
  cell: {
    executor: ExecutorKind;
    language: 'javascript' | 'typescript';
    code: string;
    /** The source as history and the board show it (credentials masked when the run started). */
    displayCode: string;
    restartSafe: boolean;
    toolCallId: string;
    seed: number;
    /** A replay: the cassette its tool calls are answered from, and which of its calls were used (by index). */
    replay?: { cassette: Cassette; used: number[] };
  };
  state: RunState;
  reason?: 'pending_tools' | 'yield';
  createdAt: number;
  updatedAt: number;
  /** The snapshot TTL's deadline (epoch ms), while it waits. */
  expiresAt?: number;
  /** Every clock reading the guest made so far. */
  clock: RecordedClock & { mode: ClockMode };
  /** Every request the guest sent, in order. */
  requests: RequestRecord[];
  /** Requests sent and not yet answered inside the guest (the worker resumes with this count). */
  guestInFlight: number;
  /** Requests still waiting inside the guest (over maxPendingToolCalls), not sent yet. */
  queued: BridgeRequest[];
  /** The yield the next wait answers. */
  yieldRequestId?: string;
  storeWrites: StoreWriteRecord[];
  networkContent: boolean;
  /** Whether it counts against the suspended-run cap (a restore claims the slot again). */
  holdsSlot: boolean;
  nestedCount: number;
  counters: { search: number; describe: number; call: number };
  calls: ControlCallRecord[];
  snapshots: SnapshotRecord[];
  /** What its latest exec or wait call returned (its telemetry: the budget that call used). */
  lastResult?: CodeModeResult;
  forkedFrom?: ForkOrigin;
  forks: string[];
  continuation?: ContinuationRecord;
}

/** A record that cannot be read, or cannot be restored into this process and turn: the message says which field or why. */
export class RunRecordError extends Error {
  override readonly name = 'RunRecordError';
}

/** The reference a record keeps for a snapshot: the SHA-256 of its encoded bytes, hex. */
export function snapshotSha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

// ---- writing a record ----------------------------------------------------------------------------

/** Who a run is, besides its data: its ids and the source it shows. */
export interface RunIdentity {
  runId: string;
  cellId: string;
  displayCode: string;
}

/**
 * The record of a run: its identity, its turn by id, its cell, its data and what its continuation is. A copy, in
 * one JSON pass: detached from the live run, and holding exactly what a reader gets back.
 */
export function recordOf(id: RunIdentity, turn: TurnScope, cell: RunCell, d: RunData, continuation: Continuation | undefined, projection: Catalog): RunRecord {
  const replay = cell.replay;
  const clientTools = clientToolsOf(projection);
  const record: RunRecord = {
    format: RUN_RECORD_FORMAT,
    version: RUN_RECORD_VERSION,
    runId: id.runId,
    cellId: id.cellId,
    scope: {
      agentRunId: turn.agentRunId,
      sessionId: turn.sessionId,
      agentId: turn.agentId,
      ownerId: turn.owner.id,
      ...(turn.client !== undefined ? { client: turn.client } : {}),
      ...(clientTools.length > 0 ? { clientTools } : {}),
    },
    cell: {
      executor: cell.executor.kind,
      language: cell.language,
      code: cell.code,
      displayCode: id.displayCode,
      restartSafe: cell.restartSafe,
      toolCallId: cell.toolCallId,
      seed: cell.seed,
      ...(replay ? { replay: { cassette: replay.cassette, used: replay.usedCalls() } } : {}),
    },
    state: d.state,
    ...(d.reason ? { reason: d.reason } : {}),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    ...(d.expiresAt !== undefined ? { expiresAt: d.expiresAt } : {}),
    clock: d.clock.toJSON(),
    requests: [...d.requests.values()].map((h) => ({ req: h.req, record: h.record, ...(h.settled ? { settled: h.settled } : {}), delivered: h.delivered })),
    guestInFlight: d.guestInFlight,
    queued: d.queued,
    ...(d.yieldRequestId !== undefined ? { yieldRequestId: d.yieldRequestId } : {}),
    storeWrites: [...d.storeBuffer].map(([key, v]) => ({ key, json: v.json ?? null, networkContent: v.networkContent, ...(v.damaged !== undefined ? { damaged: v.damaged } : {}) })),
    networkContent: d.networkContent,
    holdsSlot: d.holdsSlot,
    nestedCount: d.nestedCount,
    counters: d.counters,
    calls: d.calls,
    snapshots: d.snapshots,
    ...(d.lastResult ? { lastResult: d.lastResult } : {}),
    ...(d.forkedFrom ? { forkedFrom: d.forkedFrom } : {}),
    forks: d.forks,
    ...(continuation ? { continuation: continuationRecord(continuation) } : {}),
  };
  return JSON.parse(JSON.stringify(record)) as RunRecord;
}

/** The client tools of a projection, as declared (the catalog's entries route to their definitions). */
function clientToolsOf(projection: Catalog): RecordedClientTool[] {
  return projection.entries
    .filter((e) => e.source === 'client')
    .map(({ tool }) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}) }));
}

function continuationRecord(c: Continuation): ContinuationRecord {
  if (c.executor === 'quickjs') {
    return {
      executor: 'quickjs',
      snapshotSha256: snapshotSha256(c.snapshot),
      snapshotBytes: c.snapshot.byteLength,
      ...(c.rawBytes !== undefined ? { rawBytes: c.rawBytes } : {}),
      ...(c.storedBytes !== undefined ? { storedBytes: c.storedBytes } : {}),
      ...(c.settled ? { settled: c.settled } : {}),
    };
  }
  return { executor: c.executor, live: true, ...(c.retainedBytesEstimate !== undefined ? { retainedBytesEstimate: c.retainedBytesEstimate } : {}) };
}

// ---- making a run's data of a record again -------------------------------------------------------

/** A run's data from its record (parseRunRecord checked it; the record's objects become the data's). The slot is claimed again by the restore. */
export function dataOf(record: RunRecord): RunData {
  const d: RunData = {
    state: record.state,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    requests: new Map(record.requests.map((r) => [r.req.id, { req: r.req, record: r.record, ...(r.settled ? { settled: r.settled } : {}), delivered: r.delivered }])),
    guestInFlight: record.guestInFlight,
    queued: record.queued,
    storeBuffer: new Map(
      record.storeWrites.map((w) => [w.key, { json: w.json ?? undefined, networkContent: w.networkContent, ...(w.damaged !== undefined ? { damaged: w.damaged } : {}) }]),
    ),
    networkContent: record.networkContent,
    holdsSlot: false,
    nestedCount: record.nestedCount,
    counters: { ...record.counters },
    calls: record.calls,
    snapshots: record.snapshots,
    clock: ClockRecording.fromJSON(record.clock),
    forks: record.forks,
  };
  if (record.reason) d.reason = record.reason;
  if (record.yieldRequestId !== undefined) d.yieldRequestId = record.yieldRequestId;
  if (record.lastResult) d.lastResult = record.lastResult;
  if (record.forkedFrom) d.forkedFrom = record.forkedFrom;
  return d;
}

/** The continuation a waiting record restores with: its snapshot bytes, checked against the reference it names. */
export function continuationOf(record: RunRecord, snapshot: Uint8Array | undefined): Continuation {
  const c = record.continuation;
  const refuse = (why: string): never => {
    throw new RunRecordError(`run record ${record.runId}: ${why}`);
  };
  if (!c) return refuse('it is waiting without a continuation');
  if (c.executor !== 'quickjs') return refuse(`it parked on the ${c.executor} executor, whose continuation is a live context inside one process; it cannot be restored`);
  if (!snapshot) return refuse('its snapshot bytes were not given');
  if (snapshot.byteLength !== c.snapshotBytes || snapshotSha256(snapshot) !== c.snapshotSha256) return refuse('the snapshot given is not the one it names (its SHA-256 differs)');
  return {
    executor: 'quickjs',
    snapshot,
    ...(c.rawBytes !== undefined ? { rawBytes: c.rawBytes } : {}),
    ...(c.storedBytes !== undefined ? { storedBytes: c.storedBytes } : {}),
    ...(c.settled ? { settled: c.settled } : {}),
  };
}

// ---- reading a record back ---------------------------------------------------------------------

type Fields = Record<string, unknown>;

const RUN_STATES: readonly RunState[] = ['running', 'waiting', 'completed', 'failed', 'expired', 'aborted'];
const NESTED_KINDS: readonly NestedCallKind[] = ['tool', 'mcp', 'client', 'search', 'describe', 'timer', 'store', 'results', 'yield'];
const NESTED_STATUSES: readonly NestedCallRecord['status'][] = ['queued', 'running', 'awaiting_approval', 'awaiting_client', 'ok', 'error', 'canceled'];
const RESULT_STATUSES: readonly CodeModeResult['status'][] = ['completed', 'waiting', 'failed'];
const SNAPSHOT_REASONS: readonly SnapshotRecord['reason'][] = ['pending_tools', 'yield', 'pressure'];
const LIVE_EXECUTORS: readonly LiveExecutorKind[] = ['node', 'quickjs-emscripten'];

const fail = (where: string, what: string): never => {
  throw new RunRecordError(`run record: ${where} ${what}; write the record again with Run.toRecord`);
};

function fields(v: unknown, where: string): Fields {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(where, 'must be an object');
  return v as Fields;
}

function list(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) fail(where, 'must be an array');
  return v as unknown[];
}

function str(o: Fields, k: string, where: string): string {
  const v = o[k];
  if (typeof v !== 'string') fail(`${where}.${k}`, 'must be a string');
  return v as string;
}

function num(o: Fields, k: string, where: string): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${where}.${k}`, 'must be a finite number');
  return v as number;
}

function count(o: Fields, k: string, where: string): number {
  const v = num(o, k, where);
  if (!Number.isSafeInteger(v) || v < 0) fail(`${where}.${k}`, 'must be a count (a whole number, 0 or more)');
  return v;
}

function bool(o: Fields, k: string, where: string): boolean {
  const v = o[k];
  if (typeof v !== 'boolean') fail(`${where}.${k}`, 'must be true or false');
  return v as boolean;
}

function oneOf<T extends string>(o: Fields, k: string, allowed: readonly T[], where: string): T {
  const v = o[k];
  if (!(allowed as readonly unknown[]).includes(v)) fail(`${where}.${k}`, `must be one of ${allowed.join(', ')}`);
  return v as T;
}

/** The optional fields `keys` of `o`, each checked by `check` when present. */
function optional(o: Fields, keys: readonly string[], check: (o: Fields, k: string, where: string) => unknown, where: string): void {
  for (const k of keys) if (o[k] !== undefined) check(o, k, where);
}

/** A record's client tools: each a name, a description and JSON Schemas within the Gateway's shape limits; bounded in number. */
function checkClientTools(v: unknown): void {
  const tools = list(v, 'scope.clientTools');
  if (tools.length > MAX_RECORDED_CLIENT_TOOLS) fail('scope.clientTools', `holds ${tools.length} tools, more than ${MAX_RECORDED_CLIENT_TOOLS}`);
  const names = new Set<string>();
  tools.forEach((t, i) => {
    const where = `scope.clientTools[${i}]`;
    const o = fields(t, where);
    const name = str(o, 'name', where);
    if (name === '' || name.length > MAX_CLIENT_TOOL_NAME_CHARS) fail(`${where}.name`, `must be 1 to ${MAX_CLIENT_TOOL_NAME_CHARS} characters`);
    if (names.has(name)) fail(`${where}.name`, `repeats client tool "${name.slice(0, 40)}"`);
    names.add(name);
    str(o, 'description', where);
    for (const k of ['inputSchema', 'outputSchema']) {
      if (k === 'outputSchema' && o[k] === undefined) continue;
      fields(o[k], `${where}.${k}`);
      const problem = jsonShapeProblem(o[k]);
      if (problem !== undefined) fail(`${where}.${k}`, `is not a schema this Gateway takes (the schema ${problem})`);
    }
  });
}

function request(v: unknown, where: string): BridgeRequest {
  const checked = checkBridgeRequest(v);
  if (!checked.ok) fail(where, `is not a bridge request (${checked.error})`);
  return v as BridgeRequest;
}

function reply(v: unknown, where: string): BridgeReply {
  const o = fields(v, where);
  str(o, 'id', where);
  if (bool(o, 'ok', where)) return o as BridgeReply;
  str(o, 'error', where);
  optional(o, ['code', 'name'], str, where);
  return o as BridgeReply;
}

function nestedRecord(v: unknown, where: string): NestedCallRecord {
  const o = fields(v, where);
  for (const k of ['invocationId', 'requestId', 'tool', 'parentCallId']) str(o, k, where);
  oneOf(o, 'kind', NESTED_KINDS, where);
  oneOf(o, 'status', NESTED_STATUSES, where);
  num(o, 'inputBytes', where);
  num(o, 'startedAt', where);
  optional(o, ['outputBytes', 'endedAt', 'inputTokens', 'outputTokens'], num, where);
  optional(o, ['errorCode', 'inputPreview', 'outputPreview', 'errorPreview'], str, where);
  if (o.answeredBy !== undefined) oneOf(o, 'answeredBy', ['fork', 'cassette'] as const, where);
  if (o.approval !== undefined) bool(fields(o.approval, `${where}.approval`), 'approved', `${where}.approval`);
  if (o.hooks !== undefined) list(o.hooks, `${where}.hooks`).forEach((h, i) => str(fields(h, `${where}.hooks[${i}]`), 'plugin', `${where}.hooks[${i}]`));
  return o as unknown as NestedCallRecord;
}

function controlCall(v: unknown, where: string): ControlCallRecord {
  const o = fields(v, where);
  str(o, 'callId', where);
  str(o, 'toolCallId', where);
  oneOf(o, 'tool', ['exec', 'wait'] as const, where);
  num(o, 'startedAt', where);
  optional(o, ['endedAt', 'inputTokens', 'resultTokens'], num, where);
  if (o.status !== undefined) oneOf(o, 'status', RESULT_STATUSES, where);
  optional(o, ['errorCode'], str, where);
  return o as unknown as ControlCallRecord;
}

function snapshot(v: unknown, where: string): SnapshotRecord {
  const o = fields(v, where);
  for (const k of ['at', 'rawBytes', 'storedBytes', 'takeMs']) num(o, k, where);
  optional(o, ['restoreMs'], num, where);
  oneOf(o, 'reason', SNAPSHOT_REASONS, where);
  return o as unknown as SnapshotRecord;
}

function lastResult(v: unknown, where: string): CodeModeResult {
  const o = fields(v, where);
  const status = oneOf(o, 'status', RESULT_STATUSES, where);
  fields(o.telemetry, `${where}.telemetry`);
  if (status === 'failed') str(o, 'error', where);
  if (status === 'waiting') str(o, 'runId', where);
  return o as unknown as CodeModeResult;
}

function continuation(v: unknown, where: string): ContinuationRecord {
  const o = fields(v, where);
  if (o.executor === 'quickjs') {
    if (!/^[0-9a-f]{64}$/.test(str(o, 'snapshotSha256', where))) fail(`${where}.snapshotSha256`, 'must be a SHA-256 in hex');
    count(o, 'snapshotBytes', where);
    optional(o, ['rawBytes', 'storedBytes'], count, where);
    if (o.settled !== undefined && !checkSettledOutcome(o.settled).ok) fail(`${where}.settled`, "is not the cell's settled outcome");
    return o as unknown as ContinuationRecord;
  }
  oneOf(o, 'executor', LIVE_EXECUTORS, where);
  if (o.live !== true) fail(`${where}.live`, 'must be true (a live context)');
  optional(o, ['retainedBytesEstimate'], num, where);
  return o as unknown as ContinuationRecord;
}

/**
 * `raw` (parsed JSON of a written record) as a RunRecord, every field checked; RunRecordError names the first wrong
 * one. The record is returned as read (no copy): the caller owns the parsed JSON.
 */
export function parseRunRecord(raw: unknown): RunRecord {
  const o = fields(raw, 'the record');
  if (o.format !== RUN_RECORD_FORMAT) fail('format', `must be "${RUN_RECORD_FORMAT}"`);
  if (o.version !== RUN_RECORD_VERSION) fail('version', `${String(o.version).slice(0, 20)} is not one this Gateway reads (it reads ${RUN_RECORD_VERSION})`);
  str(o, 'runId', 'the record');
  str(o, 'cellId', 'the record');
  const scope = fields(o.scope, 'scope');
  for (const k of ['agentRunId', 'sessionId', 'agentId', 'ownerId']) str(scope, k, 'scope');
  optional(scope, ['client'], str, 'scope');
  if (scope.clientTools !== undefined) checkClientTools(scope.clientTools);
  const cell = fields(o.cell, 'cell');
  oneOf(cell, 'executor', EXECUTOR_KINDS, 'cell');
  oneOf(cell, 'language', ['javascript', 'typescript'] as const, 'cell');
  for (const k of ['code', 'displayCode', 'toolCallId']) str(cell, k, 'cell');
  bool(cell, 'restartSafe', 'cell');
  const seed = count(cell, 'seed', 'cell');
  if (seed > 0xffff_ffff) fail('cell.seed', 'must be a uint32');
  if (cell.replay !== undefined) {
    const replay = fields(cell.replay, 'cell.replay');
    let cassette: Cassette;
    try {
      cassette = parseCassette(replay.cassette);
    } catch (err) {
      return fail('cell.replay.cassette', `is not a cassette (${(err as Error).message})`);
    }
    const used = list(replay.used, 'cell.replay.used');
    used.forEach((i, n) => {
      if (typeof i !== 'number' || !Number.isSafeInteger(i) || i < 0 || i >= cassette.calls.length) fail(`cell.replay.used[${n}]`, 'must be the index of one of the cassette\'s calls');
    });
  }
  const state = oneOf(o, 'state', RUN_STATES, 'the record');
  if (o.reason !== undefined) oneOf(o, 'reason', ['pending_tools', 'yield'] as const, 'the record');
  num(o, 'createdAt', 'the record');
  num(o, 'updatedAt', 'the record');
  optional(o, ['expiresAt'], num, 'the record');
  const clock = checkRecordedClock(o.clock);
  if (!clock.ok) fail('clock', `is not a clock recording (${clock.error})`);
  if (clock.ok && clock.value.mode === undefined) fail('clock.mode', 'must say which clock the run read');
  const ids = new Set<string>();
  list(o.requests, 'requests').forEach((r, i) => {
    const where = `requests[${i}]`;
    const f = fields(r, where);
    const req = request(f.req, `${where}.req`);
    if (ids.has(req.id)) fail(`${where}.req.id`, 'repeats an earlier request id');
    ids.add(req.id);
    const record = nestedRecord(f.record, `${where}.record`);
    if (record.requestId !== req.id) fail(`${where}.record.requestId`, 'must be its request id');
    const delivered = bool(f, 'delivered', where);
    if (f.settled !== undefined && reply(f.settled, `${where}.settled`).id !== req.id) fail(`${where}.settled.id`, 'must be its request id');
    if (delivered && f.settled === undefined) fail(where, 'is delivered without a reply');
  });
  count(o, 'guestInFlight', 'the record');
  list(o.queued, 'queued').forEach((q, i) => request(q, `queued[${i}]`));
  optional(o, ['yieldRequestId'], str, 'the record');
  list(o.storeWrites, 'storeWrites').forEach((w, i) => {
    const where = `storeWrites[${i}]`;
    const f = fields(w, where);
    str(f, 'key', where);
    if (f.json !== null) str(f, 'json', where);
    bool(f, 'networkContent', where);
    optional(f, ['damaged'], str, where);
  });
  bool(o, 'networkContent', 'the record');
  bool(o, 'holdsSlot', 'the record');
  count(o, 'nestedCount', 'the record');
  const counters = fields(o.counters, 'counters');
  for (const k of ['search', 'describe', 'call']) count(counters, k, 'counters');
  list(o.calls, 'calls').forEach((c, i) => controlCall(c, `calls[${i}]`));
  list(o.snapshots, 'snapshots').forEach((s, i) => snapshot(s, `snapshots[${i}]`));
  if (o.lastResult !== undefined) lastResult(o.lastResult, 'lastResult');
  if (o.forkedFrom !== undefined) {
    const from = fields(o.forkedFrom, 'forkedFrom');
    str(from, 'runId', 'forkedFrom');
    count(from, 'suspension', 'forkedFrom');
  }
  list(o.forks, 'forks').forEach((f, i) => {
    if (typeof f !== 'string') fail(`forks[${i}]`, 'must be a run id');
  });
  if (o.continuation !== undefined) continuation(o.continuation, 'continuation');
  if (state === 'waiting' && o.continuation === undefined) fail('continuation', 'is missing: a waiting run holds one');
  return o as unknown as RunRecord;
}
