// The durable-run rows and stored tokens, part of the session-store conformance suite (conformance.testing.ts runs it on each backend).
//
// Parking with the suspended-run caps (across reopening and across two connections at once), leases with
// fencing tokens (a stale fence refused, a lapsed lease taken over), two connections racing to claim one
// run, expiry and the sweep, damaged rows read back, and turn and session tokens stored as digests.
import { afterEach, describe, expect, it } from 'vitest';
import { TokenStore, type TokenGrant } from '../access/token-store.ts';
import { newToken } from '../access/tokens.ts';
import { InvalidInputError } from '../errors.ts';
import type { SessionBackendHarness, TestDatabasePlace } from './conformance.testing.ts';
import { DurableRunStore, type ClaimResult, type DurableLease, type ParkRequest } from './durable-runs.ts';

const START = 1_800_000_000_000;
const TTL_MS = 900_000;
const LEASE_MS = 30_000;
const GW_A = 'gw_AAAAAAAAAAAAAAAA';
const GW_B = 'gw_BBBBBBBBBBBBBBBB';

/** Bytes of every value, so a blob that comes back changed (text-mangled, truncated) is caught. */
function blob(seed: number, length = 512): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff);
}

function parkRequest(runId: string, over: Partial<ParkRequest> = {}): ParkRequest {
  return {
    runId,
    sessionId: 's1',
    agentRunId: 'ar1',
    ownerId: 'client:ci',
    baseImageId: 'quickjs-wasi@3.7.0+0123456789abcdef01234567',
    sealed: blob(runId.length),
    snapshotRawBytes: 1_638_400,
    snapshotStoredBytes: 24_000,
    expiresAt: START + TTL_MS,
    parkedBy: GW_A,
    ...over,
  };
}

function claimed(result: ClaimResult): DurableLease {
  if (result.kind !== 'claimed') throw new Error(`expected the claim to succeed, got ${JSON.stringify(result)}`);
  return result.lease;
}

