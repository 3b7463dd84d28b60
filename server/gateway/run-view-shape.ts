// The board's view of a run as one Gateway publishes it for the others (run-views.ts): cut to a bound, each cut named, and checked when read back.
import type { ExecutorKind } from '../config/types.ts';
import type { ApprovalView, RunView } from '../runs/types.ts';
import { MAX_RUN_VIEW_SEALED_BYTES, type RunViewRow } from '../sessions/run-views.ts';

/** A published view keeps this much of the source (the runs list shows a preview of the same length). */
export const MAX_VIEW_CODE_CHARS = 1_000;
/** ...the latest this many control calls, nested calls (unfinished first), snapshots, approvals and client calls. */
export const MAX_VIEW_CALLS = 20;
export const MAX_VIEW_NESTED = 50;
export const MAX_VIEW_SNAPSHOTS = 5;
export const MAX_VIEW_APPROVALS = 16;
export const MAX_VIEW_CLIENT_CALLS = 16;
export const MAX_VIEW_PENDING_CALLS = 64;
/** An input (a pending call's, an approval's, a client call's) longer than this as JSON is replaced by a note saying its size. */
export const MAX_VIEW_INPUT_CHARS = 4_096;
/** The plaintext sealed at most: the store's bound less the seal's header, IV and tag. */
export const MAX_VIEW_PLAINTEXT_BYTES = MAX_RUN_VIEW_SEALED_BYTES - 512;
/** The base image id views are sealed under (a view is not a snapshot: any build of this format opens it). */
export const VIEW_SEAL_BASE = 'codemode-run-view-1';
const VIEW_FORMAT = 1;
const EXECUTORS: readonly ExecutorKind[] = ['node', 'quickjs', 'quickjs-emscripten'];

/** The sealed plaintext: the view cut to what a board needs, its approvals, and what was cut. */
interface SealedView {
  v: number;
  view: RunView;
  approvals: ApprovalView[];
  cut: string[];
}

/** `view` and its approvals cut to at most MAX_VIEW_PLAINTEXT_BYTES as JSON, each cut named. */
export function boundedView(view: RunView, approvals: ApprovalView[]): SealedView {
  const cut: string[] = [];
  const keep = <T>(items: T[], max: number, what: string): T[] => {
    if (items.length <= max) return items;
    cut.push(`${items.length - max} earlier ${what}`);
    return items.slice(items.length - max);
  };
  const unfinished = view.nested.filter((n) => n.endedAt === undefined);
  const finished = view.nested.filter((n) => n.endedAt !== undefined);
  const nested = unfinished.length >= MAX_VIEW_NESTED ? unfinished.slice(0, MAX_VIEW_NESTED) : [...unfinished, ...finished.slice(Math.max(0, finished.length - (MAX_VIEW_NESTED - unfinished.length)))];
  if (nested.length < view.nested.length) cut.push(`${view.nested.length - nested.length} nested calls`);
  const { lastResult: _lastResult, meter: _meter, ...rest } = view;
  const out: RunView = {
    ...rest,
    code: cutText(view.code, MAX_VIEW_CODE_CHARS, 'source', cut),
    calls: keep(view.calls, MAX_VIEW_CALLS, 'control calls'),
    nested,
    ...(nested.length < view.nested.length || view.nestedOmitted ? { nestedOmitted: (view.nestedOmitted ?? 0) + view.nested.length - nested.length } : {}),
    snapshots: keep(view.snapshots, MAX_VIEW_SNAPSHOTS, 'snapshots'),
    pendingToolCalls: keep(view.pendingToolCalls, MAX_VIEW_PENDING_CALLS, 'pending calls').map((p) => ({ ...p, input: cutInput(p.input, cut) })),
    clientCalls: keep(view.clientCalls, MAX_VIEW_CLIENT_CALLS, 'client calls').map((c) => ({ ...c, input: cutInput(c.input, cut) })),
    ...(view.forks ? { forks: view.forks.slice(-MAX_VIEW_CALLS) } : {}),
  };
  const kept = approvals.slice(0, MAX_VIEW_APPROVALS).map((a) => ({ ...a, input: cutInput(a.input, cut), code: cutText(a.code, MAX_VIEW_CODE_CHARS, 'approval source', cut) }));
  if (approvals.length > kept.length) cut.push(`${approvals.length - kept.length} approvals`);
  let sealed: SealedView = { v: VIEW_FORMAT, view: out, approvals: kept, cut };
  // still too large (many large calls): the lists go, then the inputs, each said
  if (jsonBytes(sealed) > MAX_VIEW_PLAINTEXT_BYTES) {
    sealed = { ...sealed, view: { ...sealed.view, calls: [], nested: [], snapshots: [], nestedOmitted: view.nested.length + (view.nestedOmitted ?? 0) }, cut: [...cut, 'every control and nested call (the view was too large)'] };
  }
  if (jsonBytes(sealed) > MAX_VIEW_PLAINTEXT_BYTES) {
    const note = (input: unknown) => ({ cut: `an input of ${jsonBytes(input)} bytes` });
    sealed = {
      ...sealed,
      view: { ...sealed.view, code: sealed.view.code.slice(0, 200), pendingToolCalls: sealed.view.pendingToolCalls.map((p) => ({ ...p, input: note(p.input) })), clientCalls: sealed.view.clientCalls.map((c) => ({ ...c, input: note(c.input) })) },
      approvals: sealed.approvals.map((a) => ({ ...a, input: note(a.input), code: a.code.slice(0, 200) })),
      cut: [...sealed.cut, 'every input and most of the source (the view was too large)'],
    };
  }
  return sealed;
}

