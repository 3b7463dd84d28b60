// Host side of the bridge: turns one guest request into one reply, re-entering the Gateway with the
// run's agent, session, policy, hooks, approvals and abort signal.
//
// Guest requests are hostile input, checked once (protocol-check.mjs checkBridgeRequest, on the host in
// routeWorkerMessage) before they get here: every field has its protocol type. What the protocol leaves
// open is checked here: a call's input must be one object; a tool is found only through the run's finalized projection
// (callable name or MCP path), never by id; denied tools are simply not in it. Values the guest
// stores or saves are parsed and re-serialized by the host, and bounded as the host wrote them.
// Failures become replies with a `code`, which the guest controller raises as catchable errors.
// A tool's result is checked against its declared output schema here, on the value as it will cross the
// bridge, for every source alike (an MCP tool's `structuredContent`), so a cell never receives data that
// contradicts the declaration it was typed against; client tools' inputs are checked here too, since no
// execute of theirs runs on the host.
import type { Catalog, CatalogEntry } from '../catalog/types.ts';
import type { CodeModeOptions } from '../config/types.ts';
import { InvalidInputError, ToolError } from '../errors.ts';
import type { ToolContext } from '../tools/types.ts';
import type { BridgeReply, BridgeRequest } from './protocol.ts';
import type { CallScheduler } from './scheduler.ts';
import { describeRequest, resolveCallTarget } from './describe.ts';
import type { ResultsStore } from '../results/store.ts';
import type { SessionStore, StoredValue } from '../sessions/store.ts';
import { searchCatalog, clampSearchLimit } from '../catalog/search.ts';
import { describeTool, mcpServerApi } from '../catalog/build.ts';
import { bootTool, everyBootTool } from '../catalog/boot-tools.ts';
import { canonicalJson, DAMAGED_VALUE_CODE, damagedValueMessage, describeType } from '../sessions/store-value.ts';
import { isRecord } from '../util/is-record.mjs';
import { validateToolInput, validateToolOutput } from '../tools/validate.ts';
import { MAX_SLEEP_MS } from '../tools/core/sleep.ts';

/**
 * The longest a guest timer waits: the sleep tool's cap. A longer delay is clamped to it (the guest controller
 * clamps first, MAX_TIMER_MS in server/guest/prelude.js): a timer set for days (2 ** 31 ms, 1e300) would
 * otherwise keep its run waiting, and its suspended-run slot taken, for as long as the host's own timer allows.
 */
export const MAX_TIMER_DELAY_MS = MAX_SLEEP_MS;

/** What a nested tool call needs from the Gateway besides the tool itself. */
export interface NestedCallHooks {
  /** before_tool_call hooks: may block (reason) or rewrite the input. */
  beforeToolCall(entry: CatalogEntry, input: unknown, invocationId: string, requestId: string): Promise<{ blocked?: string; input: unknown }>;
  /** Resolves true/false when an operator decides; the run's budget pauses meanwhile. */
  requestApproval(entry: CatalogEntry, input: unknown, requestId: string): Promise<{ approved: boolean; reason?: string }>;
  /** Hand a client tool's call to the client; resolves with its answer. */
  callClient(entry: CatalogEntry, input: unknown, requestId: string): Promise<unknown>;
}

export interface DispatchContext {
  catalog: Catalog;
  options: CodeModeOptions;
  scheduler: CallScheduler;
  results: ResultsStore;
  sessions: SessionStore;
  sessionId: string;
  /** This cell's buffered writes (committed only if it completes). */
  storeBuffer: Map<string, StoredValue>;
  /** restartSafe cells call only replay-safe tools; they have no results or session store (nonInteractiveStore). */
  restartSafe: boolean;
  /** A headless turn's cell: no results or session store either. */
  headless: boolean;
  signal: AbortSignal;
  toolContext(invocationId: string): ToolContext;
  hooks: NestedCallHooks;
  /** A value from network-controlled content entered the cell. */
  markNetworkContent(): void;
  /** Whether the cell already holds network-controlled content (provenance of what it stores). */
  hasNetworkContent(): boolean;
  /**
   * The turn's client tool named `name` as the turn offers it now (its catalog after any client-tool update), or
   * undefined when the turn no longer offers it. Absent: the cell's own projection is the offer.
   */
  currentClientTool?(name: string): CatalogEntry | undefined;
  /** Status changes for the trajectory and the board. */
  onStatus(requestId: string, status: 'awaiting_approval' | 'awaiting_client' | 'queued' | 'running'): void;
  /**
   * While an approval of this run is pending its budget stands still, so the guest's other calls are not charged:
   * past a few of them a call waits (queued) for the decision. Returns what to wait for, or undefined to go on.
   */
  holdWhileApprovalPending?(): Promise<void> | undefined;
}

