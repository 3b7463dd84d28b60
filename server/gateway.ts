// The composition root: one Gateway built from one config, serving exec/wait and the playground's API.
//
// The Gateway only wires. Its parts (session store, ownership, run manager, turns, the exec/wait path, tool
// sources, executors) are built and closed by gateway/parts.ts and stay private; what callers reach is its
// faces (gateway-types.ts), each implemented by its own module under gateway/: model (turns, exec, wait),
// catalog, runs, lab, sources, sessions, access, and the diagnostics seam that tests, the bench and the
// test plan read. The Gateway implements every face, so a caller can take just the faces it needs.
import type { ExecutorKind, GatewayConfig, CodeModeOptions } from './config/types.ts';
import { CodeModeError, ConfigError } from './errors.ts';
import { loadConfigFile, resolveConfigPath } from './config/load.ts';
import { newGatewayInstanceId } from './durable/instance-id.ts';
import { durableRunsKey, type SnapshotKey } from './durable/snapshot-key.ts';
import type {
  BranchSessionRequest,
  CatalogFace,
  CatalogView,
  ClientToolSpec,
  CompactSessionRequest,
  ExecOptions,
  ExecutorComparisonRow,
  ElsewhereAction,
  ForkRunRequest,
  GatewayApi,
  GatewayDiagnostics,
  InferredOverlay,
  LabFace,
  McpServerView,
  ModelFace,
  OwnershipApi,
  RunsFace,
  SavedTest,
  SessionsFace,
  SourcesFace,
  SurfaceView,
  TurnInfo,
  TurnRequest,
  WaitOptions,
} from './gateway-types.ts';
import { ownershipChecks } from './gateway/access-face.ts';
import { catalogFace } from './gateway/catalog-face.ts';
import type { CompareOptions } from './gateway/compare.ts';
import { gatewayDiagnostics } from './gateway/diagnostics.ts';
import { warmUpExecutors } from './gateway/executors.ts';
import { labFace } from './gateway/lab-face.ts';
import { modelFace } from './gateway/model-face.ts';
import { buildParts, closeParts, sessionsField, type GatewayOptions, type GatewayParts, type LoadedSources } from './gateway/parts.ts';
import { runsFace } from './gateway/runs-face.ts';
import { sessionsFace } from './gateway/sessions-face.ts';
import { sourcesFace } from './gateway/sources-face.ts';
import type { AddSourceRequest, SaveSourceResult, SourceView } from './gateway/sources.ts';
import type { Cassette } from './runs/cassette.ts';
import type { ApprovalView, CodeModeExecInput, CodeModeResult, RunEvent, RunView, TrajectoryExport } from './runs/types.ts';
import { SessionStoreError } from './sessions/database.ts';
import type { SessionStoreEntry, TranscriptEntry } from './sessions/types.ts';
import type { TranscriptPage, TranscriptPageOptions } from './sessions/transcript-page.ts';
import { loadToolSources } from './tools/registry.ts';
import { startMcpManager } from './tools/mcp/manager.ts';
import { OpenApiSources } from './tools/openapi/manager.ts';

export type { GatewayOptions } from './gateway/parts.ts';

/** The faces as the Gateway holds them, one module each. */
interface Faces {
  model: ModelFace;
  catalog: CatalogFace;
  runs: RunsFace;
  lab: LabFace;
  sources: SourcesFace;
  sessions: SessionsFace;
}

export class Gateway implements GatewayApi {
  /** Turn and session tokens as the API edge checks them; the Gateway's own methods do not check them (in-process callers are trusted). */
  readonly ownership: OwnershipApi;
  /** Health readings for tests, the bench and the test plan (slots, leaks, a session's model context, the session database). */
  readonly diagnostics: GatewayDiagnostics;
  /** This start's id (durable/instance-id.ts): lease holders, run notices and messages name this Gateway by it. */
  readonly instanceId = newGatewayInstanceId();
  /** The key durable runs are sealed with (runs.durable only): loaded first, so a missing or malformed key stops the start. */
  readonly snapshotKey?: SnapshotKey;
  private readonly parts: GatewayParts;
  private readonly faces: Faces;
  private closed = false;

