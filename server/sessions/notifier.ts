// Run notices between Gateways sharing one session database: publish and subscribe of ids only (kind, run, session, sender).
//
// Several Gateways on one database show each other's runs, approvals and client-tool calls, and wake a `wait`
// when a durable run parks or settles elsewhere. A notice carries ids, never content: a subscriber reads
// what changed from the database (or asks the Gateway that holds it). On PostgreSQL notices travel by
// LISTEN/NOTIFY: publishing is a `pg_notify` on the pool (or inside the caller's transaction, so it is sent
// only if that commits), listening holds one connection of its own outside the pool (notices arrive on the
// session that LISTENs), opened at the first subscription, reopened with backoff when it drops, and ended
// by close(). While it was down notices may have been missed, so subscribers hear a gap and re-read what
// they show. The channel is named after the schema, so Gateway groups in other schemas of one database do
// not hear each other. SQLite has one process's Gateways on a file at most, so its notices go through an
// in-process hub per database file, on the same contract.
//
// A notice is bounded JSON; everything received is hostile (any client of the database may NOTIFY on the
// channel): a notice that is not exactly this shape is dropped with a log line, never thrown to a listener.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import type { Client, Notification } from 'pg';
import { isGatewayInstanceId } from '../durable/instance-id.ts';
import { InvalidInputError } from '../errors.ts';
import { closedDatabaseError, textColumn, type SqlDatabase, type SqlRunner } from './database.ts';
import { PostgresDatabase } from './postgres.ts';
import { SqliteDatabase } from './sqlite.ts';

/** What happened to the run a notice names (`view`: its holder wrote or deleted its view, run-views.ts; `request`: a request about it was sent to or answered by its holder, run-requests.ts). */
export const RUN_NOTICE_KINDS = Object.freeze(['started', 'updated', 'parked', 'claimed', 'settled', 'expired', 'approval', 'client-call', 'view', 'request'] as const);
export type RunNoticeKind = (typeof RUN_NOTICE_KINDS)[number];

export interface RunNotice {
  kind: RunNoticeKind;
  runId: string;
  sessionId: string;
  /** The Gateway instance that published it (durable/instance-id.ts): a Gateway can skip its own. */
  from: string;
}

/** An id a notice carries is at most this long (session ids are at most 200 characters, run ids far less). */
export const MAX_NOTICE_ID_CHARS = 256;
/**
 * A notice's encoded size at most. PostgreSQL refuses payloads of 8000 bytes or more; two ids of 256 characters,
 * escaped, stay well under this, so the bound only stops what is not a notice.
 */
export const MAX_NOTICE_PAYLOAD_BYTES = 4000;
/** The first wait before reopening a dropped LISTEN connection (ms); it doubles up to the next. */
export const NOTIFIER_RECONNECT_MIN_MS = 100;
/** The longest wait between attempts to reopen it: a database back after an outage is heard within this. */
export const NOTIFIER_RECONNECT_MAX_MS = 5_000;

const NOTICE_VERSION = 1;

export interface RunNotifier {
  /** This Gateway's instance id: the `from` of what it publishes. */
  readonly gatewayId: string;
  /**
   * Sends a notice to every subscriber of every Gateway on the database (this one's included). With `tx` (a
   * transaction of the same database) it is sent only if that transaction commits (PostgreSQL; SQLite sends it
   * at once). Throws InvalidInputError on an id out of bounds, SessionStoreError when the database cannot be used.
   */
  publish(notice: Omit<RunNotice, 'from'>, tx?: SqlRunner): Promise<void>;
  /** Hears every notice (its own Gateway's too); the returned function stops it. A listener that throws is logged, not propagated. */
  subscribe(listener: (notice: RunNotice) => void): () => void;
  /** Hears when notices may have been missed (the LISTEN connection dropped and came back): re-read what you show. */
  onGap(listener: () => void): () => void;
  /** Stops listening and ends its connection; later publishes are refused. Idempotent. */
  close(): Promise<void>;
}

