// The Gateway's public API by face (model, catalog, runs, lab, sources, sessions, access, diagnostics) and the types they speak; types only, gateway.ts implements them.
import type { DurableRunMetaRead } from './sessions/durable-runs.ts';
import type { RunNoticeKind } from './sessions/notifier.ts';
import type { CodeModeOptions, ExecutorKind } from './config/types.ts';
import type { JsonSchema } from './tools/types.ts';
import type { Cassette } from './runs/cassette.ts';
import type { RunRecord } from './runs/run-record.ts';
import type { ApprovalView, CodeModeExecInput, ForkReply, CodeModeResult, RunEvent, RunView, TrajectoryExport } from './runs/types.ts';
import type { SessionStoreEntry, TranscriptEntry } from './sessions/types.ts';
import type { TranscriptPage, TranscriptPageOptions } from './sessions/transcript-page.ts';
import type { SqlDialect } from './sessions/database.ts';
import type { Ownership } from './access/ownership.ts';
import type { Owner } from './access/owners.ts';
import type { CatalogView } from './catalog/view.ts';
import type { SurfaceView } from './surface/surface.ts';
import type { InferredOverlay } from './catalog/inferred-overlay.ts';

export type { CatalogToolView, CatalogView } from './catalog/view.ts';
export type { ModelTool, SurfaceView } from './surface/surface.ts';
export type { InferredOverlay, InferredTypeView } from './catalog/inferred-overlay.ts';
export type { McpServerView } from './tools/mcp/types.ts';
import type { McpServerView } from './tools/mcp/types.ts';
export type { AddSourceRequest, SaveSourceResult, SourceKind, SourceView } from './tools/sources-types.ts';
import type { AddSourceRequest, SaveSourceResult, SourceView } from './tools/sources-types.ts';

export type {
  CompactionPayload,
  EntryPayloads,
  EntryType,
  MessagePayload,
  NestedActivityPayload,
  SessionStoreEntry,
  StoreEntryPayload,
  ToolCallPayload,
  ToolResultPayload,
  TranscriptEntry,
} from './sessions/types.ts';


/** A client tool a turn brings (no implementation: the client answers its calls). */
export interface ClientToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}


export interface TurnInfo {
  agentRunId: string;
  sessionId: string;
  /** Opens this turn's exec, wait, abort, answers, approvals, runs and events over the API; keep it secret. */
  turnToken: string;
  /** Opens the session: joining it from another turn (turns.prepare with sessionId) and its session operations. */
  sessionToken: string;
  agentId: string;
  model: string;
  surface: SurfaceView;
  /** The turn request's client label, when it had one. */
  client?: string;
}

export interface TurnRequest {
  agentId?: string;
  model?: string;
  sessionId?: string;
  clientTools?: ClientToolSpec[];
  disableTools?: boolean;
  /**
   * No model reads this turn's results (a script, a scheduled job, `codemode run --headless`). Its cells are
   * not interactive: no automatic references for oversized values, no results.* or store/load.
   */
  headless?: boolean;
  /** Who drives the turn, for the boards (e.g. an MCP client's name from `initialize`); a label only, never checked. */
  client?: string;
  /**
   * Whose shares the turn's runs draw on (suspended slots, queued grep and typecheck jobs): set by the API edge and
   * the MCP face from the request's credentials, never by a client's input. Absent: the in-process caller (LOCAL_OWNER).
   */
  owner?: Owner;
}

export interface ExecOptions {
  /** Override the agent's executor for this cell (within what the config allows). */
  executor?: ExecutorKind;
  /** The model's tool-call id; part of the cell identity. */
  toolCallId?: string;
  /**
   * The seed (an integer 0..4294967295) of the cell's Math.random; drawn at random when absent. A seed given here
   * also gives the cell the seed's logical clock (Date, performance.now: a seed-derived instant of 2025 that moves
   * only when a timer fires), so the run repeats; without one the cell reads the real clock (`clock` overrides).
   */
  seed?: number;
  /** Which clock the cell reads: `logical` (the seed's) when `seed` is given, else `real`. A replay reads its cassette's. */
  clock?: 'real' | 'logical';
  /**
   * Replay the cell against this cassette (runs.cassette's JSON, checked as hostile input): every tool call is
   * answered from it, none dispatched, and the guest's clock returns the recorded readings in order; a call it
   * does not hold, or a clock reading past the recorded ones, fails the run with replay_mismatch. A cassette
   * without readings replays with its seed's logical clock. The seed defaults to the cassette's; without code
   * or command in the input the cassette's source runs.
   */
  replay?: unknown;
  /** With `typecheck`: check the cell against the turn's inferred output types too (never the default: they are guesses). */
  typecheckInferred?: boolean;
}

