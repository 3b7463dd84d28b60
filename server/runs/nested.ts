// A run's nested calls: each guest request of a frontier is checked, recorded in the trajectory and dispatched
// on the Gateway with the run's scope; each reply is recorded, then delivered into the live VM or kept for the
// next wait. The run record (run.ts) admits requests, counts them in flight, holds the slot and decides a failure;
// this module owns the call records (their previews, status and timing) and when a reply goes where.
import { dispatchRequest } from '../bridge/dispatcher.ts';
import { describeRequest, resolveCallTarget, type NestedCallKind } from '../bridge/describe.ts';
import { observe } from '../catalog/infer-type.ts';
import { wantsInference } from '../catalog/inferred-overlay.ts';
import type { BridgeReply, BridgeRequest } from '../bridge/protocol.ts';
import { hostFaultMessage, malformedFrontierMessage } from './messages.ts';
import { previewOfError, previewOfJson } from './preview.ts';
import { textTokens } from './tokens.ts';
import type { HostRequest, LiveLeg, Run } from './run.ts';
import type { NestedCallRecord } from './types.ts';

/** What only the run can check about a frontier: fresh unique ids, the in-flight cap, cancels of its own ids. */
export function checkFrontier(run: Run, requests: BridgeRequest[], cancels: string[]): string | undefined {
  const cap = run.turn.options.maxPendingToolCalls;
  if (run.guestInFlight + requests.length > cap) {
    return `${run.guestInFlight + requests.length} requests in flight, over maxPendingToolCalls ${cap}`;
  }
  const fresh = new Set<string>();
  for (const req of requests) {
    if (run.requests.has(req.id) || fresh.has(req.id)) return `request id ${req.id} was already used by this run`;
    fresh.add(req.id);
  }
  for (const id of cancels) {
    if (!run.requests.has(id) && !fresh.has(id)) return `cancel of request id ${id.slice(0, 64)}, which this run never sent`;
  }
  return undefined;
}

/** Admit a checked request into the run (counted in flight) and open its trajectory record under the exec/wait call `parentCallId`. */
export function openNestedCall(run: Run, req: BridgeRequest, parentCallId: string): HostRequest {
  const { label, kind, input } = describeRequest(req, run.catalog);
  const inputJson = jsonOf(input);
  return run.admitRequest(req, kind, (invocationId): NestedCallRecord => ({
    invocationId,
    requestId: req.id,
    tool: label,
    kind,
    inputBytes: Buffer.byteLength(JSON.stringify(req), 'utf8'),
    startedAt: Date.now(),
    status: 'running',
    parentCallId,
    inputPreview: previewOfJson(inputJson),
    // a call direct tool calling would make itself: the meter counts what the model would have written
    // (the JSON of { name, arguments }, built from the input's JSON made once above)
    ...(isToolCall(kind) ? { inputTokens: textTokens(`{"name":${JSON.stringify(label)},"arguments":${inputJson}}`) } : {}),
  }));
}

/** One synchronous frontier from the live leg `live`: checked whole, then each request dispatched, then the guest's cancels. */
export function onRequests(run: Run, live: LiveLeg, requests: BridgeRequest[], cancels: string[]): void {
  if (run.live !== live || run.released) return;
  const violation = checkFrontier(run, requests, cancels);
  if (violation) {
    run.failByHost('invalid_input', malformedFrontierMessage(violation));
    return;
  }
  if (requests.length > 0) {
    // a run's first request takes a slot of the process-wide cap; with none free the run fails
    const full = run.claimSlot();
    if (full !== undefined) return run.failByHost('runtime_unavailable', full);
  }
  try {
    for (const req of requests) {
      // a request that failed the run (a replay mismatch, the headless cap) stops the rest of its frontier: none of it runs
      if (run.hostFailure || run.released) break;
      dispatch(run, req, live.call.callId);
    }
    // after dispatch: a timer sent and cleared within one frontier is cancelled, not left to fire
    for (const id of cancels) run.requests.get(id)?.cancel?.();
  } catch (err) {
    run.failByHost('internal_error', hostFaultMessage("dispatch this cell's requests", err));
  }
}

function dispatch(run: Run, req: BridgeRequest, parentCallId: string): void {
  if (req.op === 'call' && !withinHeadlessLimit(run)) return;
  const host = openNestedCall(run, req, parentCallId);
  run.host.emit({ type: 'nested.started', runId: run.runId, at: Date.now(), call: { ...host.record } });
  if (req.op === 'yield') return run.answerYield(host);
  if (req.op === 'call' && run.cell.replay) return answerFromCassette(run, host, req);
  send(run, host);
}

/**
 * Spec 02: headless execution has a total tool-call limit ("Queueing does not raise memory, snapshot, time, or
 * headless total tool-call limits"). A headless turn's cells share maxHeadlessToolCalls; the call past it fails its
 * run, like the other limits (a catch in the cell cannot loop past it), and is never dispatched.
 */