  constructor(
    /** The resolved config the Gateway was built from: read it, never change it (the parts read it once). */
    readonly config: GatewayConfig,
    loaded: LoadedSources,
    private readonly opts: GatewayOptions = {},
  ) {
    if (config.runs?.durable) this.snapshotKey = durableRunsKey(opts.env ?? process.env);
    const parts = buildParts(config, loaded, opts, () => this.closed, { instanceId: this.instanceId, ...(this.snapshotKey ? { key: this.snapshotKey } : {}) });
    const assertOpen = () => this.assertOpen();
    const model = modelFace(parts, assertOpen);
    const runs = runsFace(parts);
    this.faces = {
      model,
      catalog: catalogFace(parts),
      runs,
      lab: labFace(parts, { exec: model.exec, wait: model.wait, trajectory: runs.trajectory }, assertOpen),
      sources: sourcesFace(parts, assertOpen),
      sessions: sessionsFace(parts, assertOpen),
    };
    this.parts = parts;
    this.ownership = ownershipChecks(parts.ownership);
    this.diagnostics = gatewayDiagnostics(parts);
  }

  // ---- model (gateway/model-face.ts) ----------------------------------------------------------------

  prepareTurn(req: TurnRequest): TurnInfo {
    return this.faces.model.prepareTurn(req);
  }
  updateClientTools(agentRunId: string, clientTools: ClientToolSpec[]): TurnInfo {
    return this.faces.model.updateClientTools(agentRunId, clientTools);
  }
  turnOptions(agentRunId: string): Readonly<CodeModeOptions> | undefined {
    return this.faces.model.turnOptions(agentRunId);
  }
  endTurn(agentRunId: string): void {
    this.faces.model.endTurn(agentRunId);
  }
  exec(agentRunId: string, input: CodeModeExecInput, opts?: ExecOptions): Promise<CodeModeResult> {
    return this.faces.model.exec(agentRunId, input, opts);
  }
  wait(agentRunId: string, input: { runId: string }, opts?: WaitOptions): Promise<CodeModeResult> {
    return this.faces.model.wait(agentRunId, input, opts);
  }
  modelText(result: CodeModeResult): string {
    return this.faces.model.modelText(result);
  }
  inferredTypes(agentRunId: string): InferredOverlay | undefined {
    return this.faces.model.inferredTypes(agentRunId);
  }

  // ---- catalog (gateway/catalog-face.ts) ------------------------------------------------------------

  agents(): Array<{ id: string; name?: string; model: string; executor: ExecutorKind }> {
    return this.faces.catalog.agents();
  }
  surface(req: TurnRequest): SurfaceView {
    return this.faces.catalog.surface(req);
  }
  catalog(req: TurnRequest): CatalogView {
    return this.faces.catalog.catalog(req);
  }
  mcpServers(): McpServerView[] {
    return this.faces.catalog.mcpServers();
  }
  mcpReady(): Promise<void> {
    return this.faces.catalog.mcpReady();
  }
  toolSourcesRevision(): number {
    return this.faces.catalog.toolSourcesRevision();
  }
  onToolSourcesChanged(listener: () => void): () => void {
    return this.faces.catalog.onToolSourcesChanged(listener);
  }

  // ---- runs (gateway/runs-face.ts) ------------------------------------------------------------------

  runs(): RunView[] {
    return this.faces.runs.runs();
  }
  storedRuns(): Promise<RunView[]> {
    return this.faces.runs.storedRuns();
  }
  heldElsewhere(): Promise<{ runs: RunView[]; approvals: ApprovalView[] }> {
    return this.faces.runs.heldElsewhere();
  }
  run(runId: string): RunView | undefined {
    return this.faces.runs.run(runId);
  }
  trajectory(runId: string): TrajectoryExport | undefined {
    return this.faces.runs.trajectory(runId);
  }
  trajectoryOtlp(runId: string): Promise<string | undefined> {
    return this.faces.runs.trajectoryOtlp(runId);
  }
  abortRun(runId: string): boolean {
    return this.faces.runs.abortRun(runId);
  }
  answerClientCall(req: { runId: string; callId: string; result?: unknown; error?: string }): void {
    this.faces.runs.answerClientCall(req);
  }
  approvals(): ApprovalView[] {
    return this.faces.runs.approvals();
  }
  decideApproval(req: { approvalId: string; approve: boolean; reason?: string }): void {
    this.faces.runs.decideApproval(req);
  }
  abortStored(runId: string): Promise<{ aborted: true } | { aborted: false; why: string } | undefined> {
    return this.faces.runs.abortStored(runId);
  }
  actElsewhere(action: ElsewhereAction): Promise<{ forwardedTo: string } | undefined> {
    return this.faces.runs.actElsewhere(action);
  }
  subscribe(listener: (event: RunEvent) => void): () => void {
    return this.faces.runs.subscribe(listener);
  }

