// Durable-run rows (runs.durable): parked runs in the session database, claimed by lease and fenced, so a run resumes once, on any Gateway.
//
// A parked run is one row: who it belongs to (run, session, agent run, owner), the base image its snapshot
// needs, its sealed blob (snapshot, pending calls and run record, encrypted by durable/seal.ts: opaque here),
// sizes, its TTL deadline, and a lease. `park` inserts it, checking the suspended-run caps (all Gateways
// together, the turn, the owner) in the same transaction, so the caps hold across restarts and Gateways.
// `claim` takes the lease to resume it: the row is locked (PostgreSQL: `SELECT ... FOR UPDATE SKIP LOCKED`,
// so a second claimer does not wait but hears "busy"; SQLite: the write lock), its state becomes `resuming`
// and its fence goes up by one. Every later write of the resumer (renew, repark, release, settle) names the
// fence it got; a write whose fence is no longer the row's is refused as stale. A lease that lapsed (its
// Gateway died) can be claimed again, which raises the fence, so the dead holder can never write after the
// new one has begun: two Gateways never resume one run twice.
//
// Times come from `now` (the caller's clock, injectable in tests); Gateways sharing a database are expected
// to keep their clocks within a small fraction of a lease. Everything read back is hostile: a row a hand edit
// or another build damaged reads as `{ ok: false, reason }` naming the field, never as an exception.
// long: one concept, the durable-run row and its lease protocol (park with caps, claim, renew, repark, release, settle, sweep, counts, row checks); the pieces share one column list and one row check.
import { InvalidInputError } from '../errors.ts';
import { bytesColumn, integerColumn, textColumn, type SqlDatabase, type SqlParam, type SqlRunner } from './database.ts';
import { migrate } from './migrations.ts';

/** parked: waiting for `wait` (no lease). resuming: a Gateway holds the lease and is running it. */
export type DurableRunState = 'parked' | 'resuming';
const STATES: readonly DurableRunState[] = ['parked', 'resuming'];

/**
 * How long a claim holds a run before another Gateway may take it over (ms). The holder renews it while the run
 * goes on (renewing every third of it survives two missed renewals); a Gateway that died loses its runs to the
 * next `wait` after this long, which is the longest a client waits to resume a run its Gateway took down with it.
 */
export const DEFAULT_DURABLE_LEASE_MS = 30_000;
/** Expired rows one sweep removes at most: a sweep is one bounded statement, and the next sweep takes the rest. */
export const MAX_EXPIRED_PER_SWEEP = 500;
/** Rows one `list` returns at most: the board shows the newest, and a list never reads a blob. */
export const MAX_DURABLE_RUNS_LISTED = 1000;
/** Ids (run, session, agent run, owner, base image, Gateway) longer than this are a caller's bug, not an id. */
export const MAX_DURABLE_ID_CHARS = 256;

// The advisory lock (PostgreSQL) parks take so two Gateways counting the caps at once cannot both take the last
// slot: "codemode park" in ASCII. SQLite's write lock already serializes them.
const PARK_LOCK_KEY = 0x636d_7061_726b;

/** What a parked run's row says about it (no blob): lists, counts, messages. */
export interface DurableRunMeta {
  runId: string;
  sessionId: string;
  agentRunId: string;
  /** owners.ts Owner.id: whose suspended-run share the run takes. */
  ownerId: string;
  /** The content-addressed base image the snapshot was taken over (executors/quickjs/base-image.ts). */
  baseImageId: string;
  /** Bytes of the sealed blob as stored. */
  sealedBytes: number;
  /** The snapshot's raw heap size and its encoded size (what maxSnapshotBytes is checked against). */
  snapshotRawBytes: number;
  snapshotStoredBytes: number;
  parkedAt: number;
  /** The Gateway instance that parked it (durable/instance-id.ts). */
  parkedBy: string;
  /** The TTL deadline (ms since the epoch): a parked run not claimed by then expires. */
  expiresAt: number;
  state: DurableRunState;
  /** Who is resuming it and until when (state `resuming` only). */
  lease?: { holder: string; expiresAt: number };
  /** Raised by every claim; the fence a lease holder writes with. */
  fence: number;
}