/** "Save as test": a run's cassette and a Vitest file that replays it (both for replays/). */
export interface SavedTest {
  cassette: { fileName: string; text: string };
  test: { fileName: string; text: string };
}

export interface ForkRunRequest {
  runId: string;
  /** Edited answers for pending calls (by pendingToolCalls[].id): a result, or an error with an optional code. */
  replies?: ForkReply[];
}

export interface WaitOptions {
  /** The model's tool-call id of this wait call (the transcript records it; one is made up when absent). */
  toolCallId?: string;
  /**
   * The turn token the caller holds (runs.durable): a turn this process does not hold (it was prepared before a
   * restart) is opened again for a wait on its durable run when the token matches the stored digest.
   */
  turnToken?: string;
  /**
   * The caller is the operator (the playground page, trusted): such a turn is opened again for a wait on its durable
   * run without a turn token. The API edge sets it only for an operator request; any other caller still needs the token.
   */
  operator?: boolean;
}

export interface BranchSessionRequest {
  sessionId: string;
  /** An entry of the session to become its leaf; null: before the first entry (the next one starts a new root). */
  entryId: string | null;
}

export interface CompactSessionRequest {
  sessionId: string;
  /** What the compacted part established; absent or blank: the Gateway writes one from the calls and store keys. */
  summary?: string;
}

/** The ownership checks the API edge makes (see server/access/ownership.ts); the Gateway keeps the records. */
export type OwnershipApi = Pick<Ownership, 'checkTurn' | 'turnsOf' | 'runTurn' | 'turnSession' | 'sessionHistory' | 'lookupSession' | 'turnOpensSession' | 'sessionJoin'>;

// ---- the faces -----------------------------------------------------------------------------------
// The Gateway's API, split by who calls it. The Gateway implements every face (gateway.ts wires each to its
// module under gateway/); a caller takes the faces it needs: the MCP server face takes the model and catalog
// faces, the CLI the model, runs and lab faces, a router whichever its procedures call. The in-process
// methods do not check tokens (in-process callers are trusted); the API edge checks them first (AccessFace).

/** The model's side of a turn (an agent loop, the MCP face): prepare and end it, exec and wait in it. */
export interface ModelFace {
  /** Start an agent turn: the scope (agent run + session) exec and wait run in. */
  prepareTurn(req: TurnRequest): TurnInfo;
  endTurn(agentRunId: string): void;
  /** The code-mode options a live turn's cells run with (executor, override policy, limits); undefined once it ended or for an unknown id. */
  turnOptions(agentRunId: string): Readonly<CodeModeOptions> | undefined;
  /**
   * Replace a live turn's client tools; new cells see them, running and parked cells keep their projection but
   * cannot call a client tool the turn no longer offers. Adding tools or refreshing descriptions keeps the turn's
   * saved results; removing one or changing its schema clears them, for cells already started too.
   */
  updateClientTools(agentRunId: string, clientTools: ClientToolSpec[]): TurnInfo;
  exec(agentRunId: string, input: CodeModeExecInput, opts?: ExecOptions): Promise<CodeModeResult>;
  wait(agentRunId: string, input: { runId: string }, opts?: WaitOptions): Promise<CodeModeResult>;
  /** An exec or wait result as the text a model receives (compact JSON, untrusted content wrapped): what the transcript records. */
  modelText(result: CodeModeResult): string;
  /** Output types inferred from this turn's results for tools that declare none, as an editor overlay; undefined for an unknown or ended turn. */
  inferredTypes(agentRunId: string): InferredOverlay | undefined;
}

