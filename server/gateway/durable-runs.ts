// Durable runs (runs.durable): parked QuickJS runs written to the session database, sealed, and resumed by `wait` after a restart.
//
// While a run waits, its record and snapshot (runs/run-record.ts) are sealed together (durable/seal.ts: AES-256-GCM
// under CODEMODE_SNAPSHOT_KEY, bound to the run and session) into its durable row (sessions/durable-runs.ts). The row
// follows the run: written when it parks and again when a reply lands while it waits, claimed (lease and fence) when a
// `wait` resumes it, parked again under the lease, deleted when it ends (completed, failed, expired, aborted). Writes
// of one run are applied in order, one at a time, coalesced to the latest; an exec or wait that answers `waiting`
// returns only once its row is written (ControlCalls awaits `settled`), so a client never holds a run id the store
// has not got. Turn and session tokens are kept as digests (access/token-store.ts).
//
// Several Gateways on one database: the row, not a process's memory, is the run. A Gateway that parked a run keeps
// its copy, but a `wait` on it first claims the row, and the claim's fence tells whether anyone resumed the run since
// this Gateway last wrote it (the fence it left is kept per run): if so, or if the row is gone or leased to another
// Gateway, the copy here is dropped without touching the row (handOff) and the wait restores from the row, or is
// refused naming the holder. So a run parked on A completes through `wait` on B, and a later wait on A never resumes
// A's stale copy: no run is resumed twice. A copy that ends here (its TTL, an abort) deletes the row only while it is
// still parked at the fence this Gateway left.
//
// After a restart, `wait` on a run this process does not hold looks for its row: the turn is opened again for a
// caller presenting the turn token the stored digest names (`turnFor`), the row is claimed, opened (a row sealed
// with another key, on another base image, moved or tampered with is a failed result naming why, never a throw), and
// the run restored (RunManager.restore: slot claimed again, TTL to its deadline, in-flight calls recovered). A
// Gateway closing keeps its rows: only a run that ends deletes its row.
//
// Parked runs need no memory here: once a run's row is written and nothing of it lives only in this process (it
// waits, no wait holds it, every call it made has its reply: a call in flight, a pending approval or client-tool call
// is answered through this process, so such a run stays), it is a quiescent copy, and past runs.parkedInMemory of them
// the least recently parked is evicted (RunManager.evict: its Run, snapshot, slot and TTL timer let go, no end, no
// event of its own). What stays is an index entry (its turn, the fence it was left at, its deadline); a wait on it
// restores it from the row as after a restart, an abort or the end of its turn deletes the row at that fence, and the
// sweep deletes it when its TTL passes. runs.maxParked caps the rows (default spec 01's 64).
// long: one concept, the life of a parked run's durable row (write, claim, restore, end, sweep) and the turn tokens its waiting client needs.
import type { Owner } from '../access/owners.ts';
import { LOCAL_OWNER } from '../access/owners.ts';
import { TokenStore, type TurnTokenGrant } from '../access/token-store.ts';
import { DEFAULT_MAX_PARKED, DEFAULT_PARKED_IN_MEMORY, MAX_MAX_PARKED } from '../config/runs.ts';
import type { GatewayConfig } from '../config/types.ts';
import { openSealed, seal } from '../durable/seal.ts';
import type { SnapshotKey } from '../durable/snapshot-key.ts';
import type { CodeModeErrorCode } from '../errors.ts';
import type { ClientToolSpec, TurnInfo } from '../gateway-types.ts';
import { MSG_TOO_MANY, MSG_UNAVAILABLE } from '../runs/messages.ts';
import { isTerminal } from '../runs/run.ts';
import { parseRunRecord, RunRecordError, type RunRecord } from '../runs/run-record.ts';
import { MAX_SLOTS_PER_TURN, type RunManager, type TurnScope } from '../runs/runs.ts';
import type { CodeModeResult, RunEvent, RunView } from '../runs/types.ts';
import type { SqlDatabase } from '../sessions/database.ts';
import {
  DEFAULT_DURABLE_LEASE_MS,
  DurableRunStore,
  type ClaimResult,
  type DurableCap,
  type DurableLease,
  type DurableRunMeta,
  type DurableRunMetaRead,
} from '../sessions/durable-runs.ts';
import { trimOldest } from '../util/bounded.ts';
import type { RunEventBus } from './event-bus.ts';
import type { ExecutorSet } from './executors.ts';
import { TURN_IDLE_MS, type Turn, type TurnRegistry } from './turns.ts';

/** How often expired rows and tokens are swept: a parked run's TTL is at least a minute, so a minute late is soon enough. */
export const DURABLE_SWEEP_MS = 60 * 1000;
/** Runs whose copy this Gateway dropped (handOff) remembered at most, so a later wait here on one that ended elsewhere says so. */
export const MAX_DROPPED_RUNS_KEPT = 1000;
/** Bytes of the length prefix of the sealed plaintext (the record's JSON length, then the JSON, then the snapshot). */
const FRAME_PREFIX_BYTES = 4;

export interface DurableRunsDeps {
  db: SqlDatabase;
  /** Resolves once the session database's schema is current (the Transcript migrates it). */
  ready: Promise<void>;
  key: SnapshotKey;
  instanceId: string;
  config: GatewayConfig;
  runs: RunManager;
  turns: TurnRegistry;
  executors: ExecutorSet;
  events: RunEventBus;
  log: (line: string) => void;
}

type Op = 'write' | 'claim' | 'end';

/** What this Gateway keeps of a run it evicted: the row is the run. */
interface EvictedRun {
  agentRunId: string;
  /** The fence the row was left at by this Gateway's last write: an abort or its turn's end deletes the row only at it. */
  fence: number;
  /** Its TTL deadline (ms since the epoch), as the row has it: a wait on it once the sweep deleted its row says it expired. */
  expiresAt: number;
}

