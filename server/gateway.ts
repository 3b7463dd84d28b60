// The composition root: one Gateway built from one config, serving exec/wait and the playground's API.
//
// A turn (agent run) fixes the agent, model, session, client tools and therefore the run-scoped
// catalog; every exec/wait of that turn runs in its scope. Policy is applied once per turn: denied
// tools never reach the catalog, so no guessed name or id can call them.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { buildCatalog, guestCatalogView } from './catalog/build.ts';
import { isCatalogControl } from './catalog/names.ts';
import { renderQuickIndex } from './catalog/quick-index.ts';
import type { Catalog } from './catalog/types.ts';
import { resolveActivation, findAgent, agentModel, agentCodeModeOptions } from './config/activation.ts';
import { loadConfigFile, resolveConfigPath } from './config/load.ts';
import type { CodeModeOptions, ExecutorKind, GatewayConfig } from './config/types.ts';
import { CodeModeError, ConfigError, InvalidInputError, type CodeModeErrorCode } from './errors.ts';
import { CallScheduler } from './bridge/scheduler.ts';
import type { Executor } from './executors/types.ts';
import type {
  BranchSessionRequest,
  CatalogToolView,
  CatalogView,
  ClientToolSpec,
  CompactSessionRequest,
  ExecOptions,
  GatewayApi,
  McpServerView,
  SurfaceView,
  TurnInfo,
  TurnRequest,
  WaitOptions,
} from './gateway-types.ts';
import { Ownership } from './access/ownership.ts';
import { ResultsStore } from './results/store.ts';
import { ApprovalBroker } from './runs/approvals.ts';
import { RunManager, type TurnScope } from './runs/runs.ts';
import type { ApprovalView, CodeModeExecInput, CodeModeResult, RunEvent, RunView, TrajectoryExport } from './runs/types.ts';
import { SessionStore } from './sessions/store.ts';
import { MEMORY_DB_PATH, openSessionDatabase, SessionStoreError } from './sessions/db.ts';
import { execCallPayload, newToolCallId, toolResultPayload, TranscriptRecorder, waitCallPayload } from './sessions/recorder.ts';
import { assertSessionId, entryRunId } from './sessions/transcript.ts';
import type { SessionStoreEntry, ToolCallPayload, TranscriptEntry } from './sessions/types.ts';
import { prepareExec } from './source/index.ts';
import { buildModelSurface } from './surface/surface.ts';
import { hasEmptyAllowlist, applyToolPolicy } from './tools/policy.ts';
import { runBeforeToolCallHooks, type CodeModePlugin } from './tools/plugins.ts';
import { loadToolSources } from './tools/registry.ts';
import type { ToolDefinition } from './tools/types.ts';
import { startMcpManager, type McpToolSource } from './tools/mcp/manager.ts';

export interface GatewayOptions {
  /** A config object (tests); otherwise the file from --config / CODEMODE_CONFIG / ./codemode.config.json. */
  config?: GatewayConfig;
  configPath?: string;
  argv?: string[];
  env?: NodeJS.ProcessEnv;
  /** Executors to use instead of the built-in ones (tests share one pool across gateways). */
  executors?: Partial<Record<ExecutorKind, Executor>>;
  /** Extra tool sources appended after plugins (MCP tools are added by the MCP manager). */
  extraTools?: () => ToolDefinition[];
  /** Idle limit for turns (tests); default TURN_IDLE_MS. */
  turnIdleMs?: number;
  /** MCP connections (createGateway starts one from config.mcp unless given); the gateway closes it. */
  mcp?: McpToolSource;
  /** Where the gateway's own log lines go (config warnings, MCP server stderr and reconnects); default: dropped. */
  log?: (line: string) => void;
  /** How long a cell's VM may take to get ready (tests); default LEG_START_LIMIT_MS (runs/runs.ts). */
  legStartLimitMs?: number;
}

interface Turn {
  info: TurnInfo;
  scope: TurnScope;
  catalog: Catalog;
  /** What the turn was prepared with (agent, model, client tools): recomputed when client tools change. */
  request: TurnRequest;
  /** Last exec, wait or client-tool update: idle turns are ended (TURN_IDLE_MS). */
  lastUsedAt: number;
}