function cutText(text: string, max: number, what: string, cut: string[]): string {
  if (text.length <= max) return text;
  cut.push(`${text.length - max} characters of the ${what}`);
  return text.slice(0, max);
}

function cutInput(input: unknown, cut: string[]): unknown {
  const bytes = jsonBytes(input);
  if (bytes <= MAX_VIEW_INPUT_CHARS) return input;
  cut.push(`an input of ${bytes} bytes`);
  return { cut: `an input of ${bytes} bytes (open the run on its Gateway to see it)` };
}

function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return 0;
  }
}

/** What a row says without its sealed view: ids, state, executor and counts, and who holds it. */
export function idsOnlyView(row: RunViewRow, held: { gatewayId: string; approvals: number; clientCalls: number }): RunView {
  return {
    runId: row.runId,
    agentRunId: row.agentRunId,
    sessionId: row.sessionId,
    agentId: `(held by Gateway ${row.holder})`,
    executor: (EXECUTORS as readonly string[]).includes(row.executor) ? (row.executor as ExecutorKind) : 'quickjs',
    state: row.state,
    language: 'javascript',
    code: '',
    seed: 0,
    clock: 'real',
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    maxSnapshotBytes: 0,
    pendingToolCalls: [],
    clientCalls: [],
    snapshots: [],
    calls: [],
    nested: [],
    heldBy: { ...held, detail: 'ids' },
  };
}

/** The sealed view checked against its row (hostile even when authenticated: another build may have written it), or why not. */
export function checkedView(plaintext: Uint8Array, row: RunViewRow): { view: RunView; approvals: ApprovalView[]; cut: string[] } | string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(plaintext).toString('utf8'));
  } catch {
    return 'it is not JSON';
  }
  if (!isObject(value) || value.v !== VIEW_FORMAT) return `it is not a run view of format ${VIEW_FORMAT}`;
  const { view, approvals, cut } = value;
  if (!isObject(view)) return 'it holds no view';
  if (view.runId !== row.runId || view.sessionId !== row.sessionId || view.agentRunId !== row.agentRunId) return 'its ids are not its row\'s';
  for (const field of ['agentId', 'code', 'language', 'clock'] as const) if (typeof view[field] !== 'string') return `its ${field} is not text`;
  for (const field of ['calls', 'nested', 'snapshots', 'pendingToolCalls', 'clientCalls'] as const) if (!Array.isArray(view[field])) return `its ${field} is not a list`;
  for (const field of ['createdAt', 'updatedAt', 'seed', 'maxSnapshotBytes'] as const) if (typeof view[field] !== 'number') return `its ${field} is not a number`;
  if (!(view.clientCalls as unknown[]).every((c) => isObject(c) && typeof c.callId === 'string' && typeof c.tool === 'string')) return 'a client call is not a call';
  if (!Array.isArray(approvals) || !approvals.every((a) => isObject(a) && typeof a.approvalId === 'string' && a.runId === row.runId && typeof a.tool === 'string' && typeof a.code === 'string' && typeof a.requestedAt === 'number')) {
    return 'its approvals are not approvals of the run';
  }
  const cuts = Array.isArray(cut) ? cut.filter((c): c is string => typeof c === 'string').slice(0, 20) : [];
  // the row's state and executor are the checked ones; a view never claims to be a durable row here
  const { durableRow: _durableRow, heldBy: _heldBy, ...rest } = view as unknown as RunView;
  return { view: { ...rest, state: row.state, executor: (EXECUTORS as readonly string[]).includes(row.executor) ? (row.executor as ExecutorKind) : rest.executor }, approvals: approvals as ApprovalView[], cut: cuts };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