/** One run's queue of row writes: applied one at a time, the latest wanted one next (an end is never replaced). */
interface RunQueue {
  next?: Op;
  done: Promise<void>;
}

export class DurableRuns {
  readonly store: DurableRunStore;
  readonly tokens: TokenStore;
  /** Leases this Gateway holds on runs it is resuming (the fence every write of the row names). */
  private readonly leases = new Map<string, DurableLease>();
  /** The fence each run's row had when this Gateway last wrote it: a claim that gets any other than the next one means another Gateway resumed the run since. */
  private readonly fences = new Map<string, number>();
  /** Runs whose copy here is being dropped (handOff): their last events must not touch the row. */
  private readonly handedOff = new Set<string>();
  /** Runs this Gateway is claiming for a wait here (resumeHeld): a notice's check must not take the raised fence for another Gateway's. */
  private readonly claiming = new Set<string>();
  /**
   * Runs being restored here under this Gateway's lease (restoreClaimed): the events the restore announces are not
   * written, since the row already holds that state and the wait resumes the run next. Written, they would park the row
   * again and claim it back, and a claim from another Gateway between the two would resume the run a second time.
   */
  private readonly restoring = new Set<string>();
  /** Runs whose copy was dropped here (oldest first, bounded): a wait here on one whose row is gone says it ended elsewhere. */
  private readonly dropped = new Set<string>();
  private readonly queues = new Map<string, RunQueue>();
  private readonly tokenWrites = new Set<Promise<void>>();
  /** Quiescent parked copies held here whose row is written, least recently parked first: past parkedInMemory the first are evicted. */
  private readonly resident = new Set<string>();
  /** Runs evicted here (their row is the run), by run id. */
  private readonly evicted = new Map<string, EvictedRun>();
  /** Evicted runs whose row the sweep deleted (oldest first, bounded): a wait here on one says it expired. */
  private readonly expired = new Set<string>();
  private readonly maxParked: number;
  private readonly parkedInMemory: number;
  /** Runs a cap kept from parking, with why, until the exec or wait that parked them answers (settled). */
  private readonly refused = new Map<string, string>();
  private readonly unsubscribe: () => void;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly renewTimer: NodeJS.Timeout;
  private closing = false;

  constructor(private readonly deps: DurableRunsDeps) {
    this.store = new DurableRunStore(deps.db, { ready: deps.ready });
    this.tokens = new TokenStore(deps.db, { ready: deps.ready });
    this.maxParked = deps.config.runs?.maxParked ?? DEFAULT_MAX_PARKED;
    this.parkedInMemory = deps.config.runs?.parkedInMemory ?? DEFAULT_PARKED_IN_MEMORY;
    this.unsubscribe = deps.events.subscribe((event) => this.onEvent(event));
    this.sweepTimer = setInterval(() => void this.sweep(), DURABLE_SWEEP_MS);
    this.sweepTimer.unref();
    // a leg may run longer than a lease (timeoutMs up to a minute): every held lease is renewed well before it lapses
    this.renewTimer = setInterval(() => void this.renewLeases(), DEFAULT_DURABLE_LEASE_MS / 3);
    this.renewTimer.unref();
  }

  // ---- tokens ----------------------------------------------------------------------------------------

  /**
   * A turn was prepared: its turn token's and its session token's digests are kept, so they open its runs and its
   * session after a restart. A session that already has a stored token (an earlier turn, a join with it after a
   * restart) keeps it, open for as long again: a session in use does not lose its token to the first turn's expiry.
   */
  turnPrepared(info: TurnInfo, owner: Owner): void {
    const expiresAt = Date.now() + TURN_IDLE_MS;
    const write = (async () => {
      await this.tokens.save(info.turnToken, { kind: 'turn', agentRunId: info.agentRunId, sessionId: info.sessionId, ownerId: owner.id, agentId: info.agentId, expiresAt });
      if (info.sessionToken === '') return;
      const saved = await this.tokens.save(info.sessionToken, { kind: 'session', sessionId: info.sessionId, ownerId: owner.id, expiresAt });
      if (saved === 'taken') await this.tokens.extend('session', info.sessionId, expiresAt);
    })().catch((err: unknown) => this.warn(`the tokens of turn ${info.agentRunId} were not kept (its runs cannot be waited on after a restart): ${messageOf(err)}`));
    this.tokenWrites.add(write);
    void write.finally(() => this.tokenWrites.delete(write));
  }

  /** A turn ended (not by the Gateway closing): its token opens nothing any more. */
  turnEnded(agentRunId: string, reason: 'ended' | 'idle' | 'shutdown'): void {
    if (reason === 'shutdown' || this.closing) return;
    // its runs held here were aborted (their rows go with them); the ones evicted here end too
    for (const [runId, entry] of [...this.evicted]) if (entry.agentRunId === agentRunId) this.discardEvicted(runId, 'its turn ended');
    void this.tokens.forget('turn', agentRunId).catch((err: unknown) => this.warn(`the token of ended turn ${agentRunId} was not forgotten: ${messageOf(err)}`));
  }