/** One model-level exec or wait call, as controlCall runs it. */
interface ControlCall {
  tool: 'exec' | 'wait';
  agentRunId: string;
  /** As the caller gave it; one is made up when absent or empty. */
  toolCallId: string | undefined;
  /** What a failure before the guest ran reports as its executor. */
  executor: ExecutorKind;
  /** The transcript's tool-call entry. */
  callPayload(toolCallId: string): ToolCallPayload;
  /** Runs the call; a throw is a failure before (or instead of) a guest run. */
  run(toolCallId: string): Promise<CodeModeResult>;
}

interface Effective {
  tools: ToolDefinition[];
  denied: Array<{ tool: ToolDefinition; rule: string }>;
  catalog: Catalog;
  surface: SurfaceView;
  agentId: string;
  model: string;
}

/**
 * Turns with no exec or wait for this long, and no live run, are ended (their catalog and saved
 * results released): a client that vanished without ending its turn must not hold them forever.
 */
export const TURN_IDLE_MS = 6 * 60 * 60 * 1000;
/** How often idle turns are looked for (at most; a shorter idle limit sweeps more often). */
const TURN_SWEEP_MS = 60 * 1000;

export class Gateway implements GatewayApi {
  readonly runsManager: RunManager;
  /** Session store and transcripts (SQLite at `config.sessions.path`); the Gateway closes the database. */
  readonly sessions: SessionStore;
  private readonly recorder: TranscriptRecorder;
  private readonly approvalsBroker: ApprovalBroker;
  readonly ownership: Ownership;
  private readonly events = new EventEmitter();
  private readonly turns = new Map<string, Turn>();
  private readonly executors = new Map<ExecutorKind, Executor>();
  private closed = false;
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(
    readonly config: GatewayConfig,
    private readonly sources: { tools: ToolDefinition[]; plugins: CodeModePlugin[]; pluginErrors: Array<{ plugin: string; error: string }> },
    private readonly opts: GatewayOptions = {},
  ) {
    this.events.setMaxListeners(0);
    const idleMs = opts.turnIdleMs ?? TURN_IDLE_MS;
    this.sweepTimer = setInterval(() => this.endIdleTurns(idleMs), Math.min(idleMs, TURN_SWEEP_MS));
    this.sweepTimer.unref();
    const dbPath = config.sessions?.path ?? MEMORY_DB_PATH;
    try {
      this.sessions = new SessionStore(openSessionDatabase(dbPath));
    } catch (err) {
      if (err instanceof SessionStoreError) throw new ConfigError('sessions.path', err.message);
      throw err;
    }
    this.ownership = new Ownership((sessionId) => this.sessionHasHistory(sessionId));
    this.recorder = new TranscriptRecorder(
      this.sessions.transcript,
      (runId, callId) => this.runsManager.controlCall(runId, callId),
      (message) => console.warn(`[sessions] ${message}`),
    );
    this.sessions.transcript.onAppend((entry) => {
      const runId = entryRunId(entry);
      this.emit({ type: 'session.appended', ...(runId !== undefined ? { runId } : {}), sessionId: entry.sessionId, at: entry.createdAt, entryId: entry.id });
    });
    // first listener: a run's owner is known before any subscriber hears of the run
    this.events.on('event', (event: RunEvent) => {
      if (event.type === 'run.started') this.ownership.noteRun(event.runId, event.view.agentRunId);
      else if (event.type === 'nested.finished') this.recorder.nestedFinished(event.runId, event.call);
    });
    for (const [kind, ex] of Object.entries(opts.executors ?? {})) if (ex) this.executors.set(kind as ExecutorKind, ex);
    this.approvalsBroker = new ApprovalBroker((e) => {
      if (e.requested) this.emit({ type: 'approval.requested', runId: e.requested.runId, at: Date.now(), approval: e.requested });
      if (e.resolved) {
        this.emit({ type: 'approval.resolved', runId: e.resolved.runId, at: Date.now(), approvalId: e.resolved.approvalId, approved: e.resolved.approved });
      }
    });
    this.runsManager = new RunManager(
      {
        sessions: this.sessions,
        approvals: { request: (view, signal) => this.approvalsBroker.request(view, signal) },
        emit: (e) => this.emit(e),
      },
      { ...(opts.legStartLimitMs !== undefined ? { legStartLimitMs: opts.legStartLimitMs } : {}) },
    );
  }

