// Gateway presence: which Gateways on one session database are up, each by a heartbeat row, so another can tell a live owner from a gone one.
//
// Each Gateway upserts its row (instance id, start, last beat, whether it runs with runs.durable, its host and pid)
// every DEFAULT_PRESENCE_BEAT_MS and deletes it when it closes. A row whose last beat is older than PRESENCE_STALE_MS
// is a Gateway that died without closing (kill -9, a lost host): it counts as gone, and its row is removed by the next
// Gateway that reads it. The host and pid let a Gateway on the same host tell a killed one at once (gateway/presence.ts). Gateways sharing a database are expected to keep their clocks within a small fraction of
// that. Everything read back is hostile: a row that is not the shape written reads as absent (a gone Gateway, whose
// runs restart recovery answers), never as an exception.
import { isGatewayInstanceId } from '../durable/instance-id.ts';
import { InvalidInputError } from '../errors.ts';
import { integerColumn, textColumn, type SqlDatabase } from './database.ts';
import { migrate } from './migrations.ts';

/** How often a Gateway beats (ms): often enough that a live one never looks stale, rarely enough to cost nothing. */
export const DEFAULT_PRESENCE_BEAT_MS = 10_000;
/** A Gateway not seen for this long is gone (ms): three missed beats and a margin, so a slow beat is not a death. */
export const PRESENCE_STALE_MS = 3 * DEFAULT_PRESENCE_BEAT_MS + 5_000;
/** A host key longer than this is cut: it is compared, never shown, and a hostname is at most 255 characters. */
export const MAX_PRESENCE_HOST_CHARS = 512;

/** A Gateway's presence row, as read back. */
export interface GatewayPresenceRow {
  instanceId: string;
  startedAt: number;
  seenAt: number;
  /** Whether it runs with runs.durable (its parked runs have rows any Gateway can resume). */
  durable: boolean;
  /** Which host (and process namespace) it runs on, and its process id there. */
  host: string;
  pid: number;
}

export interface GatewayPresenceStoreOptions {
  /** The clock beats and staleness read (ms since the epoch); default Date.now. */
  now?: () => number;
  /** Resolves once the schema is current; default: migrate(db) here. */
  ready?: Promise<void>;
}

export class GatewayPresenceStore {
  private readonly now: () => number;
  private readonly ready: Promise<void>;

  constructor(
    readonly db: SqlDatabase,
    opts: GatewayPresenceStoreOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.ready = opts.ready ?? migrate(db);
    // every operation awaits it and reports its failure; this only keeps an unawaited failure from being "unhandled"
    this.ready.catch(() => {});
  }

  /** Records that `instanceId` is up now (its first beat records its start too). */
  async beat(instanceId: string, info: Pick<GatewayPresenceRow, 'startedAt' | 'durable' | 'host' | 'pid'>): Promise<void> {
    checkInstanceId(instanceId);
    if (!Number.isSafeInteger(info.pid) || info.pid < 0) throw new InvalidInputError('pid must be a whole number of at least 0');
    await this.ready;
    await this.db.run(
      'INSERT INTO gateways (instance_id, started_at, seen_at, durable, host, pid) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (instance_id) DO UPDATE SET seen_at = excluded.seen_at',
      [instanceId, Math.floor(info.startedAt), this.now(), info.durable ? 1 : 0, info.host.slice(0, MAX_PRESENCE_HOST_CHARS), info.pid],
    );
  }

  /** The Gateway closed: its row goes, and its runs are answered as a gone Gateway's at once. */
  async leave(instanceId: string): Promise<void> {
    checkInstanceId(instanceId);
    await this.ready;
    await this.db.run('DELETE FROM gateways WHERE instance_id = ?', [instanceId]);
  }

  /** `instanceId`'s row while it is up; undefined when it is gone (no row, a stale one, removed here, or a damaged one). */
  async live(instanceId: string): Promise<GatewayPresenceRow | undefined> {
    if (!isGatewayInstanceId(instanceId)) return undefined;
    await this.ready;
    const [row] = await this.db.all('SELECT instance_id, started_at, seen_at, durable, host, pid FROM gateways WHERE instance_id = ?', [instanceId]);
    if (!row) return undefined;
    const seenAt = integerColumn(row.seen_at);
    const startedAt = integerColumn(row.started_at);
    const durable = integerColumn(row.durable);
    const host = textColumn(row.host);
    const pid = integerColumn(row.pid);
    if (textColumn(row.instance_id) !== instanceId || seenAt === undefined || startedAt === undefined || (durable !== 0 && durable !== 1) || host === undefined || pid === undefined) {
      return undefined;
    }
    if (this.now() - seenAt > PRESENCE_STALE_MS) {
      await this.forget({ instanceId, seenAt });
      return undefined;
    }
    return { instanceId, startedAt, seenAt, durable: durable === 1, host, pid };
  }

  /** Removes a row found gone, only as it was read: a Gateway that beat again in the meantime keeps its row. */
  async forget(row: Pick<GatewayPresenceRow, 'instanceId' | 'seenAt'>): Promise<void> {
    await this.ready;
    await this.db.run('DELETE FROM gateways WHERE instance_id = ? AND seen_at = ?', [row.instanceId, row.seenAt]);
  }
}

function checkInstanceId(value: unknown): void {
  if (!isGatewayInstanceId(value)) throw new InvalidInputError('instanceId must be a Gateway instance id (gw_ and 16 base64url characters)');
}
