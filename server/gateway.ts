// The composition root: one Gateway built from one config, serving exec/wait and the playground's API.
//
// The Gateway wires the parts and is the facade the API and the CLI call: turns live in the turn
// registry (gateway/turns.ts), a model's exec and wait calls take one path (gateway/control-call.ts),
// runs live in the RunManager, transcripts and the session store in sessions/.
// long: the facade, one short delegating method per GatewayApi member (turns, runs, sessions, sources, replay lab, traces); the logic lives in gateway/, runs/, sessions/ and tools/.
import { EventEmitter } from 'node:events';
import { catalogView, mcpServerViews } from './catalog/view.ts';
import { agentModel, agentCodeModeOptions } from './config/activation.ts';
import { loadConfigFile, resolveConfigPath } from './config/load.ts';
import type { CodeModeOptions, ExecutorKind, GatewayConfig } from './config/types.ts';
import { newGatewayInstanceId } from './durable/instance-id.ts';
import { durableRunsKey, type SnapshotKey } from './durable/snapshot-key.ts';
import { CodeModeError, ConfigError } from './errors.ts';
import type { Executor } from './executors/types.ts';
import { ControlCalls } from './gateway/control-call.ts';
import { redactionRegistry } from './gateway/secrets.ts';
import type { RedactionRegistry } from './source/redact.ts';
import { ExecutorSet } from './gateway/executors.ts';
import { compareExecutors, type CompareOptions } from './gateway/compare.ts';
import { TurnRegistry } from './gateway/turns.ts';
import type { OtlpLiveExport } from './gateway/otlp-live.ts';
import { isTerminal } from './runs/run.ts';
import type {
  BranchSessionRequest,
  CatalogView,
  ClientToolSpec,
  CompactSessionRequest,
  ExecOptions,
  ExecutorComparisonRow,
  ForkRunRequest,
  GatewayApi,
  SavedTest,
  InferredOverlay,
  McpServerView,
  SurfaceView,
  TurnInfo,
  TurnRequest,
  WaitOptions,
} from './gateway-types.ts';
import { Ownership } from './access/ownership.ts';
import { ApprovalBroker } from './runs/approvals.ts';
import { resultToModelText } from './runs/model-text.ts';
import { RunManager } from './runs/runs.ts';
import type { Cassette } from './runs/cassette.ts';
import { savedTest } from './gateway/save-as-test.ts';
import type { ApprovalView, CodeModeExecInput, CodeModeResult, RunEvent, RunView, TrajectoryExport } from './runs/types.ts';
import { assertSessionIdle, checkedSummary, compactionText } from './sessions/compaction.ts';
import { SessionStore } from './sessions/store.ts';
import { openSessionDatabase } from './sessions/db.ts';
import { SessionStoreError } from './sessions/database.ts';
import { TranscriptRecorder, turnActivity } from './gateway/recorder.ts';
import { assertSessionId, entryRunId } from './sessions/transcript.ts';
import type { NestedActivityPayload, SessionStoreEntry, TranscriptEntry } from './sessions/types.ts';
import type { TranscriptPage, TranscriptPageOptions } from './sessions/transcript-page.ts';
import { runAgentEndHooks, type CodeModePlugin } from './tools/plugins.ts';
import { loadToolSources } from './tools/registry.ts';
import type { ToolDefinition } from './tools/types.ts';
import { McpManager, startMcpManager, type McpToolSource } from './tools/mcp/manager.ts';
import { OpenApiSources } from './tools/openapi/manager.ts';
import { SourceRegistry, type AddSourceRequest, type SaveSourceResult, type SourceView } from './gateway/sources.ts';

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
  /** OpenAPI tool sources (createGateway starts one from config.sources.openapi unless given). */
  openapi?: OpenApiSources;
  /** Where the gateway's own log lines go (config warnings, MCP server stderr and reconnects); default: dropped. */
  log?: (line: string) => void;
  /** How long a cell's VM may take to get ready (tests); default LEG_START_LIMIT_MS (runs/limits.ts). */
  legStartLimitMs?: number;
}

