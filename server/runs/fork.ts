// Forking a waiting run (replay lab): its current snapshot restored into a new run of the same turn.
//
// A QuickJS continuation is plain bytes (an encoded VM snapshot), so two runs can hold the same one: the
// fork gets the parent's snapshot, its undelivered requests (answered by the caller's edited replies, by the
// reply the parent already holds, or dispatched again for the fork), its queue, buffered store writes,
// counters and history. The parent is not touched and can still be waited on. A Node continuation is a live
// context inside one worker: it cannot be copied, so a Node run cannot be forked.
import { InvalidInputError } from '../errors.ts';
import type { BridgeReply } from '../bridge/protocol.ts';
import { previewOf, previewOfError } from './preview.ts';
import { MAX_VALUE_DEPTH } from './bound.ts';
import { jsonShapeProblem } from '../util/json-shape.ts';
import { isTerminal, Run, type HostRequest } from './run.ts';
import type { ForkReply } from './types.ts';

/** How long an edited error message may be: a message, not a payload. */
export const MAX_FORK_ERROR_CHARS = 2_000;

/** The error code an edited error reply carries when the caller names none (the code a failing tool's error has). */
export const DEFAULT_FORK_ERROR_CODE = 'tool_error';

/** Why `run` cannot be forked now, or undefined when it can. */
export function forkRefusal(run: Run | undefined, runId: string): string | undefined {
  if (!run) return `no waiting run "${runId.slice(0, 80)}" to fork: it never existed, was released or expired; pick a waiting run from runs.list`;
  if (isTerminal(run.state)) return `run ${run.runId} is ${run.state}; only a waiting run can be forked (its snapshot is released when it ends)`;
  if (run.state !== 'waiting' || run.resuming) {
    return `run ${run.runId} is being resumed by a wait right now; fork it once that wait returns a waiting result`;
  }
  const cont = run.continuation;
  if (!cont || cont.executor !== 'quickjs') {
    return (
      `fork needs a snapshot of the cell's VM, and run ${run.runId} runs on the ${run.executorKind} executor, whose continuation ` +
      'is a live context that cannot be copied; run the cell on the quickjs executor to fork it'
    );
  }
  if (run.turn.abort.signal.aborted) return `the turn of run ${run.runId} has ended; start a new turn and run the cell again`;
  return undefined;
}

/** The suspension of `run` a fork restores now: how many waiting results it has returned (1 = its first). */
export function suspensionNumber(run: Run): number {
  return run.calls.filter((c) => c.status === 'waiting').length;
}

