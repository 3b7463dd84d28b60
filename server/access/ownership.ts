// Who owns what: turn tokens per agent run, session tokens per session, and the run -> turn map the API filters by.
/*
 * turns.prepare mints a turn token for the new agent run and, the first time a session id is used in this
 * process, a session token for the session. Every later API call about the turn, its runs, their client
 * calls and approvals, or its session presents one of them; the tRPC edge checks it here. The Gateway
 * itself stays unrestricted (the CLI is an in-process, trusted caller). Tokens live in memory here. With
 * runs.durable their digests are also in the session database (token-store.ts), and a session token this
 * process does not hold is checked there (lookupSession): the client that holds it joins its session after a
 * restart, or on another Gateway, as before, and the token becomes the session's here. Without a stored,
 * unexpired token a session with history from an earlier process has no token here, so only the operator may
 * join it (which mints a fresh one).
 *
 * Records of ended turns stay while runs of theirs are still listed, so a client can read the trajectory
 * of a run after ending its turn; prune() drops them with the runs, and the token of a session left with
 * no turn and no history.
 */
import { timingSafeEqual } from 'node:crypto';
import { tokenDigest, tokensEqual, newToken } from './tokens.ts';

/** How a presented token relates to the thing it should open. */
export type TokenCheck = 'held' | 'missing' | 'wrong' | 'unknown';

/** Whether a session id may be joined with the token presented (see sessionJoin). */
export type SessionJoin = 'new' | 'held' | 'missing' | 'wrong' | 'orphaned';

/**
 * What sessionJoin needs looked up first (lookupSession): whether the session has history, and how the presented
 * token relates to the session's stored token (runs.durable; `unknown` when nothing is stored, or without a store).
 */
export interface SessionLookup {
  hasHistory: boolean;
  stored: TokenCheck;
}

/** The token digests kept in the session database (runs.durable: token-store.ts), as the checks here ask them. */
export interface StoredTokens {
  /** How a presented session token relates to the session's stored token. */
  checkSession(sessionId: string, presented: string | undefined): Promise<TokenCheck>;
  /** The session of the turn an unexpired stored turn token opens; undefined for any other token. */
  turnSession(turnToken: string): Promise<string | undefined>;
}

/**
 * Presented turn tokens this process does not know that are looked up in the session database per session check, at
 * most: a request may carry 64 (trpc/context.ts), and each is a query; a client's own turns come first in practice.
 */
export const MAX_STORED_TURN_TOKEN_LOOKUPS = 4;

interface TurnRecord {
  agentRunId: string;
  sessionId: string;
  /** SHA-256 of the turn token (hex): a turn adopted after a restart may be known by its stored digest only. */
  digest: string;
  ended: boolean;
}

export class Ownership {
  private readonly turns = new Map<string, TurnRecord>();
  /** Turn token digest (hex) -> agentRunId: lookups never compare the presented string itself. */
  private readonly byDigest = new Map<string, string>();
  private readonly sessionTokens = new Map<string, string>();
  private readonly runTurns = new Map<string, string>();

  /**
   * `hasHistory`: whether a session id already has transcript entries (from this or an earlier process, or another
   * Gateway). `stored` (runs.durable): presented tokens this process does not hold are checked against their digests.
   */
  constructor(
    private readonly hasHistory: (sessionId: string) => boolean | Promise<boolean>,
    private readonly stored?: StoredTokens,
  ) {}

  /** Whether the session has history (a look in the session database). */
  async sessionHistory(sessionId: string): Promise<boolean> {
    return this.hasHistory(sessionId);
  }

  /**
   * What sessionJoin needs, looked up first: the session's history and, when this process holds no token for the
   * session or another than the one presented, how the presented one relates to the stored token (a session token
   * minted before a restart, or on another Gateway). Rejects only when the session database cannot be read.
   */
  async lookupSession(sessionId: string, presented: string | undefined): Promise<SessionLookup> {
    const held = this.sessionTokens.get(sessionId);
    const store = this.stored;
    const askStore = store !== undefined && (held === undefined || (presented !== undefined && presented !== '' && !tokensEqual(presented, held)));
    const [hasHistory, stored] = await Promise.all([this.hasHistory(sessionId), askStore ? store.checkSession(sessionId, presented) : Promise.resolve<TokenCheck>('unknown')]);
    return { hasHistory, stored };
  }

  /**
   * Whether one of `turnTokens` opens session `sessionId`: the token of a turn prepared in it, known here or (runs.durable)
   * stored unexpired in the session database (a turn from before a restart, or of another Gateway). Rejects only when
   * the session database cannot be read.
   */
  async turnOpensSession(sessionId: string, turnTokens: readonly string[]): Promise<boolean> {
    for (const agentRunId of this.turnsOf(turnTokens)) if (this.turnSession(agentRunId) === sessionId) return true;
    if (!this.stored) return false;
    const unknown = turnTokens.filter((token) => !this.byDigest.has(tokenDigest(token).toString('hex'))).slice(0, MAX_STORED_TURN_TOKEN_LOOKUPS);
    for (const token of unknown) if ((await this.stored.turnSession(token)) === sessionId) return true;
    return false;
  }

  /** Registers a new turn; returns its token and its session's token (minted when the session has none yet). */
  issueTurn(agentRunId: string, sessionId: string): { turnToken: string; sessionToken: string } {
    const turnToken = newToken('tt');
    const digest = tokenDigest(turnToken).toString('hex');
    this.turns.set(agentRunId, { agentRunId, sessionId, digest, ended: false });
    this.byDigest.set(digest, agentRunId);
    let sessionToken = this.sessionTokens.get(sessionId);
    if (sessionToken === undefined) {
      sessionToken = newToken('st');
      this.sessionTokens.set(sessionId, sessionToken);
    }
    return { turnToken, sessionToken };
  }