export interface DurableRun extends DurableRunMeta {
  sealed: Uint8Array;
}

/** A row as read: the run, or why the row cannot be used (named field), never an exception. */
export type DurableRunRead = { ok: true; run: DurableRun } | { ok: false; runId: string; reason: string };
export type DurableRunMetaRead = { ok: true; run: DurableRunMeta } | { ok: false; runId: string; reason: string };

export interface ParkRequest {
  runId: string;
  sessionId: string;
  agentRunId: string;
  ownerId: string;
  baseImageId: string;
  sealed: Uint8Array;
  snapshotRawBytes: number;
  snapshotStoredBytes: number;
  expiresAt: number;
  parkedBy: string;
}

/** The suspended-run caps a park is checked against (the config's and the owner's; absent: not checked). */
export interface DurableRunCaps {
  /** All parked runs in the database (every Gateway of the group): the 64-run cap. */
  maxRuns?: number;
  /** The run's turn (agent run): a turn's share. */
  maxPerTurn?: number;
  /** The run's owner: the owner's share. */
  maxPerOwner?: number;
}

export type DurableCap = 'runs' | 'turn' | 'owner';

export type ParkResult =
  | { kind: 'parked'; fence: number }
  /** A cap is reached: nothing was written. `held` runs count against `limit`. */
  | { kind: 'full'; cap: DurableCap; held: number; limit: number }
  /** A row for this run id exists (park it again with its lease: repark). */
  | { kind: 'exists' };

/** What a claim gives the claimer: every fenced write names it. */
export interface DurableLease {
  runId: string;
  holder: string;
  fence: number;
}

export type ClaimResult =
  | { kind: 'claimed'; run: DurableRun; lease: DurableLease; leaseExpiresAt: number }
  | { kind: 'missing' }
  /** Another claim holds the row right now (PostgreSQL's SKIP LOCKED): it will be `leased` in a moment. */
  | { kind: 'busy' }
  | { kind: 'leased'; holder: string; leaseExpiresAt: number }
  /** Its TTL passed while parked: the row is removed by this claim. */
  | { kind: 'expired'; run: DurableRunMeta }
  | { kind: 'damaged'; reason: string };

/** A fenced write: done, or refused because the fence is not the row's any more (the reason names who holds it now). */
export type FencedResult = { kind: 'ok' } | { kind: 'stale'; reason: string };

/** What a sweep removed: enough to tell the run's turn and owner (slots, events), read as hostile like every row. */
export interface ExpiredRun {
  runId: string;
  sessionId?: string;
  agentRunId?: string;
  ownerId?: string;
}

export interface DurableRunCounts {
  /** Live runs of the whole group (every Gateway on the database). */
  runs: number;
  /** ... of the turn asked about (0 when none was). */
  turn: number;
  /** ... of the owner asked about (0 when none was). */
  owner: number;
}

export interface DurableRunStoreOptions {
  /** The clock leases and expiry read (ms since the epoch); default Date.now. */
  now?: () => number;
  /** Resolves once the schema is current; default: migrate(db) here (the Transcript on the same database does it too). */
  ready?: Promise<void>;
}

const META_COLUMNS =
  'run_id, session_id, agent_run_id, owner_id, base_image_id, sealed_bytes, snapshot_raw_bytes, snapshot_stored_bytes, parked_at, parked_by, expires_at, state, lease_holder, lease_expires_at, fence';
const ALL_COLUMNS = `${META_COLUMNS}, sealed`;
/**
 * A row counts against the caps unless it expired while parked (or its resumer's lease lapsed too): the sweep's rows.
 * Only ever beside an indexed condition: SQLite keeps the columns after the sealed blob beyond its overflow pages, so a
 * scan testing this on every row reads every blob.
 */
const LIVE = `(expires_at > ? OR (state = 'resuming' AND lease_expires_at > ?))`;

