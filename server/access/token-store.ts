// Turn and session tokens that outlive the process (runs.durable): stored as SHA-256 digests with what each opens, never as the token.
//
// A client that parked a durable run holds the turn token (and its session's token) it was given; after a
// restart, or on another Gateway, that token must still open the run. So each token is kept in the session
// database as its digest (tokens.ts tokenDigest), with the agent run, session, owner and agent it opens and
// when it expires. A leaked database gives no token: a digest cannot be presented. Lookups hash the presented
// token and find the row by digest; a check against a known subject compares digests in constant time.
// A session has one session token and a turn one turn token (unique indexes): when two Gateways mint one for
// the same session at once, one is saved and the other is told it was `taken`. Rows read back are hostile: a
// damaged row opens nothing.
import { timingSafeEqual } from 'node:crypto';
import { InvalidInputError } from '../errors.ts';
import { integerColumn, textColumn, type SqlDatabase } from '../sessions/database.ts';
import { migrate } from '../sessions/migrations.ts';
import type { TokenCheck } from './ownership.ts';
import { tokenDigest } from './tokens.ts';

/** A presented token longer than this is not one of ours (they are about 46 characters); it is refused unhashed. */
export const MAX_TOKEN_CHARS = 512;
/** Ids stored beside a digest longer than this are a caller's bug (session ids are at most 200 characters). */
const MAX_ID_CHARS = 256;
/** Expired token rows one sweep removes at most. */
export const MAX_EXPIRED_TOKENS_PER_SWEEP = 1000;

export interface TurnTokenGrant {
  kind: 'turn';
  agentRunId: string;
  sessionId: string;
  /** owners.ts Owner.id of whoever prepared the turn. */
  ownerId: string;
  agentId: string;
  /** ms since the epoch; the token opens nothing after it. */
  expiresAt: number;
}

export interface SessionTokenGrant {
  kind: 'session';
  sessionId: string;
  ownerId: string;
  expiresAt: number;
}

/** What a token opens. */
export type TokenGrant = TurnTokenGrant | SessionTokenGrant;

export interface TokenStoreOptions {
  now?: () => number;
  /** Resolves once the schema is current; default: migrate(db) here. */
  ready?: Promise<void>;
}

type Row = Record<string, unknown>;
const COLUMNS = 'digest, kind, session_id, agent_run_id, agent_id, owner_id, expires_at';

export class TokenStore {
  private readonly now: () => number;
  private readonly ready: Promise<void>;

  constructor(
    readonly db: SqlDatabase,
    opts: TokenStoreOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.ready = opts.ready ?? migrate(db);
    this.ready.catch(() => {});
  }

