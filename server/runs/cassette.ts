// Cassettes (replay lab): a run's nested tool calls recorded once, and a replay that answers a cell's calls from them.
//
// A cassette holds what a run's tool calls (op `call`: catalog tools, MCP tools, client tools) were given and
// returned, in dispatch order, with the run's seed, source, final result and every clock reading the guest made
// (clock.ts). Replaying a cell against it answers every tool call from the cassette (matched by tool and input:
// the first unused entry with both equal), so no tool runs, and hands the guest the recorded clock readings in
// order; a call it does not hold, or one clock reading more than it recorded, fails the run with
// `replay_mismatch` naming the call or the reading. A cassette without readings (recorded before they were kept)
// replays with its seed's logical clock. Everything else the bridge serves (timers, catalog search, API, store)
// runs as usual. A cassette file is hostile input: parseCassette checks every field and bounds its sizes before
// anything reads it.
import { InvalidInputError } from '../errors.ts';
import { describeRequest } from '../bridge/describe.ts';
import type { BridgeReply, BridgeRequest } from '../bridge/protocol.ts';
import type { ExecutorKind } from '../config/types.ts';
import { EXECUTOR_KINDS } from '../config/schema.ts';
import type { Run } from './run.ts';
import { checkRecordedClock, type RecordedClock } from './clock.ts';
import { MAX_VALUE_DEPTH } from './bound.ts';
import { jsonShapeProblem } from '../util/json-shape.ts';

export const CASSETTE_FORMAT = 'codemode-cassette';
export const CASSETTE_VERSION = 1;
/** Calls one cassette may hold: far more than a cell makes (maxPendingToolCalls in flight, 128 queued, many rounds). */
export const MAX_CASSETTE_CALLS = 10_000;
/** A tool label is a callable name or `MCP.server.tool`; longer is not one. */
export const MAX_CASSETTE_TOOL_CHARS = 300;

export interface CassetteCall {
  /** The callable name the guest used (`sleep`, `MCP.demo.echo`). */
  tool: string;
  input: unknown;
  ok: boolean;
  value?: unknown;
  error?: string;
  code?: string;
  /** When it started, from the run's start (ms), and how long it took: what the recording saw, for reading only. */
  atMs?: number;
  durationMs?: number;
}

export interface Cassette {
  format: typeof CASSETTE_FORMAT;
  version: typeof CASSETTE_VERSION;
  /** The run it was recorded from. */
  runId?: string;
  seed: number;
  executor?: ExecutorKind;
  language: 'javascript' | 'typescript';
  /** The cell's source as the run shows it (credentials masked). */
  code: string;
  calls: CassetteCall[];
  /**
   * Every clock reading the guest made (Date.now, new Date(), Date(), performance.now), as run-length pairs; a
   * replay returns them in order. Absent in cassettes recorded before readings were kept: those replay with the
   * seed's logical clock.
   */
  clock?: RecordedClock;
  /** The run's outcome when it was recorded (absent while it was still waiting). */
  result?: { status: 'completed'; value: unknown } | { status: 'failed'; error: string; code?: string };
}

/** The cassette of `run` as it stands: its settled tool calls in dispatch order, its seed and outcome. */
export function recordCassette(run: Run): Cassette {
  const calls: CassetteCall[] = [];
  for (const host of run.requests.values()) {
    if (host.req.op !== 'call' || !host.settled || host.record.status === 'canceled') continue;
    const { label, input } = describeRequest(host.req, run.catalog);
    const reply = host.settled;
    const timing = { atMs: Math.max(0, host.record.startedAt - run.createdAt), ...(host.record.endedAt !== undefined ? { durationMs: host.record.endedAt - host.record.startedAt } : {}) };
    calls.push(reply.ok ? { tool: label, input, ok: true, value: reply.value ?? null, ...timing } : { tool: label, input, ok: false, error: reply.error, ...(reply.code ? { code: reply.code } : {}), ...timing });
  }
  const last = run.lastResult;
  const result: Cassette['result'] =
    last?.status === 'completed' ? { status: 'completed', value: last.value } : last?.status === 'failed' ? { status: 'failed', error: last.error, ...(last.code ? { code: last.code } : {}) } : undefined;
  return {
    format: CASSETTE_FORMAT,
    version: CASSETTE_VERSION,
    runId: run.runId,
    seed: run.cell.seed,
    executor: run.executorKind,
    language: run.cell.language,
    code: run.displayCode,
    calls,
    clock: run.clock.toJSON(),
    ...(result ? { result } : {}),
  };
}