/** A value as it crosses the bridge, with the compact JSON it was made from (bytes, preview and tokens read it). */
export interface Bridged {
  value: unknown;
  json: string;
}

/** JSON round-trip: what crosses the bridge is plain data, detached from the host object. Throws on what JSON cannot hold. */
export function toBridged(value: unknown): Bridged {
  const json = (value === undefined ? undefined : JSON.stringify(value)) ?? 'null';
  return { value: JSON.parse(json), json };
}

function errorReply(id: string, err: unknown): BridgeReply {
  if (err instanceof ToolError) return { id, ok: false, error: err.message, code: err.code, name: 'ToolError' };
  const e = err as { message?: unknown; code?: unknown; name?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const code = typeof e?.code === 'string' ? e.code : 'tool_error';
  return { id, ok: false, error: message, code, name: 'ToolError' };
}

/** Run one nested tool call through hooks, approval, scheduling and the tool (or the client). */
async function callTool(ctx: DispatchContext, req: Extract<BridgeRequest, { op: 'call' }>, invocationId: string): Promise<Bridged> {
  // hooks and approvals see the input before the tool validates it: they may rely on one object
  if (!isRecord(req.input)) {
    const name = describeRequest(req, ctx.catalog).label;
    throw new InvalidInputError(`${name}: "input" must be one object, got ${describeType(req.input)}; call it as ${name}({ ...input })`);
  }
  const entry = resolveCallTarget(ctx.catalog, req);
  if (!entry) {
    const label = describeRequest(req, ctx.catalog).label;
    throw new ToolError(
      req.mcp
        ? `${label} is not an MCP tool of this run; API.read("mcp/index.d.ts") lists the servers and tools`
        : `${label} is not a tool of this run; use catalog.search("...") to find tools`,
      'not_found',
    );
  }
  if (ctx.restartSafe && !entry.tool.replaySafe) {
    throw new ToolError(`${entry.callableName} is not replay-safe; restartSafe cells may call only audited read-only tools`, 'invalid_input');
  }
  // Spec 02: a sequential call "waits for earlier catalog calls to finish and blocks later calls until its result has
  // been accepted". Its hooks and its approval run inside its place in the turn's schedule, so a sequential call
  // awaiting an operator holds every later call of the catalog, and no later call's hooks run before it.
  const run = async () => {
    if (ctx.signal.aborted) throw new ToolError('the run was aborted before this call started', 'aborted');
    const hooked = await ctx.hooks.beforeToolCall(entry, req.input, invocationId, req.id);
    if (hooked.blocked) throw new ToolError(`${entry.callableName} was blocked by a before_tool_call hook: ${hooked.blocked}`, 'blocked');
    const input = hooked.input;
    if (entry.tool.approval === 'required') {
      ctx.onStatus(req.id, 'awaiting_approval');
      const decision = await ctx.hooks.requestApproval(entry, input, req.id);
      if (!decision.approved) {
        throw new ToolError(`${entry.callableName} was denied by the operator${decision.reason ? `: ${decision.reason}` : ''}; do not retry it`, 'approval_denied');
      }
    } else {
      const hold = ctx.holdWhileApprovalPending?.();
      if (hold) {
        ctx.onStatus(req.id, 'queued');
        await hold;
      }
    }
    if (ctx.signal.aborted) throw new ToolError('the run was aborted before this call started', 'aborted');
    if (!entry.tool.execute) {
      // a client tool is what the turn offers now: a cell that started before a restriction cannot call one it removed
      const offered = ctx.currentClientTool ? ctx.currentClientTool(entry.name) : entry;
      if (!offered) {
        throw new ToolError(
          `${entry.callableName} was removed from this turn's client tools after this cell started (a restriction); a cell cannot call a tool its turn no longer offers - ask the client to offer it again, or do without it`,
          'not_found',
        );
      }
      validateToolInput(offered.tool, input);
      ctx.onStatus(req.id, 'awaiting_client');
      return ctx.hooks.callClient(offered, input, req.id);
    }
    ctx.onStatus(req.id, 'running');
    return entry.tool.execute(input, ctx.toolContext(invocationId));
  };
  try {
    // held back by an earlier call: queued until its place comes
    const out = toBridged(await ctx.scheduler.schedule(entry.executionMode, run, () => ctx.onStatus(req.id, 'queued')));
    if (entry.tool.networkContent) ctx.markNetworkContent();
    validateToolOutput(describeRequest(req, ctx.catalog).label, entry.tool, out.value);
    return out;
  } catch (err) {
    if (entry.tool.networkContent) ctx.markNetworkContent();
    throw err;
  }
}

function sleepFor(ms: number, signal: AbortSignal, cancel: { cancel?: () => void }): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(new ToolError('the run was aborted', 'aborted'));
    }
    cancel.cancel = () => {
      clearTimeout(timer);
      done();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface Dispatched {
  reply: Promise<BridgeReply>;
  /** Timers only: clear the host timer (clearTimeout in the guest). */
  cancel?: () => void;
  /** The reply value's compact JSON, set when `reply` settles ok (its bytes, preview and tokens are read from it). */
  outputJson: string | undefined;
}

/**
 * The host's own serialization of a guest JSON text, refused when it is not JSON (invalid_input) or when it is
 * over `maxBytes` as the host wrote it (capacity_exceeded). The raw text is measured first, so an oversized
 * request is refused before the host spends a parse on it.
 */
function boundedJson(what: string, raw: string, maxBytes: number): string {
  const tooBig = (bytes: number) =>
    new ToolError(
      `${what} value is ${bytes} bytes, over the ${maxBytes}-byte limit (maxOutputBytes); store a summary, or results.save the whole value for this turn`,
      'capacity_exceeded',
    );
  const rawBytes = Buffer.byteLength(raw, 'utf8');
  if (rawBytes > maxBytes) throw tooBig(rawBytes);
  const canonical = canonicalJson(raw);
  if (!canonical.ok) throw new InvalidInputError(`${what}: ${canonical.reason}; store plain JSON data`);
  if (canonical.bytes > maxBytes) throw tooBig(canonical.bytes);
  return canonical.json;
}

/**
 * Buffers one store() write, refused (capacity_exceeded, catchable in the cell) when the session's store with the
 * cell's writes so far and this one would pass its limits: the cell hears it at the write, not as a warning after
 * it completed, and the buffer never holds more than the commit could take.
 */
async function bufferStoreWrite(ctx: DispatchContext, key: string, value: StoredValue): Promise<void> {
  const projection = await ctx.sessions.projection(ctx.sessionId);
  // nothing awaits from here to the buffer write: the cell's other store() calls are checked before or after this one, never beside it
  const writes = new Map(ctx.storeBuffer).set(key, value);
  const over = projection.capacityProblem(writes);
  if (over) throw new ToolError(`store(${JSON.stringify(key)}): ${over}; nothing of this write was kept`, 'capacity_exceeded');
  ctx.storeBuffer.set(key, value);
}

/** A committed value as a reply; one that does not parse fails its key only. */
function parseStored(key: string, json: string): unknown {
  try {
    return JSON.parse(json);
  } catch (err) {
    throw new ToolError(damagedValueMessage(key, `the value is not valid JSON (${(err as Error).message})`), DAMAGED_VALUE_CODE);
  }
}

/**
 * Refuses `what` (store/load or results.*) in a cell that is not interactive. Spec 02: "Store operations are
 * unavailable in headless or restartSafe execution"; results.* follow the same rule (docs/decisions.md): a
 * restartSafe cell may be replayed after a restart, where no process-local reference survives, and a headless
 * turn has no reply for references to live in.
 */
function assertInteractive(ctx: DispatchContext, what: string, instead: string): void {
  const mode = ctx.restartSafe ? 'restartSafe' : ctx.headless ? 'headless' : undefined;
  if (mode) throw new ToolError(`${what} are unavailable in ${mode} execution; ${instead}`, 'invalid_input');
}

/** Every request but a tool call (whose value callTool bridges and checks against its output schema). */
async function otherRequest(ctx: DispatchContext, req: Exclude<BridgeRequest, { op: 'call' }>, canceler: { cancel?: () => void }): Promise<unknown> {
  switch (req.op) {
    case 'search': {
      const limit = clampSearchLimit(req.limit, ctx.options);
      // the metadata a handle carries (prelude.js toHandles); its declaration is describe()'s
      return searchCatalog(ctx.catalog, req.query, limit).map(bootTool);
    }
    case 'all':
      return everyBootTool(ctx.catalog);
    case 'describe': {
      if (req.mcpServer !== undefined) {
        const api = mcpServerApi(ctx.catalog, req.mcpServer);
        if (!api) throw new ToolError(`no MCP server "${req.mcpServer}" in this run`, 'not_found');
        return api;
      }
      const entry = req.tool === undefined ? undefined : ctx.catalog.byCallable.get(req.tool);
      if (!entry) throw new ToolError(`${req.tool} is not a tool of this run`, 'not_found');
      return describeTool(entry);
    }
    case 'timer': {
      const ms = Math.max(0, Math.min(req.ms, MAX_TIMER_DELAY_MS));
      await sleepFor(ms, ctx.signal, canceler);
      return null;
    }
    case 'store': {
      assertInteractive(ctx, 'store/load', 'pass the values the cell needs in its source, and return what it computed');
      const key = req.key;
      if (req.action === 'set') {
        if (req.json === undefined) {
          await bufferStoreWrite(ctx, key, { json: undefined, networkContent: false });
          return null;
        }
        // the session store is for small values that outlive the turn; it lands in the transcript
        const json = boundedJson(`store(${JSON.stringify(key)})`, req.json, ctx.options.maxOutputBytes);
        await bufferStoreWrite(ctx, key, { json, networkContent: ctx.hasNetworkContent() });
        return null;
      }
      // the same wait as a store() write's, so a write the cell asked for before this load is buffered by now
      const projection = await ctx.sessions.projection(ctx.sessionId);
      const v = ctx.storeBuffer.get(key) ?? projection.get(key);
      if (v?.damaged !== undefined) throw new ToolError(damagedValueMessage(key, v.damaged), DAMAGED_VALUE_CODE);
      if (!v || v.json === undefined) return null;
      if (v.networkContent) ctx.markNetworkContent();
      return parseStored(key, v.json);
    }
    case 'results': {
      assertInteractive(ctx, 'results.save/load/delete', 'return the value itself (a value over maxOutputBytes comes back as a preview)');
      if (req.action === 'save') {
        const canonical = canonicalJson(req.json ?? 'null');
        if (!canonical.ok) throw new InvalidInputError(`results.save: ${canonical.reason}; save plain JSON data`);
        return ctx.results.save(canonical.json, ctx.hasNetworkContent());
      }
      const ref = req.ref ?? '';
      if (req.action === 'load') {
        const r = ctx.results.load(ref);
        if (r.networkContent) ctx.markNetworkContent();
        return JSON.parse(r.json);
      }
      return ctx.results.delete(ref);
    }
    case 'yield':
      // answered by the run when the next wait resumes the cell
      return null;
  }
}

/** Dispatch one checked guest request. Never rejects and never throws: every failure is an error reply. */
export function dispatchRequest(ctx: DispatchContext, req: BridgeRequest, invocationId: string): Dispatched {
  const canceler: { cancel?: () => void } = {};
  // a tool may return what JSON cannot hold (a BigInt): that fails this call, not the dispatcher
  const bridged = req.op === 'call' ? callTool(ctx, req, invocationId) : otherRequest(ctx, req, canceler).then(toBridged);
  const dispatched: Dispatched = {
    reply: bridged.then(
      (out): BridgeReply => {
        dispatched.outputJson = out.json;
        return { id: req.id, ok: true, value: out.value };
      },
      (err: unknown): BridgeReply => errorReply(req.id, err),
    ),
    outputJson: undefined,
  };
  if (req.op === 'timer') dispatched.cancel = () => canceler.cancel?.();
  return dispatched;
}