  /**
   * Registers a turn an earlier process issued (durable runs), with the token its client presented and the caller
   * checked against the stored digest, or (the operator resuming it from the page, holding no token) with that stored
   * digest itself: from now on the turn's token opens it here as if issued here.
   */
  adoptTurn(agentRunId: string, sessionId: string, key: { turnToken: string } | { digest: string }): void {
    if (this.turns.has(agentRunId)) return;
    const digest = 'digest' in key ? key.digest : tokenDigest(key.turnToken).toString('hex');
    this.turns.set(agentRunId, { agentRunId, sessionId, digest, ended: false });
    this.byDigest.set(digest, agentRunId);
  }

  /** The turn's token keeps opening its runs until prune() finds none of them left. */
  endTurn(agentRunId: string): void {
    const turn = this.turns.get(agentRunId);
    if (turn) turn.ended = true;
  }

  noteRun(runId: string, agentRunId: string): void {
    this.runTurns.set(runId, agentRunId);
  }

  /**
   * Forgets runs the Gateway no longer lists, then ended turns without runs, then the tokens of sessions with no
   * turn left and no history: nothing of such a session exists any more, so its id is free again (the next
   * turns.prepare naming it becomes its owner). A session with history keeps its token, so it is not orphaned;
   * so does one whose history cannot be looked up now (the database is down), until a later prune. Never rejects.
   */
  async prune(listedRunIds: ReadonlySet<string>): Promise<void> {
    for (const runId of this.runTurns.keys()) if (!listedRunIds.has(runId)) this.runTurns.delete(runId);
    const withRuns = new Set(this.runTurns.values());
    for (const [agentRunId, turn] of this.turns) {
      if (turn.ended && !withRuns.has(agentRunId)) {
        this.turns.delete(agentRunId);
        this.byDigest.delete(turn.digest);
      }
    }
    const withTurns = new Set([...this.turns.values()].map((turn) => turn.sessionId));
    const candidates = [...this.sessionTokens].filter(([sessionId]) => !withTurns.has(sessionId));
    for (const [sessionId, token] of candidates) {
      const history = await Promise.resolve()
        .then(() => this.hasHistory(sessionId))
        .catch(() => true);
      // a turn prepared in the session while its history was looked up holds this token now: keep it
      const held = [...this.turns.values()].some((turn) => turn.sessionId === sessionId);
      if (!history && !held && this.sessionTokens.get(sessionId) === token) this.sessionTokens.delete(sessionId);
    }
  }

  /** 'unknown' when this process has no such turn (the Gateway then answers "unknown agent run" itself). */
  checkTurn(agentRunId: string, turnToken: string | undefined): TokenCheck {
    const turn = this.turns.get(agentRunId);
    if (!turn) return 'unknown';
    if (turnToken === undefined || turnToken === '') return 'missing';
    return digestEquals(turnToken, turn.digest) ? 'held' : 'wrong';
  }

  /** The agent runs (live or ended) the presented turn tokens open; tokens that open nothing are ignored. */
  turnsOf(turnTokens: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const token of turnTokens) {
      const agentRunId = this.byDigest.get(tokenDigest(token).toString('hex'));
      if (agentRunId !== undefined) out.add(agentRunId);
    }
    return out;
  }

  /** The agent run that started a run, while the run is listed. */
  runTurn(runId: string): string | undefined {
    return this.runTurns.get(runId);
  }

  /** The session of an agent run this process issued. */
  turnSession(agentRunId: string): string | undefined {
    return this.turns.get(agentRunId)?.sessionId;
  }

  /**
   * new: nobody holds the id yet (no token here or stored, no history): the caller becomes its owner. held: the
   * token is the session's, here or in the session database (runs.durable: then it becomes the session's token here,
   * so the turn prepared next hands the same one back). orphaned: history from an earlier process and no token here
   * or stored: only the operator may join it. `lookup` is lookupSession()'s answer (or, with no store, the history
   * alone), looked up first: the check itself does not wait, so a caller can check and then issue the session's token
   * with nothing in between (two clients claiming one new id).
   */
  sessionJoin(sessionId: string, sessionToken: string | undefined, lookup: SessionLookup | boolean): SessionJoin {
    const { hasHistory, stored } = typeof lookup === 'boolean' ? { hasHistory: lookup, stored: 'unknown' as const } : lookup;
    const presented = sessionToken !== undefined && sessionToken !== '';
    if (stored === 'held' && presented) {
      // the stored token is the session's: one this process minted meanwhile (an operator's join) gives way to it
      this.sessionTokens.set(sessionId, sessionToken);
      return 'held';
    }
    const expected = this.sessionTokens.get(sessionId);
    if (expected === undefined) {
      if (stored === 'missing' || stored === 'wrong') return stored;
      return hasHistory ? 'orphaned' : 'new';
    }
    if (!presented) return 'missing';
    return tokensEqual(sessionToken, expected) ? 'held' : 'wrong';
  }
}

/** True when `presented` hashes to the hex `digest`, compared in constant time (a damaged digest opens nothing). */
function digestEquals(presented: string, digest: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(digest)) return false;
  return timingSafeEqual(tokenDigest(presented), Buffer.from(digest, 'hex'));
}
