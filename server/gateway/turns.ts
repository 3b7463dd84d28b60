// The turn registry: each prepared turn's agent, model, session, client tools and run-scoped catalog, until it ends or idles out.
//
// A turn (agent run) fixes the agent, model, session, client tools and therefore the run-scoped
// catalog; every exec/wait of that turn runs in its scope. Policy is applied once per turn: denied
// tools never reach the catalog, so no guessed name or id can call them.
import { randomUUID } from 'node:crypto';
import type { Ownership } from '../access/ownership.ts';
import { LOCAL_OWNER, type Owner } from '../access/owners.ts';
import { CallScheduler } from '../bridge/scheduler.ts';
import { deniedGuestNames } from '../catalog/view.ts';
import { guestMcpNamespaces } from '../catalog/build.ts';
import { CatalogCache } from '../catalog/cache.ts';
import { declarationFilesOf, definitionTokensOf, quickIndexOf } from './catalog-derived.ts';
import type { Catalog } from '../catalog/types.ts';
import { inferredOverlay, type InferredOverlay } from '../catalog/inferred-overlay.ts';
import { findAgent, resolveActivation } from '../config/activation.ts';
import type { CodeModeOptions, GatewayConfig } from '../config/types.ts';
import { InvalidInputError } from '../errors.ts';
import type { ClientToolSpec, SurfaceView, TurnInfo, TurnRequest } from '../gateway-types.ts';
import { ResultsStore } from '../results/store.ts';
import type { RunManager, TurnScope } from '../runs/runs.ts';
import { buildModelSurface } from '../surface/surface.ts';
import type { McpServerView } from '../tools/mcp/types.ts';
import { runBeforeToolCallHooks, type CodeModePlugin } from '../tools/plugins.ts';
import { applyToolPolicy, hasEmptyAllowlist } from '../tools/policy.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { isRecord } from '../util/is-record.mjs';

/**
 * Turns with no exec or wait for this long, and no live run, are ended (their catalog and saved
 * results released): a client that vanished without ending its turn must not hold them forever.
 */
export const TURN_IDLE_MS = 6 * 60 * 60 * 1000;
/** A client label longer than this is cut: it is a name on a board, and the client chooses it. */
export const MAX_CLIENT_LABEL_LENGTH = 80;
/** Client tool definitions kept for reuse (distinct specs; the oldest is made again if it comes back). */
const MAX_CLIENT_TOOL_DEFINITIONS = 256;
/** How often idle turns are looked for (at most; a shorter idle limit sweeps more often). */
const TURN_SWEEP_MS = 60 * 1000;

export interface Turn {
  info: TurnInfo;
  scope: TurnScope;
  catalog: Catalog;
  /** What the turn was prepared with (agent, model, client tools): recomputed when client tools change. */
  request: TurnRequest;
  /** Last exec, wait or client-tool update: idle turns are ended (TURN_IDLE_MS). */
  lastUsedAt: number;
}

/** What a turn request resolves to: the tools policy kept and denied, their catalog and the model surface. */
export interface Effective {
  tools: ToolDefinition[];
  denied: Array<{ tool: ToolDefinition; rule: string }>;
  catalog: Catalog;
  surface: SurfaceView;
  agentId: string;
  model: string;
}

export interface TurnRegistryDeps {
  config: GatewayConfig;
  tools: readonly ToolDefinition[];
  plugins: readonly CodeModePlugin[];
  /** Tools appended after the configured ones on every resolve (MCP tools, tests' extra tools). */
  extraTools?: () => ToolDefinition[];
  /** MCP server states: a configured server that is down gets a namespace that says so. */
  mcpServers: () => McpServerView[];
  ownership: Ownership;
  runs: Pick<RunManager, 'abortTurn' | 'list'>;
  /** Runs that wait without being held here (durable runs evicted to their rows), run id -> turn: their turns do not idle out. */
  parkedElsewhere?: () => ReadonlyMap<string, string>;
  /** Idle limit; default TURN_IDLE_MS. */
  idleMs?: number;
  /** Cell source as stored (the Gateway's registered secrets and patterns masked too); default redactSource. */
  redact?: (code: string) => string;
  /** A turn ended (its runs aborted, its results cleared): the Gateway runs the plugins' agent_end hooks. */
  onEnded?: (turn: { agentRunId: string; agentId: string; sessionId: string }, reason: 'ended' | 'idle' | 'shutdown') => void;
  /** A turn was prepared (durable runs keep its tokens' digests, so its runs can be waited on after a restart). */
  onPrepared?: (info: TurnInfo, owner: Owner) => void;
}

export class TurnRegistry {
  private readonly turns = new Map<string, Turn>();
  private readonly sweepTimer: NodeJS.Timeout;
  /** Turns over the same tools share one catalog (catalog/cache.ts). */
  private readonly catalogs = new CatalogCache();
  /** One definition per distinct client tool (by its spec), so turns that send equal client tools share a catalog. */
  private readonly clientTools = new Map<string, ToolDefinition>();