  /**
   * The turn `agentRunId`, opened again from its stored token for a caller that presents it, when this process does
   * not hold it and `runId` is a durable run of it (expired too: the wait then says so). The operator (the page) is
   * trusted and holds no turn token: for it the turn is opened from the stored grant by its digest, so the client
   * that holds the token still opens it afterwards. Undefined otherwise (the caller answers "unknown agent run").
   */
  async turnFor(agentRunId: string, turnToken: string | undefined, runId: unknown, caller: { operator?: boolean } = {}): Promise<Turn | undefined> {
    if (this.closing || typeof runId !== 'string' || runId === '') return undefined;
    const presented = turnToken !== undefined && turnToken !== '';
    if (!presented && caller.operator !== true) return undefined;
    try {
      let opened: { grant: TurnTokenGrant; key: { turnToken: string } | { digest: string } } | undefined;
      if (presented) {
        const grant = await this.tokens.open(turnToken);
        if (grant?.kind === 'turn' && grant.agentRunId === agentRunId) opened = { grant, key: { turnToken } };
      }
      if (!opened && caller.operator === true) {
        const stored = await this.tokens.turnGrant(agentRunId);
        if (stored) opened = { grant: stored.grant, key: { digest: stored.digest } };
      }
      if (!opened) return undefined;
      const row = await this.store.get(runId);
      if (!row?.ok || row.run.agentRunId !== agentRunId) return undefined;
      const { grant, key } = opened;
      const clientTools = await this.recordedClientTools(runId, row.run.sessionId, row.run.sealed);
      return this.deps.turns.adopt({ agentRunId, sessionId: grant.sessionId, agentId: grant.agentId, owner: ownerOf(grant.ownerId), key, clientTools });
    } catch (err) {
      this.warn(`turn ${agentRunId} could not be opened again from the session database: ${messageOf(err)}`);
      return undefined;
    }
  }

  /**
   * The client tools the run's sealed record names (turnFor: the turn is opened with them). A row that cannot be opened
   * or read gives none: the wait's restore then refuses it with the reason. Never rejects.
   */
  private async recordedClientTools(runId: string, sessionId: string, sealed: Uint8Array): Promise<ClientToolSpec[]> {
    try {
      const opened = openSealed(this.deps.key, { runId, sessionId }, await this.baseImageId(), sealed);
      return opened.ok ? (unframe(opened.plaintext).record.scope.clientTools ?? []) : [];
    } catch {
      return [];
    }
  }

  // ---- resuming a run this process does not hold -------------------------------------------------------

  /**
   * Before `wait(runId)` in `scope`: a run this process does not hold is looked for in the store, claimed, opened and
   * restored, and the usual wait goes on with it (undefined). A failed result when the row cannot be used (expired,
   * held by another Gateway, sealed with another key or on another base image, tampered with); undefined too when
   * there is no row (the wait gives its usual answer). A waiting run this process holds and wrote a row for is claimed
   * first (resumeHeld): the copy here goes on only while no other Gateway has resumed the run since.
   */
  async beforeWait(scope: TurnScope, runId: string): Promise<CodeModeResult | undefined> {
    if (this.closing || typeof runId !== 'string' || runId === '') return undefined;
    const view = this.deps.runs.get(runId);
    // a run that ended here (or whose copy was dropped) is looked for in the store like one never held
    const held = view && !isTerminal(view.state) ? view : undefined;
    // a run held here that is not waiting (the run manager refuses the wait), or that never got a row (its park write
    // failed: it is this process's alone), is the run manager's business
    if (held && (held.state !== 'waiting' || !this.fences.has(runId))) return undefined;
    await this.queues.get(runId)?.done;
    try {
      // the copy held when the wait came may have been evicted while its last write finished: its row is the run now
      return held && !this.evicted.has(runId) ? await this.resumeHeld(scope, runId) : await this.resumeFromStore(scope, runId);
    } catch (err) {
      return failed(scope, 'internal_error', `run ${runId} could not be read from the session database: ${messageOf(err)}`);
    }
  }

  private async resumeFromStore(scope: TurnScope, runId: string): Promise<CodeModeResult | undefined> {
    const claim = await this.store.claim(runId, this.deps.instanceId);
    const evicted = this.evicted.get(runId);
    if (claim.kind === 'missing') {
      this.evicted.delete(runId);
      // an evicted run's row the sweep deleted (or that expired before it did): it expired, as a held one would have
      if (this.expired.has(runId) || (evicted && evicted.expiresAt <= Date.now())) return expiredRun(scope, runId);
      return this.dropped.has(runId) || evicted ? endedElsewhere(scope, runId) : undefined;
    }
    if (claim.kind === 'expired') this.evicted.delete(runId);
    if (claim.kind !== 'claimed') return this.unclaimed(scope, runId, claim);
    return this.restoreClaimed(scope, runId, claim);
  }

  /**
   * A waiting run this process holds, before its wait: the row is claimed first. The claim raises the fence by one
   * from the one this Gateway left: then the copy here is the run, and the wait goes on with it under the lease. Any
   * other fence (another Gateway resumed it since), a row leased to another Gateway, or no row (it ended elsewhere):
   * the copy here is stale and is dropped, and the wait restores from the row or is refused naming why.
   */
  private async resumeHeld(scope: TurnScope, runId: string): Promise<CodeModeResult | undefined> {
    const expected = this.fences.get(runId);
    if (expected === undefined || this.deps.runs.get(runId)?.state !== 'waiting') return undefined;
    this.claiming.add(runId);
    let claim: ClaimResult;
    try {
      claim = await this.store.claim(runId, this.deps.instanceId);
      if (claim.kind === 'claimed' && claim.lease.fence === expected + 1) {
        this.leases.set(runId, claim.lease);
        this.fences.set(runId, claim.lease.fence);
        return undefined;
      }
    } finally {
      this.claiming.delete(runId);
    }
    switch (claim.kind) {
      case 'claimed':
        this.handOff(runId, `another Gateway resumed it since this one parked it (the row's fence is ${claim.lease.fence - 1}, this copy's ${expected})`);
        return this.restoreClaimed(scope, runId, claim);
      case 'leased':
        // a second wait here on the run this Gateway is resuming: the run manager refuses it as already resuming
        if (claim.holder === this.deps.instanceId) return undefined;
        this.handOff(runId, `Gateway ${claim.holder} is resuming it`);
        return this.unclaimed(scope, runId, claim);
      case 'missing':
        this.handOff(runId, 'its row is gone: it ended or expired on another Gateway');
        return endedElsewhere(scope, runId);
      case 'expired':
      case 'damaged':
        this.handOff(runId, claim.kind === 'expired' ? 'its row expired' : 'its row is damaged');
        return this.unclaimed(scope, runId, claim);
      case 'busy':
        return this.unclaimed(scope, runId, claim);
    }
  }