/**
 * JSON with object keys sorted: two inputs match when their canonical texts are equal. Every own key counts: the
 * sorted copy is built with fromEntries (defined properties), so an own "__proto__" key stays a key (an assignment
 * set the copy's prototype instead, and an input with an extra "__proto__" matched one without it).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const record = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]]));
  }) ?? 'null';
}

const bad = (what: string, fix: string) => new InvalidInputError(`cassette: ${what}; ${fix}`);

/** `raw` (parsed JSON from a file or a request) as a Cassette, every field checked; InvalidInputError names the first wrong one. */
export function parseCassette(raw: unknown): Cassette {
  const fix = `record one with runs.cassette or \`codemode run --record FILE\``;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad('it is not a JSON object', fix);
  const c = raw as Record<string, unknown>;
  if (c.format !== CASSETTE_FORMAT) throw bad(`format must be "${CASSETTE_FORMAT}"`, fix);
  if (c.version !== CASSETTE_VERSION) throw bad(`version ${String(c.version).slice(0, 20)} is not supported (this Gateway reads version ${CASSETTE_VERSION})`, fix);
  if (typeof c.seed !== 'number' || !Number.isInteger(c.seed) || c.seed < 0 || c.seed > 0xffff_ffff) throw bad('seed must be an integer from 0 to 4294967295', fix);
  if (c.language !== 'javascript' && c.language !== 'typescript') throw bad('language must be "javascript" or "typescript"', fix);
  if (typeof c.code !== 'string') throw bad('code must be the cell source as a string', fix);
  if (c.executor !== undefined && !(EXECUTOR_KINDS as readonly unknown[]).includes(c.executor)) throw bad(`executor must be one of ${EXECUTOR_KINDS.map((k) => `"${k}"`).join(', ')}`, fix);
  if (c.runId !== undefined && (typeof c.runId !== 'string' || c.runId.length > 200)) throw bad('runId must be a run id string', fix);
  if (!Array.isArray(c.calls)) throw bad('calls must be an array', fix);
  if (c.calls.length > MAX_CASSETTE_CALLS) throw bad(`it holds ${c.calls.length} calls, over ${MAX_CASSETTE_CALLS}`, 'record a smaller run');
  const calls = c.calls.map((call, i) => checkCall(call, i, fix));
  const out: Cassette = { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, seed: c.seed, language: c.language, code: c.code, calls };
  if (c.executor !== undefined) out.executor = c.executor as ExecutorKind;
  if (c.clock !== undefined) {
    const clock = checkRecordedClock(c.clock);
    if (!clock.ok) throw bad(clock.error, fix);
    out.clock = clock.value;
  }
  if (c.runId !== undefined) out.runId = c.runId as string;
  if (c.result !== undefined) {
    const shape = jsonShapeProblem(c.result, { maxDepth: MAX_VALUE_DEPTH, maxNodes: Number.MAX_SAFE_INTEGER });
    if (shape) throw bad(`result ${shape}`, fix);
    out.result = checkResult(c.result, fix);
  }
  return out;
}