/** What a turn would see: the configured agents, the model surface and catalog, and when the tool sources behind them change. */
export interface CatalogFace {
  agents(): Array<{ id: string; name?: string; model: string; executor: ExecutorKind }>;
  surface(req: TurnRequest): SurfaceView;
  catalog(req: TurnRequest): CatalogView;
  /** MCP connection states. */
  mcpServers(): McpServerView[];
  /**
   * Resolves when every MCP server's first connection attempt (and every OpenAPI source's first load) has settled,
   * bounded by the connect timeout; reconnects never delay it. Whatever starts a turn awaits it before prepareTurn,
   * surface or catalog: otherwise a turn prepared just after start sees a server that is merely slow as unavailable.
   */
  mcpReady(): Promise<void>;
  /** Rises whenever a tool source's list changes at runtime (MCP servers): a surface built at another revision may be stale. */
  toolSourcesRevision(): number;
  /** Calls `listener` each time a tool source's list changes (toolSourcesRevision() has risen by then); returns the unsubscribe. */
  onToolSourcesChanged(listener: () => void): () => void;
}

/** The runs the boards show and act on: list, one run, its trajectory, abort, client-call answers, approvals, live events. */
export interface RunsFace {
  runs(): RunView[];
  /** Durable runs (runs.durable) this process does not hold, as the board shows them (durableRow set, from their rows' metadata); [] without durable runs. */
  storedRuns(): Promise<RunView[]>;
  /**
   * The live runs other Gateways on the session database hold (heldBy set), as they published them (gateway/run-views.ts),
   * with their pending approvals (heldBy set): acted on through actElsewhere. A gone Gateway's are left out. Never rejects.
   */
  heldElsewhere(): Promise<{ runs: RunView[]; approvals: ApprovalView[] }>;
  run(runId: string): RunView | undefined;
  trajectory(runId: string): TrajectoryExport | undefined;
  /** The run's trajectory as OTLP/JSON spans (an ExportTraceServiceRequest, made by the OpenTelemetry SDK); undefined for an unknown run. */
  trajectoryOtlp(runId: string): Promise<string | undefined>;
  /** Abort one run (operator) and release its continuation. */
  abortRun(runId: string): boolean;
  /**
   * Abort a durable run that no Gateway holds live, from its row (parked before a restart, or evicted to its row on
   * another Gateway): the row is claimed and deleted, so no Gateway resumes it. Undefined when there is no such row;
   * a refusal says why (another Gateway is resuming it right now). Never rejects.
   */
  abortStored(runId: string): Promise<{ aborted: true } | { aborted: false; why: string } | undefined>;
  /** Answer a pending client-tool call. Throws InvalidInputError for unknown or settled calls, and for a call of a run another Gateway holds (naming it). */
  answerClientCall(req: { runId: string; callId: string; result?: unknown; error?: string }): void;
  approvals(): ApprovalView[];
  /** Throws InvalidInputError for an unknown approval, and for one of a run another Gateway holds (naming it). */
  decideApproval(req: { approvalId: string; approve: boolean; reason?: string }): void;
  /**
   * Forwards an approval decision or a client-call answer to the Gateway that holds its run (run-views.ts knows which)
   * and resolves once that Gateway applied it; undefined when no other Gateway is known to hold it (act here). Throws
   * InvalidInputError naming the holder when it refused, did not answer in time, is gone, or without runs.durable.
   */
  actElsewhere(action: ElsewhereAction): Promise<{ forwardedTo: string } | undefined>;
  /** Live events (this Gateway's, and remote.run / remote.gone for the runs others hold); returns an unsubscribe function. */
  subscribe(listener: (event: RunEvent) => void): () => void;
}

/** What a page does to a run another Gateway holds (RunsFace.actElsewhere). */
export type ElsewhereAction =
  | { kind: 'approval'; approvalId: string; approve: boolean; reason?: string }
  | { kind: 'client-call'; runId: string; callId: string; result?: unknown; error?: string }
  | { kind: 'abort'; runId: string };