  /**
   * Keeps `token`'s digest with what it opens. `taken`: the subject already has a token of that kind (another
   * Gateway minted one first); nothing was written, and the caller hands out that one's holder's token instead.
   */
  async save(token: string, grant: TokenGrant): Promise<'saved' | 'taken'> {
    checkToken(token);
    checkGrant(grant);
    await this.ready;
    const changed = await this.db.run(
      `INSERT INTO access_tokens (digest, kind, session_id, agent_run_id, agent_id, owner_id, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [
        digestHex(token),
        grant.kind,
        grant.sessionId,
        grant.kind === 'turn' ? grant.agentRunId : null,
        grant.kind === 'turn' ? grant.agentId : null,
        grant.ownerId,
        this.now(),
        grant.expiresAt,
      ],
    );
    return changed > 0 ? 'saved' : 'taken';
  }

  /** What `token` opens, while it has not expired; undefined for an unknown, expired or damaged one. */
  async open(token: string): Promise<TokenGrant | undefined> {
    if (!plausibleToken(token)) return undefined;
    await this.ready;
    const digest = digestHex(token);
    const [row] = await this.db.all(`SELECT ${COLUMNS} FROM access_tokens WHERE digest = ?`, [digest]);
    if (!row || !digestsEqual(textColumn(row.digest), digest)) return undefined;
    const grant = readGrant(row);
    return grant && grant.expiresAt > this.now() ? grant : undefined;
  }

  /**
   * The unexpired grant of turn `agentRunId` with its token's digest (hex), without a token presented: for a trusted
   * caller only (the operator resuming a durable run from the page), which opens the turn by the digest itself.
   */
  async turnGrant(agentRunId: string): Promise<{ grant: TurnTokenGrant; digest: string } | undefined> {
    checkId(agentRunId, 'agentRunId');
    await this.ready;
    const [row] = await this.db.all(`SELECT ${COLUMNS} FROM access_tokens WHERE kind = 'turn' AND agent_run_id = ?`, [agentRunId]);
    const digest = row ? textColumn(row.digest) : undefined;
    const grant = row ? readGrant(row) : undefined;
    if (grant?.kind !== 'turn' || digest === undefined || !/^[0-9a-f]{64}$/.test(digest) || grant.expiresAt <= this.now()) return undefined;
    return { grant, digest };
  }

  /** How `presented` relates to the turn's token: held, wrong, missing, or unknown (no unexpired token for the turn). */
  checkTurn(agentRunId: string, presented: string | undefined): Promise<TokenCheck> {
    checkId(agentRunId, 'agentRunId');
    return this.check('turn', 'agent_run_id', agentRunId, presented);
  }

  /** How `presented` relates to the session's token (as checkTurn). */
  checkSession(sessionId: string, presented: string | undefined): Promise<TokenCheck> {
    checkId(sessionId, 'sessionId');
    return this.check('session', 'session_id', sessionId, presented);
  }

  /** Moves the expiry of the turn's (or session's) token to `expiresAt` when that is later (a run parked past it). */
  async extend(kind: TokenGrant['kind'], subjectId: string, expiresAt: number): Promise<boolean> {
    checkId(subjectId, kind === 'turn' ? 'agentRunId' : 'sessionId');
    checkTime(expiresAt);
    await this.ready;
    const column = kind === 'turn' ? 'agent_run_id' : 'session_id';
    return (await this.db.run(`UPDATE access_tokens SET expires_at = ? WHERE kind = ? AND ${column} = ? AND expires_at < ?`, [expiresAt, kind, subjectId, expiresAt])) > 0;
  }

  /** Forgets the turn's (or session's) token. True when there was one. */
  async forget(kind: TokenGrant['kind'], subjectId: string): Promise<boolean> {
    checkId(subjectId, kind === 'turn' ? 'agentRunId' : 'sessionId');
    await this.ready;
    const column = kind === 'turn' ? 'agent_run_id' : 'session_id';
    return (await this.db.run(`DELETE FROM access_tokens WHERE kind = ? AND ${column} = ?`, [kind, subjectId])) > 0;
  }

  /** Deletes up to `limit` expired tokens; how many went. */
  async deleteExpired(limit = MAX_EXPIRED_TOKENS_PER_SWEEP): Promise<number> {
    await this.ready;
    return this.db.run('DELETE FROM access_tokens WHERE digest IN (SELECT digest FROM access_tokens WHERE expires_at <= ? LIMIT ?)', [this.now(), Math.max(1, Math.floor(limit))]);
  }

  private async check(kind: TokenGrant['kind'], column: string, subjectId: string, presented: string | undefined): Promise<TokenCheck> {
    await this.ready;
    const [row] = await this.db.all(`SELECT digest, expires_at FROM access_tokens WHERE kind = ? AND ${column} = ?`, [kind, subjectId]);
    const stored = row ? textColumn(row.digest) : undefined;
    const expiresAt = row ? integerColumn(row.expires_at) : undefined;
    if (stored === undefined || expiresAt === undefined || expiresAt <= this.now()) return 'unknown';
    if (presented === undefined || presented === '') return 'missing';
    if (!plausibleToken(presented)) return 'wrong';
    return digestsEqual(stored, digestHex(presented)) ? 'held' : 'wrong';
  }
}

function digestHex(token: string): string {
  return tokenDigest(token).toString('hex');
}

/** Two hex digests compared in constant time; false for anything a damaged row left that is not a digest. */
function digestsEqual(stored: string | undefined, expected: string): boolean {
  if (stored === undefined || !/^[0-9a-f]{64}$/.test(stored)) return false;
  return timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(expected, 'hex'));
}

function plausibleToken(token: unknown): token is string {
  return typeof token === 'string' && token !== '' && token.length <= MAX_TOKEN_CHARS;
}

/** A row as a grant, or undefined when any field is not what it must be. */
function readGrant(row: Row): TokenGrant | undefined {
  const kind = textColumn(row.kind);
  const sessionId = textColumn(row.session_id);
  const ownerId = textColumn(row.owner_id);
  const expiresAt = integerColumn(row.expires_at);
  if (!sessionId || !ownerId || expiresAt === undefined) return undefined;
  if (kind === 'session') return { kind, sessionId, ownerId, expiresAt };
  if (kind !== 'turn') return undefined;
  const agentRunId = textColumn(row.agent_run_id);
  const agentId = textColumn(row.agent_id);
  if (!agentRunId || !agentId) return undefined;
  return { kind, agentRunId, sessionId, ownerId, agentId, expiresAt };
}

function checkToken(token: unknown): void {
  if (!plausibleToken(token)) throw new InvalidInputError(`token must be a non-empty string of at most ${MAX_TOKEN_CHARS} characters`);
}

function checkId(value: unknown, field: string): void {
  if (typeof value !== 'string' || value === '' || value.length > MAX_ID_CHARS || value.includes('\0')) {
    throw new InvalidInputError(`${field} must be a non-empty string of at most ${MAX_ID_CHARS} characters without NUL`);
  }
}

function checkTime(value: unknown): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new InvalidInputError('expiresAt must be a time in ms since the epoch');
}

function checkGrant(grant: TokenGrant): void {
  if (grant?.kind !== 'turn' && grant?.kind !== 'session') throw new InvalidInputError('grant.kind must be "turn" or "session"');
  checkId(grant.sessionId, 'grant.sessionId');
  checkId(grant.ownerId, 'grant.ownerId');
  checkTime(grant.expiresAt);
  if (grant.kind === 'turn') {
    checkId(grant.agentRunId, 'grant.agentRunId');
    checkId(grant.agentId, 'grant.agentId');
  }
}