  /** The answer to a wait whose claim did not get the row (missing aside: the caller decides what no row means). */
  private async unclaimed(scope: TurnScope, runId: string, claim: Exclude<ClaimResult, { kind: 'claimed' | 'missing' }>): Promise<CodeModeResult> {
    switch (claim.kind) {
      case 'expired':
        return expiredRun(scope, runId);
      case 'busy':
      case 'leased':
        return failed(
          scope,
          'runtime_unavailable',
          claim.kind === 'leased'
            ? `run ${runId} is being resumed by Gateway ${claim.holder} (its lease runs until ${new Date(claim.leaseExpiresAt).toISOString()}); wait on it again later`
            : `run ${runId} is being claimed by another Gateway right now; wait on it again in a moment`,
        );
      case 'damaged':
        await this.store.discard(runId);
        return failed(scope, 'internal_error', `${claim.reason}; the row was removed`);
    }
  }

  /**
   * Another Gateway changed run `runId` (a run notice, gateway/run-notices.ts): a waiting copy held here is checked
   * against its row, and dropped now when the row moved on without it (resumed, or ended, elsewhere), rather than at
   * the next wait here. A copy this Gateway is writing or claiming is left alone. Never rejects.
   */
  async verifyHeld(runId: string): Promise<void> {
    const untouched = (expected: number) =>
      !this.closing &&
      this.fences.get(runId) === expected &&
      !this.leases.has(runId) &&
      !this.queues.has(runId) &&
      !this.claiming.has(runId) &&
      this.deps.runs.get(runId)?.state === 'waiting';
    const expected = this.fences.get(runId);
    if (expected === undefined || !untouched(expected)) return;
    try {
      const row = await this.store.get(runId);
      // what this Gateway did to the run meanwhile is newer than what was read
      if (!untouched(expected) || row?.ok === false) return;
      if (!row) this.handOff(runId, 'its row is gone: it ended or expired on another Gateway');
      else if (row.run.lease && row.run.lease.holder !== this.deps.instanceId) this.handOff(runId, `Gateway ${row.run.lease.holder} is resuming it`);
      else if (row.run.fence !== expected) this.handOff(runId, `another Gateway resumed it since this one parked it (fence ${row.run.fence}, this copy's ${expected})`);
    } catch (err) {
      this.warn(`run ${runId}'s copy here was not checked against its row: ${messageOf(err)}`);
    }
  }

  /** Drops this Gateway's copy of a run whose row moved on without it: aborted here, its events kept off the row. */
  private handOff(runId: string, why: string): void {
    this.fences.delete(runId);
    this.leases.delete(runId);
    this.rememberDropped(runId);
    this.handedOff.add(runId);
    try {
      this.deps.runs.abortRun(runId, `this Gateway's copy was dropped: ${why}`);
    } finally {
      this.handedOff.delete(runId);
    }
    this.deps.log(`[durable] run ${runId}: Gateway ${this.deps.instanceId} dropped its copy (${why})`);
  }

  /** A claimed row opened and its run restored here; the usual wait goes on with it (undefined), or why it cannot. */
  private async restoreClaimed(scope: TurnScope, runId: string, claim: Extract<ClaimResult, { kind: 'claimed' }>): Promise<CodeModeResult | undefined> {
    const { run: row, lease } = claim;
    const evicted = this.evicted.get(runId);
    if (row.agentRunId !== scope.agentRunId || row.sessionId !== scope.sessionId) {
      await this.store.release(lease);
      return failed(scope, 'invalid_input', `run ${runId} belongs to another agent run; wait on it from the turn that started it`);
    }
    const opened = openSealed(this.deps.key, { runId, sessionId: row.sessionId }, await this.baseImageId(), row.sealed);
    if (!opened.ok) {
      // another key or base image: another Gateway (or this one, restarted right) can still resume it; anything else never can
      if (opened.failure === 'key' || opened.failure === 'base_image' || opened.failure === 'format') await this.store.release(lease);
      else await this.store.settle(lease);
      return failed(scope, 'runtime_unavailable', `${opened.message}${opened.failure === 'key' || opened.failure === 'base_image' || opened.failure === 'format' ? '' : '; its row was removed'}`);
    }
    let record: RunRecord;
    let snapshot: Uint8Array;
    try {
      ({ record, snapshot } = unframe(opened.plaintext));
      if (record.runId !== runId || record.state !== 'waiting') throw new RunRecordError(`run record: it is run ${record.runId} in state ${record.state}, not waiting run ${runId}`);
    } catch (err) {
      await this.store.settle(lease);
      return failed(scope, 'internal_error', `the stored record of run ${runId} cannot be read (${messageOf(err)}); its row was removed`);
    }
    if (snapshot.byteLength > scope.options.maxSnapshotBytes) {
      await this.store.settle(lease);
      return failed(
        scope,
        'snapshot_limit_exceeded',
        `the stored snapshot of run ${runId} is ${snapshot.byteLength} bytes, over this Gateway's maxSnapshotBytes (${scope.options.maxSnapshotBytes}); its row was removed`,
      );
    }
    try {
      this.leases.set(runId, lease);
      this.fences.set(runId, lease.fence);
      this.dropped.delete(runId);
      // restored here: its events are the row's business again
      this.evicted.delete(runId);
      const executor = await this.deps.executors.get(record.cell.executor);
      let recovered: { redispatched: number; unknown: number };
      this.restoring.add(runId);
      try {
        recovered = this.deps.runs.restore(record, snapshot, scope, executor);
      } finally {
        this.restoring.delete(runId);
      }
      this.deps.log(`[durable] run ${runId} restored from the session database by Gateway ${this.deps.instanceId} (${recovered.redispatched} call(s) sent again, ${recovered.unknown} settled as unknown_outcome)`);
      return undefined;
    } catch (err) {
      this.leases.delete(runId);
      this.fences.delete(runId);
      const full = err instanceof Error && 'code' in err && err.code === 'runtime_unavailable';
      // still parked in its row (at the fence the claim raised): an abort or its turn's end here deletes it there
      if (full && evicted) this.evicted.set(runId, { ...evicted, fence: lease.fence });
      if (full) await this.store.release(lease);
      else await this.store.settle(lease);
      return failed(scope, full ? 'runtime_unavailable' : 'internal_error', `run ${runId} could not be restored: ${messageOf(err)}${full ? '' : '; its row was removed'}`);
    }
  }