  // ---- configuration views ---------------------------------------------------------------------

  agents(): Array<{ id: string; name?: string; model: string; executor: ExecutorKind }> {
    return this.config.agents.list.map((a) => ({
      id: a.id,
      ...(a.name ? { name: a.name } : {}),
      model: agentModel(this.config, a),
      executor: agentCodeModeOptions(this.config, a).executor,
    }));
  }

  surface(req: TurnRequest): SurfaceView {
    return this.effective(req).surface;
  }

  catalog(req: TurnRequest): CatalogView {
    const eff = this.effective(req);
    const entries = new Map(eff.catalog.entries.map((e) => [e.tool, e]));
    const view = (t: ToolDefinition, deniedBy?: string): CatalogToolView => {
      const entry = entries.get(t);
      const path = entry?.mcp ? `MCP.${entry.mcp.serverCallable}.${entry.callableName}` : undefined;
      return {
        callableName: entry?.callableName ?? t.name,
        name: t.name,
        source: t.source,
        ...(t.owner ? { owner: t.owner } : {}),
        description: t.description,
        declaration: entry?.declaration ?? '',
        executionMode: t.executionMode ?? 'parallel',
        networkContent: Boolean(t.networkContent),
        approval: t.approval === 'required',
        directOnly: Boolean(t.directOnly),
        control: isCatalogControl(t),
        ...(deniedBy ? { deniedBy } : {}),
        ...(path ? { mcpPath: path } : {}),
      };
    };
    return {
      tools: [...eff.tools.map((t) => view(t)), ...eff.denied.map((d) => view(d.tool, d.rule))],
      mcpServers: this.mcpServers(),
      declarations: eff.catalog.ambientDeclarations,
      pluginErrors: [...this.sources.pluginErrors],
    };
  }

  /** Configured MCP servers that are down (no tools listed): the guest gets a namespace that says so. */
  private unavailableMcp(present: Array<{ name: string }>): Array<{ name: string; tools: string[]; unavailable: string }> {
    const names = new Set(present.map((p) => p.name));
    return this.mcpServers()
      .filter((s) => !names.has(s.callableName) && (s.state !== 'connected' || s.toolCount === 0))
      .map((s) => ({ name: s.callableName, tools: [], unavailable: s.error ? `${s.state}: ${s.error}` : s.state }));
  }

  /** MCP connection states. */
  mcpServers(): McpServerView[] {
    return this.opts.mcp?.views() ?? [];
  }

  /**
   * Resolves once every configured MCP server's first connection attempt has settled (connected or failed),
   * bounded by the connect timeout; reconnects never delay it. The Gateway starts without waiting for MCP, so
   * whatever starts a turn (the API, the CLI) awaits this before prepareTurn, surface or catalog: otherwise a
   * turn prepared just after start sees a server that is merely slow to answer `initialize` as unavailable.
   */
  async mcpReady(): Promise<void> {
    await this.opts.mcp?.ready();
  }

  // ---- turns -----------------------------------------------------------------------------------

