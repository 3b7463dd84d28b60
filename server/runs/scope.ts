// What a run is started with: the scope one agent turn gives its cells, the cell an exec starts, and what a run
// needs from the process that holds it (RunHost). All of it is process-local: a run record names its turn by id.
import type { Owner } from '../access/owners.ts';
import type { Catalog, CatalogEntry } from '../catalog/types.ts';
import type { InferredOutput } from '../catalog/inferred-overlay.ts';
import type { CodeModeOptions } from '../config/types.ts';
import type { GuestBootConfig } from '../bridge/protocol.ts';
import type { DeclarationFiles } from '../bridge/declaration-files.mjs';
import type { CallScheduler } from '../bridge/scheduler.ts';
import type { Executor } from '../executors/types.ts';
import type { ResultsStore } from '../results/store.ts';
import type { SessionStore } from '../sessions/store.ts';
import type { HookDecision } from '../tools/plugins.ts';
import type { CassetteReplayer } from './cassette.ts';
import type { ClockPlan } from './clock.ts';
import type { Run } from './run.ts';
import type { SlotLedger } from './slots.ts';
import type { RunEvent } from './types.ts';

/** The scope one agent turn gives its cells: catalog, limits, stores, scheduler, abort. */
export interface TurnScope {
  agentRunId: string;
  sessionId: string;
  agentId: string;
  /** The turn's client label (TurnRequest.client): shown on the boards. */
  client?: string;
  /** Whose shares the turn's runs draw on: a run's suspended slot and its queued jobs count against this owner (access/owners.ts). */
  owner: Owner;
  workspaceDir: string;
  options: CodeModeOptions;
  catalog: Catalog;
  /** What a cell would write for each tool the turn's policy denied (`exec`, `MCP.demo.slow`) -> the rule (runs/denied.ts). */
  denied?: ReadonlyMap<string, string>;
  /** What every cell of the turn boots with; each cell adds the tools its source names (catalog/boot-tools.ts). */
  boot: Omit<GuestBootConfig, 'tools'>;
  /** The catalog's declaration files for API.list / API.read, packed once per catalog (bridge/declaration-files.mjs). */
  files: DeclarationFiles;
  scheduler: CallScheduler;
  /**
   * The turn's saved results: replaced (the old one cleared) when the turn's client tools are restricted
   * or replaced; each cell keeps the one it captured when it started (Run.results).
   */
  results: ResultsStore;
  /**
   * No model reads this turn's results (a script, a scheduled job, `codemode run --headless`): its cells are
   * not interactive, so they get no automatic references and no results or session store.
   */
  headless: boolean;
  /** Tool calls (op `call`) the turn's cells have dispatched so far: a headless turn is held to maxHeadlessToolCalls. */
  toolCalls: number;
  abort: AbortController;
  /** What this turn's results looked like, per guest label, for tools that declare no output (the editor's inferred types). */
  inferredOutputs: Map<string, InferredOutput>;
  /** Tokens of the tool definitions on the code-mode surface and on a direct surface (token meter; computed once, at first use). */
  definitionTokens(): { codeMode: number; direct: number };
  /** Cell source as stored: credentials masked, the Gateway's registered secrets and patterns too (default: redactSource). */
  redact?: (code: string) => string;
  /** before_tool_call hooks of the loaded plugins. */
  beforeToolCall(entry: CatalogEntry, input: unknown, ctx: { invocationId: string; runId: string }): Promise<{ blocked?: string; input: unknown; hooks?: HookDecision[] }>;
}

/** What an exec starts a cell with. */
export interface StartCell {
  body: string;
  code: string;
  language: 'javascript' | 'typescript';
  executor: Executor;
  restartSafe: boolean;
  /** The model's tool-call id of the exec that starts the cell: on its call record and part of the cell identity. */
  toolCallId: string;
  /** The seed (uint32) the guest's Math.random derives from, and a logical clock's start (recorded in the run). */
  seed: number;
  /** Which clock the guest reads: the real one unless the caller seeded the run or it replays a recording (clock.ts). */
  clock: ClockPlan;
  /** Replay: the cell's tool calls are answered from this cassette, never dispatched (cassette.ts). */
  replay?: CassetteReplayer;
  /** The id of the run this cell continues: restart recovery rebuilds a restartSafe run under the id the model holds. */
  runId?: string;
}

/** The cell a run keeps once it started: what it is and what runs it (its transformed body and clock plan served the start only). */
export type RunCell = Omit<StartCell, 'body' | 'clock'>;

/** Asks a person to approve one nested call; resolves when they decide (or the run's signal aborts). */
export interface ApprovalRequester {
  request(view: { runId: string; tool: string; input: unknown; code: string }, signal: AbortSignal): Promise<{ approved: boolean; reason?: string }>;
}

/**
 * What a run needs from the process that holds it (the RunManager): the services its nested calls use, the
 * suspended-run cap, and three things it tells: an event, that it changed, that it ended. The run decides its
 * own transitions (run.ts); the host only keeps the run map, the history and the board in step.
 */
export interface RunHost {
  readonly sessions: SessionStore;
  readonly approvals: ApprovalRequester;
  /** The process's suspended-run cap (slots.ts): a run's first host request claims a slot, its end gives it back. */
  readonly slots: SlotLedger;
  /** Where a parked QuickJS run's snapshot is kept: in this process (spec 01), or sealed in the session database (runs.durable). */
  readonly snapshotStore: 'memory' | 'store';
  /** A nested-call event for the board. */
  emit(event: RunEvent): void;
  /** The run changed as the board shows it (its updatedAt was just set). */
  changed(run: Run): void;
  /** The run ended and gave back everything it held: it leaves the run map. */
  ended(run: Run): void;
}
