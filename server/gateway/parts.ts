// The Gateway's parts, built in dependency order from one config, wired to each other, and closed in reverse.
//
// The session store comes first (ownership asks it whether a session has history); the run manager needs the
// store, the approval broker and the event bus; turns need the run manager and ownership; the exec/wait path
// needs turns' runs, the recorder and the executors. The first listener on the event bus keeps the records
// every subscriber relies on (a run's owner, its nested activity in the transcript) before anyone else hears
// an event. Nothing here is reachable from outside the Gateway: its faces (gateway-types.ts) are.
import type { ExecutorKind, GatewayConfig } from '../config/types.ts';
import type { SnapshotKey } from '../durable/snapshot-key.ts';
import { ConfigError } from '../errors.ts';
import type { Executor } from '../executors/types.ts';
import { Ownership, type StoredTokens } from '../access/ownership.ts';
import { ApprovalBroker } from '../runs/approvals.ts';
import { isTerminal } from '../runs/run.ts';
import { RunManager } from '../runs/runs.ts';
import type { RunEvent } from '../runs/types.ts';
import { SessionStoreError } from '../sessions/database.ts';
import { openSessionDatabase } from '../sessions/db.ts';
import { SessionStore } from '../sessions/store.ts';
import { entryRunId } from '../sessions/transcript.ts';
import type { RedactionRegistry } from '../cell/redact.ts';
import type { CodeModePlugin } from '../tools/plugins.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { McpManager, type McpToolSource } from '../tools/mcp/manager.ts';
import { OpenApiSources } from '../tools/openapi/manager.ts';
import { mcpServerViews } from '../catalog/view.ts';
import { AgentEndHooks } from './agent-end.ts';
import { ControlCalls } from './control-call.ts';
import { DurableRuns } from './durable-runs.ts';
import { GatewayPresence } from './presence.ts';
import { RunNotices } from './run-notices.ts';
import { RunViews } from './run-views.ts';
import { RunViewStore } from '../sessions/run-views.ts';
import { RunRequests } from './run-requests.ts';
import { RunRequestStore } from '../sessions/run-requests.ts';
import { openRunNotifier } from '../sessions/notifier.ts';
import { RunEventBus } from './event-bus.ts';
import { ExecutorSet } from './executors.ts';
import type { OtlpLiveExport } from './otlp-live.ts';
import { TranscriptRecorder } from './recorder.ts';
import { redactionRegistry } from './secrets.ts';
import { SourceRegistry } from './sources.ts';
import { TurnRegistry } from './turns.ts';

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

/** The tools and plugins the config loaded (tools/registry.ts), and the plugins that failed to load. */
export interface LoadedSources {
  tools: ToolDefinition[];
  plugins: CodeModePlugin[];
  pluginErrors: Array<{ plugin: string; error: string }>;
}

export interface GatewayParts {
  readonly config: GatewayConfig;
  readonly loaded: LoadedSources;
  readonly events: RunEventBus;
  /** Source masking's registered secrets and patterns (spec 01): the config's credentials, then added sources'. */
  readonly redaction: RedactionRegistry;
  /** Session store and transcripts (SQLite at `config.sessions.path`, or PostgreSQL at `config.sessions.url`). */
  readonly sessions: SessionStore;
  readonly ownership: Ownership;
  readonly recorder: TranscriptRecorder;
  readonly approvals: ApprovalBroker;
  readonly runs: RunManager;
  readonly agentEnd: AgentEndHooks;
  readonly turns: TurnRegistry;
  readonly executors: ExecutorSet;
  readonly calls: ControlCalls;
  /** MCP connections, when the Gateway has any (closed with it). */
  readonly mcp: McpToolSource | undefined;
  readonly openapi: OpenApiSources;
  readonly sources: SourceRegistry;
  /** Live trace export, when the config names an OTLP endpoint (telemetry.otlp.url); loaded on demand, like the OTLP encoder. */
  readonly otlp: Promise<OtlpLiveExport> | undefined;
  /** Durable runs (runs.durable): parked runs' sealed rows and the turn tokens that open them after a restart. */
  readonly durable: DurableRuns | undefined;
  /** This Gateway's heartbeat on the session database: another Gateway of the group tells by it whether a run's holder is up. */
  readonly presence: GatewayPresence;
  /** Run notices with the other Gateways of the session database (ids only): what this one hears of runs it does not hold. */
  readonly notices: RunNotices;
  /** Run views with the other Gateways: this one's live runs published (sealed), theirs shown on this one's pages. */
  readonly views: RunViews;
  /** Approval decisions and client-call answers forwarded to the Gateway that holds the run, and those this one applies. */
  readonly requests: RunRequests;
}