export class Gateway implements GatewayApi {
  /** This start's id (durable/instance-id.ts): lease holders, run notices and messages name this Gateway by it. */
  readonly instanceId = newGatewayInstanceId();
  /** The key durable runs are sealed with (runs.durable only): loaded first, so a missing or malformed key stops the start. */
  readonly snapshotKey?: SnapshotKey;
  readonly runsManager: RunManager;
  /** Session store and transcripts (SQLite at `config.sessions.path`, or PostgreSQL at `config.sessions.url`); the Gateway closes the database. */
  readonly sessions: SessionStore;
  private readonly recorder: TranscriptRecorder;
  private readonly approvalsBroker: ApprovalBroker;
  readonly ownership: Ownership;
  private readonly events = new EventEmitter();
  private readonly turns: TurnRegistry;
  private readonly executors: ExecutorSet;
  private readonly calls: ControlCalls;
  /** Live trace export, when the config names an OTLP endpoint (telemetry.otlp.url); loaded on demand, like the OTLP encoder. */
  private readonly otlp?: Promise<OtlpLiveExport>;
  private readonly openapi: OpenApiSources;
  private readonly liveSources: SourceRegistry;
  /** Source masking's registered secrets and patterns (spec 01): the config's credentials, then added sources'. */
  readonly redaction: RedactionRegistry;
  private closed = false;
  /** Transcript reads for agent_end hooks under way: close() lets them finish before the database closes. */
  private readonly agentEndReads = new Set<Promise<unknown>>();

  constructor(
    readonly config: GatewayConfig,
    private readonly loaded: { tools: ToolDefinition[]; plugins: CodeModePlugin[]; pluginErrors: Array<{ plugin: string; error: string }> },
    private readonly opts: GatewayOptions = {},
  ) {
    this.events.setMaxListeners(0);
    if (config.runs?.durable) this.snapshotKey = durableRunsKey(opts.env ?? process.env);
    this.redaction = redactionRegistry(config);
    const redact = (code: string) => this.redaction.redact(code);
    try {
      this.sessions = new SessionStore(openSessionDatabase(config.sessions, { log: (line) => (opts.log ?? console.warn)(`[sessions] ${line}`) }));
    } catch (err) {
      if (err instanceof SessionStoreError) throw new ConfigError(sessionsField(config), err.message);
      throw err;
    }
    this.ownership = new Ownership((sessionId) => this.sessionHasHistory(sessionId));
    this.recorder = new TranscriptRecorder(
      this.sessions.transcript,
      (runId, callId) => this.runsManager.controlCall(runId, callId),
      (message) => console.warn(`[sessions] ${message}`),
      loaded.plugins,
    );
    this.sessions.transcript.onAppend((entry) => {
      const runId = entryRunId(entry);
      this.emit({ type: 'session.appended', ...(runId !== undefined ? { runId } : {}), sessionId: entry.sessionId, at: entry.createdAt, entryId: entry.id });
    });
    // first listener: a run's owner is known before any subscriber hears of the run
    this.events.on('event', (event: RunEvent) => {
      if (event.type === 'run.started') this.ownership.noteRun(event.runId, event.view.agentRunId);
      else if (event.type === 'nested.finished') this.recorder.nestedFinished(event.runId, event.call);
      else if (event.type === 'run.updated' && isTerminal(event.view.state)) this.exportEnded(event.runId);
    });
    const otlpOptions = config.telemetry?.otlp;
    // the OpenTelemetry packages load only when traces are wanted: a process that never exports never pays for them
    if (otlpOptions) this.otlp = import('./gateway/otlp-live.ts').then((m) => new m.OtlpLiveExport(otlpOptions, (line) => (opts.log ?? console.warn)(line)));
    this.executors = new ExecutorSet(opts.executors);
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
    this.turns = new TurnRegistry({
      config,
      tools: loaded.tools,
      plugins: loaded.plugins,
      ...(opts.extraTools ? { extraTools: opts.extraTools } : {}),
      mcpServers: () => this.mcpServers(),
      ownership: this.ownership,
      runs: this.runsManager,
      ...(opts.turnIdleMs !== undefined ? { idleMs: opts.turnIdleMs } : {}),
      redact,
      onEnded: (turn, reason) => this.agentEnded(turn, reason),
    });
    this.openapi = opts.openapi ?? new OpenApiSources({ baseDir: config.baseDir, ...(config.sources ? { maxDocumentBytes: config.sources.maxDocumentBytes } : {}) });
    this.liveSources = new SourceRegistry({
      config,
      mcp: opts.mcp instanceof McpManager ? opts.mcp : undefined,
      openapi: this.openapi,
      ...(opts.log ? { log: opts.log } : {}),
      redaction: this.redaction,
    });
    this.calls = new ControlCalls({
      recorder: this.recorder,
      runs: this.runsManager,
      executors: this.executors,
      plugins: loaded.plugins,
      redact,
      closed: () => this.closed,
    });
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
    return this.turns.effective(req).surface;
  }

