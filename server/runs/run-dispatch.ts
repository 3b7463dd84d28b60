// The context a run's nested calls are dispatched with (bridge/dispatcher.ts DispatchContext): the run's projection,
// turn, stores, signal and hooks, one per run.
import type { DispatchContext, NestedCallHooks } from '../bridge/dispatcher.ts';
import type { CatalogEntry } from '../catalog/types.ts';
import type { ToolContext } from '../tools/types.ts';
import { ApprovalGate } from './approval-gate.ts';
import type { Run } from './run.ts';
import type { NestedCallRecord } from './types.ts';

/**
 * The context `run`'s nested calls are dispatched with: the run's projection, turn, stores, signal and hooks.
 * One per run, made at its first call (Run.dispatch), with its hooks as methods: a cell's thousand calls make no
 * thousand sets of closures, and what a hook learns about one call is filed on that call's record by its request id.
 */
export class RunDispatch implements DispatchContext, NestedCallHooks {
  readonly catalog: DispatchContext['catalog'];
  readonly options: DispatchContext['options'];
  readonly scheduler: DispatchContext['scheduler'];
  readonly results: DispatchContext['results'];
  readonly sessions: DispatchContext['sessions'];
  readonly sessionId: string;
  readonly storeBuffer: DispatchContext['storeBuffer'];
  readonly restartSafe: boolean;
  readonly headless: boolean;
  readonly signal: AbortSignal;
  readonly hooks: NestedCallHooks = this;
  private readonly approvalGate: ApprovalGate;

  constructor(private readonly run: Run) {
    const turn = run.turn;
    this.catalog = run.catalog;
    this.options = turn.options;
    this.scheduler = turn.scheduler;
    // the store the cell captured when it started, never the turn's current one
    this.results = run.results;
    // the turn's own view: its projection is built at its first read and sees only its own commits
    this.sessions = run.host.sessions.forTurn(turn);
    this.sessionId = turn.sessionId;
    this.storeBuffer = run.storeBuffer;
    this.restartSafe = run.cell.restartSafe;
    this.headless = turn.headless;
    this.signal = run.signal;
    this.approvalGate = new ApprovalGate(this.signal);
  }

  private recordOf(requestId: string): NestedCallRecord | undefined {
    return this.run.requests.get(requestId)?.record;
  }

  toolContext(invocationId: string): ToolContext {
    const turn = this.run.turn;
    return { agentId: turn.agentId, agentRunId: turn.agentRunId, sessionId: turn.sessionId, signal: this.signal, invocationId, workspaceDir: turn.workspaceDir, owner: turn.owner };
  }

  async beforeToolCall(entry: CatalogEntry, input: unknown, invocationId: string, requestId: string): Promise<{ blocked?: string; input: unknown }> {
    const out = await this.run.turn.beforeToolCall(entry, input, { invocationId, runId: this.run.runId });
    // the span detail shows what each hook decided (an empty list: no plugin has a hook)
    const record = this.recordOf(requestId);
    if (record && out.hooks !== undefined && out.hooks.length > 0) record.hooks = out.hooks;
    return out;
  }

  holdWhileApprovalPending(): Promise<void> | undefined {
    return this.approvalGate.hold(this.run.approvalsPending);
  }

  async requestApproval(entry: CatalogEntry, input: unknown, requestId: string): Promise<{ approved: boolean; reason?: string }> {
    const run = this.run;
    if (run.approvalBegan()) this.approvalGate.began();
    try {
      const decision = await run.host.approvals.request({ runId: run.runId, tool: entry.callableName, input, code: run.displayCode }, run.signal);
      const record = this.recordOf(requestId);
      if (record) record.approval = decision.reason !== undefined ? { approved: decision.approved, reason: decision.reason } : { approved: decision.approved };
      return decision;
    } finally {
      if (run.approvalEnded()) this.approvalGate.ended();
    }
  }

  callClient(entry: CatalogEntry, input: unknown, requestId: string): Promise<unknown> {
    return this.run.awaitClient(requestId, entry.callableName, input);
  }

  markNetworkContent(): void {
    this.run.markNetworkContent();
  }

  currentClientTool(name: string): CatalogEntry | undefined {
    // the turn's scope is updated in place by a client-tool update; the run's own projection is not
    return this.run.turn.catalog.entries.find((e) => e.source === 'client' && e.name === name);
  }

  hasNetworkContent(): boolean {
    return this.run.networkContent;
  }

  onStatus(requestId: string, status: 'awaiting_approval' | 'awaiting_client' | 'queued' | 'running'): void {
    const record = this.recordOf(requestId);
    const was = record?.status;
    if (record) record.status = status;
    // the board shows calls waiting on a person, and when they stop waiting; a plain start is already a
    // nested.started event (a full run view per call would make a cell's cost grow with its number of calls)
    if (status !== 'running' || (was !== undefined && was !== 'running')) this.run.changed();
  }
}