type Row = Record<string, unknown>;

export class DurableRunStore {
  private readonly now: () => number;
  private readonly ready: Promise<void>;

  constructor(
    readonly db: SqlDatabase,
    opts: DurableRunStoreOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.ready = opts.ready ?? migrate(db);
    // every operation awaits it and reports its failure; this only keeps an unawaited failure from being "unhandled"
    this.ready.catch(() => {});
  }

  /**
   * Writes a newly parked run, unless a cap is reached (counted in the same transaction, across every Gateway on
   * the database) or a row for the run exists. Throws InvalidInputError on a malformed request (a caller's bug),
   * SessionStoreError when the database cannot be used.
   */
  async park(req: ParkRequest, caps: DurableRunCaps = {}): Promise<ParkResult> {
    checkPark(req);
    await this.ready;
    const now = this.now();
    return this.db.transaction(async (tx) => {
      if (this.db.dialect === 'postgres') await tx.all('SELECT pg_advisory_xact_lock(?)', [PARK_LOCK_KEY]);
      const existing = await tx.all('SELECT 1 AS one FROM durable_runs WHERE run_id = ?', [req.runId]);
      if (existing.length > 0) return { kind: 'exists' };
      const full = await capReached(tx, now, req, caps);
      if (full) return full;
      await tx.run(
        `INSERT INTO durable_runs (${ALL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'parked', NULL, NULL, 0, ?)`,
        [
          req.runId,
          req.sessionId,
          req.agentRunId,
          req.ownerId,
          req.baseImageId,
          req.sealed.byteLength,
          req.snapshotRawBytes,
          req.snapshotStoredBytes,
          now,
          req.parkedBy,
          req.expiresAt,
          req.sealed,
        ],
      );
      return { kind: 'parked', fence: 0 };
    });
  }

  /** The run's row (blob included), undefined when there is none; a damaged row reads as `{ ok: false }`. */
  async get(runId: string): Promise<DurableRunRead | undefined> {
    checkId(runId, 'runId');
    await this.ready;
    const [row] = await this.db.all(`SELECT ${ALL_COLUMNS} FROM durable_runs WHERE run_id = ?`, [runId]);
    return row ? readRun(row, runId) : undefined;
  }

  /**
   * Takes the lease to resume `runId` for `holder` (a Gateway instance id) for `leaseMs`: the run and a lease whose
   * fence is one above the row's last. Refused while another holder's lease runs (`leased`) or another claim holds
   * the row (`busy`); an expired parked run is removed and reported (`expired`); a damaged row is reported, not claimed.
   */
  async claim(runId: string, holder: string, leaseMs = DEFAULT_DURABLE_LEASE_MS): Promise<ClaimResult> {
    checkId(runId, 'runId');
    checkId(holder, 'holder');
    checkDuration(leaseMs, 'leaseMs');
    await this.ready;
    const now = this.now();
    return this.db.transaction(async (tx): Promise<ClaimResult> => {
      const lock = this.db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
      const [row] = await tx.all(`SELECT ${ALL_COLUMNS} FROM durable_runs WHERE run_id = ?${lock}`, [runId]);
      if (!row) {
        // no row, or one another transaction has locked (PostgreSQL skipped it): a plain read tells which, and a row a
        // lease holder is writing (a renewal, a repark) is that holder's, not a claim in flight
        const [seen] = this.db.dialect === 'postgres' ? await tx.all('SELECT state, lease_holder, lease_expires_at FROM durable_runs WHERE run_id = ?', [runId]) : [];
        if (!seen) return { kind: 'missing' };
        const holder = textColumn(seen.lease_holder);
        const leaseExpiresAt = integerColumn(seen.lease_expires_at);
        if (textColumn(seen.state) === 'resuming' && holder && leaseExpiresAt !== undefined && leaseExpiresAt > now) return { kind: 'leased', holder, leaseExpiresAt };
        return { kind: 'busy' };
      }
      const read = readRun(row, runId);
      if (!read.ok) return { kind: 'damaged', reason: read.reason };
      const run = read.run;
      if (run.state === 'resuming' && run.lease && run.lease.expiresAt > now) {
        return { kind: 'leased', holder: run.lease.holder, leaseExpiresAt: run.lease.expiresAt };
      }
      // a run is due to expire only while parked: one whose resumer died past its TTL is as expired as a parked one
      if (run.expiresAt <= now) {
        await tx.run('DELETE FROM durable_runs WHERE run_id = ?', [runId]);
        const { sealed: _sealed, ...meta } = run;
        return { kind: 'expired', run: meta };
      }
      const fence = run.fence + 1;
      const leaseExpiresAt = now + leaseMs;
      await tx.run("UPDATE durable_runs SET state = 'resuming', lease_holder = ?, lease_expires_at = ?, fence = ? WHERE run_id = ?", [holder, leaseExpiresAt, fence, runId]);
      return {
        kind: 'claimed',
        run: { ...run, state: 'resuming', lease: { holder, expiresAt: leaseExpiresAt }, fence },
        lease: { runId, holder, fence },
        leaseExpiresAt,
      };
    });
  }