  // ---- evicted runs: the row is the run ------------------------------------------------------------

  /** How many runs this Gateway evicted whose rows it still expects to be parked (diagnostics). */
  get evictedCount(): number {
    return this.evicted.size;
  }

  /** The turns of the runs evicted here, by run id: they still wait, so their turns do not idle out (turns.ts). */
  evictedRuns(): ReadonlyMap<string, string> {
    return new Map([...this.evicted].map(([runId, entry]) => [runId, entry.agentRunId]));
  }

  /**
   * Aborts run `runId` when it was evicted here: its row is deleted at the fence this Gateway left (a row another
   * Gateway resumed since is left to it, and the log names the holder). False when it is no run evicted here.
   */
  abortEvicted(runId: string): boolean {
    if (!this.evicted.has(runId)) return false;
    this.discardEvicted(runId, 'aborted');
    return true;
  }

  /**
   * A durable run no Gateway holds live, aborted from its row (the page's Abort on a stored row): the row is claimed,
   * so no Gateway resumes it meanwhile, and deleted. A Gateway that still holds a waiting copy finds the row gone at
   * its next wait (or on a notice) and drops the copy. Undefined when there is no row; a refusal names why. Never rejects.
   */
  async abortStored(runId: string): Promise<{ aborted: true; sessionId?: string } | { aborted: false; why: string } | undefined> {
    if (this.closing) return { aborted: false, why: 'this Gateway is shutting down; abort it on another one' };
    // one this Gateway evicted is aborted as its own (abortEvicted), at the fence it left
    if (this.evicted.has(runId)) return { aborted: false, why: `run ${runId} was parked by this Gateway: abort it as its own run` };
    const held = this.deps.runs.get(runId);
    if (held && !isTerminal(held.state)) return { aborted: false, why: `run ${runId} is held by this Gateway: abort it as a live run` };
    try {
      const claim = await this.store.claim(runId, this.deps.instanceId);
      switch (claim.kind) {
        case 'missing':
          return undefined;
        case 'claimed':
          await this.store.settle(claim.lease);
          this.rememberDropped(runId);
          this.deps.log(`[durable] run ${runId} aborted from its row by Gateway ${this.deps.instanceId}; its row was deleted`);
          return { aborted: true, sessionId: claim.run.sessionId };
        case 'expired':
          this.rememberExpired(runId);
          return { aborted: true, sessionId: claim.run.sessionId };
        case 'damaged':
          await this.store.discard(runId);
          return { aborted: true };
        case 'leased':
          return { aborted: false, why: `Gateway ${claim.holder} is resuming run ${runId} right now; abort it there, or here once it parks again` };
        case 'busy':
          return { aborted: false, why: `another Gateway is claiming run ${runId} right now; try again in a moment` };
      }
    } catch (err) {
      return { aborted: false, why: `the row of run ${runId} could not be read from the session database: ${messageOf(err)}` };
    }
  }

  /** The evicted run ends here: its entry goes now, its row once deleted (the board hears of it as aborted). */
  private discardEvicted(runId: string, why: string): void {
    const entry = this.evicted.get(runId);
    if (!entry) return;
    // a wait on it from now on gets the answer of a run that ended here (unavailable), as a held one would
    this.evicted.delete(runId);
    const discard = (async () => {
      // deleted as a held run's row is, without a line of its own (a turn's end may take thousands)
      if (await this.store.discardParked(runId, entry.fence)) return;
      const row = await this.store.get(runId);
      if (row?.ok && row.run.lease) this.warn(`run ${runId} was not ended (${why}): Gateway ${row.run.lease.holder} is resuming it; abort it there`);
      else if (row?.ok) this.warn(`run ${runId} was not ended (${why}): another Gateway resumed it since this one evicted it (fence ${row.run.fence}, left at ${entry.fence})`);
    })().catch((err: unknown) => this.warn(`the row of evicted run ${runId} was not deleted (${why}): ${messageOf(err)}`));
    this.tokenWrites.add(discard);
    void discard.finally(() => this.tokenWrites.delete(discard));
  }

  /** A run whose copy here went (handed off, or aborted from its row): a wait here on it says it ended elsewhere. */
  private rememberDropped(runId: string): void {
    this.dropped.add(runId);
    trimOldest(this.dropped, MAX_DROPPED_RUNS_KEPT);
  }