export interface RunNotifierOptions {
  gatewayId: string;
  /** Where dropped notices and connection faults are reported; default: dropped. */
  log?: (line: string) => void;
}

/** The notice as it travels: short keys, a version, nothing else. */
export function encodeNotice(notice: RunNotice): string {
  if (!(RUN_NOTICE_KINDS as readonly string[]).includes(notice.kind)) throw new InvalidInputError(`a run notice's kind must be one of ${RUN_NOTICE_KINDS.join(', ')}`);
  checkNoticeId(notice.runId, 'runId');
  checkNoticeId(notice.sessionId, 'sessionId');
  if (!isGatewayInstanceId(notice.from)) throw new InvalidInputError("a run notice's from must be a Gateway instance id");
  const payload = JSON.stringify({ v: NOTICE_VERSION, k: notice.kind, r: notice.runId, s: notice.sessionId, g: notice.from });
  if (Buffer.byteLength(payload) > MAX_NOTICE_PAYLOAD_BYTES) throw new InvalidInputError(`a run notice is at most ${MAX_NOTICE_PAYLOAD_BYTES} bytes encoded`);
  return payload;
}

/** A received payload as a notice, or why it is not one (hostile: anyone on the database may send on the channel). */
export function decodeNotice(payload: unknown): RunNotice | string {
  if (typeof payload !== 'string') return 'it has no payload';
  if (payload.length > MAX_NOTICE_PAYLOAD_BYTES) return `its payload is over ${MAX_NOTICE_PAYLOAD_BYTES} characters`;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return 'its payload is not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'its payload is not a JSON object';
  const { v, k, r, s, g } = value as Record<string, unknown>;
  if (v !== NOTICE_VERSION) return `it is version ${JSON.stringify(v)?.slice(0, 20)}, not ${NOTICE_VERSION} (a Gateway of another build?)`;
  if (typeof k !== 'string' || !(RUN_NOTICE_KINDS as readonly string[]).includes(k)) return 'its kind is not a run notice kind';
  if (!isNoticeId(r)) return 'its run id is not an id';
  if (!isNoticeId(s)) return 'its session id is not an id';
  if (!isGatewayInstanceId(g)) return 'its sender is not a Gateway instance id';
  return { kind: k as RunNoticeKind, runId: r, sessionId: s, from: g };
}

function isNoticeId(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.length <= MAX_NOTICE_ID_CHARS && !value.includes('\0');
}

function checkNoticeId(value: unknown, field: string): void {
  if (!isNoticeId(value)) throw new InvalidInputError(`a run notice's ${field} must be a non-empty string of at most ${MAX_NOTICE_ID_CHARS} characters without NUL`);
}

/** The notifier for `db`: LISTEN/NOTIFY on PostgreSQL, the in-process hub of its file on SQLite. */
export function openRunNotifier(db: SqlDatabase, opts: RunNotifierOptions): RunNotifier {
  if (!isGatewayInstanceId(opts.gatewayId)) throw new InvalidInputError('gatewayId must be a Gateway instance id (durable/instance-id.ts)');
  if (db instanceof PostgresDatabase) return new PostgresRunNotifier(db, opts);
  return new LocalRunNotifier(db, opts);
}

/** Subscribers and gap listeners, each called in turn; one that throws is logged. */
class Listeners {
  readonly notices = new Set<(notice: RunNotice) => void>();
  readonly gaps = new Set<() => void>();

  constructor(private readonly log: (line: string) => void) {}

  add<T>(set: Set<T>, listener: T): () => void {
    set.add(listener);
    return () => void set.delete(listener);
  }

  deliver(notice: RunNotice): void {
    for (const listener of [...this.notices]) {
      try {
        listener(notice);
      } catch (err) {
        this.log(`a run-notice listener failed on a "${notice.kind}" notice of run ${notice.runId}: ${(err as Error).message}`);
      }
    }
  }