  /** Extends a held lease by `leaseMs` from now; stale when the fence is not the row's any more. */
  async renew(lease: DurableLease, leaseMs = DEFAULT_DURABLE_LEASE_MS): Promise<FencedResult & { leaseExpiresAt?: number }> {
    checkLease(lease);
    checkDuration(leaseMs, 'leaseMs');
    const leaseExpiresAt = this.now() + leaseMs;
    const result = await this.fenced(lease, 'UPDATE durable_runs SET lease_expires_at = ?', [leaseExpiresAt]);
    return result.kind === 'ok' ? { ...result, leaseExpiresAt } : result;
  }

  /**
   * Parks a resumed run again under its lease: the new blob, sizes, base and deadline replace the old, and the lease
   * ends (the fence stays, so the next claim raises it). Stale when the lease was taken over.
   */
  async repark(
    lease: DurableLease,
    update: Pick<ParkRequest, 'sealed' | 'snapshotRawBytes' | 'snapshotStoredBytes' | 'expiresAt' | 'baseImageId'>,
  ): Promise<FencedResult> {
    checkLease(lease);
    checkBlob(update);
    checkId(update.baseImageId, 'baseImageId');
    return this.fenced(
      lease,
      "UPDATE durable_runs SET state = 'parked', lease_holder = NULL, lease_expires_at = NULL, sealed = ?, sealed_bytes = ?, snapshot_raw_bytes = ?, snapshot_stored_bytes = ?, expires_at = ?, base_image_id = ?, parked_at = ?",
      [update.sealed, update.sealed.byteLength, update.snapshotRawBytes, update.snapshotStoredBytes, update.expiresAt, update.baseImageId, this.now()],
    );
  }

  /** Gives a claimed run back as it was parked (a resume that could not start): parked again, claimable by anyone. */
  release(lease: DurableLease): Promise<FencedResult> {
    checkLease(lease);
    return this.fenced(lease, "UPDATE durable_runs SET state = 'parked', lease_holder = NULL, lease_expires_at = NULL", []);
  }

  /** The resumed run settled (completed, failed, aborted): its row is deleted. Stale when the lease was taken over. */
  settle(lease: DurableLease): Promise<FencedResult> {
    checkLease(lease);
    return this.fenced(lease, 'DELETE FROM durable_runs', []);
  }

  /** Removes a row whatever its state (a damaged row the caller has reported). True when there was one. */
  async discard(runId: string): Promise<boolean> {
    checkId(runId, 'runId');
    await this.ready;
    return (await this.db.run('DELETE FROM durable_runs WHERE run_id = ?', [runId])) > 0;
  }