  catalog(req: TurnRequest): CatalogView {
    const eff = this.turns.effective(req);
    return catalogView({ ...eff, mcpServers: this.mcpServers(), pluginErrors: this.loaded.pluginErrors });
  }

  /** MCP connection states. */
  mcpServers(): McpServerView[] {
    return mcpServerViews(this.opts.mcp?.views() ?? []);
  }

  /**
   * Resolves once every configured MCP server's first connection attempt has settled (connected or failed),
   * bounded by the connect timeout; reconnects never delay it. The Gateway starts without waiting for MCP, so
   * whatever starts a turn (the API, the CLI) awaits this before prepareTurn, surface or catalog: otherwise a
   * turn prepared just after start sees a server that is merely slow to answer `initialize` as unavailable.
   */
  async mcpReady(): Promise<void> {
    await Promise.all([this.opts.mcp?.ready(), this.openapi.firstReady()]);
  }

  toolSourcesRevision(): number {
    return (this.opts.mcp?.revision() ?? 0) + this.openapi.revision();
  }

  /**
   * This Gateway's runtime tool sources for a sibling Gateway over another config (the test plan's code-mode-off
   * and short-budget gateways): the same connections, which the sibling never closes.
   */
  borrowedSources(): Pick<GatewayOptions, 'mcp' | 'extraTools'> {
    const mcp = this.opts.mcp;
    return {
      ...(mcp ? { mcp: { ready: () => mcp.ready(), tools: () => mcp.tools(), revision: () => mcp.revision(), onToolsChanged: (l: () => void) => mcp.onToolsChanged(l), views: () => mcp.views(), close: async () => {} } } : {}),
      ...(this.opts.extraTools ? { extraTools: this.opts.extraTools } : {}),
    };
  }

  // ---- live tool sources (server/gateway/sources.ts; the API lets only the operator call these) ----------------------

  sources(): SourceView[] {
    return this.liveSources.list();
  }

  sourceCommandLine(req: { command: string; args?: string[]; env?: Record<string, string> }): string {
    return this.liveSources.commandLine(req);
  }

  addSource(req: AddSourceRequest, context: { exposed: boolean }): SourceView {
    this.assertOpen();
    return this.liveSources.add(req, context);
  }

  sourceSettled(name: string): Promise<SourceView | undefined> {
    return this.liveSources.settled(name);
  }

  removeSource(name: string): Promise<boolean> {
    return this.liveSources.remove(name);
  }

  saveSource(name: string): SaveSourceResult {
    return this.liveSources.save(name);
  }

  onToolSourcesChanged(listener: () => void): () => void {
    // the config is read once at start: MCP servers and OpenAPI documents (configured or added live) are what change
    const offMcp = this.opts.mcp?.onToolsChanged(listener);
    const offOpenApi = this.openapi.onChanged(listener);
    return () => {
      offMcp?.();
      offOpenApi();
    };
  }

  // ---- turns -----------------------------------------------------------------------------------

  prepareTurn(req: TurnRequest): TurnInfo {
    this.assertOpen();
    return this.turns.prepare(req);
  }

  /** New cells see the new client tools; running and parked cells keep theirs (see TurnRegistry.updateClientTools). */
  updateClientTools(agentRunId: string, clientTools: ClientToolSpec[]): TurnInfo {
    this.assertOpen();
    return this.turns.updateClientTools(agentRunId, clientTools);
  }

  /**
   * A session id with entries (from this or an earlier process, on any branch) is not new: joining it needs its
   * token. Entries are only looked for, never read, so a damaged transcript still counts as someone's.
   */
  private sessionHasHistory(sessionId: string): Promise<boolean> {
    return this.sessions.transcript.hasEntries(sessionId);
  }

  turnOptions(agentRunId: string): Readonly<CodeModeOptions> | undefined {
    return this.turns.options(agentRunId);
  }

  endTurn(agentRunId: string): void {
    this.turns.end(agentRunId);
  }

  exec(agentRunId: string, input: CodeModeExecInput, opts: ExecOptions = {}): Promise<CodeModeResult> {
    return this.calls.exec(this.turns.use(agentRunId), agentRunId, input, opts);
  }

  wait(agentRunId: string, input: { runId: string }, opts: WaitOptions = {}): Promise<CodeModeResult> {
    return this.calls.wait(this.turns.use(agentRunId), agentRunId, input, opts);
  }