/** Who this Gateway is on the session database: this start's instance id, and (runs.durable only) the key its runs are sealed with. */
export interface GatewayIdentity {
  instanceId: string;
  key?: SnapshotKey;
}

/** Builds the parts; `closed` tells the exec/wait path the Gateway is shutting down (calls are refused, no longer recorded). */
export function buildParts(config: GatewayConfig, loaded: LoadedSources, opts: GatewayOptions, closed: () => boolean, identity: GatewayIdentity): GatewayParts {
  const { instanceId, key } = identity;
  const log = opts.log ?? console.warn;
  const events = new RunEventBus();
  const redaction = redactionRegistry(config);
  const redact = (code: string) => redaction.redact(code);
  const sessions = openSessionStore(config, log);
  // a session id with entries (from this or an earlier process, on any branch) is not new: joining it needs its
  // token. Entries are only looked for, never read, so a damaged transcript still counts as someone's. With
  // runs.durable a session or turn token this process does not hold is checked against the stored digests (minted
  // before a restart, or by another Gateway on the database).
  const storedTokens: StoredTokens = {
    checkSession: (sessionId, presented) => (durable ? durable.tokens.checkSession(sessionId, presented) : Promise.resolve('unknown')),
    turnSession: async (turnToken) => {
      const grant = durable ? await durable.tokens.open(turnToken) : undefined;
      return grant?.kind === 'turn' ? grant.sessionId : undefined;
    },
  };
  const ownership: Ownership = new Ownership((sessionId) => sessions.transcript.hasEntries(sessionId), key ? storedTokens : undefined);
  // the recorder looks calls up in the run manager, built below: it asks only once a run has dispatched a nested call
  const recorder = new TranscriptRecorder(sessions.transcript, (runId, callId) => runs.controlCall(runId, callId), (message) => console.warn(`[sessions] ${message}`), loaded.plugins);
  announceTranscriptAppends(sessions, events);
  const otlp = liveTraceExport(config, log);
  const approvals = approvalBroker(events);
  const runs = new RunManager(
    { sessions, approvals: { request: (view, signal) => approvals.request(view, signal) }, emit: (e) => events.emit(e) },
    { ...(opts.legStartLimitMs !== undefined ? { legStartLimitMs: opts.legStartLimitMs } : {}), durable: key !== undefined },
  );
  keepRunRecords(events, { ownership, recorder, runs, otlp });
  const executors = new ExecutorSet(opts.executors);
  const agentEnd = new AgentEndHooks(loaded.plugins, sessions.transcript, log);
  const mcp = opts.mcp;
  const turns = new TurnRegistry({
    config,
    tools: loaded.tools,
    plugins: loaded.plugins,
    ...(opts.extraTools ? { extraTools: opts.extraTools } : {}),
    mcpServers: () => mcpServerViews(mcp?.views() ?? []),
    ownership,
    runs,
    parkedElsewhere: (): ReadonlyMap<string, string> => durable?.evictedRuns() ?? new Map<string, string>(),
    ...(opts.turnIdleMs !== undefined ? { idleMs: opts.turnIdleMs } : {}),
    redact,
    onEnded: (turn, reason) => {
      agentEnd.turnEnded(turn, reason);
      durable?.turnEnded(turn.agentRunId, reason);
    },
    onPrepared: (info, owner) => durable?.turnPrepared(info, owner),
  });
  const durable: DurableRuns | undefined = key
    ? new DurableRuns({ db: sessions.transcript.db, ready: sessions.transcript.ready(), key, instanceId, config, runs, turns, executors, events, log })
    : undefined;
  const openapi = opts.openapi ?? new OpenApiSources({ baseDir: config.baseDir, ...(config.sources ? { maxDocumentBytes: config.sources.maxDocumentBytes } : {}) });
  const sources = new SourceRegistry({ config, mcp: mcp instanceof McpManager ? mcp : undefined, openapi, ...(opts.log ? { log: opts.log } : {}), redaction });
  const notifier = openRunNotifier(sessions.transcript.db, { gatewayId: instanceId, log });
  const notices = new RunNotices({ notifier, events, log, onRemoteChange: (runId) => void durable?.verifyHeld(runId) });
  const presence = new GatewayPresence({ db: sessions.transcript.db, ready: sessions.transcript.ready(), instanceId, durable: durable !== undefined, log });
  const views = new RunViews({
    store: new RunViewStore(sessions.transcript.db, { ready: sessions.transcript.ready() }),
    notifier,
    events,
    runs,
    approvals,
    live: (id) => presence.live(id),
    instanceId,
    ...(key ? { key } : {}),
    log,
  });
  const requests = new RunRequests({
    store: new RunRequestStore(sessions.transcript.db, { ready: sessions.transcript.ready() }),
    notifier,
    ...(key ? { key } : {}),
    instanceId,
    views,
    local: {
      approvalRun: (approvalId) => approvals.list().find((a) => a.approvalId === approvalId)?.runId,
      decideApproval: (approvalId, approve, reason) => approvals.decide(approvalId, approve, reason),
      answerClientCall: (runId, callId, answer) => runs.answerClientCall(runId, callId, answer),
      abortRun: (runId) => runs.abortRun(runId) || (durable?.abortEvicted(runId) ?? false),
    },
    live: (id) => presence.live(id),
    log,
  });
  const calls = new ControlCalls({ recorder, runs, transcript: sessions.transcript, executors, plugins: loaded.plugins, redact, closed, presence: { instanceId, live: (id) => presence.live(id) }, ...(durable ? { durable } : {}) });
  return { config, loaded, events, redaction, sessions, ownership, recorder, approvals, runs, agentEnd, turns, executors, calls, mcp, openapi, sources, otlp, durable, presence, notices, views, requests };
}