  prepareTurn(req: TurnRequest): TurnInfo {
    this.assertOpen();
    const eff = this.effective(req);
    const agentRunId = `ar_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const sessionId = req.sessionId && req.sessionId.trim() ? req.sessionId : `sess_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const options = eff.surface.options;
    const tokens = this.ownership.issueTurn(agentRunId, sessionId);
    const info: TurnInfo = { agentRunId, sessionId, ...tokens, agentId: eff.agentId, model: eff.model, surface: eff.surface };
    const plugins = this.sources.plugins;
    const scope: TurnScope = {
      agentRunId,
      sessionId,
      agentId: eff.agentId,
      workspaceDir: this.config.workspace,
      options,
      ...this.guestCatalog(eff.catalog, options),
      scheduler: new CallScheduler(),
      results: new ResultsStore(Math.min(options.memoryLimitBytes, options.maxSnapshotBytes)),
      abort: new AbortController(),
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
        return out.blocked ? { blocked: `${out.blocked.reason} (plugin ${out.blocked.plugin})`, input: out.input } : { input: out.input };
      },
    };
    this.turns.set(agentRunId, { info, scope, catalog: eff.catalog, request: { ...req, sessionId }, lastUsedAt: Date.now() });
    return info;
  }

  /**
   * Replace the client tools of a live turn. New cells see the new catalog; running and parked
   * cells keep the projection they started with, and the turn's runs and saved results stay
   * (spec: client tool additions do not close the owner).
   */
  updateClientTools(agentRunId: string, clientTools: ClientToolSpec[]): TurnInfo {
    this.assertOpen();
    const turn = this.turns.get(agentRunId);
    if (!turn) throw new InvalidInputError(`unknown agent run "${agentRunId}"; prepare a turn first`);
    turn.lastUsedAt = Date.now();
    const request: TurnRequest = { ...turn.request, clientTools };
    const eff = this.effective(request);
    turn.request = request;
    turn.catalog = eff.catalog;
    turn.info = { ...turn.info, surface: eff.surface };
    Object.assign(turn.scope, this.guestCatalog(eff.catalog, turn.scope.options));
    return turn.info;
  }

  /** What a new cell of a turn boots with: the catalog, its guest view, and the API files. */
  private guestCatalog(catalog: Catalog, options: CodeModeOptions): Pick<TurnScope, 'catalog' | 'boot' | 'files'> {
    const view = guestCatalogView(catalog);
    return {
      catalog,
      boot: {
        maxPendingToolCalls: options.maxPendingToolCalls,
        tools: view.tools.map((t) => ({ callableName: t.callableName, name: t.name, description: t.description, source: t.source })),
        mcp: [...view.mcp, ...this.unavailableMcp(view.mcp)],
      },
      files: Object.fromEntries(catalog.files),
    };
  }

  /** End turns unused for `idleMs` that have no running or waiting run. */
  private endIdleTurns(idleMs: number): void {
    const cutoff = Date.now() - idleMs;
    // one listing per sweep: the turns ended here have no live run, so ending them leaves the listing current for prune()
    const runs = this.runsManager.list();
    const live = new Set(runs.filter((r) => r.state === 'running' || r.state === 'waiting').map((r) => r.agentRunId));
    for (const [id, turn] of this.turns) if (turn.lastUsedAt < cutoff && !live.has(id)) this.endTurn(id);
    this.ownership.prune(new Set(runs.map((r) => r.runId)));
  }

  /**
   * A session id with entries (from this or an earlier process, on any branch) is not new: joining it needs its
   * token. Entries are only looked for, never read, so a damaged transcript still counts as someone's.
   */
  private sessionHasHistory(sessionId: string): boolean {
    return this.sessions.transcript.hasEntries(sessionId);
  }

  turnOptions(agentRunId: string): Readonly<CodeModeOptions> | undefined {
    return this.turns.get(agentRunId)?.scope.options;
  }

  endTurn(agentRunId: string): void {
    const turn = this.turns.get(agentRunId);
    if (!turn) return;
    this.runsManager.abortTurn(agentRunId);
    this.ownership.endTurn(agentRunId);
    turn.scope.abort.abort();
    turn.scope.results.clear();
    this.turns.delete(agentRunId);
  }

  async exec(agentRunId: string, input: CodeModeExecInput, opts: ExecOptions = {}): Promise<CodeModeResult> {
    const turn = this.turns.get(agentRunId);
    const oversize = turn ? oversizeSource(input, turn.scope.options.maxSourceBytes) : undefined;
    // an oversize source is refused before the transcript keeps it: only a note of its size is recorded
    const recorded = oversize ? { ...(input as object), [oversize.field]: `(${oversize.bytes} bytes, not kept: over maxSourceBytes)` } : input;
    return this.controlCall({
      tool: 'exec',
      agentRunId,
      toolCallId: opts.toolCallId,
      executor: opts.executor ?? turn?.scope.options.executor ?? 'quickjs',
      callPayload: (toolCallId) => execCallPayload(toolCallId, agentRunId, recorded),
      run: async (toolCallId) => {
        if (oversize) throw new InvalidInputError(oversize.message);
        const live = this.liveTurn(turn, agentRunId);
        if (!live.info.surface.codeMode) {
          throw new InvalidInputError(`code mode is not active for this agent run (${live.info.surface.reason}); call the tools directly`);
        }
        const rawInput = input as unknown;
        const hooked = await this.outerExecHooks(live, rawInput);
        const prepared = await prepareExec(hooked, {
          ambientDeclarations: () => live.catalog.ambientDeclarations,
          signal: live.scope.abort.signal,
          runKey: agentRunId,
          ...(hooked !== rawInput ? { callerInput: rawInput } : {}),
        });
        const executor = await this.executor(opts.executor ?? live.scope.options.executor);
        return this.runsManager.exec(live.scope, {
          body: prepared.body,
          code: prepared.input.code,
          language: prepared.language,
          executor,
          restartSafe: prepared.input.restartSafe,
          toolCallId,
        });
      },
    });
  }

  async wait(agentRunId: string, input: { runId: string }, opts: WaitOptions = {}): Promise<CodeModeResult> {
    const turn = this.turns.get(agentRunId);
    return this.controlCall({
      tool: 'wait',
      agentRunId,
      toolCallId: opts.toolCallId,
      executor: turn?.scope.options.executor ?? 'quickjs',
      callPayload: (toolCallId) => waitCallPayload(toolCallId, agentRunId, input),
      run: async (toolCallId) => {
        const live = this.liveTurn(turn, agentRunId);
        if (typeof input?.runId !== 'string' || input.runId.trim() === '') {
          throw new InvalidInputError('wait: runId must be the non-empty runId of a waiting exec result');
        }
        return this.runsManager.wait({ agentRunId, sessionId: live.info.sessionId }, input.runId, toolCallId);
      },
    });
  }

  /**
   * The one path of a model's exec or wait call: its tool-call entry, the call itself (which the run records
   * with its tool-call id), its result entry. A failure before or instead of a guest run is a failed result.
   */
  private async controlCall(call: ControlCall): Promise<CodeModeResult> {
    const turn = this.turns.get(call.agentRunId);
    if (turn) turn.lastUsedAt = Date.now();
    const toolCallId = typeof call.toolCallId === 'string' && call.toolCallId !== '' ? call.toolCallId : newToolCallId();
    const sessionId = this.closed ? undefined : turn?.info.sessionId;
    const notes: string[] = [];
    const note = (warning: string | undefined) => void (warning && notes.push(warning));
    if (sessionId) note(this.recorder.append(sessionId, 'tool-call', call.callPayload(toolCallId)));
    let result: CodeModeResult;
    try {
      result = await call.run(toolCallId);
    } catch (err) {
      result = failedBeforeRun(err, call.executor);
    }
    if (sessionId) note(this.recorder.append(sessionId, 'tool-result', toolResultPayload(call.tool, toolCallId, result)));
    return this.withTranscriptNotes(result, notes);
  }

  /** The turn a cell runs in, while the Gateway is open. */
  private liveTurn(turn: Turn | undefined, agentRunId: string): Turn {
    this.assertOpen();
    if (!turn) throw new InvalidInputError(`unknown agent run "${agentRunId}"; prepare a turn first`);
    return turn;
  }

  /** The branch of a session's transcript, root first (display form: nested activity and store entries included). */
  transcript(sessionId: string): TranscriptEntry[] {
    return this.sessions.transcript.branch(sessionId);
  }

  /** The session store as the session's current branch holds it. */
  sessionStore(sessionId: string): SessionStoreEntry[] {
    return this.sessions.entries(sessionId);
  }

  /**
   * Branching is refused while a run of the session is running or waiting: its result and store commit would
   * land on whichever branch is current when it settles, so a user could not tell which branch it belongs to.
   */
  branchSession(req: BranchSessionRequest): TranscriptEntry[] {
    this.assertOpen();
    const sessionId = req?.sessionId;
    assertSessionId(sessionId);
    this.assertSessionIdle(sessionId, 'branch');
    this.sessions.transcript.branchFrom(sessionId, req.entryId);
    return this.sessions.transcript.branch(sessionId);
  }

  /** Refused while a run of the session is live, for the reason branchSession gives: its result would follow the marker. */
  compactSession(req: CompactSessionRequest): Extract<TranscriptEntry, { type: 'compaction' }> {
    this.assertOpen();
    const sessionId = req?.sessionId;
    assertSessionId(sessionId);
    const summary: unknown = req.summary;
    if (summary !== undefined && typeof summary !== 'string') {
      throw new InvalidInputError('summary must be a string (what the compacted part established), or left out for a generated one');
    }
    this.assertSessionIdle(sessionId, 'compact');
    const branch = this.sessions.transcript.branch(sessionId);
    if (branch.length === 0) {
      throw new InvalidInputError(`session "${sessionId}" has no entries on its branch; nothing to compact, run a cell first`);
    }
    const since = entriesSinceCompaction(branch);
    if (since.length === 0) {
      throw new InvalidInputError(`session "${sessionId}" has nothing to compact: its leaf is already a compaction; run a cell first`);
    }
    const text = summary !== undefined && summary.trim() !== '' ? summary : defaultCompactionSummary(since);
    return this.sessions.transcript.compact(sessionId, text);
  }

  private assertSessionIdle(sessionId: string, action: 'branch' | 'compact'): void {
    const live = this.runsManager.list().filter((r) => r.sessionId === sessionId && (r.state === 'running' || r.state === 'waiting'));
    const first = live[0];
    if (!first) return;
    const more = live.length > 1 ? ` (and ${live.length - 1} more)` : '';
    throw new InvalidInputError(
      `cannot ${action} session "${sessionId}" while run ${first.runId} is ${first.state}${more}; wait for it to finish or abort it, then ${action} again`,
    );
  }

  /** Transcript write failures never change an outcome; a completed result says so in its warnings. */
  private withTranscriptNotes(result: CodeModeResult, notes: string[]): CodeModeResult {
    if (notes.length === 0) return result;
    for (const n of notes) console.warn(`[sessions] ${n}`);
    if (result.status !== 'completed') return result;
    return { ...result, warnings: [...(result.warnings ?? []), ...notes] };
  }

  abortRun(runId: string): boolean {
    return this.runsManager.abortRun(runId);
  }

  answerClientCall(req: { runId: string; callId: string; result?: unknown; error?: string }): void {
    this.runsManager.answerClientCall(req.runId, req.callId, req);
  }

  approvals(): ApprovalView[] {
    return this.approvalsBroker.list();
  }

  decideApproval(req: { approvalId: string; approve: boolean; reason?: string }): void {
    this.approvalsBroker.decide(req.approvalId, req.approve, req.reason);
  }

  runs(): RunView[] {
    return this.runsManager.list();
  }

  run(runId: string): RunView | undefined {
    return this.runsManager.get(runId);
  }

  trajectory(runId: string): TrajectoryExport | undefined {
    return this.runsManager.trajectory(runId);
  }

  subscribe(listener: (event: RunEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweepTimer);
    await this.runsManager.close();
    for (const id of [...this.turns.keys()]) this.endTurn(id);
    const own = [...this.executors.entries()].filter(([k]) => !this.opts.executors?.[k]);
    await Promise.all(own.map(([, ex]) => ex.close()));
    await this.opts.mcp?.close();
    this.events.removeAllListeners();
    this.recorder.close();
    this.sessions.close();
  }

  // ---- internals -------------------------------------------------------------------------------

  /** Outer exec hook event: `toolKind: "code_mode_exec"` lets policies tell cells from shell exec. */
  private async outerExecHooks(turn: Turn, input: unknown): Promise<unknown> {
    const language = isRecord(input) && (input.language === 'typescript' || input.language === 'javascript') ? input.language : 'javascript';
    const out = await runBeforeToolCallHooks(this.sources.plugins, {
      tool: 'exec',
      source: 'core',
      input,
      agentId: turn.info.agentId,
      sessionId: turn.info.sessionId,
      agentRunId: turn.info.agentRunId,
      invocationId: `${turn.info.agentRunId}:exec`,
      toolKind: 'code_mode_exec',
      toolInputKind: language,
    });
    if (out.blocked) throw new InvalidInputError(`exec was blocked by a before_tool_call hook: ${out.blocked.reason} (plugin ${out.blocked.plugin})`);
    return out.input;
  }

  /**
   * Start the executors the configured agents use and wait until they are warm (QuickJS: workers
   * started, module compiled, one VM instantiated), so the first cell costs what a warm one does.
   */
  async warmUp(): Promise<void> {
    const kinds = new Set(this.agents().map((a) => a.executor));
    await Promise.all([...kinds].map(async (kind) => (await this.executor(kind)).ready?.()));
  }

  private async executor(kind: ExecutorKind): Promise<Executor> {
    const existing = this.executors.get(kind);
    if (existing) return existing;
    let ex: Executor;
    try {
      if (kind === 'quickjs') {
        const { QuickJsExecutor } = await import('./executors/quickjs/executor.ts');
        ex = new QuickJsExecutor();
      } else if (kind === 'node') {
        const mod = await import('./executors/node/executor.ts').catch(() => undefined);
        if (!mod) throw new Error('the node executor is not part of this build');
        ex = new mod.NodeExecutor();
      } else {
        throw new Error(`unknown executor "${String(kind)}"`);
      }
    } catch (err) {
      throw new CodeModeError('runtime_unavailable', `the ${kind} executor cannot start: ${(err as Error).message}`);
    }
    this.executors.set(kind, ex);
    return ex;
  }

  private effective(req: TurnRequest): Effective {
    const agent = findAgent(this.config, req.agentId);
    const clientTools: ToolDefinition[] = (req.clientTools ?? []).map((c) => ({
      name: c.name,
      description: c.description,
      inputSchema: c.inputSchema,
      ...(c.outputSchema ? { outputSchema: c.outputSchema } : {}),
      source: 'client',
      owner: 'client',
    }));
    const all = [...this.sources.tools, ...(this.opts.extraTools?.() ?? []), ...clientTools];
    const layers = { gateway: { allow: this.config.tools.allow, deny: this.config.tools.deny }, agent: agent.tools, agentId: agent.id };
    const policy = applyToolPolicy(all, layers);
    const toolsActive = !req.disableTools && policy.effective.length > 0 && !hasEmptyAllowlist(layers);
    const activation = resolveActivation(this.config, {
      agentId: agent.id,
      ...(req.model ? { model: req.model } : {}),
      toolsActive,
    });
    const catalog = buildCatalog(policy.effective);
    const quickIndex = renderQuickIndex(catalog);
    const surface = buildModelSurface({ activation, tools: policy.effective, quickIndex, disableTools: Boolean(req.disableTools) });
    return { tools: policy.effective, denied: policy.denied, catalog, surface, agentId: agent.id, model: activation.model };
  }

  private emit(event: RunEvent): void {
    this.events.emit('event', event);
  }

  private assertOpen(): void {
    if (this.closed) throw new CodeModeError('runtime_unavailable', 'the gateway is shutting down');
  }
}