  constructor(private readonly deps: TurnRegistryDeps) {
    const idleMs = deps.idleMs ?? TURN_IDLE_MS;
    this.sweepTimer = setInterval(() => {
      try {
        this.endIdle(idleMs);
      } catch (err) {
        // a timer has no caller to answer: a fault here is logged, and the next sweep tries again
        console.warn(`[turns] idle sweep failed: ${(err as Error)?.message ?? String(err)}`);
      }
    }, Math.min(idleMs, TURN_SWEEP_MS));
    this.sweepTimer.unref();
  }

  /**
   * Part of the Gateway's start (Gateway.warmUp): resolves the default agent's turn once and counts its definitions, so
   * the first cell does not pay for what every later one finds ready. Best effort: a configuration this
   * cannot resolve fails the same way, with its reason, on the first turn.
   */
  warmUp(): void {
    try {
      definitionTokensOf(this.effective({}))();
    } catch {
      // see above
    }
  }

  /** Resolves a turn request: policy, catalog, quick index and model surface for its agent and model. */
  effective(req: TurnRequest): Effective {
    const { config } = this.deps;
    const agent = findAgent(config, req.agentId);
    const clientTools = (req.clientTools ?? []).map((c) => this.clientTool(c));
    const all = [...this.deps.tools, ...(this.deps.extraTools?.() ?? []), ...clientTools];
    const layers = { gateway: { allow: config.tools.allow, deny: config.tools.deny }, agent: agent.tools, agentId: agent.id };
    const policy = applyToolPolicy(all, layers);
    const toolsActive = !req.disableTools && policy.effective.length > 0 && !hasEmptyAllowlist(layers);
    const activation = resolveActivation(config, {
      agentId: agent.id,
      ...(req.model ? { model: req.model } : {}),
      toolsActive,
    });
    const catalog = this.catalogs.get(policy.effective);
    const quickIndex = quickIndexOf(catalog);
    const surface = buildModelSurface({ activation, tools: policy.effective, quickIndex, disableTools: Boolean(req.disableTools) });
    return { tools: policy.effective, denied: policy.denied, catalog, surface, agentId: agent.id, model: activation.model };
  }

  /** The definition of a client tool: the one made for an equal spec before (so equal turns share a catalog), else a new one. */
  private clientTool(c: ClientToolSpec): ToolDefinition {
    const key = JSON.stringify([c.name, c.description, c.inputSchema, c.outputSchema ?? null]);
    let tool = this.clientTools.get(key);
    if (!tool) {
      tool = {
        name: c.name,
        description: c.description,
        inputSchema: c.inputSchema,
        ...(c.outputSchema ? { outputSchema: c.outputSchema } : {}),
        source: 'client',
        owner: 'client',
      };
      if (this.clientTools.size >= MAX_CLIENT_TOOL_DEFINITIONS) this.clientTools.delete(this.clientTools.keys().next().value!);
    } else {
      this.clientTools.delete(key); // most recently used last
    }
    this.clientTools.set(key, tool);
    return tool;
  }

  prepare(req: TurnRequest): TurnInfo {
    const agentRunId = `ar_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const sessionId = req.sessionId && req.sessionId.trim() ? req.sessionId : `sess_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const info = this.open(req, agentRunId, sessionId, () => this.deps.ownership.issueTurn(agentRunId, sessionId));
    this.deps.onPrepared?.(info, req.owner ?? LOCAL_OWNER);
    return info;
  }

  /**
   * A turn this process did not prepare, opened again under its own id (durable runs: a client waits on a run parked
   * before a restart, with the turn token it holds, which the caller checked against the stored digest). It gets its
   * agent's catalog as configured now, with `clientTools`: those of the run it is opened for (its sealed record
   * keeps them), so the restored run and the turn's later cells can call them.
   */
  adopt(grant: {
    agentRunId: string;
    sessionId: string;
    agentId: string;
    owner: Owner;
    key: { turnToken: string } | { digest: string };
    clientTools?: ClientToolSpec[];
  }): Turn {
    const existing = this.use(grant.agentRunId);
    if (existing) return existing;
    const clientTools = grant.clientTools && grant.clientTools.length > 0 ? { clientTools: grant.clientTools } : {};
    this.open({ agentId: grant.agentId, sessionId: grant.sessionId, owner: grant.owner, ...clientTools }, grant.agentRunId, grant.sessionId, () => {
      this.deps.ownership.adoptTurn(grant.agentRunId, grant.sessionId, grant.key);
      // opened by the operator from the stored digest: this process never learns the token (its client still holds it)
      return { turnToken: 'turnToken' in grant.key ? grant.key.turnToken : '', sessionToken: '' };
    });
    return this.turns.get(grant.agentRunId) as Turn;
  }