  gap(): void {
    for (const listener of [...this.gaps]) {
      try {
        listener();
      } catch (err) {
        this.log(`a run-notice gap listener failed: ${(err as Error).message}`);
      }
    }
  }
}

// ---- SQLite: one process, an in-process hub per database -----------------------------------------------------

/** Hubs by database file (real path); an in-memory database has its own, by identity. */
const fileHubs = new Map<string, Set<LocalRunNotifier>>();
const memoryHubs = new WeakMap<SqlDatabase, Set<LocalRunNotifier>>();

export class LocalRunNotifier implements RunNotifier {
  readonly gatewayId: string;
  private readonly listeners: Listeners;
  private readonly hub: Set<LocalRunNotifier>;
  private readonly hubKey?: string;
  private closed = false;

  constructor(
    private readonly db: SqlDatabase,
    opts: RunNotifierOptions,
  ) {
    this.gatewayId = opts.gatewayId;
    this.listeners = new Listeners(opts.log ?? (() => {}));
    const file = db instanceof SqliteDatabase && !db.handle.memory ? db.handle.name : undefined;
    if (file !== undefined) {
      try {
        this.hubKey = realpathSync(file);
      } catch {
        this.hubKey = file;
      }
      this.hub = fileHubs.get(this.hubKey) ?? new Set();
      fileHubs.set(this.hubKey, this.hub);
    } else {
      this.hub = memoryHubs.get(db) ?? new Set();
      memoryHubs.set(db, this.hub);
    }
    this.hub.add(this);
  }

  async publish(notice: Omit<RunNotice, 'from'>): Promise<void> {
    if (this.closed) throw closedDatabaseError(this.db);
    // through the wire form, as on PostgreSQL: the same bounds, the same copy per receiver
    const payload = encodeNotice({ ...notice, from: this.gatewayId });
    const receivers = [...this.hub];
    // delivered after the publisher's turn, as a NOTIFY is after its commit
    setImmediate(() => {
      for (const receiver of receivers) receiver.receive(payload);
    });
  }

  subscribe(listener: (notice: RunNotice) => void): () => void {
    return this.listeners.add(this.listeners.notices, listener);
  }

  onGap(listener: () => void): () => void {
    // one process: nothing is ever missed
    return this.listeners.add(this.listeners.gaps, listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.hub.delete(this);
    if (this.hubKey !== undefined && this.hub.size === 0 && fileHubs.get(this.hubKey) === this.hub) fileHubs.delete(this.hubKey);
    this.listeners.notices.clear();
    this.listeners.gaps.clear();
  }

  private receive(payload: string): void {
    if (this.closed) return;
    const notice = decodeNotice(payload);
    if (typeof notice !== 'string') this.listeners.deliver(notice);
  }
}

// ---- PostgreSQL: LISTEN/NOTIFY -----------------------------------------------------------------------------

export class PostgresRunNotifier implements RunNotifier {
  readonly gatewayId: string;
  private readonly listeners: Listeners;
  private readonly log: (line: string) => void;
  private channelName?: Promise<string>;
  /** The LISTEN connection while it is up. */
  private client?: Client;
  /** An attempt to open it under way. */
  private connecting?: Promise<void>;
  private retryTimer?: ReturnType<typeof setTimeout>;
  private retryMs = NOTIFIER_RECONNECT_MIN_MS;
  /** Whether a connection was up before: the next one after a drop announces a gap. */
  private wasConnected = false;
  private closing?: Promise<void>;

  constructor(
    private readonly db: PostgresDatabase,
    opts: RunNotifierOptions,
  ) {
    this.gatewayId = opts.gatewayId;
    this.log = opts.log ?? (() => {});
    this.listeners = new Listeners(this.log);
  }