/** A generated compaction summary names store keys so a reader knows what load() can still return; beyond this, a count. */
export const MAX_SUMMARY_STORE_KEYS = 20;

/** The entries after the branch's latest compaction (all of them when there is none). */
function entriesSinceCompaction(branch: readonly TranscriptEntry[]): TranscriptEntry[] {
  let start = 0;
  for (let i = branch.length - 1; i >= 0; i--) {
    if (branch[i]?.type === 'compaction') {
      start = i + 1;
      break;
    }
  }
  return branch.slice(start);
}

/**
 * The summary a compaction without one gets: what the calls were and which store keys they left, since the
 * playground has no model to write a prose summary. Store values themselves stay readable through load().
 */
export function defaultCompactionSummary(entries: readonly TranscriptEntry[]): string {
  const calls = { exec: 0, wait: 0 };
  const statuses = new Map<string, number>();
  const set = new Set<string>();
  const deleted = new Set<string>();
  let messages = 0;
  for (const entry of entries) {
    if (entry.type === 'tool-call') calls[entry.payload.tool]++;
    else if (entry.type === 'tool-result') statuses.set(entry.payload.status, (statuses.get(entry.payload.status) ?? 0) + 1);
    else if (entry.type === 'message') messages++;
    else if (entry.type === 'code-mode-store') {
      for (const s of entry.payload.sets) {
        set.add(s.key);
        deleted.delete(s.key);
      }
      for (const key of entry.payload.deletes) {
        deleted.add(key);
        set.delete(key);
      }
    }
  }
  const keys = (names: Set<string>) => {
    const list = [...names];
    const shown = list.slice(0, MAX_SUMMARY_STORE_KEYS).join(', ');
    return list.length > MAX_SUMMARY_STORE_KEYS ? `${shown} and ${list.length - MAX_SUMMARY_STORE_KEYS} more` : shown;
  };
  const parts = [`${calls.exec} exec and ${calls.wait} wait calls`];
  if (statuses.size > 0) parts[0] += ` (${[...statuses].map(([status, n]) => `${n} ${status}`).join(', ')})`;
  if (messages > 0) parts.push(`${messages} messages`);
  if (set.size > 0) parts.push(`store keys set: ${keys(set)}`);
  if (deleted.size > 0) parts.push(`store keys deleted: ${keys(deleted)}`);
  return `Compacted ${entries.length} entries: ${parts.join('; ')}. Stored values stay readable with load().`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The field (`code` or `command`) whose source is over `maxSourceBytes`, with the refusal the model reads. */
function oversizeSource(input: unknown, maxSourceBytes: number): { field: 'code' | 'command'; bytes: number; message: string } | undefined {
  if (!isRecord(input)) return undefined;
  for (const field of ['code', 'command'] as const) {
    const source = input[field];
    if (typeof source !== 'string' || source.length * 3 <= maxSourceBytes) continue;
    const bytes = Buffer.byteLength(source, 'utf8');
    if (bytes <= maxSourceBytes) continue;
    return {
      field,
      bytes,
      message:
        `exec: the cell's ${field} is ${bytes} bytes, over the limit of ${maxSourceBytes} bytes (tools.codeMode.maxSourceBytes); ` +
        'send a smaller cell: fetch data with tool calls or load() inside the cell instead of pasting it into the source',
    };
  }
  return undefined;
}

/** A failure before (or instead of) a guest run, as the model sees it. */
function failedBeforeRun(err: unknown, executor: ExecutorKind): CodeModeResult {
  const code: CodeModeErrorCode = err instanceof CodeModeError ? err.code : 'internal_error';
  const error = err instanceof Error ? err.message : String(err);
  return {
    status: 'failed',
    error,
    code,
    telemetry: { executor, durationMs: 0, budgetUsedMs: 0, counters: { search: 0, describe: 0, call: 0 }, nestedCalls: 0, outputBytes: 0 },
  };
}

export async function createGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const config =
    opts.config ??
    loadConfigFile(
      opts.configPath ?? resolveConfigPath({ argv: opts.argv ?? process.argv.slice(2), env: opts.env ?? process.env, cwd: process.cwd() }),
    );
  const sources = await loadToolSources(config);
  // Started after the other sources load, so a failing load leaves no server process behind.
  for (const warning of config.warnings ?? []) opts.log?.(`config: ${warning}`);
  const mcp = opts.mcp ?? startMcpManager(config, opts.log ? { log: (line) => opts.log?.(`mcp: ${line}`) } : {});
  const extra = opts.extraTools;
  const gateway = new Gateway(config, sources, { ...opts, mcp, extraTools: () => [...(extra?.() ?? []), ...mcp.tools()] });
  try {
    await gateway.warmUp();
  } catch (err) {
    // cells report runtime_unavailable with the reason; the rest of the Gateway still serves
    opts.log?.(`executor warm-up failed: ${(err as Error).message}`);
  }
  return gateway;
}