  /** Opens turn `agentRunId` of `sessionId` for `req` (its tokens issued by `tokens`) and registers it. */
  private open(req: TurnRequest, agentRunId: string, sessionId: string, tokens: () => { turnToken: string; sessionToken: string }): TurnInfo {
    const eff = this.effective(req);
    const options = eff.surface.options;
    const { turnToken, sessionToken } = tokens();
    const client = req.client?.trim() ? req.client.trim().slice(0, MAX_CLIENT_LABEL_LENGTH) : undefined;
    const info: TurnInfo = { agentRunId, sessionId, turnToken, sessionToken, agentId: eff.agentId, model: eff.model, surface: eff.surface, ...(client ? { client } : {}) };
    const plugins = this.deps.plugins;
    const scope: TurnScope = {
      agentRunId,
      sessionId,
      agentId: eff.agentId,
      ...(client ? { client } : {}),
      owner: req.owner ?? LOCAL_OWNER,
      workspaceDir: this.deps.config.workspace,
      options,
      ...this.guestCatalog(eff.catalog, options),
      denied: this.deniedNames(eff),
      definitionTokens: definitionTokensOf(eff),
      inferredOutputs: new Map(),
      scheduler: new CallScheduler(),
      results: newResultsStore(options),
      headless: req.headless === true,
      toolCalls: 0,
      abort: new AbortController(),
      ...(this.deps.redact ? { redact: this.deps.redact } : {}),
      beforeToolCall: async (entry, input, ctx) => {
        const out = await runBeforeToolCallHooks(plugins, {
          tool: entry.name,
          source: entry.source,
          ...(entry.tool.owner ? { owner: entry.tool.owner } : {}),
          input,
          agentId: eff.agentId,
          sessionId,
          agentRunId,
          invocationId: ctx.invocationId,
        });
        const hooks = out.decisions;
        return out.blocked ? { blocked: `${out.blocked.reason} (plugin ${out.blocked.plugin})`, input: out.input, hooks } : { input: out.input, hooks };
      },
    };
    // spec 02: "the admitted run's abort clear[s] saved data", whoever aborts it
    scope.abort.signal.addEventListener('abort', () => scope.results.clear('turn_ended'), { once: true });
    this.turns.set(agentRunId, { info, scope, catalog: eff.catalog, request: { ...req, sessionId }, lastUsedAt: Date.now() });
    return info;
  }

  /**
   * Replace the client tools of a live turn. New cells see the new catalog; running and parked cells keep
   * the projection they started with (spec: client tool additions do not close the owner), but call only client
   * tools the turn still offers (dispatcher.ts: a removed one fails the call). Saved results
   * (spec 02): "Appended client tools preserve the same result-store lifetime, including for cells already
   * parked in wait", and so does a description refresh (spec 01); any other change (a tool removed, or its schema
   * changed) restricts or replaces the catalog, which
   * clears saved data: the turn's store is cleared and new cells get a fresh one, while cells that started
   * before keep the cleared store they captured ("stale cells cannot adopt a replacement store").
   */
  updateClientTools(agentRunId: string, clientTools: ClientToolSpec[]): TurnInfo {
    const turn = this.turns.get(agentRunId);
    if (!turn) throw new InvalidInputError(`unknown agent run "${agentRunId}"; prepare a turn first`);
    turn.lastUsedAt = Date.now();
    const request: TurnRequest = { ...turn.request, clientTools };
    const eff = this.effective(request);
    if (!isAppend(turn.request.clientTools ?? [], clientTools)) {
      const cleared = turn.scope.results;
      cleared.clear('catalog_restricted');
      turn.scope.results = cleared.successor(resultsBytes(turn.scope.options));
    }
    turn.request = request;
    turn.catalog = eff.catalog;
    turn.info = { ...turn.info, surface: eff.surface };
    Object.assign(turn.scope, this.guestCatalog(eff.catalog, turn.scope.options), { definitionTokens: definitionTokensOf(eff), denied: this.deniedNames(eff) });
    return turn.info;
  }

  /** A live turn, marked used now (an exec or wait keeps it from idling out). */
  use(agentRunId: string): Turn | undefined {
    const turn = this.turns.get(agentRunId);
    if (turn) turn.lastUsedAt = Date.now();
    return turn;
  }

  /** Who a live turn was prepared for (its shares). */
  owner(agentRunId: string): Owner | undefined {
    return this.turns.get(agentRunId)?.scope.owner;
  }

  options(agentRunId: string): Readonly<CodeModeOptions> | undefined {
    return this.turns.get(agentRunId)?.scope.options;
  }