export function durableConformance(harness: SessionBackendHarness): void {
  describe('durable runs and stored tokens', () => {
    const places: TestDatabasePlace[] = [];
    const closers: Array<() => Promise<void>> = [];
    /** The clock every store of a test reads: tests move it instead of waiting. */
    let clock = START;
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
      for (const place of places.splice(0)) await place.remove();
      clock = START;
    });

    async function place(): Promise<TestDatabasePlace> {
      const p = await harness.fresh();
      places.push(p);
      return p;
    }
    /** A store on a new connection to `at` (a Gateway's), closed after the test. */
    function runs(at: TestDatabasePlace): DurableRunStore {
      const db = at.open();
      closers.push(() => db.close());
      return new DurableRunStore(db, { now: () => clock });
    }
    function tokens(at: TestDatabasePlace): TokenStore {
      const db = at.open();
      closers.push(() => db.close());
      return new TokenStore(db, { now: () => clock });
    }

    describe('parking', () => {
      it('park then get: every field and the blob read back as written; after reopening (a restart) the row and the counts are there', async () => {
        const at = await place();
        const first = runs(at);
        const req = parkRequest('run_1');
        expect(await first.park(req)).toEqual({ kind: 'parked', fence: 0 });
        const read = await first.get('run_1');
        expect(read).toEqual({
          ok: true,
          run: {
            runId: 'run_1',
            sessionId: 's1',
            agentRunId: 'ar1',
            ownerId: 'client:ci',
            baseImageId: req.baseImageId,
            sealedBytes: req.sealed.byteLength,
            snapshotRawBytes: 1_638_400,
            snapshotStoredBytes: 24_000,
            parkedAt: START,
            parkedBy: GW_A,
            expiresAt: START + TTL_MS,
            state: 'parked',
            fence: 0,
            sealed: expect.any(Uint8Array),
          },
        });
        if (!read?.ok) throw new Error('unreachable');
        expect(Buffer.from(read.run.sealed).equals(Buffer.from(req.sealed))).toBe(true);
        await first.db.close();
        const again = runs(at);
        expect((await again.get('run_1'))?.ok).toBe(true);
        expect(await again.counts({ agentRunId: 'ar1', ownerId: 'client:ci' })).toEqual({ runs: 1, turn: 1, owner: 1 });
        expect(await again.get('run_other')).toBeUndefined();
      });

      it('park a run id that has a row: exists, and the row is as it was', async () => {
        const s = runs(await place());
        await s.park(parkRequest('run_1'));
        expect(await s.park(parkRequest('run_1', { sessionId: 'elsewhere', sealed: blob(99) }))).toEqual({ kind: 'exists' });
        const read = await s.get('run_1');
        expect(read?.ok && read.run.sessionId).toBe('s1');
      });

      it('the caps: the group, the turn and the owner are each refused naming the cap and its count; expired runs do not count, and a sweep removes them', async () => {
        const s = runs(await place());
        const caps = { maxRuns: 4, maxPerTurn: 2, maxPerOwner: 3 };
        expect((await s.park(parkRequest('t1', { agentRunId: 'turnA' }), caps)).kind).toBe('parked');
        expect((await s.park(parkRequest('t2', { agentRunId: 'turnA' }), caps)).kind).toBe('parked');
        expect(await s.park(parkRequest('t3', { agentRunId: 'turnA' }), caps)).toEqual({ kind: 'full', cap: 'turn', held: 2, limit: 2 });
        expect((await s.park(parkRequest('o3', { agentRunId: 'turnB' }), caps)).kind).toBe('parked');
        expect(await s.park(parkRequest('o4', { agentRunId: 'turnC' }), caps)).toEqual({ kind: 'full', cap: 'owner', held: 3, limit: 3 });
        expect((await s.park(parkRequest('x4', { agentRunId: 'turnD', ownerId: 'operator' }), caps)).kind).toBe('parked');
        expect(await s.park(parkRequest('x5', { agentRunId: 'turnE', ownerId: 'anonymous' }), caps)).toEqual({ kind: 'full', cap: 'runs', held: 4, limit: 4 });
        expect(await s.get('x5')).toBeUndefined();
        // one run's TTL passes: it no longer counts, before and after the sweep takes it
        await s.park(parkRequest('short', { agentRunId: 'turnS', ownerId: 'anonymous', expiresAt: START + 10 }));
        clock = START + 10;
        expect(await s.counts({ ownerId: 'anonymous' })).toEqual({ runs: 4, turn: 0, owner: 0 });
        expect((await s.park(parkRequest('x6', { agentRunId: 'turnE', ownerId: 'anonymous' }), { maxRuns: 5 })).kind).toBe('parked');
        expect(await s.deleteExpired()).toEqual([{ runId: 'short', sessionId: 's1', agentRunId: 'turnS', ownerId: 'anonymous' }]);
        expect((await s.counts()).runs).toBe(5);
      });

      it('two connections parking at once against one cap: never more than the cap is parked', async () => {
        const at = await place();
        const [a, b] = [runs(at), runs(at)];
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).park(parkRequest(`race_${i}`, { agentRunId: `turn${i}`, ownerId: `owner${i}` }), { maxRuns: 5 })),
        );
        expect(results.filter((r) => r.kind === 'parked')).toHaveLength(5);
        expect(results.filter((r) => r.kind === 'full')).toHaveLength(7);
        expect((await a.counts()).runs).toBe(5);
      });

      it('bad requests (a caller bug) are refused naming the field, and nothing is written', async () => {
        const s = runs(await place());
        await expect(s.park(parkRequest(''))).rejects.toThrow(InvalidInputError);
        await expect(s.park(parkRequest('run\0x'))).rejects.toThrow(/runId contains a NUL character/);
        await expect(s.park(parkRequest('r', { sessionId: 'x'.repeat(300) }))).rejects.toThrow(/sessionId is 300 characters/);
        await expect(s.park(parkRequest('r', { sealed: new Uint8Array(0) }))).rejects.toThrow(/sealed must be the non-empty sealed bytes/);
        await expect(s.park(parkRequest('r', { snapshotStoredBytes: -1 }))).rejects.toThrow(/snapshotStoredBytes must be a whole number/);
        await expect(s.claim('r', GW_A, 0)).rejects.toThrow(/leaseMs must be a whole number above 0/);
        expect((await s.counts()).runs).toBe(0);
      });
    });

    describe('leases and fencing', () => {
      it('claim: the first gets fence 1; while its lease runs a second claim hears who holds it; after it lapses another Gateway takes over with fence 2, and every write of the first is stale', async () => {
        const at = await place();
        const [a, b] = [runs(at), runs(at)];
        await a.park(parkRequest('run_1'));
        const first = await a.claim('run_1', GW_A, LEASE_MS);
        const leaseA = claimed(first);
        expect(leaseA).toEqual({ runId: 'run_1', holder: GW_A, fence: 1 });
        expect(first.kind === 'claimed' && first.run).toMatchObject({ state: 'resuming', lease: { holder: GW_A, expiresAt: START + LEASE_MS }, fence: 1 });
        expect(await b.claim('run_1', GW_B, LEASE_MS)).toEqual({ kind: 'leased', holder: GW_A, leaseExpiresAt: START + LEASE_MS });

        // Gateway A stops renewing (it died): once its lease lapses, B takes the run over
        clock = START + LEASE_MS;
        const leaseB = claimed(await b.claim('run_1', GW_B, LEASE_MS));
        expect(leaseB.fence).toBe(2);
        for (const write of [a.renew(leaseA), a.release(leaseA), a.settle(leaseA), a.repark(leaseA, { ...parkRequest('run_1'), sealed: blob(7) })]) {
          const result = await write;
          expect(result.kind).toBe('stale');
          if (result.kind === 'stale') expect(result.reason).toContain(`the run was claimed again (fence 2, by ${GW_B})`);
        }
        const read = await b.get('run_1');
        expect(read?.ok && read.run).toMatchObject({ state: 'resuming', fence: 2, lease: { holder: GW_B } });
        expect(await b.settle(leaseB)).toEqual({ kind: 'ok' });
        expect(await b.get('run_1')).toBeUndefined();
        expect(await a.claim('run_1', GW_A)).toEqual({ kind: 'missing' });
        const late = await a.settle(leaseA);
        expect(late.kind === 'stale' && late.reason).toContain('is no longer parked here');
      });

      it('repark under the lease: the new blob, sizes and deadline replace the old, the lease ends, and the next claim raises the fence', async () => {
        const s = runs(await place());
        await s.park(parkRequest('run_1'));
        const lease = claimed(await s.claim('run_1', GW_A));
        clock = START + 5_000;
        const update = { sealed: blob(42, 700), snapshotRawBytes: 2_000_000, snapshotStoredBytes: 30_000, expiresAt: START + 5_000 + TTL_MS, baseImageId: 'quickjs-wasi@3.7.0+fedcba9876543210fedcba98' };
        expect(await s.repark(lease, update)).toEqual({ kind: 'ok' });
        const read = await s.get('run_1');
        if (!read?.ok) throw new Error(`expected the row, got ${JSON.stringify(read)}`);
        expect(read.run).toMatchObject({ state: 'parked', fence: 1, sealedBytes: 700, snapshotRawBytes: 2_000_000, snapshotStoredBytes: 30_000, expiresAt: update.expiresAt, baseImageId: update.baseImageId, parkedAt: START + 5_000 });
        expect(read.run.lease).toBeUndefined();
        expect(Buffer.from(read.run.sealed).equals(Buffer.from(update.sealed))).toBe(true);
        // the lease ended with the repark: writing with it again is stale
        expect((await s.renew(lease)).kind).toBe('stale');
        expect(claimed(await s.claim('run_1', GW_B)).fence).toBe(2);
      });

      it('release: the run is parked again as it was and any Gateway may claim it; renew: a claim after the old expiry but before the new one is refused', async () => {
        const s = runs(await place());
        await s.park(parkRequest('run_1'));
        const lease = claimed(await s.claim('run_1', GW_A));
        expect(await s.release(lease)).toEqual({ kind: 'ok' });
        const read = await s.get('run_1');
        expect(read?.ok && read.run).toMatchObject({ state: 'parked', fence: 1 });
        const leaseB = claimed(await s.claim('run_1', GW_B));
        clock = START + LEASE_MS - 1;
        expect(await s.renew(leaseB, LEASE_MS)).toEqual({ kind: 'ok', leaseExpiresAt: START + 2 * LEASE_MS - 1 });
        clock = START + LEASE_MS + 1;
        expect(await s.claim('run_1', GW_A)).toEqual({ kind: 'leased', holder: GW_B, leaseExpiresAt: START + 2 * LEASE_MS - 1 });
      });

      it('two connections racing to claim one run, over and over: exactly one claim wins each run', async () => {
        const at = await place();
        const [a, b] = [runs(at), runs(at)];
        const ids = Array.from({ length: 8 }, (_, i) => `contested_${i}`);
        for (const id of ids) await a.park(parkRequest(id, { agentRunId: id }));
        const attempts = ids.flatMap((id) => [a.claim(id, GW_A), b.claim(id, GW_B), a.claim(id, GW_A), b.claim(id, GW_B)].map((p) => p.then((r) => ({ id, r }))));
        const results = await Promise.all(attempts);
        for (const id of ids) {
          const mine = results.filter((x) => x.id === id).map((x) => x.r);
          expect(mine.filter((r) => r.kind === 'claimed'), id).toHaveLength(1);
          // the losers heard that it is taken: leased (after the winner committed) or busy (while it held the row)
          expect(mine.filter((r) => r.kind === 'leased' || r.kind === 'busy'), id).toHaveLength(3);
          const read = await a.get(id);
          expect(read?.ok && read.run.fence, id).toBe(1);
        }
      });
    });

    describe('expiry', () => {
      it('a claim of a run whose TTL passed while parked: expired, and the row is gone', async () => {
        const s = runs(await place());
        await s.park(parkRequest('run_1', { expiresAt: START + 1_000 }));
        clock = START + 1_000;
        const result = await s.claim('run_1', GW_A);
        expect(result.kind).toBe('expired');
        expect(result.kind === 'expired' && result.run).toMatchObject({ runId: 'run_1', agentRunId: 'ar1', ownerId: 'client:ci' });
        expect(await s.get('run_1')).toBeUndefined();
      });

      it('deleteExpired: removes parked runs past their TTL and runs whose resumer died past it, keeps a run resuming within its lease, at most `limit` a sweep', async () => {
        const s = runs(await place());
        for (let i = 0; i < 5; i++) await s.park(parkRequest(`old_${i}`, { expiresAt: START + 100 + i }));
        await s.park(parkRequest('fresh'));
        await s.park(parkRequest('resuming', { expiresAt: START + 200 }));
        await s.park(parkRequest('dead_resumer', { expiresAt: START + 200 }));
        clock = START + 150;
        claimed(await s.claim('dead_resumer', GW_B, 10));
        claimed(await s.claim('resuming', GW_A, 10_000));
        clock = START + 1_000;
        const first = await s.deleteExpired(3);
        expect(first.map((r) => r.runId).sort()).toEqual(['old_0', 'old_1', 'old_2']);
        const rest = await s.deleteExpired();
        expect(rest.map((r) => r.runId).sort()).toEqual(['dead_resumer', 'old_3', 'old_4']);
        expect((await s.list()).map((r) => r.ok && r.run.runId).sort()).toEqual(['fresh', 'resuming']);
      });
    });

    describe('damaged rows (everything read back is hostile)', () => {
      it('a state of another build, a negative fence, a blob whose length is not its recorded size, a resuming row without a holder: get, claim and list say what is damaged; counts and other rows are unaffected; discard removes it', async () => {
        const s = runs(await place());
        const edits: Array<[string, string, string]> = [
          ['state', "UPDATE durable_runs SET state = 'hologram' WHERE run_id = ?", 'its state is "hologram"'],
          ['fence', 'UPDATE durable_runs SET fence = -3 WHERE run_id = ?', 'its fence is not a whole number of at least 0'],
          ['size', 'UPDATE durable_runs SET sealed_bytes = 3 WHERE run_id = ?', 'its sealed holds 512 bytes, but sealed_bytes says 3'],
          ['holder', "UPDATE durable_runs SET state = 'resuming', lease_holder = NULL, lease_expires_at = 5 WHERE run_id = ?", 'its lease_holder is missing on a run being resumed'],
          ['ids', "UPDATE durable_runs SET owner_id = '' WHERE run_id = ?", 'its owner_id is not a non-empty text'],
        ];
        await s.park(parkRequest('healthy'));
        for (const [name, sql, what] of edits) {
          const runId = `damaged_${name}`;
          await s.park(parkRequest(runId));
          await s.db.run(sql, [runId]);
          const expected = `the durable row of run "${runId}" is damaged: ${what}`;
          const read = await s.get(runId);
          expect(read?.ok).toBe(false);
          expect(read?.ok === false && read.reason).toContain(expected);
          const claim = await s.claim(runId, GW_A);
          expect(claim.kind === 'damaged' && claim.reason).toContain(expected);
        }
        const listed = await s.list();
        expect(listed.filter((r) => !r.ok)).toHaveLength(edits.length - 1); // the blob size is not a list's business
        expect(listed.find((r) => r.ok && r.run.runId === 'healthy')).toBeDefined();
        expect((await s.counts()).runs).toBe(edits.length + 1);
        expect(claimed(await s.claim('healthy', GW_A)).fence).toBe(1);
        expect(await s.discard('damaged_state')).toBe(true);
        expect(await s.get('damaged_state')).toBeUndefined();
      });
    });

    describe('turn and session tokens (stored hashed)', () => {
      const turnGrant = (over: Partial<Extract<TokenGrant, { kind: 'turn' }>> = {}): TokenGrant => ({
        kind: 'turn',
        agentRunId: 'ar1',
        sessionId: 's1',
        ownerId: 'client:ci',
        agentId: 'main',
        expiresAt: START + TTL_MS,
        ...over,
      });

      it('save and open: a turn and a session token open what they were saved with, after reopening too; the database holds only their digests', async () => {
        const at = await place();
        const first = tokens(at);
        const turnToken = newToken('tt');
        const sessionToken = newToken('st');
        expect(await first.save(turnToken, turnGrant())).toBe('saved');
        expect(await first.save(sessionToken, { kind: 'session', sessionId: 's1', ownerId: 'client:ci', expiresAt: START + TTL_MS })).toBe('saved');
        const rows = await first.db.all('SELECT * FROM access_tokens');
        expect(rows).toHaveLength(2);
        const stored = JSON.stringify(rows);
        expect(stored).not.toContain(turnToken);
        expect(stored).not.toContain(sessionToken);
        expect(stored).not.toContain(turnToken.slice(3, 20));
        await first.db.close();

        const again = tokens(at);
        expect(await again.open(turnToken)).toEqual(turnGrant());
        expect(await again.open(sessionToken)).toEqual({ kind: 'session', sessionId: 's1', ownerId: 'client:ci', expiresAt: START + TTL_MS });
        expect(await again.open(newToken('tt'))).toBeUndefined();
        expect(await again.open('')).toBeUndefined();
        expect(await again.open('x'.repeat(10_000))).toBeUndefined();
      });

      it('checkTurn and checkSession: held, wrong, missing, unknown; an expired token opens nothing until extended; forget and the sweep remove tokens', async () => {
        const s = tokens(await place());
        const turnToken = newToken('tt');
        const sessionToken = newToken('st');
        await s.save(turnToken, turnGrant({ expiresAt: START + 1_000 }));
        await s.save(sessionToken, { kind: 'session', sessionId: 's1', ownerId: 'client:ci', expiresAt: START + 1_000 });
        expect(await s.checkTurn('ar1', turnToken)).toBe('held');
        expect(await s.checkTurn('ar1', sessionToken)).toBe('wrong');
        expect(await s.checkTurn('ar1', undefined)).toBe('missing');
        expect(await s.checkTurn('ar_other', turnToken)).toBe('unknown');
        expect(await s.checkSession('s1', sessionToken)).toBe('held');
        expect(await s.checkSession('s1', turnToken)).toBe('wrong');
        expect(await s.checkSession('s2', sessionToken)).toBe('unknown');
        clock = START + 1_000;
        expect(await s.open(turnToken)).toBeUndefined();
        expect(await s.checkTurn('ar1', turnToken)).toBe('unknown');
        // a run parked past the turn's expiry keeps its token alive
        expect(await s.extend('turn', 'ar1', START + 5_000)).toBe(true);
        expect(await s.extend('turn', 'ar1', START + 2_000)).toBe(false);
        expect(await s.checkTurn('ar1', turnToken)).toBe('held');
        expect(await s.deleteExpired()).toBe(1);
        expect(await s.checkSession('s1', sessionToken)).toBe('unknown');
        expect(await s.forget('turn', 'ar1')).toBe(true);
        expect(await s.open(turnToken)).toBeUndefined();
      });

      it('two connections saving a token for one new session at once: exactly one is saved, the other is taken', async () => {
        const at = await place();
        const [a, b] = [tokens(at), tokens(at)];
        const minted = Array.from({ length: 6 }, () => newToken('st'));
        const results = await Promise.all(minted.map((token, i) => (i % 2 ? a : b).save(token, { kind: 'session', sessionId: 'contested', ownerId: `o${i}`, expiresAt: START + TTL_MS })));
        expect(results.filter((r) => r === 'saved')).toHaveLength(1);
        const winner = minted[results.indexOf('saved')] as string;
        expect(await a.checkSession('contested', winner)).toBe('held');
        expect(await b.checkSession('contested', minted.find((t) => t !== winner))).toBe('wrong');
        // one turn token per agent run too
        expect(await a.save(newToken('tt'), turnGrant())).toBe('saved');
        expect(await b.save(newToken('tt'), turnGrant())).toBe('taken');
      });

      it('damaged token rows (a digest that is not hex, a kind of another build, a missing agent): they open nothing and checks do not throw', async () => {
        const s = tokens(await place());
        const [t1, t2, t3] = [newToken('tt'), newToken('st'), newToken('tt')];
        await s.save(t1, turnGrant({ agentRunId: 'ar_kind' }));
        await s.save(t2, { kind: 'session', sessionId: 's_digest', ownerId: 'o', expiresAt: START + TTL_MS });
        await s.save(t3, turnGrant({ agentRunId: 'ar_agent' }));
        await s.db.run("UPDATE access_tokens SET kind = 'hologram' WHERE agent_run_id = ?", ['ar_kind']);
        await s.db.run("UPDATE access_tokens SET digest = 'not-a-digest' WHERE session_id = ?", ['s_digest']);
        await s.db.run('UPDATE access_tokens SET agent_id = NULL WHERE agent_run_id = ?', ['ar_agent']);
        expect(await s.open(t1)).toBeUndefined();
        expect(await s.open(t2)).toBeUndefined();
        expect(await s.open(t3)).toBeUndefined();
        expect(await s.checkSession('s_digest', t2)).toBe('wrong');
        expect(await s.checkTurn('ar_kind', t1)).toBe('unknown');
        await expect(s.save('', turnGrant())).rejects.toThrow(InvalidInputError);
        await expect(s.save(newToken('tt'), { ...turnGrant(), agentId: '' } as TokenGrant)).rejects.toThrow(/grant\.agentId/);
      });
    });
  });
}