  /** The cell on every executor (or `kinds`), each in its own run of this turn, side by side (gateway/compare.ts). */
  compareExecutors(agentRunId: string, input: CodeModeExecInput, kinds?: readonly ExecutorKind[], opts: CompareOptions = {}): Promise<ExecutorComparisonRow[]> {
    return compareExecutors(
      {
        exec: (id, i, o) => this.exec(id, i, o),
        wait: (id, i) => this.wait(id, i),
        trajectory: (runId) => this.trajectory(runId),
        executorStarted: (kind) => this.executors.has(kind),
      },
      agentRunId,
      input,
      kinds,
      opts,
    );
  }

  modelText(result: CodeModeResult): string {
    return resultToModelText(result);
  }

  /** The branch of a session's transcript, root first (display form: nested activity and store entries included). */
  transcript(sessionId: string): Promise<TranscriptEntry[]> {
    return this.sessions.transcript.branch(sessionId);
  }

  /** One bounded page of that branch, root first (sessions/transcript-page.ts). */
  transcriptPage(sessionId: string, opts: TranscriptPageOptions = {}): Promise<TranscriptPage> {
    return this.sessions.transcript.page(sessionId, opts);
  }

  /** The session store as the session's current branch holds it. */
  sessionStore(sessionId: string): Promise<SessionStoreEntry[]> {
    return this.sessions.entries(sessionId);
  }

  /** Refused while a run of the session is live (see assertSessionIdle). */
  async branchSession(req: BranchSessionRequest): Promise<TranscriptEntry[]> {
    this.assertOpen();
    const sessionId = req?.sessionId;
    assertSessionId(sessionId);
    assertSessionIdle(this.runsManager.list(), sessionId, 'branch');
    await this.sessions.transcript.branchFrom(sessionId, req.entryId);
    return this.sessions.transcript.branch(sessionId);
  }

  /** Refused while a run of the session is live (see assertSessionIdle): its result would follow the marker. */
  async compactSession(req: CompactSessionRequest): Promise<Extract<TranscriptEntry, { type: 'compaction' }>> {
    this.assertOpen();
    const sessionId = req?.sessionId;
    assertSessionId(sessionId);
    const summary = checkedSummary(req.summary);
    assertSessionIdle(this.runsManager.list(), sessionId, 'compact');
    const text = compactionText(sessionId, await this.sessions.transcript.branch(sessionId), summary);
    return this.sessions.transcript.compact(sessionId, text);
  }

  abortRun(runId: string): boolean {
    return this.runsManager.abortRun(runId);
  }

  cassette(runId: string): Cassette | undefined {
    return this.runsManager.cassette(runId);
  }

  saveAsTest(runId: string): SavedTest | undefined {
    const cassette = this.runsManager.cassette(runId);
    const agentId = this.runsManager.get(runId)?.agentId;
    return cassette && agentId !== undefined ? savedTest(cassette, agentId) : undefined;
  }