  private rememberExpired(runId: string): void {
    this.expired.add(runId);
    trimOldest(this.expired, MAX_DROPPED_RUNS_KEPT);
  }

  /** Run `runId`'s row was just written: if nothing of it lives only here, it is the most recently parked quiescent copy. */
  private written(runId: string): void {
    if (!this.deps.runs.quiescent(runId)) return;
    this.resident.delete(runId);
    this.resident.add(runId);
  }

  /** Past parkedInMemory quiescent copies, the least recently parked are evicted (each checked again first). */
  private trimResident(): void {
    while (!this.closing && this.resident.size > this.parkedInMemory) {
      const runId = this.resident.values().next().value as string;
      this.resident.delete(runId);
      this.evict(runId);
    }
  }

  /** Lets a quiescent copy go (RunManager.evict) when its row holds all of it: written at a fence known here, untouched since. */
  private evict(runId: string): void {
    const fence = this.fences.get(runId);
    const view = this.deps.runs.get(runId);
    if (fence === undefined || view?.state !== 'waiting' || view.expiresAt === undefined) return;
    if (this.leases.has(runId) || this.queues.has(runId) || this.claiming.has(runId) || this.handedOff.has(runId)) return;
    if (!this.deps.runs.evict(runId)) return;
    this.fences.delete(runId);
    this.evicted.set(runId, { agentRunId: view.agentRunId, fence, expiresAt: view.expiresAt });
    // a page watching sees it move from memory to the store (as storedRuns() lists it from now on)
    const last = view.snapshots[view.snapshots.length - 1];
    const durableRow = {
      parkedAt: last?.at ?? view.updatedAt,
      parkedBy: this.deps.instanceId,
      state: 'parked' as const,
      snapshotRawBytes: last?.rawBytes ?? 0,
      snapshotStoredBytes: last?.storedBytes ?? 0,
      evictedHere: true as const,
    };
    this.deps.events.emit({ type: 'run.updated', runId, at: Date.now(), view: { ...view, snapshotIn: 'store', durableRow } });
  }

  // ---- the row follows the run ---------------------------------------------------------------------

  /**
   * Resolves once every row write queued for `runId` (and every token write) is applied: an answer that names the run
   * may go out. With why the run was refused when a suspended-run cap kept it from parking (it was aborted): the
   * caller answers that instead.
   */
  async settled(runId: string): Promise<string | undefined> {
    await Promise.all([...this.tokenWrites]);
    await this.queues.get(runId)?.done;
    const refused = this.refused.get(runId);
    this.refused.delete(runId);
    return refused;
  }

  /** The rows as the store lists them (diagnostics, the board). */
  list(): Promise<DurableRunMetaRead[]> {
    return this.store.list();
  }

  /**
   * The board's views of the durable runs this process does not hold (parked before a restart, or by another Gateway),
   * from their rows' metadata and their turns' token grants only: a list never opens a sealed row, so a view has no
   * source, calls or pending calls. Expired and damaged rows are left out (the sweep removes them). Never rejects.
   */
  async storedRuns(): Promise<RunView[]> {
    if (this.closing) return [];
    try {
      const now = Date.now();
      const rows = (await this.store.list()).flatMap((read) => (read.ok && read.run.expiresAt > now && !this.deps.runs.get(read.run.runId) ? [read.run] : []));
      const agents = new Map<string, string | undefined>();
      for (const row of rows) if (!agents.has(row.agentRunId)) agents.set(row.agentRunId, (await this.tokens.turnGrant(row.agentRunId))?.grant.agentId);
      return rows.map((row) => {
        const view = storedRunView(row, agents.get(row.agentRunId), this.deps.config.tools.codeMode.maxSnapshotBytes);
        return this.evicted.has(row.runId) && view.durableRow ? { ...view, durableRow: { ...view.durableRow, evictedHere: true as const } } : view;
      });
    } catch (err) {
      this.warn(`the durable runs could not be listed: ${messageOf(err)}`);
      return [];
    }
  }

  /** Expired rows and tokens removed; what went is logged. Never rejects. */
  async sweep(): Promise<number> {
    try {
      const expired = await this.store.deleteExpired();
      await this.tokens.deleteExpired();
      for (const run of expired) {
        this.deps.log(`[durable] run ${run.runId} expired while parked; its row was deleted`);
        if (this.evicted.delete(run.runId)) this.rememberExpired(run.runId);
      }
      return expired.length;
    } catch (err) {
      this.warn(`the sweep of expired durable runs failed: ${messageOf(err)}`);
      return 0;
    }
  }

  /** Renews every lease this Gateway holds (a run it is resuming); a lease taken over is dropped (its writes would be refused). */
  private async renewLeases(): Promise<void> {
    for (const [runId, lease] of [...this.leases]) {
      try {
        const renewed = await this.store.renew(lease);
        if (renewed.kind === 'stale' && this.leases.get(runId) === lease) {
          this.leases.delete(runId);
          this.warn(renewed.reason);
        }
      } catch (err) {
        this.warn(`the lease of run ${runId} was not renewed: ${messageOf(err)}`);
      }
    }
  }