function checkCall(raw: unknown, i: number, fix: string): CassetteCall {
  const where = `calls[${i}]`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad(`${where} is not an object`, fix);
  const c = raw as Record<string, unknown>;
  if (typeof c.tool !== 'string' || c.tool === '' || c.tool.length > MAX_CASSETTE_TOOL_CHARS) throw bad(`${where}.tool must be a tool's callable name`, fix);
  if (!('input' in c)) throw bad(`${where}.input is missing`, fix);
  if (typeof c.ok !== 'boolean') throw bad(`${where}.ok must be true or false`, fix);
  // what a replay hands the cell is a value like any tool's: bounded as values are (a recorded value nested 5000
  // deep overflowed the host's serializer in a microtask, killing the CLI and stranding the server's run)
  for (const k of ['input', 'value'] as const) {
    const shape = jsonShapeProblem(c[k], { maxDepth: MAX_VALUE_DEPTH, maxNodes: Number.MAX_SAFE_INTEGER });
    if (shape) throw bad(`${where}.${k} ${shape}`, fix);
  }
  const call: CassetteCall = { tool: c.tool, input: c.input, ok: c.ok };
  if (c.ok) call.value = c.value === undefined ? null : c.value;
  else {
    if (typeof c.error !== 'string') throw bad(`${where}.error must be the error message (ok is false)`, fix);
    call.error = c.error;
    if (c.code !== undefined) {
      if (typeof c.code !== 'string' || c.code.length > 64) throw bad(`${where}.code must be an error code string`, fix);
      call.code = c.code;
    }
  }
  for (const k of ['atMs', 'durationMs'] as const) {
    if (c[k] === undefined) continue;
    if (typeof c[k] !== 'number' || !Number.isFinite(c[k])) throw bad(`${where}.${k} must be a number`, fix);
    call[k] = c[k];
  }
  return call;
}

function checkResult(raw: unknown, fix: string): NonNullable<Cassette['result']> {
  const r = raw as Record<string, unknown> | null;
  if (r && typeof r === 'object' && r.status === 'completed') return { status: 'completed', value: r.value ?? null };
  if (r && typeof r === 'object' && r.status === 'failed' && typeof r.error === 'string') {
    return { status: 'failed', error: r.error, ...(typeof r.code === 'string' ? { code: r.code } : {}) };
  }
  throw bad('result must be { status: "completed", value } or { status: "failed", error, code? }', fix);
}

/** Answers a replaying run's tool calls from a cassette: each entry once, the first unused one whose tool and input match. */
export class CassetteReplayer {
  private readonly used: boolean[];
  private readonly keys: string[];

  /** `used`: indexes of calls an earlier replayer of the same run already answered (a run record read back). */
  constructor(
    readonly cassette: Cassette,
    used: readonly number[] = [],
  ) {
    this.used = cassette.calls.map(() => false);
    for (const i of used) this.used[i] = true;
    this.keys = cassette.calls.map((c) => `${c.tool}\0${canonicalJson(c.input)}`);
  }

  /** Indexes of the calls answered so far (what a run record keeps of the replay). */
  usedCalls(): number[] {
    const out: number[] = [];
    this.used.forEach((u, i) => u && out.push(i));
    return out;
  }

  /** The reply for request `req` (op `call`) labelled `tool`, or a replay_mismatch message naming the call. */
  answer(req: Extract<BridgeRequest, { op: 'call' }>, tool: string): { reply: BridgeReply } | { mismatch: string } {
    const key = `${tool}\0${canonicalJson(req.input)}`;
    const i = this.keys.findIndex((k, j) => !this.used[j] && k === key);
    if (i < 0) return { mismatch: this.mismatch(tool, req.input) };
    this.used[i] = true;
    const c = this.cassette.calls[i]!;
    return { reply: c.ok ? { id: req.id, ok: true, value: c.value ?? null } : { id: req.id, ok: false, error: c.error ?? 'error', ...(c.code ? { code: c.code } : {}) } };
  }

  private mismatch(tool: string, input: unknown): string {
    const shown = canonicalJson(input);
    const next = this.cassette.calls.find((_c, j) => !this.used[j]);
    const expected = next ? `the next unused call it holds is ${next.tool}(${canonicalJson(next.input).slice(0, 200)})` : 'every call it holds was already used';
    return (
      `replay_mismatch: the cell called ${tool}(${shown.slice(0, 200)}), which the cassette does not hold (${expected}). ` +
      'The cell or its tool results changed since the recording: record the cassette again, or fix the cell.'
    );
  }
}
