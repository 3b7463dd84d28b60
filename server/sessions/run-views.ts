// Run views: what a page shows of each live run, one row per run, written by the Gateway that holds it and read by the others of the group.
//
// Run notices (notifier.ts) carry ids only, so a page on another Gateway learns what a run looks like here: the
// holder writes its run's view (coalesced on the run's events, gateway/run-views.ts), deletes it when the run ends,
// and all its rows go when it closes; a reader drops the rows of a holder that presence (gateway-presence.ts) says
// is gone. The plain columns hold ids, the state and two counts, never a guest string; the view itself (source,
// calls, approval and client-call payloads) is `sealed` by the caller (durable/seal.ts, bound to the run and
// session), or NULL when the group runs without runs.durable (no key: a reader shows ids, state and holder only).
//
// Everything read back is hostile: a row that is not the shape written reads as damaged (named, left out of the
// list by the caller), never as an exception; a list is bounded (MAX_RUN_VIEWS_LISTED) and so is a sealed view.
import { isGatewayInstanceId } from '../durable/instance-id.ts';
import { InvalidInputError } from '../errors.ts';
import { bytesColumn, integerColumn, textColumn, type SqlDatabase } from './database.ts';
import { migrate } from './migrations.ts';

/**
 * The largest sealed view stored (bytes): the board needs a run's source preview, its pending calls, approvals and
 * client calls, and the latest of its calls; gateway/run-views.ts cuts a view to fit (and says what it cut), and a
 * row read back that holds more is damaged.
 */
export const MAX_RUN_VIEW_SEALED_BYTES = 64 * 1024;
/** Rows one list reads at most: the 64-run cap per process times a generous group, so a flooded table stays a bounded read. */
export const MAX_RUN_VIEWS_LISTED = 2_000;
/** A run id, session id or agent run id is at most this long (as a run notice's ids). */
export const MAX_RUN_VIEW_ID_CHARS = 256;
/** The run states a view holds: a live run (an ended run's row is deleted). */
export const RUN_VIEW_STATES = Object.freeze(['running', 'waiting'] as const);
export type RunViewState = (typeof RUN_VIEW_STATES)[number];

/** One run's row as its holder writes it. */
export interface RunViewRow {
  runId: string;
  sessionId: string;
  agentRunId: string;
  /** The Gateway instance that holds the run (durable/instance-id.ts). */
  holder: string;
  /** The executor it runs on (a config name, never a guest string). */
  executor: string;
  state: RunViewState;
  /** Pending approvals and unanswered client-tool calls (counts only: what they ask is sealed). */
  approvals: number;
  clientCalls: number;
  createdAt: number;
  updatedAt: number;
  /** The sealed view; absent without runs.durable. */
  sealed?: Uint8Array;
}

export type RunViewRead = { ok: true; row: RunViewRow } | { ok: false; runId?: string; message: string };

const COLUMNS = 'run_id, session_id, agent_run_id, holder, executor, state, approvals, client_calls, created_at, updated_at, sealed';

export class RunViewStore {
  private readonly ready: Promise<void>;

  constructor(
    readonly db: SqlDatabase,
    opts: { ready?: Promise<void> } = {},
  ) {
    this.ready = opts.ready ?? migrate(db);
    // every operation awaits it and reports its failure; this only keeps an unawaited failure from being "unhandled"
    this.ready.catch(() => {});
  }

  /** Writes run `row.runId`'s view (replacing any, whoever wrote it: the run moved to this holder). Throws InvalidInputError on a field out of bounds. */
  async put(row: RunViewRow): Promise<void> {
    checkRow(row);
    await this.ready;
    await this.db.run(
      `INSERT INTO run_views (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET session_id = excluded.session_id, agent_run_id = excluded.agent_run_id, holder = excluded.holder, executor = excluded.executor,
         state = excluded.state, approvals = excluded.approvals, client_calls = excluded.client_calls, created_at = excluded.created_at,
         updated_at = excluded.updated_at, sealed = excluded.sealed`,
      [row.runId, row.sessionId, row.agentRunId, row.holder, row.executor, row.state, row.approvals, row.clientCalls, row.createdAt, row.updatedAt, row.sealed ?? null],
    );
  }

  /** Deletes run `runId`'s view if `holder` wrote it (a view another Gateway wrote since, having resumed the run, stays). */
  async delete(runId: string, holder: string): Promise<boolean> {
    await this.ready;
    return (await this.db.run('DELETE FROM run_views WHERE run_id = ? AND holder = ?', [runId, holder])) > 0;
  }

  /** Deletes every view `holder` wrote (it closed, or it is gone); resolves to how many. */
  async deleteHolder(holder: string): Promise<number> {
    await this.ready;
    return this.db.run('DELETE FROM run_views WHERE holder = ?', [holder]);
  }