/** The replay lab: fork a waiting run, a run's cassette, "save as test", and one cell on every executor. */
export interface LabFace {
  /**
   * Fork a waiting QuickJS run from its current snapshot into a new waiting run of the same turn (replay lab):
   * `replies` answer some of its pending calls instead of dispatching them again. The original is untouched.
   * Throws InvalidInputError (not waiting, not QuickJS, a reply for no pending call) or runtime_unavailable (cap).
   */
  forkRun(req: ForkRunRequest): RunView;
  /** A run's tool calls as a cassette (replay lab): inputs, outputs or errors, order, timing, seed, source, outcome. */
  cassette(runId: string): Cassette | undefined;
  /**
   * "Save as test" for a completed run: its cassette and a Vitest file (for replays/) that replays the cell through a
   * Gateway and asserts its value. undefined for an unknown run; InvalidInputError when the run did not complete.
   */
  saveAsTest(runId: string): SavedTest | undefined;
  /**
   * The cell on every executor (or `kinds`), each in its own run of the turn, side by side, all with one seed
   * (`opts.seed`, or one drawn for the comparison; a given seed also gives every row its logical clock), as many at
   * once as the machine has processors (gateway/compare.ts); `opts.typecheckInferred` as exec's.
   */
  compareExecutors(agentRunId: string, input: CodeModeExecInput, kinds?: readonly ExecutorKind[], opts?: Pick<ExecOptions, 'typecheckInferred' | 'seed'>): Promise<ExecutorComparisonRow[]>;
}

/** Live tool sources (MCP servers, OpenAPI documents) with their state; operator-only over the API. */
export interface SourcesFace {
  sources(): SourceView[];
  /** The exact command line a stdio source would run: the operator confirms it (AddSourceRequest.confirmCommandLine). */
  sourceCommandLine(req: { command: string; args?: string[]; env?: Record<string, string> }): string;
  /**
   * Add a source; it connects or loads in the background and the next turn sees its tools. A stdio server is
   * refused when `exposed` unless the config sets sources.allowStdioWhenExposed, and needs its confirmed command line.
   */
  addSource(req: AddSourceRequest, context: { exposed: boolean }): SourceView;
  /** Resolves once the source's first connection or load settled (its view then), undefined for an unknown name. */
  sourceSettled(name: string): Promise<SourceView | undefined>;
  /** Stop and forget a source (the config file is unchanged); turns prepared before keep their catalog. */
  removeSource(name: string): Promise<boolean>;
  /** Write an added source into the config file, the previous file kept as <file>.bak. */
  saveSource(name: string): SaveSourceResult;
}

/** A session's transcript and store, and moving or compacting its branch. */
export interface SessionsFace {
  /**
   * A session's transcript: the branch from the root to the current leaf, in display form (control calls with
   * redacted source, their results, nested activity rows, store commits, compactions). [] for an unknown session.
   */
  transcript(sessionId: string): Promise<TranscriptEntry[]>;
  /**
   * One page of that branch, root first: at most `limit` entries (MAX_TRANSCRIPT_PAGE_ENTRIES) and about 1 MiB of
   * stored payload, after the entry `after` (the previous page's nextCursor). InvalidInputError for a cursor off the branch.
   */
  transcriptPage(sessionId: string, opts?: TranscriptPageOptions): Promise<TranscriptPage>;
  /** The session store replayed along the session's current branch. [] for an unknown session. */
  sessionStore(sessionId: string): Promise<SessionStoreEntry[]>;
  /**
   * Moves the session's leaf to an existing entry of it and returns the new branch (root first). Later cells
   * of the session append to that branch and replay only its store commits. Refused (InvalidInputError) for
   * an entry of another session, and while a run of the session is running or waiting.
   */
  branchSession(req: BranchSessionRequest): Promise<TranscriptEntry[]>;
  /**
   * Appends a compaction entry at the session's leaf: model context restarts from its summary, store replay
   * still reads the whole branch. Refused (InvalidInputError) for a session without entries, when nothing
   * was added since the last compaction, and while a run of the session is running or waiting.
   */
  compactSession(req: CompactSessionRequest): Promise<Extract<TranscriptEntry, { type: 'compaction' }>>;
}