/** Closes the parts in reverse: runs first (their continuations released), the session database last (after every write). */
export async function closeParts(parts: GatewayParts): Promise<void> {
  // first: the runs closing aborts keep their durable rows (only a run that ends deletes its row)
  await parts.durable?.close();
  // its runs' views go before its presence: no other Gateway's page shows them as live from now on
  await parts.requests.close();
  await parts.views.close();
  // its row goes before its runs do: the others answer waits on them as a gone Gateway's from now on
  await parts.presence.close();
  await parts.notices.close();
  await parts.runs.close();
  await (await parts.otlp)?.close();
  parts.turns.close();
  await parts.agentEnd.settled();
  await parts.executors.close();
  await parts.mcp?.close();
  parts.openapi.close();
  parts.events.close();
  await parts.recorder.close();
  await parts.sessions.close();
}

/** The config field that chose the session database, for errors about it. */
export function sessionsField(config: GatewayConfig): 'sessions.path' | 'sessions.url' {
  return config.sessions?.url !== undefined ? 'sessions.url' : 'sessions.path';
}

/** The session store over the configured database; a database that cannot be opened is a ConfigError naming the field. */
function openSessionStore(config: GatewayConfig, log: (line: string) => void): SessionStore {
  try {
    return new SessionStore(openSessionDatabase(config.sessions, { log: (line) => log(`[sessions] ${line}`) }));
  } catch (err) {
    if (err instanceof SessionStoreError) throw new ConfigError(sessionsField(config), err.message);
    throw err;
  }
}

/** Every transcript append is a `session.appended` event: the boards and the API reload the session. */
function announceTranscriptAppends(sessions: SessionStore, events: RunEventBus): void {
  sessions.transcript.onAppend((entry) => {
    const runId = entryRunId(entry);
    events.emit({ type: 'session.appended', ...(runId !== undefined ? { runId } : {}), sessionId: entry.sessionId, at: entry.createdAt, entryId: entry.id });
  });
}

/** The OpenTelemetry packages load only when traces are wanted: a process that never exports never pays for them. */
function liveTraceExport(config: GatewayConfig, log: (line: string) => void): Promise<OtlpLiveExport> | undefined {
  const otlpOptions = config.telemetry?.otlp;
  if (!otlpOptions) return undefined;
  return import('./otlp-live.ts').then((m) => new m.OtlpLiveExport(otlpOptions, log));
}

/** Pending approvals, each request and decision announced on the event bus. */
function approvalBroker(events: RunEventBus): ApprovalBroker {
  return new ApprovalBroker((e) => {
    if (e.requested) events.emit({ type: 'approval.requested', runId: e.requested.runId, at: Date.now(), approval: e.requested });
    if (e.resolved) events.emit({ type: 'approval.resolved', runId: e.resolved.runId, at: Date.now(), approvalId: e.resolved.approvalId, approved: e.resolved.approved });
  });
}

/**
 * The bus's first listener: a run's owner is known before any subscriber hears of the run, a finished nested
 * call is filed in the transcript, and an ended run's trace goes to the live OTLP endpoint (once per run).
 */
function keepRunRecords(
  events: RunEventBus,
  parts: { ownership: Ownership; recorder: TranscriptRecorder; runs: RunManager; otlp: Promise<OtlpLiveExport> | undefined },
): void {
  events.subscribe((event: RunEvent) => {
    if (event.type === 'run.started') parts.ownership.noteRun(event.runId, event.view.agentRunId);
    else if (event.type === 'nested.finished') parts.recorder.nestedFinished(event.runId, event.call);
    else if (event.type === 'run.updated' && isTerminal(event.view.state) && parts.otlp) {
      const trajectory = parts.runs.trajectory(event.runId);
      if (trajectory) void parts.otlp.then((live) => live.exportRun(trajectory));
    }
  });
}