  /** The channel of this database's schema: `codemode_runs_` and 16 hex digits of its name's hash (a plain identifier). */
  channel(): Promise<string> {
    this.channelName ??= this.db.all('SELECT current_schema() AS schema').then(([row]) => {
      const schema = textColumn(row?.schema) ?? '';
      return `codemode_runs_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
    });
    // a failed lookup is asked again next time (the database may come back)
    this.channelName.catch(() => {
      this.channelName = undefined;
    });
    return this.channelName;
  }

  async publish(notice: Omit<RunNotice, 'from'>, tx?: SqlRunner): Promise<void> {
    if (this.closing) throw closedDatabaseError(this.db);
    const payload = encodeNotice({ ...notice, from: this.gatewayId });
    const channel = await this.channel();
    await (tx ?? this.db).all('SELECT pg_notify(?, ?)', [channel, payload]);
  }

  subscribe(listener: (notice: RunNotice) => void): () => void {
    const stop = this.listeners.add(this.listeners.notices, listener);
    this.listen();
    return stop;
  }

  onGap(listener: () => void): () => void {
    return this.listeners.add(this.listeners.gaps, listener);
  }

  /** Resolves once the LISTEN connection is up (tests, and a caller that must not miss the first notice). */
  async listening(): Promise<void> {
    this.listen();
    for (;;) {
      if (this.client) return;
      if (this.closing) throw closedDatabaseError(this.db);
      await (this.connecting ?? new Promise<void>((resolve) => setTimeout(resolve, NOTIFIER_RECONNECT_MIN_MS)));
    }
  }

  /** Whether the LISTEN connection is up now. */
  get connected(): boolean {
    return this.client !== undefined;
  }

  /** Whether an attempt to open it is under way or waiting for its turn (false after close(): no timer is left). */
  get retrying(): boolean {
    return this.connecting !== undefined || this.retryTimer !== undefined;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
      await this.connecting?.catch(() => undefined);
      const client = this.client;
      this.client = undefined;
      this.listeners.notices.clear();
      this.listeners.gaps.clear();
      await client?.end().catch(() => undefined);
    })();
    return this.closing;
  }

  /** Opens the LISTEN connection unless it is up, opening, or waiting to retry. */
  private listen(): void {
    if (this.closing || this.client || this.connecting || this.retryTimer) return;
    this.connecting = this.connect().finally(() => {
      this.connecting = undefined;
    });
  }

  private async connect(): Promise<void> {
    let client: Client | undefined;
    try {
      const channel = await this.channel();
      client = await this.db.connectDedicated(`codemode-notify ${this.gatewayId}`);
      if (this.closing) {
        await client.end().catch(() => undefined);
        return;
      }
      client.on('notification', (message: Notification) => {
        if (message.channel !== channel) return;
        const notice = decodeNotice(message.payload);
        if (typeof notice === 'string') this.log(`a run notice on ${channel} was dropped: ${notice}`);
        else this.listeners.deliver(notice);
      });
      const opened = client;
      const dropped = (why: string) => {
        if (this.client !== opened) return;
        this.client = undefined;
        opened.end().catch(() => undefined);
        if (this.closing) return;
        this.log(`the run-notice connection to ${this.db.location} dropped (${why}); reconnecting`);
        this.retry();
      };
      client.on('error', (err: Error) => dropped(err.message));
      client.on('end', () => dropped('the server ended it'));
      await client.query(`LISTEN ${channel}`);
      this.client = client;
      this.retryMs = NOTIFIER_RECONNECT_MIN_MS;
      if (this.wasConnected) this.listeners.gap();
      this.wasConnected = true;
    } catch (err) {
      await client?.end().catch(() => undefined);
      if (this.closing) return;
      this.log(`cannot listen for run notices on ${this.db.location}: ${(err as Error).message}; retrying`);
      // a later connection may have missed notices sent meanwhile
      this.wasConnected ||= this.listeners.notices.size > 0;
      this.retry();
    }
  }

  private retry(): void {
    if (this.closing || this.retryTimer) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(NOTIFIER_RECONNECT_MAX_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.listen();
    }, delay);
    // a Gateway that is otherwise done does not stay up for this timer; close() clears it anyway
    this.retryTimer.unref();
  }
}
