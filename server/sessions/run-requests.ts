// Run requests: a decision or an answer a page on one Gateway sends to the Gateway that holds the run, and that Gateway's outcome.
//
// An approval or a client-tool call lives in the memory of the Gateway that holds its run (gateway/run-views.ts shows
// it on the others' pages). A page on another Gateway acts on it by a request row: the sender writes it `pending`,
// sealed (durable/seal.ts: the reason or answer is never stored in plain text), and sends a `request` notice; the
// holder applies it as its own page would and sets it `done` or `failed` with a short outcome (ids and the refusal,
// never the payload), then notices back; the sender reads the outcome and deletes the row. Everything read back is
// hostile: a row that is not the shape written reads as damaged, never as an exception.
import { isGatewayInstanceId } from '../durable/instance-id.ts';
import { InvalidInputError } from '../errors.ts';
import { bytesColumn, integerColumn, textColumn, type SqlDatabase } from './database.ts';
import { migrate } from './migrations.ts';

/** A sealed request is small (an approval's reason, a client call's answer are bounded by the API edge); more is damage. */
export const MAX_RUN_REQUEST_SEALED_BYTES = 1024 * 1024;
/** An outcome message is cut to this (it names ids and why, never a payload). */
export const MAX_RUN_REQUEST_OUTCOME_CHARS = 1_000;
/** Pending requests a holder takes in one read. */
export const MAX_RUN_REQUESTS_READ = 100;
const ID_MAX = 256;

export type RunRequestState = 'pending' | 'done' | 'failed';

export interface RunRequestRow {
  requestId: string;
  runId: string;
  sessionId: string;
  /** The Gateway that holds the run (and applies the request). */
  holder: string;
  /** The Gateway whose page sent it. */
  sender: string;
  createdAt: number;
  state: RunRequestState;
  outcome?: string;
  sealed: Uint8Array;
}

export type RunRequestRead = { ok: true; row: RunRequestRow } | { ok: false; requestId?: string; message: string };

const COLUMNS = 'request_id, run_id, session_id, holder, sender, created_at, state, outcome, sealed';

export class RunRequestStore {
  private readonly ready: Promise<void>;

  constructor(
    readonly db: SqlDatabase,
    opts: { ready?: Promise<void> } = {},
  ) {
    this.ready = opts.ready ?? migrate(db);
    this.ready.catch(() => {});
  }

  /** Writes a pending request. Throws InvalidInputError on a field out of bounds. */
  async add(row: Omit<RunRequestRow, 'state' | 'outcome'>): Promise<void> {
    for (const field of ['requestId', 'runId', 'sessionId'] as const) {
      if (!isId(row[field])) throw new InvalidInputError(`a run request's ${field} must be a non-empty string of at most ${ID_MAX} characters without NUL`);
    }
    if (!isGatewayInstanceId(row.holder) || !isGatewayInstanceId(row.sender)) throw new InvalidInputError("a run request's holder and sender must be Gateway instance ids");
    if (row.sealed.byteLength > MAX_RUN_REQUEST_SEALED_BYTES) throw new InvalidInputError(`a run request is sealed into at most ${MAX_RUN_REQUEST_SEALED_BYTES} bytes`);
    await this.ready;
    await this.db.run(`INSERT INTO run_requests (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, 'pending', NULL, ?)`, [
      row.requestId,
      row.runId,
      row.sessionId,
      row.holder,
      row.sender,
      Math.floor(row.createdAt),
      row.sealed,
    ]);
  }

  /** The pending requests `holder` is to apply, oldest first, at most MAX_RUN_REQUESTS_READ. */
  async pendingFor(holder: string): Promise<RunRequestRead[]> {
    await this.ready;
    const rows = await this.db.all(`SELECT ${COLUMNS} FROM run_requests WHERE holder = ? AND state = 'pending' ORDER BY created_at LIMIT ?`, [holder, MAX_RUN_REQUESTS_READ]);
    return rows.map(readRow);
  }

  /** The holder's outcome of a pending request; false when it is no longer pending (its sender gave up and deleted it). */
  async settle(requestId: string, holder: string, state: 'done' | 'failed', outcome: string): Promise<boolean> {
    await this.ready;
    const changed = await this.db.run("UPDATE run_requests SET state = ?, outcome = ? WHERE request_id = ? AND holder = ? AND state = 'pending'", [
      state,
      outcome.slice(0, MAX_RUN_REQUEST_OUTCOME_CHARS),
      requestId,
      holder,
    ]);
    return changed > 0;
  }

  async get(requestId: string): Promise<RunRequestRead | undefined> {
    await this.ready;
    const [row] = await this.db.all(`SELECT ${COLUMNS} FROM run_requests WHERE request_id = ?`, [requestId]);
    return row ? readRow(row) : undefined;
  }

  /** Deletes a request; with `onlyPending`, only while the holder has not settled it (a sender giving up). Resolves to whether it went. */
  async delete(requestId: string, onlyPending = false): Promise<boolean> {
    await this.ready;
    return (await this.db.run(`DELETE FROM run_requests WHERE request_id = ?${onlyPending ? " AND state = 'pending'" : ''}`, [requestId])) > 0;
  }
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.length <= ID_MAX && !value.includes('\0');
}

function readRow(row: Record<string, unknown>): RunRequestRead {
  const requestId = textColumn(row.request_id);
  const damaged = (what: string): RunRequestRead => ({ ok: false, ...(isId(requestId) ? { requestId } : {}), message: `the run request row${isId(requestId) ? ` ${requestId}` : ''} is damaged: ${what}` });
  if (!isId(requestId)) return damaged('its request_id is not an id');
  const runId = textColumn(row.run_id);
  const sessionId = textColumn(row.session_id);
  const holder = textColumn(row.holder);
  const sender = textColumn(row.sender);
  const state = textColumn(row.state);
  const createdAt = integerColumn(row.created_at);
  const outcome = row.outcome === null || row.outcome === undefined ? undefined : textColumn(row.outcome);
  const sealed = bytesColumn(row.sealed);
  if (!isId(runId) || !isId(sessionId)) return damaged('its run or session id is not an id');
  if (!isGatewayInstanceId(holder) || !isGatewayInstanceId(sender)) return damaged('its holder or sender is not a Gateway instance id');
  if (state !== 'pending' && state !== 'done' && state !== 'failed') return damaged('its state is not pending, done or failed');
  if (createdAt === undefined) return damaged('its created_at is not a whole number');
  if (row.outcome !== null && row.outcome !== undefined && outcome === undefined) return damaged('its outcome is not text');
  if (sealed === undefined || sealed.byteLength > MAX_RUN_REQUEST_SEALED_BYTES) return damaged('its sealed request is not bytes of a bounded size');
  return { ok: true, row: { requestId, runId, sessionId, holder, sender, createdAt, state, ...(outcome !== undefined ? { outcome: outcome.slice(0, MAX_RUN_REQUEST_OUTCOME_CHARS) } : {}), sealed } };
}