  /**
   * Removes the row only while it is parked at `fence`, as the caller last left it: a Gateway whose local copy of a run
   * ended (its TTL, an abort) never deletes a row another Gateway has resumed since (the fence went up). True when it went.
   */
  async discardParked(runId: string, fence: number): Promise<boolean> {
    checkId(runId, 'runId');
    checkCount(fence, 'fence');
    await this.ready;
    return (await this.db.run("DELETE FROM durable_runs WHERE run_id = ? AND state = 'parked' AND fence = ?", [runId, fence])) > 0;
  }

  /**
   * Deletes up to `limit` runs whose TTL passed while parked (or whose resumer's lease lapsed too) and returns them.
   * A run another transaction holds is left for the next sweep.
   */
  async deleteExpired(limit = MAX_EXPIRED_PER_SWEEP): Promise<ExpiredRun[]> {
    checkDuration(limit, 'limit');
    await this.ready;
    const now = this.now();
    const lock = this.db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const rows = await this.db.all(
      `DELETE FROM durable_runs WHERE run_id IN (
         SELECT run_id FROM durable_runs WHERE expires_at <= ? AND NOT (state = 'resuming' AND lease_expires_at > ?) ORDER BY expires_at LIMIT ?${lock}
       ) RETURNING run_id, session_id, agent_run_id, owner_id`,
      // NOT LIVE written out (De Morgan), so the expiry index bounds the scan: read row by row, every live row's state
      // would be read past its sealed blob
      [now, now, Math.max(1, Math.floor(limit))],
    );
    return rows.flatMap((row): ExpiredRun[] => {
      const runId = textColumn(row.run_id);
      if (runId === undefined) return [];
      const sessionId = textColumn(row.session_id);
      const agentRunId = textColumn(row.agent_run_id);
      const ownerId = textColumn(row.owner_id);
      return [{ runId, ...(sessionId !== undefined ? { sessionId } : {}), ...(agentRunId !== undefined ? { agentRunId } : {}), ...(ownerId !== undefined ? { ownerId } : {}) }];
    });
  }

  /** Live runs (not expired, or being resumed) of the group, and of one turn and one owner: what the caps count. */
  async counts(of: { agentRunId?: string; ownerId?: string } = {}): Promise<DurableRunCounts> {
    await this.ready;
    return countLive(this.db, this.now(), of);
  }

  /** The newest rows' metadata (no blobs), optionally of one session, at most `limit` (MAX_DURABLE_RUNS_LISTED). */
  async list(filter: { sessionId?: string; limit?: number } = {}): Promise<DurableRunMetaRead[]> {
    if (filter.sessionId !== undefined) checkId(filter.sessionId, 'sessionId');
    const limit = Math.max(1, Math.min(MAX_DURABLE_RUNS_LISTED, Math.floor(filter.limit ?? MAX_DURABLE_RUNS_LISTED)));
    await this.ready;
    const where = filter.sessionId !== undefined ? ' WHERE session_id = ?' : '';
    const params: SqlParam[] = filter.sessionId !== undefined ? [filter.sessionId, limit] : [limit];
    const rows = await this.db.all(`SELECT ${META_COLUMNS} FROM durable_runs${where} ORDER BY parked_at DESC LIMIT ?`, params);
    return rows.map((row) => readMeta(row, textColumn(row.run_id) ?? '(damaged run id)'));
  }

  /** One fenced statement (`sql` without its WHERE): applied only while the row's fence and holder are the lease's. */
  private async fenced(lease: DurableLease, sql: string, params: readonly SqlParam[]): Promise<FencedResult> {
    await this.ready;
    return this.db.transaction(async (tx): Promise<FencedResult> => {
      const changed = await tx.run(`${sql} WHERE run_id = ? AND fence = ? AND lease_holder = ? AND state = 'resuming'`, [...params, lease.runId, lease.fence, lease.holder]);
      if (changed > 0) return { kind: 'ok' };
      const [row] = await tx.all('SELECT state, lease_holder, fence FROM durable_runs WHERE run_id = ?', [lease.runId]);
      return { kind: 'stale', reason: staleReason(lease, row) };
    });
  }
}

