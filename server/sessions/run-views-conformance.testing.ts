// The run views and run requests tables, part of the session-store conformance suite (conformance.testing.ts runs it on each backend): written, replaced, deleted by holder, settled once, damaged rows named.
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import type { SessionBackendHarness, TestDatabasePlace } from './conformance.testing.ts';
import { MAX_RUN_VIEW_SEALED_BYTES, RunViewStore, type RunViewRow } from './run-views.ts';
import { RunRequestStore } from './run-requests.ts';

const GW_A = 'gw_AAAAAAAAAAAAAAAA';
const GW_B = 'gw_BBBBBBBBBBBBBBBB';

function viewRow(runId: string, over: Partial<RunViewRow> = {}): RunViewRow {
  return {
    runId,
    sessionId: 's1',
    agentRunId: 'ar1',
    holder: GW_A,
    executor: 'quickjs',
    state: 'waiting',
    approvals: 1,
    clientCalls: 2,
    createdAt: 1_800_000_000_000,
    updatedAt: 1_800_000_000_500,
    sealed: Uint8Array.from({ length: 300 }, (_, i) => (i * 7 + runId.length) & 0xff),
    ...over,
  };
}

export function runViewsConformance(harness: SessionBackendHarness): void {
  describe('run views (what a page on another Gateway shows)', () => {
    const places: TestDatabasePlace[] = [];
    const closers: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
      for (const place of places.splice(0)) await place.remove();
    });
    async function stores(): Promise<[RunViewStore, RunViewStore]> {
      const at = await harness.fresh();
      places.push(at);
      const [one, two] = [at.open(), at.open()];
      closers.push(() => one.close(), () => two.close());
      return [new RunViewStore(one), new RunViewStore(two)];
    }

    it('put then get and list on another connection: every field and the sealed bytes read back as written, newest first; a view without a seal reads back without one', async () => {
      const [a, b] = await stores();
      const first = viewRow('run_1');
      const second = viewRow('run_2', { createdAt: first.createdAt + 10, state: 'running', approvals: 0, clientCalls: 0 });
      delete second.sealed;
      await a.put(first);
      await a.put(second);
      expect(await b.get('run_1')).toEqual({ ok: true, row: { ...first, sealed: expect.any(Uint8Array) } });
      const read = await b.get('run_1');
      expect(read?.ok && Buffer.from(read.row.sealed ?? []).equals(Buffer.from(first.sealed ?? []))).toBe(true);
      expect((await b.list()).map((r) => (r.ok ? r.row.runId : r.message))).toEqual(['run_2', 'run_1']);
      expect(await b.get('run_2')).toEqual({ ok: true, row: second });
      expect(await b.get('run_unknown')).toBeUndefined();
    });

    it('a run resumed by another Gateway: its put replaces the row, and the old holder deleting it leaves the new holder\'s view; deleteHolder removes only that holder\'s views', async () => {
      const [a, b] = await stores();
      await a.put(viewRow('run_1'));
      await a.put(viewRow('run_2'));
      await b.put(viewRow('run_1', { holder: GW_B, updatedAt: 1_800_000_001_000 }));
      expect(await a.delete('run_1', GW_A)).toBe(false);
      expect(await a.get('run_1')).toMatchObject({ ok: true, row: { holder: GW_B } });
      expect(await a.deleteHolder(GW_A)).toBe(1);
      expect((await b.list()).map((r) => (r.ok ? `${r.row.runId} ${r.row.holder}` : r.message))).toEqual([`run_1 ${GW_B}`]);
      expect(await b.delete('run_1', GW_B)).toBe(true);
      expect(await a.list()).toEqual([]);
    });

    it('bad input is refused naming the field, and writes nothing: an ended state, a holder that is not an instance id, a negative count, a view over the size bound', async () => {
      const [a] = await stores();
      await expect(a.put(viewRow('run_1', { state: 'completed' as RunViewRow['state'] }))).rejects.toThrow(InvalidInputError);
      await expect(a.put(viewRow('run_1', { holder: 'someone' }))).rejects.toThrow(/holder must be a Gateway instance id/);
      await expect(a.put(viewRow('run_1', { approvals: -1 }))).rejects.toThrow(/approvals must be a whole number/);
      await expect(a.put(viewRow('run_1', { sealed: new Uint8Array(MAX_RUN_VIEW_SEALED_BYTES + 1) }))).rejects.toThrow(/at most 65536 bytes/);
      await expect(a.put(viewRow('', {}))).rejects.toThrow(/runId must be a non-empty string/);
      expect(await a.list()).toEqual([]);
    });

    it('run requests: added pending, listed for their holder only, settled once (a withdrawn one is not settled), outcome read back; damaged rows named', async () => {
      const at = await harness.fresh();
      places.push(at);
      const [one, two] = [at.open(), at.open()];
      closers.push(() => one.close(), () => two.close());
      const sender = new RunRequestStore(one);
      const holder = new RunRequestStore(two);
      const sealed = Uint8Array.from({ length: 64 }, (_, i) => i);
      await sender.add({ requestId: 'rq_1', runId: 'run_1', sessionId: 's1', holder: GW_A, sender: GW_B, createdAt: 1, sealed });
      await sender.add({ requestId: 'rq_2', runId: 'run_1', sessionId: 's1', holder: GW_A, sender: GW_B, createdAt: 2, sealed });
      await sender.add({ requestId: 'rq_3', runId: 'run_2', sessionId: 's1', holder: GW_B, sender: GW_A, createdAt: 3, sealed });
      expect((await holder.pendingFor(GW_A)).map((r) => (r.ok ? r.row.requestId : r.message))).toEqual(['rq_1', 'rq_2']);
      expect(await holder.settle('rq_1', GW_A, 'failed', 'no pending approval')).toBe(true);
      expect(await holder.settle('rq_1', GW_A, 'done', 'applied')).toBe(false);
      expect(await sender.get('rq_1')).toMatchObject({ ok: true, row: { state: 'failed', outcome: 'no pending approval', sender: GW_B } });
      // withdrawn by its sender while pending: the holder's late outcome changes nothing
      expect(await sender.delete('rq_2', true)).toBe(true);
      expect(await holder.settle('rq_2', GW_A, 'done', 'applied')).toBe(false);
      expect(await sender.delete('rq_1', true)).toBe(false);
      await expect(sender.add({ requestId: 'rq_4', runId: 'run_1', sessionId: 's1', holder: 'nobody', sender: GW_B, createdAt: 4, sealed })).rejects.toThrow(InvalidInputError);
      await sender.db.run("UPDATE run_requests SET state = 'maybe' WHERE request_id = 'rq_3'");
      expect(await holder.pendingFor(GW_B)).toEqual([]);
      expect(await holder.get('rq_3')).toEqual({ ok: false, requestId: 'rq_3', message: 'the run request row rq_3 is damaged: its state is not pending, done or failed' });
    });

    it('damaged rows read back as damaged, named by run id, never as an exception: a foreign holder, an ended state, text where the seal goes', async () => {
      const [a, b] = await stores();
      await a.put(viewRow('run_1'));
      await a.put(viewRow('run_2'));
      await a.put(viewRow('run_3'));
      await a.db.run("UPDATE run_views SET holder = 'not a gateway' WHERE run_id = 'run_1'");
      await a.db.run("UPDATE run_views SET state = 'completed' WHERE run_id = 'run_2'");
      await a.db.run("UPDATE run_views SET sealed = NULL, approvals = -3 WHERE run_id = 'run_3'");
      const reads = await b.list();
      expect(reads).toHaveLength(3);
      expect(reads.every((r) => !r.ok)).toBe(true);
      expect(reads.map((r) => (r.ok ? '' : r.message)).sort()).toEqual([
        'the run view row of run run_1 is damaged: its holder is not a Gateway instance id',
        'the run view row of run run_2 is damaged: its state is not a live run state',
        'the run view row of run run_3 is damaged: its approvals is not a whole number of at least 0',
      ]);
    });
  });
}