/** The API edge's checks: who holds which turn, run and session (the Gateway's own methods do not check tokens). */
export interface AccessFace {
  readonly ownership: OwnershipApi;
}

/** Everything the API edge (tRPC routers, the HTTP and MCP servers) may call. */
export interface GatewayApi extends ModelFace, CatalogFace, RunsFace, LabFace, SourcesFace, SessionsFace, AccessFace {
  close(): Promise<void>;
}

/** The session database as the Gateway holds it: whether it is open, and for PostgreSQL how many pooled connections it holds. */
export interface SessionDatabaseState {
  dialect: SqlDialect;
  open: boolean;
  /** PostgreSQL only: connections of the pool still open (0 once closed). */
  openConnections?: number;
}

/**
 * What tests, the bench and the test plan read about the Gateway's health, and nothing else does: no API edge
 * takes it. Readings, never levers: nothing here changes a run or a session.
 */
export interface GatewayDiagnostics {
  /** Slots of the process-wide suspended-run cap held now (a run holds one from its first host request until it settles). */
  suspendedSlots(): number;
  /** Broken invariants of the run map and the slot count (no ended run mapped, no released run holding anything): [] when sound. */
  leaks(): string[];
  /** The entries a model's context is rebuilt from for `sessionId` (its control calls since the last compaction). */
  modelContext(sessionId: string): Promise<TranscriptEntry[]>;
  sessionDatabase(): SessionDatabaseState;
  /** A run as durable runs will write it out (runs/run-record.ts): its record, and a QuickJS snapshot's bytes beside it; undefined for an unknown run. */
  runRecord(runId: string): { record: RunRecord; snapshot?: Uint8Array } | undefined;
  /** runs.durable: the parked runs' rows in the session database (no blobs), newest first; [] without durable runs. */
  durableRuns(): Promise<DurableRunMetaRead[]>;
  /** runs.durable: live rows in the session database (every Gateway's, as runs.maxParked counts them; durableRuns lists at most 1,000); 0 without. */
  durableRunCount(): Promise<number>;
  /** runs.durable: parked runs this Gateway evicted to their rows (runs.parkedInMemory): not held, no slot, a wait restores them; 0 without. */
  evictedRuns(): number;
  /** What this Gateway heard (run notices, ids only) of runs the other Gateways on its session database hold, newest first. */
  remoteRuns(): RemoteRunNotice[];
}

/** What a Gateway last heard (a run notice) of a run another Gateway on its session database holds. */
export interface RemoteRunNotice {
  runId: string;
  sessionId: string;
  kind: RunNoticeKind;
  /** The Gateway that published it. */
  from: string;
  /** When it was heard (ms since the epoch). */
  at: number;
}

/** One executor's row of Gateway.compareExecutors (the playground's comparison view, `codemode run --executor all`). */
export interface ExecutorComparisonRow {
  executor: ExecutorKind;
  /** cold: this executor had not run a cell in this Gateway before (its first cell pays worker start and module load). */
  start: 'cold' | 'warm';
  runId?: string;
  status: CodeModeResult['status'];
  /** The final value (completed) as JSON text, so rows compare exactly. */
  valueJson?: string;
  error?: string;
  code?: string;
  /** The value differs from the first completed row's (the view shows a diff). */
  valueDiffers: boolean;
  /** Wall time of every exec/wait call of the run, summed. */
  durationMs: number;
  /** Worker start / VM creation of the first leg, apart from the budget. */
  startMs?: number;
  /** exec plus wait calls. */
  calls: number;
  nestedCalls: number;
  /** Time spent inside nested calls (sum of their durations). */
  nestedMs: number;
  /** What a parked leg held: a stored snapshot (quickjs) or a live VM's estimate (node, quickjs-emscripten). */
  parked?: { kind: 'snapshot'; storedBytes: number; rawBytes: number } | { kind: 'live-estimate'; bytes: number };
}