/** Why a fenced write of `lease` was refused, from the row as it is now. */
function staleReason(lease: DurableLease, row: Row | undefined): string {
  const what = `the lease of run "${lease.runId}" held by ${lease.holder} with fence ${lease.fence}`;
  if (!row) return `${what} is stale: the run is no longer parked here (it settled, expired or was discarded)`;
  const fence = integerColumn(row.fence);
  const holder = textColumn(row.lease_holder);
  if (fence !== undefined && fence !== lease.fence) {
    return `${what} is stale: the run was claimed again (fence ${fence}${holder ? `, by ${holder}` : ''}); this Gateway must not write it`;
  }
  return `${what} is stale: the run is ${textColumn(row.state) === 'parked' ? 'parked again' : 'held by another lease'}; this Gateway must not write it`;
}

async function countLive(tx: SqlRunner, now: number, of: { agentRunId?: string; ownerId?: string }): Promise<DurableRunCounts> {
  // the group's count reads the expiry index alone (its rows past their TTL are few: only those read whole), and the
  // turn's and owner's counts run only when asked: a scan reading every row's state would walk past each sealed blob
  // (SQLite keeps the columns after it beyond its overflow pages), so a park among 10,000 rows would read ~170 MB
  const [row] = await tx.all(
    `SELECT (SELECT COUNT(*) FROM durable_runs WHERE expires_at > ?)
          + (SELECT COUNT(*) FROM durable_runs WHERE expires_at <= ? AND state = 'resuming' AND lease_expires_at > ?) AS runs,
       ${of.agentRunId !== undefined ? `(SELECT COUNT(*) FROM durable_runs WHERE agent_run_id = ? AND ${LIVE})` : '0'} AS turn,
       ${of.ownerId !== undefined ? `(SELECT COUNT(*) FROM durable_runs WHERE owner_id = ? AND ${LIVE})` : '0'} AS owner`,
    [now, now, now, ...(of.agentRunId !== undefined ? [of.agentRunId, now, now] : []), ...(of.ownerId !== undefined ? [of.ownerId, now, now] : [])],
  );
  return { runs: integerColumn(row?.runs) ?? 0, turn: integerColumn(row?.turn) ?? 0, owner: integerColumn(row?.owner) ?? 0 };
}

/** The first cap `req` would pass, counted inside the park's transaction. */
async function capReached(tx: SqlRunner, now: number, req: ParkRequest, caps: DurableRunCaps): Promise<ParkResult | undefined> {
  if (caps.maxRuns === undefined && caps.maxPerTurn === undefined && caps.maxPerOwner === undefined) return undefined;
  const counts = await countLive(tx, now, {
    ...(caps.maxPerTurn !== undefined ? { agentRunId: req.agentRunId } : {}),
    ...(caps.maxPerOwner !== undefined ? { ownerId: req.ownerId } : {}),
  });
  const checks: Array<[DurableCap, number, number | undefined]> = [
    ['runs', counts.runs, caps.maxRuns],
    ['turn', counts.turn, caps.maxPerTurn],
    ['owner', counts.owner, caps.maxPerOwner],
  ];
  for (const [cap, held, limit] of checks) if (limit !== undefined && held >= limit) return { kind: 'full', cap, held, limit };
  return undefined;
}

// ---- row checks: everything read back is hostile -------------------------------------------------------------

/** A row as a run with its blob, or the first field that is not what it must be. */
function readRun(row: Row, runId: string): DurableRunRead {
  const meta = readMeta(row, runId);
  if (!meta.ok) return meta;
  const sealed = bytesColumn(row.sealed);
  if (sealed === undefined) return damaged(runId, 'sealed', 'is not bytes');
  if (sealed.byteLength !== meta.run.sealedBytes) return damaged(runId, 'sealed', `holds ${sealed.byteLength} bytes, but sealed_bytes says ${meta.run.sealedBytes}`);
  return { ok: true, run: { ...meta.run, sealed } };
}