  /** The Gateway is closing: no more writes are queued (the runs it aborts keep their rows), and the queued ones finish. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweepTimer);
    clearInterval(this.renewTimer);
    this.unsubscribe();
    await Promise.all([...this.queues.values()].map((q) => q.done));
    await Promise.all([...this.tokenWrites]);
  }

  private onEvent(event: RunEvent): void {
    if (this.closing || (event.type !== 'run.started' && event.type !== 'run.updated') || this.handedOff.has(event.runId) || this.evicted.has(event.runId) || this.restoring.has(event.runId)) return;
    const view = event.view;
    if (view.executor !== 'quickjs') return;
    // changed since its row was last written: a quiescent copy again only once the write this queues lands
    this.resident.delete(event.runId);
    if (view.state === 'waiting') this.queue(event.runId, 'write');
    else if (view.state === 'running') this.queue(event.runId, 'claim');
    else if (isTerminal(view.state)) this.queue(event.runId, 'end');
  }

  private queue(runId: string, op: Op): void {
    const existing = this.queues.get(runId);
    if (existing) {
      if (existing.next !== 'end') existing.next = op;
      return;
    }
    const q: RunQueue = { next: op, done: Promise.resolve() };
    this.queues.set(runId, q);
    q.done = (async () => {
      // a microtask first: the changes of one synchronous step come as one write
      await Promise.resolve();
      while (q.next) {
        const next = q.next;
        q.next = undefined;
        try {
          await this.apply(runId, next);
        } catch (err) {
          this.warn(`the durable row of run ${runId} was not updated (${next}): ${messageOf(err)}`);
        }
        if (next === 'end') break;
      }
      this.queues.delete(runId);
      this.trimResident();
    })();
  }

  private async apply(runId: string, op: Op): Promise<void> {
    if (op === 'end') {
      const lease = this.leases.get(runId);
      const fence = this.fences.get(runId);
      this.leases.delete(runId);
      this.fences.delete(runId);
      if (lease) await this.store.settle(lease);
      // the copy here ended unresumed: its row goes only if no other Gateway resumed the run since
      else if (fence !== undefined) await this.store.discardParked(runId, fence);
      else await this.store.discard(runId);
      return;
    }
    if (op === 'claim') {
      const held = this.leases.get(runId);
      if (held) {
        await this.store.renew(held);
        return;
      }
      const claim = await this.store.claim(runId, this.deps.instanceId);
      if (claim.kind !== 'claimed') return;
      const expected = this.fences.get(runId);
      if (expected !== undefined && claim.lease.fence !== expected + 1) this.warn(`run ${runId} was resumed here from a copy another Gateway had resumed since (fence ${claim.lease.fence})`);
      this.leases.set(runId, claim.lease);
      this.fences.set(runId, claim.lease.fence);
      return;
    }
    await this.write(runId);
  }

  /** The run's record and snapshot sealed into its row: parked anew, or parked again under the lease this Gateway holds. */
  private async write(runId: string): Promise<void> {
    const written = this.deps.runs.record(runId);
    const record = written?.record;
    const snapshot = written?.snapshot;
    if (!record || record.state !== 'waiting' || !snapshot) return;
    const baseImageId = await this.baseImageId();
    const { sessionId, agentRunId, ownerId } = record.scope;
    const sealed = seal(this.deps.key, { runId, sessionId }, baseImageId, frame(record, snapshot));
    const expiresAt = Math.max(0, Math.floor(record.expiresAt ?? Date.now()));
    const c = record.continuation;
    const sizes = { snapshotRawBytes: c?.executor === 'quickjs' ? (c.rawBytes ?? snapshot.byteLength) : snapshot.byteLength, snapshotStoredBytes: snapshot.byteLength };
    let lease = this.leases.get(runId);
    if (!lease) {
      const parked = await this.store.park(
        { runId, sessionId, agentRunId, ownerId, baseImageId, sealed, ...sizes, expiresAt, parkedBy: this.deps.instanceId },
        { maxRuns: this.maxParked, maxPerTurn: MAX_SLOTS_PER_TURN, ...ownerCap(this.deps.turns.owner(agentRunId)) },
      );
      if (parked.kind === 'full') {
        // the caps count every Gateway on the database and the rows of earlier processes: a run over them does not wait
        const message = capMessage(parked.cap, parked.held, parked.limit);
        this.refused.set(runId, message);
        this.deps.runs.abortRun(runId, message);
        return;
      }
      if (parked.kind === 'parked') {
        this.fences.set(runId, parked.fence);
        await this.extendTokens(agentRunId, sessionId, expiresAt);
        return this.written(runId);
      }
      // a row from an earlier write of this run: claimed to be written again
      const claim = await this.store.claim(runId, this.deps.instanceId);
      if (claim.kind !== 'claimed') {
        this.warn(`run ${runId}'s durable row could not be rewritten (${claim.kind})`);
        return;
      }
      const expected = this.fences.get(runId);
      if (expected !== undefined && claim.lease.fence !== expected + 1) {
        // another Gateway resumed the run since this one wrote it: the row is newer than the copy here
        await this.store.release(claim.lease);
        this.handOff(runId, `another Gateway resumed it since this one parked it (fence ${claim.lease.fence - 1}, this copy's ${expected})`);
        return;
      }
      lease = claim.lease;
    }
    this.leases.delete(runId);
    const result = await this.store.repark(lease, { sealed, ...sizes, expiresAt, baseImageId });
    if (result.kind === 'stale') this.warn(result.reason);
    else {
      this.fences.set(runId, lease.fence);
      await this.extendTokens(agentRunId, sessionId, expiresAt);
      this.written(runId);
    }
  }

  /** The turn's and session's tokens open the run as long as it may be waited on. */
  private async extendTokens(agentRunId: string, sessionId: string, expiresAt: number): Promise<void> {
    await this.tokens.extend('turn', agentRunId, expiresAt);
    await this.tokens.extend('session', sessionId, expiresAt);
  }

  private async baseImageId(): Promise<string> {
    const executor = (await this.deps.executors.get('quickjs')) as { baseImageId?: unknown };
    if (typeof executor.baseImageId !== 'string') throw new Error('the QuickJS executor does not name its base image, so its snapshots cannot be kept');
    return executor.baseImageId;
  }