  /** Run `runId`'s view, damaged, or undefined when it has none. */
  async get(runId: string): Promise<RunViewRead | undefined> {
    await this.ready;
    const [row] = await this.db.all(`SELECT ${COLUMNS} FROM run_views WHERE run_id = ?`, [runId]);
    return row ? readRow(row) : undefined;
  }

  /** The views, newest first, at most MAX_RUN_VIEWS_LISTED; a damaged row is listed as such (by run id when it has one). */
  async list(): Promise<RunViewRead[]> {
    await this.ready;
    const rows = await this.db.all(`SELECT ${COLUMNS} FROM run_views ORDER BY created_at DESC LIMIT ?`, [MAX_RUN_VIEWS_LISTED]);
    return rows.map(readRow);
  }
}

function isViewId(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.length <= MAX_RUN_VIEW_ID_CHARS && !value.includes('\0');
}

function isExecutorName(value: unknown): value is string {
  return typeof value === 'string' && /^[a-z][a-z0-9-]{0,63}$/.test(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function checkRow(row: RunViewRow): void {
  for (const field of ['runId', 'sessionId', 'agentRunId'] as const) {
    if (!isViewId(row[field])) throw new InvalidInputError(`a run view's ${field} must be a non-empty string of at most ${MAX_RUN_VIEW_ID_CHARS} characters without NUL`);
  }
  if (!isGatewayInstanceId(row.holder)) throw new InvalidInputError("a run view's holder must be a Gateway instance id");
  if (!isExecutorName(row.executor)) throw new InvalidInputError("a run view's executor must be an executor name (letters, digits and dashes, at most 64)");
  if (!(RUN_VIEW_STATES as readonly string[]).includes(row.state)) throw new InvalidInputError(`a run view's state must be one of ${RUN_VIEW_STATES.join(', ')}`);
  for (const field of ['approvals', 'clientCalls', 'createdAt', 'updatedAt'] as const) {
    if (!isCount(row[field])) throw new InvalidInputError(`a run view's ${field} must be a whole number of at least 0`);
  }
  if (row.sealed !== undefined && row.sealed.byteLength > MAX_RUN_VIEW_SEALED_BYTES) {
    throw new InvalidInputError(`a run view is sealed into at most ${MAX_RUN_VIEW_SEALED_BYTES} bytes (cut it first); this one is ${row.sealed.byteLength}`);
  }
}

/** A row as read back, checked field by field. */
function readRow(row: Record<string, unknown>): RunViewRead {
  const runId = textColumn(row.run_id);
  const damaged = (what: string): RunViewRead => ({ ok: false, ...(isViewId(runId) ? { runId } : {}), message: `the run view row${isViewId(runId) ? ` of run ${runId}` : ''} is damaged: ${what}` });
  if (!isViewId(runId)) return damaged('its run_id is not an id');
  const sessionId = textColumn(row.session_id);
  const agentRunId = textColumn(row.agent_run_id);
  const holder = textColumn(row.holder);
  const executor = textColumn(row.executor);
  const state = textColumn(row.state);
  if (!isViewId(sessionId)) return damaged('its session_id is not an id');
  if (!isViewId(agentRunId)) return damaged('its agent_run_id is not an id');
  if (!isGatewayInstanceId(holder)) return damaged('its holder is not a Gateway instance id');
  if (!isExecutorName(executor)) return damaged('its executor is not an executor name');
  if (state === undefined || !(RUN_VIEW_STATES as readonly string[]).includes(state)) return damaged('its state is not a live run state');
  const counts = { approvals: integerColumn(row.approvals), clientCalls: integerColumn(row.client_calls), createdAt: integerColumn(row.created_at), updatedAt: integerColumn(row.updated_at) };
  for (const [field, value] of Object.entries(counts)) if (!isCount(value)) return damaged(`its ${field} is not a whole number of at least 0`);
  let sealed: Uint8Array | undefined;
  if (row.sealed !== null && row.sealed !== undefined) {
    sealed = bytesColumn(row.sealed);
    if (sealed === undefined) return damaged('its sealed view is not bytes');
    if (sealed.byteLength > MAX_RUN_VIEW_SEALED_BYTES) return damaged(`its sealed view is ${sealed.byteLength} bytes, more than ${MAX_RUN_VIEW_SEALED_BYTES}`);
  }
  return {
    ok: true,
    row: {
      runId,
      sessionId,
      agentRunId,
      holder,
      executor,
      state: state as RunViewState,
      approvals: counts.approvals as number,
      clientCalls: counts.clientCalls as number,
      createdAt: counts.createdAt as number,
      updatedAt: counts.updatedAt as number,
      ...(sealed ? { sealed } : {}),
    },
  };
}