function withinHeadlessLimit(run: Run): boolean {
  const turn = run.turn;
  if (!turn.headless) return true;
  const max = turn.options.maxHeadlessToolCalls;
  if (turn.toolCalls >= max) {
    run.failByHost(
      'invalid_input',
      `this headless turn has made ${max} tool calls, its limit (tools.codeMode.maxHeadlessToolCalls); nobody reads a headless turn between its calls, ` +
        'so it is bounded: split the work across turns, or raise the limit in the config',
    );
    return false;
  }
  turn.toolCalls++;
  return true;
}

/** Replay: a tool call is answered from the run's cassette and never dispatched; one it does not hold fails the run. */
function answerFromCassette(run: Run, host: HostRequest, req: Extract<BridgeRequest, { op: 'call' }>): void {
  const out = run.cell.replay!.answer(req, host.record.tool);
  if ('mismatch' in out) {
    run.failByHost('replay_mismatch', out.mismatch);
    return;
  }
  host.record.answeredBy = 'cassette';
  // after the frontier, as a dispatched call's reply would come
  const json = () => (out.reply.ok ? JSON.stringify(out.reply.value) : undefined);
  queueMicrotask(() => hostStep(run, 'answer this call from the cassette', () => onReply(run, host, out.reply, json())));
}

/** A host step on guest data that no caller awaits (a microtask, a fork's redispatch): a throw fails the run, never the process. */
function hostStep(run: Run, what: string, step: () => void): void {
  try {
    step();
  } catch (err) {
    run.failByHost('internal_error', hostFaultMessage(what, err));
  }
}

/**
 * A fork's copy of a request its parent had sent and not settled: dispatched again, for the fork (its scope,
 * its signal, its approvals). Its record was copied with the request; it starts over.
 */
export function redispatch(run: Run, host: HostRequest): void {
  host.record.startedAt = Date.now();
  host.record.status = 'running';
  run.host.emit({ type: 'nested.started', runId: run.runId, at: Date.now(), call: { ...host.record } });
  hostStep(run, "dispatch this cell's requests", () => send(run, host));
}

function send(run: Run, host: HostRequest): void {
  const dispatched = dispatchRequest(run.dispatch, host.req, host.record.invocationId);
  host.cancel = dispatched.cancel;
  void dispatched.reply
    .then((reply) => onReply(run, host, reply, dispatched.outputJson))
    .catch((err: unknown) => run.failByHost('internal_error', hostFaultMessage('deliver a reply to this cell', err)));
}

/**
 * A nested request settled. Into a live VM the reply goes first: it waits in the leg's outbox for the flush,
 * which sends it and only then ends its record and emits nested.finished, so the Gateway's bookkeeping runs
 * while the worker already computes (on a sequential loop of calls the two threads overlap instead of taking
 * turns). Otherwise the record ends now and the reply is kept for the next wait.
 */
function onReply(run: Run, host: HostRequest, reply: BridgeReply, outputJson: string | undefined): void {
  const live = run.live;
  if (run.ended || !live || live.parkRequested) {
    finishReply(run, host, reply, outputJson);
    if (run.ended) return;
    run.replyKept();
    return;
  }
  host.settled = reply;
  host.unrecorded = { outputJson };
  const outbox = (live.outbox ??= []);
  outbox.push(host);
  // replies that settle in the same microtask checkpoint (a Promise.all of fast calls) go in one message
  if (outbox.length === 1) queueMicrotask(() => flushReplies(run, live));
}

/** The message a call lost with the process that dispatched it settles with (code unknown_outcome): the cell decides. */
export const UNKNOWN_OUTCOME_MESSAGE =
  'the Gateway restarted while this call was in flight, so its outcome is unknown (it may or may not have taken effect); it was not run again: check its effect, or call it again if that is safe';

/**
 * Whether a request whose outcome went with a restarted process may simply be sent again: catalog reads, timers and
 * session-store reads and buffered writes (nothing left the run), and tool calls whose tool says it is replay-safe
 * (audited read-only core tools, plugin tools that declare `replaySafe`). Everything else may have had an effect.
 */
export function replaySafeRequest(run: Run, req: BridgeRequest): boolean {
  if (req.op === 'search' || req.op === 'all' || req.op === 'describe' || req.op === 'timer' || req.op === 'store') return true;
  if (req.op !== 'call') return false;
  return resolveCallTarget(run.catalog, req)?.tool.replaySafe === true;
}

/**
 * A call of a client tool (a catalog entry without `execute`): nothing of it ran on the host, and the client answers
 * it by its call id, once. Asked again after a restore, the client that held the call answers it as before.
 */
function clientToolRequest(run: Run, req: BridgeRequest): boolean {
  if (req.op !== 'call' || req.mcp) return false;
  const entry = resolveCallTarget(run.catalog, req);
  return entry !== undefined && entry.tool.execute === undefined;
}