  forkRun(req: ForkRunRequest): RunView {
    this.assertOpen();
    return this.runsManager.fork(req?.runId, req?.replies);
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

  inferredTypes(agentRunId: string): InferredOverlay | undefined {
    return this.turns.inferredTypes(agentRunId);
  }

  async trajectoryOtlp(runId: string): Promise<string | undefined> {
    const t = this.runsManager.trajectory(runId);
    if (!t) return undefined;
    const { trajectoryOtlpJson } = await import('./gateway/otlp.ts');
    return trajectoryOtlpJson(t);
  }

  /** An ended run's trace goes to the live OTLP endpoint, when one is configured (once per run). */
  private exportEnded(runId: string): void {
    if (!this.otlp) return;
    const t = this.runsManager.trajectory(runId);
    if (t) void this.otlp.then((live) => live.exportRun(t));
  }

  subscribe(listener: (event: RunEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.runsManager.close();
    await (await this.otlp)?.close();
    this.turns.close();
    await Promise.all(this.agentEndReads);
    await this.executors.close();
    await this.opts.mcp?.close();
    this.openapi.close();
    this.events.removeAllListeners();
    await this.recorder.close();
    await this.sessions.close();
  }

  // ---- internals -------------------------------------------------------------------------------

  /** A turn ended: the plugins' agent_end hooks hear it with its accepted activity, read from the transcript (spec 02). */
  private agentEnded(turn: { agentRunId: string; agentId: string; sessionId: string }, reason: 'ended' | 'idle' | 'shutdown'): void {
    if (!this.loaded.plugins.some((p) => p.hooks?.agent_end)) return;
    const log = this.opts.log ?? console.warn;
    const read = (async (): Promise<NestedActivityPayload[]> => {
      try {
        // a read writes the turn's queued activity rows first: the hooks get what the transcript accepted
        return turnActivity(await this.sessions.transcript.branch(turn.sessionId), turn.agentRunId);
      } catch (err) {
        log(`agent_end: the transcript of session ${turn.sessionId} could not be read (${(err as Error).message}); the hooks get no activity`);
        return [];
      }
    })();
    // close() waits for the reads (the database closes after them); the hooks themselves run on their own
    this.agentEndReads.add(read);
    void read.then((activity) => {
      this.agentEndReads.delete(read);
      return runAgentEndHooks(this.loaded.plugins, { ...turn, reason, activity }, log);
    });
  }

  /**
   * Start the executors the configured agents use and wait until they are warm (QuickJS: workers
   * started, idle instances resident, warm-up cells run; Node and quickjs-emscripten: one worker started for
   * each agent's memory budget), and resolve the default agent's turn once, so the first cell costs what
   * a warm one does.
   */
  async warmUp(): Promise<void> {
    this.turns.warmUp();
    const budgets = new Map<string, { kind: ExecutorKind; memoryLimitBytes: number }>();
    for (const a of this.config.agents.list) {
      const { executor: kind, memoryLimitBytes } = agentCodeModeOptions(this.config, a);
      budgets.set(`${kind}#${memoryLimitBytes}`, { kind, memoryLimitBytes });
    }
    await Promise.all([...budgets.values()].map(async ({ kind, memoryLimitBytes }) => (await this.executors.get(kind)).ready?.({ memoryLimitBytes })));
  }

  private emit(event: RunEvent): void {
    this.events.emit('event', event);
  }

  private assertOpen(): void {
    if (this.closed) throw new CodeModeError('runtime_unavailable', 'the gateway is shutting down');
  }
}

export async function createGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const config =
    opts.config ??
    loadConfigFile(
      opts.configPath ?? resolveConfigPath({ argv: opts.argv ?? process.argv.slice(2), env: opts.env ?? process.env, cwd: process.cwd() }),
    );
  // a durable config without its key stops here, before any tool source or MCP server starts
  if (config.runs?.durable) durableRunsKey(opts.env ?? process.env);
  const sources = await loadToolSources(config);
  // Started after the other sources load, so a failing load leaves no server process behind.
  for (const warning of config.warnings ?? []) opts.log?.(`config: ${warning}`);
  const mcp = opts.mcp ?? startMcpManager(config, opts.log ? { log: (line) => opts.log?.(`mcp: ${line}`) } : {});
  const openapi =
    opts.openapi ??
    new OpenApiSources({
      baseDir: config.baseDir,
      reservedNames: () => sources.tools.map((t) => t.name),
      ...(config.sources ? { maxDocumentBytes: config.sources.maxDocumentBytes } : {}),
      ...(opts.log ? { log: opts.log } : {}),
    });
  for (const [name, source] of Object.entries(config.sources?.openapi ?? {})) openapi.add(name, source);
  openapi.start();
  const extra = opts.extraTools;
  const gateway = new Gateway(config, sources, { ...opts, mcp, openapi, extraTools: () => [...(extra?.() ?? []), ...mcp.tools(), ...openapi.tools()] });
  if (gateway.snapshotKey) opts.log?.(`runs.durable: Gateway ${gateway.instanceId} seals parked runs with snapshot key ${gateway.snapshotKey.id}`);
  try {
    // a session database that cannot be used (PostgreSQL unreachable, a schema from a newer build) stops the start here
    await gateway.sessions.ready();
  } catch (err) {
    await gateway.close();
    throw err instanceof SessionStoreError ? new ConfigError(sessionsField(config), err.message) : err;
  }
  try {
    await gateway.warmUp();
  } catch (err) {
    // cells report runtime_unavailable with the reason; the rest of the Gateway still serves
    opts.log?.(`executor warm-up failed: ${(err as Error).message}`);
  }
  return gateway;
}

/** The config field that chose the session database, for errors about it. */
function sessionsField(config: GatewayConfig): 'sessions.path' | 'sessions.url' {
  return config.sessions?.url !== undefined ? 'sessions.url' : 'sessions.path';
}