function readMeta(row: Row, runId: string): DurableRunMetaRead {
  const text: Record<string, string> = {};
  for (const field of ['run_id', 'session_id', 'agent_run_id', 'owner_id', 'base_image_id', 'parked_by', 'state'] as const) {
    const value = textColumn(row[field]);
    if (value === undefined || value === '') return damaged(runId, field, 'is not a non-empty text');
    text[field] = value;
  }
  const numbers: Record<string, number> = {};
  for (const field of ['sealed_bytes', 'snapshot_raw_bytes', 'snapshot_stored_bytes', 'parked_at', 'expires_at', 'fence'] as const) {
    const value = integerColumn(row[field]);
    if (value === undefined || value < 0) return damaged(runId, field, 'is not a whole number of at least 0');
    numbers[field] = value;
  }
  const state = text.state as DurableRunState;
  if (!STATES.includes(state)) return damaged(runId, 'state', `is "${state.slice(0, 40)}", not one of ${STATES.join(', ')} (a row of another build?)`);
  let lease: DurableRunMeta['lease'];
  if (state === 'resuming') {
    const holder = textColumn(row.lease_holder);
    const expiresAt = integerColumn(row.lease_expires_at);
    if (holder === undefined || holder === '') return damaged(runId, 'lease_holder', 'is missing on a run being resumed');
    if (expiresAt === undefined) return damaged(runId, 'lease_expires_at', 'is missing on a run being resumed');
    lease = { holder, expiresAt };
  }
  return {
    ok: true,
    run: {
      runId: text.run_id as string,
      sessionId: text.session_id as string,
      agentRunId: text.agent_run_id as string,
      ownerId: text.owner_id as string,
      baseImageId: text.base_image_id as string,
      sealedBytes: numbers.sealed_bytes as number,
      snapshotRawBytes: numbers.snapshot_raw_bytes as number,
      snapshotStoredBytes: numbers.snapshot_stored_bytes as number,
      parkedAt: numbers.parked_at as number,
      parkedBy: text.parked_by as string,
      expiresAt: numbers.expires_at as number,
      state,
      ...(lease ? { lease } : {}),
      fence: numbers.fence as number,
    },
  };
}

function damaged(runId: string, field: string, what: string): { ok: false; runId: string; reason: string } {
  return { ok: false, runId, reason: `the durable row of run "${runId}" is damaged: its ${field} ${what}; the run cannot be resumed` };
}

// ---- input checks: a caller's bug is an InvalidInputError naming the field -------------------------------------

function checkId(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || value === '') throw new InvalidInputError(`${field} must be a non-empty string`);
  if (value.length > MAX_DURABLE_ID_CHARS) throw new InvalidInputError(`${field} is ${value.length} characters, over ${MAX_DURABLE_ID_CHARS}`);
  // PostgreSQL text cannot hold NUL: refused on both backends so an id means the same on both
  if (value.includes('\0')) throw new InvalidInputError(`${field} contains a NUL character`);
}

function checkCount(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new InvalidInputError(`${field} must be a whole number of at least 0`);
}

function checkDuration(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw new InvalidInputError(`${field} must be a whole number above 0`);
}

function checkBlob(req: Pick<ParkRequest, 'sealed' | 'snapshotRawBytes' | 'snapshotStoredBytes' | 'expiresAt'>): void {
  if (!(req.sealed instanceof Uint8Array) || req.sealed.byteLength === 0) throw new InvalidInputError('sealed must be the non-empty sealed bytes (durable/seal.ts)');
  checkCount(req.snapshotRawBytes, 'snapshotRawBytes');
  checkCount(req.snapshotStoredBytes, 'snapshotStoredBytes');
  checkCount(req.expiresAt, 'expiresAt');
}

function checkPark(req: ParkRequest): void {
  for (const field of ['runId', 'sessionId', 'agentRunId', 'ownerId', 'baseImageId', 'parkedBy'] as const) checkId(req[field], field);
  checkBlob(req);
}

function checkLease(lease: DurableLease): void {
  checkId(lease.runId, 'lease.runId');
  checkId(lease.holder, 'lease.holder');
  checkCount(lease.fence, 'lease.fence');
}