  // ---- lab (gateway/lab-face.ts) --------------------------------------------------------------------

  forkRun(req: ForkRunRequest): RunView {
    return this.faces.lab.forkRun(req);
  }
  cassette(runId: string): Cassette | undefined {
    return this.faces.lab.cassette(runId);
  }
  saveAsTest(runId: string): SavedTest | undefined {
    return this.faces.lab.saveAsTest(runId);
  }
  compareExecutors(agentRunId: string, input: CodeModeExecInput, kinds?: readonly ExecutorKind[], opts?: CompareOptions): Promise<ExecutorComparisonRow[]> {
    return this.faces.lab.compareExecutors(agentRunId, input, kinds, opts);
  }

  // ---- sources (gateway/sources-face.ts) ------------------------------------------------------------

  sources(): SourceView[] {
    return this.faces.sources.sources();
  }
  sourceCommandLine(req: { command: string; args?: string[]; env?: Record<string, string> }): string {
    return this.faces.sources.sourceCommandLine(req);
  }
  addSource(req: AddSourceRequest, context: { exposed: boolean }): SourceView {
    return this.faces.sources.addSource(req, context);
  }
  sourceSettled(name: string): Promise<SourceView | undefined> {
    return this.faces.sources.sourceSettled(name);
  }
  removeSource(name: string): Promise<boolean> {
    return this.faces.sources.removeSource(name);
  }
  saveSource(name: string): SaveSourceResult {
    return this.faces.sources.saveSource(name);
  }

  // ---- sessions (gateway/sessions-face.ts) ----------------------------------------------------------

  transcript(sessionId: string): Promise<TranscriptEntry[]> {
    return this.faces.sessions.transcript(sessionId);
  }
  transcriptPage(sessionId: string, opts?: TranscriptPageOptions): Promise<TranscriptPage> {
    return this.faces.sessions.transcriptPage(sessionId, opts);
  }
  sessionStore(sessionId: string): Promise<SessionStoreEntry[]> {
    return this.faces.sessions.sessionStore(sessionId);
  }
  branchSession(req: BranchSessionRequest): Promise<TranscriptEntry[]> {
    return this.faces.sessions.branchSession(req);
  }
  compactSession(req: CompactSessionRequest): Promise<Extract<TranscriptEntry, { type: 'compaction' }>> {
    return this.faces.sessions.compactSession(req);
  }

  // ---- life cycle -----------------------------------------------------------------------------------

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

  /**
   * Resolves once the session database can be used (a PostgreSQL server reached, the schema migrated); otherwise
   * rejects with a ConfigError naming sessions.path or sessions.url. createGateway awaits it before warmUp.
   */
  async ready(): Promise<void> {
    try {
      await this.parts.sessions.ready();
    } catch (err) {
      throw err instanceof SessionStoreError ? new ConfigError(sessionsField(this.config), err.message) : err;
    }
  }

  /**
   * Start the executors the configured agents use and wait until they are warm (gateway/executors.ts), and resolve
   * the default agent's turn once, so the first cell costs what a warm one does.
   */
  async warmUp(): Promise<void> {
    this.parts.turns.warmUp();
    await warmUpExecutors(this.parts.executors, this.config);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await closeParts(this.parts);
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
    await gateway.ready();
  } catch (err) {
    await gateway.close();
    throw err;
  }
  try {
    await gateway.warmUp();
  } catch (err) {
    // cells report runtime_unavailable with the reason; the rest of the Gateway still serves
    opts.log?.(`executor warm-up failed: ${(err as Error).message}`);
  }
  return gateway;
}