  /** The turn's inferred output types as an editor overlay; undefined for an unknown or ended turn. */
  inferredTypes(agentRunId: string): InferredOverlay | undefined {
    const turn = this.turns.get(agentRunId);
    return turn ? inferredOverlay(turn.catalog, turn.scope.inferredOutputs) : undefined;
  }

  /** Aborts the turn's runs and releases its catalog and saved results; unknown ids are ignored. */
  end(agentRunId: string, reason: 'ended' | 'idle' | 'shutdown' = 'ended'): void {
    const turn = this.turns.get(agentRunId);
    if (!turn) return;
    this.deps.runs.abortTurn(agentRunId);
    this.deps.ownership.endTurn(agentRunId);
    // aborting the turn clears its saved results (the listener set in prepare)
    turn.scope.abort.abort();
    this.turns.delete(agentRunId);
    this.deps.onEnded?.({ agentRunId, agentId: turn.scope.agentId, sessionId: turn.scope.sessionId }, reason);
  }

  /** Stops the idle sweep and ends every turn (the Gateway is closing). */
  close(): void {
    clearInterval(this.sweepTimer);
    for (const id of [...this.turns.keys()]) this.end(id, 'shutdown');
  }

  /** What a cell would write for each tool the turn's policy denied, with the rule (the editor shows the same). */
  private deniedNames(eff: Effective): ReadonlyMap<string, string> {
    return eff.denied.length === 0 ? new Map() : deniedGuestNames({ tools: eff.tools, denied: eff.denied, catalog: eff.catalog, mcpServers: this.deps.mcpServers() });
  }

  /**
   * What a new cell of a turn boots with: the catalog, the MCP namespaces, and the API files (packed once per catalog
   * and shared with every leg). Each cell adds the tools its source names (runs.ts, catalog/boot-tools.ts).
   */
  private guestCatalog(catalog: Catalog, options: CodeModeOptions): Pick<TurnScope, 'catalog' | 'boot' | 'files'> {
    const mcp = guestMcpNamespaces(catalog);
    return {
      catalog,
      boot: { maxPendingToolCalls: options.maxPendingToolCalls, mcp: [...mcp, ...this.unavailableMcp(mcp)] },
      files: declarationFilesOf(catalog),
    };
  }

  /** Configured MCP servers that are down (no tools listed): the guest gets a namespace that says so. */
  private unavailableMcp(present: Array<{ name: string }>): Array<{ name: string; tools: string[]; unavailable: string }> {
    const names = new Set(present.map((p) => p.name));
    return this.deps
      .mcpServers()
      .filter((s) => !names.has(s.callableName) && (s.state !== 'connected' || s.toolCount === 0))
      .map((s) => ({ name: s.callableName, tools: [], unavailable: s.error ? `${s.state}: ${s.error}` : s.state }));
  }

  /** End turns unused for `idleMs` that have no running or waiting run. */
  private endIdle(idleMs: number): void {
    const cutoff = Date.now() - idleMs;
    // one listing per sweep: the turns ended here have no live run, so ending them leaves the listing current for prune()
    const runs = this.deps.runs.list();
    const live = new Set(runs.filter((r) => r.state === 'running' || r.state === 'waiting').map((r) => r.agentRunId));
    const evicted = this.deps.parkedElsewhere?.() ?? new Map<string, string>();
    for (const agentRunId of evicted.values()) live.add(agentRunId);
    for (const [id, turn] of this.turns) if (turn.lastUsedAt < cutoff && !live.has(id)) this.end(id, 'idle');
    void this.deps.ownership.prune(new Set([...runs.map((r) => r.runId), ...evicted.keys()]));
  }
}

/** A turn's result store's allowance: spec 02 "min(memoryLimitBytes, maxSnapshotBytes) encoded JSON bytes". */
function resultsBytes(options: CodeModeOptions): number {
  return Math.min(options.memoryLimitBytes, options.maxSnapshotBytes);
}

function newResultsStore(options: CodeModeOptions): ResultsStore {
  return new ResultsStore(resultsBytes(options));
}

/**
 * Whether `next` only appends to `previous`: every earlier client tool is still there with the same schemas (a
 * changed schema is a replacement; a missing tool a restriction). Order is free. A changed description is neither:
 * spec 01, "Catalog description refreshes and client tool additions do not close the owner".
 */
export function isAppend(previous: readonly ClientToolSpec[], next: readonly ClientToolSpec[]): boolean {
  const kept = new Map(next.map((t) => [t.name, toolKey(t)]));
  return previous.every((t) => kept.get(t.name) === toolKey(t));
}

/** A client tool's contract (its schemas) as one string, object keys sorted: a client that resends it in another key order has not changed it. */
function toolKey(t: ClientToolSpec): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sorted) : isRecord(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v;
  return JSON.stringify(sorted({ inputSchema: t.inputSchema, outputSchema: t.outputSchema ?? null }));
}