/** Check the caller's edited replies (hostile input) against the parent's pending calls; a reply per request id. */
export function checkForkReplies(parent: Run, replies: unknown): Map<string, BridgeReply> {
  const out = new Map<string, BridgeReply>();
  if (replies === undefined) return out;
  if (!Array.isArray(replies)) throw new InvalidInputError('fork: replies must be an array of { id, result } or { id, error, code? }');
  for (const [i, raw] of replies.entries()) {
    const where = `fork: replies[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new InvalidInputError(`${where} must be an object { id, result } or { id, error, code? }`);
    const r = raw as Partial<ForkReply> & Record<string, unknown>;
    const extra = Object.keys(r).filter((k) => !['id', 'result', 'error', 'code'].includes(k));
    if (extra.length > 0) throw new InvalidInputError(`${where} has unknown field(s) ${extra.slice(0, 3).join(', ')}; use id, result, error and code`);
    if (typeof r.id !== 'string') throw new InvalidInputError(`${where}.id must be the id of one of the run's pendingToolCalls`);
    const id = r.id;
    const host = parent.requests.get(id);
    const shown = `"${id.slice(0, 40)}"`;
    if (parent.queued.some((q) => q.id === id)) {
      throw new InvalidInputError(`${where}: call ${shown} is still queued inside the cell (not sent yet), so it cannot be answered; fork a later suspension`);
    }
    if (!host || host.delivered) throw new InvalidInputError(`${where}: run ${parent.runId} has no pending call ${shown}; answer one of its pendingToolCalls`);
    if (host.req.op === 'yield' || host.req.op === 'timer') {
      throw new InvalidInputError(`${where}: call ${shown} is a ${host.req.op === 'yield' ? 'yield' : 'timer'}, which has no result to edit; answer a tool call`);
    }
    if (out.has(id)) throw new InvalidInputError(`${where}: call ${shown} is answered twice; give one reply per call`);
    const hasError = r.error !== undefined;
    if (hasError && r.result !== undefined) throw new InvalidInputError(`${where}: give either result or error, not both`);
    if (hasError) {
      if (typeof r.error !== 'string' || r.error === '' || r.error.length > MAX_FORK_ERROR_CHARS) {
        throw new InvalidInputError(`${where}.error must be a message of 1 to ${MAX_FORK_ERROR_CHARS} characters`);
      }
      if (r.code !== undefined && (typeof r.code !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(r.code))) {
        throw new InvalidInputError(`${where}.code must be a snake_case error code such as "tool_error" (up to 64 characters)`);
      }
      out.set(id, { id, ok: false, error: r.error, code: r.code ?? DEFAULT_FORK_ERROR_CODE });
    } else {
      if (r.code !== undefined) throw new InvalidInputError(`${where}.code goes with error; a result has no code`);
      out.set(id, { id, ok: true, value: jsonCopy(r.result === undefined ? null : r.result, `${where}.result`) });
    }
  }
  return out;
}

/**
 * A JSON copy of `value`: what the guest receives is plain data, never an object the caller still holds. Bounded as
 * every value crossing into a guest is (MAX_VALUE_DEPTH): a deeper reply was taken here and failed only at the wait.
 */
function jsonCopy(value: unknown, what: string): unknown {
  const shape = jsonShapeProblem(value, { maxDepth: MAX_VALUE_DEPTH, maxNodes: Number.MAX_SAFE_INTEGER });
  if (shape) throw new InvalidInputError(`${what} ${shape}`);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new InvalidInputError(`${what} is not JSON data (${(err as Error).message}); pass plain JSON`);
  }
  if (text === undefined) throw new InvalidInputError(`${what} is not JSON data; pass plain JSON`);
  return JSON.parse(text);
}

/**
 * The fork of `parent` (the run mapped under `runId`): a new run of the same turn and cell holding the parent's
 * snapshot, with the caller's `replies` (hostile, checked) settled in it (Run.fork copies the rest). Returns it
 * with the requests it must dispatch again (the parent's unsettled calls the caller did not answer); the
 * RunManager maps it, claims its slot and dispatches them. Throws InvalidInputError when the run cannot be forked
 * or a reply is wrong.
 */
export function forkRun(parent: Run | undefined, runId: string, rawReplies: unknown): { parent: Run; fork: Run; redispatch: HostRequest[] } {
  const refusal = forkRefusal(parent, runId);
  if (refusal || !parent) throw new InvalidInputError(refusal ?? `no waiting run "${runId.slice(0, 80)}" to fork`);
  const replies = checkForkReplies(parent, rawReplies);
  const { fork, redispatch } = Run.fork(parent, { runId: parent.runId, suspension: suspensionNumber(parent) }, (copy) => {
    const edited = replies.get(copy.req.id);
    if (edited) settleByFork(copy, edited);
    return edited !== undefined;
  });
  return { parent, fork, redispatch };
}

function settleByFork(host: HostRequest, reply: BridgeReply): void {
  const now = Date.now();
  host.settled = reply;
  host.record.answeredBy = 'fork';
  host.record.endedAt = now;
  host.record.status = reply.ok ? 'ok' : 'error';
  if (reply.ok) {
    host.record.outputPreview = previewOf(reply.value);
    delete host.record.errorPreview;
  } else {
    host.record.errorCode = reply.code;
    host.record.errorPreview = previewOfError(reply.error);
    delete host.record.outputPreview;
  }
}