  private warn(message: string): void {
    this.deps.log(`[durable] ${message}`);
  }
}

/** A row's metadata as a waiting run on the board (durableRow set; what is sealed stays empty: no source, no calls). */
export function storedRunView(row: DurableRunMeta, agentId: string | undefined, maxSnapshotBytes: number): RunView {
  return {
    runId: row.runId,
    agentRunId: row.agentRunId,
    sessionId: row.sessionId,
    agentId: agentId ?? '(agent not known: its turn token expired)',
    executor: 'quickjs',
    state: 'waiting',
    // sealed with the snapshot: not read for a list (the fields are required of a view; the board shows none of them for a row)
    language: 'javascript',
    code: '',
    seed: 0,
    clock: 'real',
    createdAt: row.parkedAt,
    updatedAt: row.parkedAt,
    expiresAt: row.expiresAt,
    maxSnapshotBytes,
    pendingToolCalls: [],
    clientCalls: [],
    snapshots: [],
    snapshotIn: 'store',
    durableRow: {
      parkedAt: row.parkedAt,
      parkedBy: row.parkedBy,
      state: row.state,
      snapshotRawBytes: row.snapshotRawBytes,
      snapshotStoredBytes: row.snapshotStoredBytes,
      ...(row.lease ? { lease: { ...row.lease } } : {}),
    },
    calls: [],
    nested: [],
  };
}

/** The sealed plaintext: the record's JSON length (4 bytes, big-endian), its JSON, then the snapshot bytes it names. */
function frame(record: RunRecord, snapshot: Uint8Array): Uint8Array {
  const json = Buffer.from(JSON.stringify(record), 'utf8');
  const prefix = Buffer.alloc(FRAME_PREFIX_BYTES);
  prefix.writeUInt32BE(json.length, 0);
  return Buffer.concat([prefix, json, snapshot]);
}

/** A sealed plaintext back as a checked record and its snapshot; RunRecordError when it is not one. */
function unframe(plaintext: Uint8Array): { record: RunRecord; snapshot: Uint8Array } {
  const bytes = Buffer.from(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength);
  if (bytes.length < FRAME_PREFIX_BYTES) throw new RunRecordError('run record: the stored plaintext is too short to hold one');
  const length = bytes.readUInt32BE(0);
  if (length > bytes.length - FRAME_PREFIX_BYTES) throw new RunRecordError(`run record: its length (${length}) runs past the stored plaintext`);
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.subarray(FRAME_PREFIX_BYTES, FRAME_PREFIX_BYTES + length).toString('utf8'));
  } catch {
    throw new RunRecordError('run record: it is not JSON');
  }
  return { record: parseRunRecord(raw), snapshot: new Uint8Array(bytes.subarray(FRAME_PREFIX_BYTES + length)) };
}

/**
 * The owner a turn from an earlier process is opened for: the in-process caller as it is, any other by its id with no
 * share of its own (the shares of an owner come from the API edge's directory, which a restored turn is not asked through).
 */
function ownerOf(ownerId: string): Owner {
  if (ownerId === LOCAL_OWNER.id) return LOCAL_OWNER;
  const kind = ownerId === 'operator' ? 'operator' : ownerId === 'anonymous' ? 'anonymous' : 'client';
  return Object.freeze({ id: ownerId, kind, label: `owner ${ownerId} (a turn from before a restart)`, shares: LOCAL_OWNER.shares });
}

/** Why a run may not wait: the spec's message, then which cap of the session database is full and what to do. */
function capMessage(cap: DurableCap, held: number, limit: number): string {
  const whose = cap === 'runs' ? 'parked runs' : cap === 'turn' ? "this turn's parked runs" : "this turn's owner's parked runs";
  // only the store-wide cap is a config field; a turn's share (16) and an owner's share are spec 01's and server.shares'
  const raise = cap === 'runs' ? ` (runs.maxParked in the config raises it, up to ${MAX_MAX_PARKED})` : '';
  return (
    `${MSG_TOO_MANY} The session database holds ${held} of ${whose}, the limit of ${limit} across every Gateway on it and across restarts${raise}; ` +
    'wait on or abort one of them, then run this cell again'
  );
}

/** The owner's share of suspended runs, counted across Gateways and restarts (an unbounded share is not checked). */
function ownerCap(owner: Owner | undefined): { maxPerOwner?: number } {
  const share = owner?.shares.suspendedRuns;
  return share !== undefined && Number.isFinite(share) ? { maxPerOwner: share } : {};
}

/** A wait on a run whose TTL passed while it was parked (its row deleted by the claim, or the sweep). */
function expiredRun(scope: TurnScope, runId: string): CodeModeResult {
  return failed(scope, 'timeout', `run ${runId} expired: it waited past its snapshot TTL (snapshotTtlSeconds) and its durable row was deleted; run the cell again`);
}

/** A wait here on a run whose copy this Gateway dropped, and whose row is gone: it ended on the Gateway that resumed it. */
function endedElsewhere(scope: TurnScope, runId: string): CodeModeResult {
  return failed(
    scope,
    'invalid_input',
    `${MSG_UNAVAILABLE} Run ${runId} was resumed on another Gateway and has ended there (its durable row is gone); its result went to the wait that ended it.`,
  );
}

function failed(scope: TurnScope, code: CodeModeErrorCode, error: string): CodeModeResult {
  return {
    status: 'failed',
    error,
    code,
    telemetry: { executor: scope.options.executor, durationMs: 0, budgetUsedMs: 0, counters: { search: 0, describe: 0, call: 0 }, nestedCalls: 0, outputBytes: 0 },
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