/**
 * A restored run's requests that were in flight when its record was written (their outcome went with that process):
 * replay-safe ones are dispatched again under their invocation ids, and so are client-tool calls (the client is asked
 * again under the same call id, and its answer reaches the cell); every other one settles in the cell as a catchable
 * error with code unknown_outcome, never silently run again. Returns how many of each.
 */
export function recoverInFlight(run: Run): { redispatched: number; unknown: number } {
  let redispatched = 0;
  let unknown = 0;
  for (const host of [...run.requests.values()]) {
    if (host.settled || host.delivered) continue;
    if (replaySafeRequest(run, host.req) || clientToolRequest(run, host.req)) {
      redispatched++;
      redispatch(run, host);
    } else {
      unknown++;
      onReply(run, host, { id: host.req.id, ok: false, error: UNKNOWN_OUTCOME_MESSAGE, code: 'unknown_outcome' }, undefined);
    }
  }
  return { redispatched, unknown };
}

/** The reply's record ends and the board hears of it. */
function finishReply(run: Run, host: HostRequest, reply: BridgeReply, outputJson: string | undefined): void {
  recordReply(run, host, reply, outputJson);
  run.host.emit({ type: 'nested.finished', runId: run.runId, at: Date.now(), call: { ...host.record } });
}

/** Ends the records of replies that went into the VM ahead of them (onReply), each once. */
function finishUnrecorded(run: Run, hosts: HostRequest[]): void {
  for (const h of hosts) {
    if (!h.unrecorded || !h.settled) continue;
    const { outputJson } = h.unrecorded;
    h.unrecorded = undefined;
    finishReply(run, h, h.settled, outputJson);
  }
}

/**
 * Deliver the replies queued for `live` in one message (if the leg is no longer live, keep them for the next
 * wait), then end their records. A record ends even when delivery throws: the caller reports the failure.
 */
function flushReplies(run: Run, live: LiveLeg): void {
  const outbox = live.outbox ?? [];
  live.outbox = undefined;
  try {
    deliverOutbox(run, live, outbox);
  } finally {
    finishUnrecorded(run, outbox);
  }
}

function deliverOutbox(run: Run, live: LiveLeg, outbox: HostRequest[]): void {
  // a wait may have taken some already (deliverPending): those are not sent twice
  const hosts = outbox.filter((h) => !h.delivered);
  if (hosts.length === 0 || run.ended) return;
  if (run.live !== live || live.parkRequested) {
    // the board's view must show these records ended: end them before it hears of the run
    finishUnrecorded(run, outbox);
    run.replyKept();
    return;
  }
  live.leg.deliver(run.deliverReplies(hosts));
}

/**
 * A nested request settled: its record ends (canceled when the run was aborted) and its client call is done.
 * `outputJson` is the reply value's compact JSON when the dispatcher already made it (one serialization serves
 * the byte count, the preview and the token count).
 */
export function recordReply(run: Run, host: HostRequest, reply: BridgeReply, outputJson: string | undefined): void {
  const { req, record } = host;
  host.settled = reply;
  record.endedAt = Date.now();
  record.status = reply.ok ? 'ok' : run.signal.aborted ? 'canceled' : 'error';
  if (reply.ok) {
    const json = outputJson ?? JSON.stringify(reply.value) ?? 'null';
    record.outputBytes = Buffer.byteLength(json, 'utf8');
    record.outputPreview = previewOfJson(json);
    // the full result a model would read under direct calling (the preview is cut; this counts all of it)
    if (isToolCall(record.kind)) record.outputTokens = textTokens(json);
  } else {
    record.outputBytes = undefined;
    record.errorCode = reply.code;
    record.errorPreview = previewOfError(reply.error);
    if (isToolCall(record.kind)) record.outputTokens = textTokens(reply.error);
  }
  if (reply.ok && req.op === 'call') observeOutput(run, req, record.tool, reply.value);
  run.clientCallSettled(req.id);
}

/** A result of a tool that declares no output goes into the turn's inferred type for it (declared types always win). */
function observeOutput(run: Run, req: Extract<BridgeRequest, { op: 'call' }>, label: string, value: unknown): void {
  const entry = resolveCallTarget(run.catalog, req);
  if (!entry || !wantsInference(entry)) return;
  const seen = run.turn.inferredOutputs.get(label);
  run.turn.inferredOutputs.set(label, { shape: observe(seen?.shape, value), samples: (seen?.samples ?? 0) + 1 });
}

/** A value's compact JSON as previews and token counts read it (what JSON cannot hold reads as null). */
function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return 'null';
  }
}

/** A tool, MCP or client call: what a model would call itself without code mode. */
function isToolCall(kind: NestedCallKind): boolean {
  return kind === 'tool' || kind === 'mcp' || kind === 'client';
}
