// The session-store conformance suite: one Vitest suite, run once per backend (SQLite, PostgreSQL), over the async store interface.
// One file on purpose (over 400 lines): one suite per contract, so both backends are held to the same cases.
//
// Transcript trees (append under the leaf, branches, ancestry checks, compaction, the model's context view,
// batched display-only rows), the session store replayed from code-mode-store entries (turn views, failed
// appends, capacity), schema migrations, concurrent appends from two connections (two Gateways on one
// database), and damaged rows read back from the database; then the durable-run rows and stored tokens
// (durable-conformance.testing.ts). What the backends do differently (how a fresh database is made, how a
// fault is injected) are the harness's hooks.
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { SessionStoreError, type SqlDatabase, type SqlDialect } from './database.ts';
import { defaultCompactionSummary } from './compaction.ts';
import { durableConformance } from './durable-conformance.testing.ts';
import { runViewsConformance } from './run-views-conformance.testing.ts';
import { SESSION_MIGRATIONS } from './migrations.ts';
import { MAX_SESSION_STORE_BYTES, MAX_SESSION_STORE_KEYS, SessionStore, type StoredValue } from './store.ts';
import { entryRunId, Transcript } from './transcript.ts';
import { MAX_TRANSCRIPT_PAGE_BYTES } from './transcript-page.ts';
import type { EntryType, NestedActivityPayload } from './types.ts';

/** One empty database of a backend: `open()` connects to it, again after a close as a restarted Gateway would. */
export interface TestDatabasePlace {
  open(): SqlDatabase;
  /** Removes it (a file, a schema) once its connections are closed. */
  remove(): Promise<void>;
}

export interface SessionBackendHarness {
  dialect: SqlDialect;
  /** A new, empty database. */
  fresh(): Promise<TestDatabasePlace>;
  /** From now on an insert of a code-mode-store entry fails with "disk full (simulated)" (a trigger), on any connection. */
  failStoreInserts(db: SqlDatabase): Promise<void>;
}

const activity = (n: number, runId = 'run_1'): NestedActivityPayload => ({
  runId,
  parentCallId: 'c1',
  invocationId: `cell:${n}`,
  requestId: `r${n}`,
  tool: 'noop',
  kind: 'tool',
  status: 'ok',
  inputBytes: 2,
  startedAt: n,
});

function writes(values: Record<string, unknown>, networkContent: string[] = []): Map<string, StoredValue> {
  return new Map(
    Object.entries(values).map(([key, v]) => [key, { json: v === undefined ? undefined : JSON.stringify(v), networkContent: networkContent.includes(key) }]),
  );
}

/** The error a promise rejects with (the test fails if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

export function sessionStoreConformance(harness: SessionBackendHarness): void {
  describe(`session store conformance: ${harness.dialect}`, () => {
    const places: TestDatabasePlace[] = [];
    const closers: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
      for (const place of places.splice(0)) await place.remove();
    });

    async function place(): Promise<TestDatabasePlace> {
      const p = await harness.fresh();
      places.push(p);
      return p;
    }
    /** A transcript on a fresh database (or on `at`), closed after the test. */
    async function transcript(at?: TestDatabasePlace): Promise<Transcript> {
      const t = new Transcript((at ?? (await place())).open());
      closers.push(() => t.close());
      return t;
    }
    async function store(at?: TestDatabasePlace): Promise<SessionStore> {
      const s = new SessionStore((at ?? (await place())).open());
      closers.push(() => s.close());
      return s;
    }

    const say = (t: Transcript, sessionId: string, text: string) => t.appendEntry(sessionId, 'message', { role: 'user', text });
    const texts = async (t: Transcript, sessionId: string) => (await t.branch(sessionId)).map((e) => (e.type === 'message' ? e.payload.text : e.type));
    const view = async (s: SessionStore, sessionId = 's') => Object.fromEntries((await s.entries(sessionId)).map((e) => [e.key, JSON.parse(e.json)]));

    describe('transcript', () => {
      it('hasEntries: false for an unknown session, true once it has an entry, and still true after branching to before the first entry', async () => {
        const t = await transcript();
        expect(await t.hasEntries('s')).toBe(false);
        await say(t, 's', 'a');
        expect(await t.hasEntries('s')).toBe(true);
        expect(await t.hasEntries('other')).toBe(false);
        await t.branchFrom('s', null);
        expect(await t.branch('s')).toEqual([]);
        expect(await t.hasEntries('s')).toBe(true);
      });

      it('onAppend: each listener hears every written entry once, as appendEntry returns it; after unsubscribing, none; a failed append is not heard', async () => {
        const t = await transcript();
        const heard: unknown[] = [];
        const stop = t.onAppend((entry) => heard.push(entry));
        const a = await say(t, 's', 'a');
        const stored = await t.appendEntry('other', 'code-mode-store', { runId: 'run_1', sets: [], deletes: ['k'] });
        await expect(t.appendEntry('', 'message', { role: 'user', text: 'x' })).rejects.toThrow(InvalidInputError);
        expect(heard).toEqual([a, stored]);
        stop();
        await say(t, 's', 'b');
        expect(heard).toHaveLength(2);
      });

      it('entryRunId: names the run of result, nested-activity, store and wait-call entries; none for an exec call, a message or a damaged store entry', async () => {
        const t = await transcript();
        const result = await t.appendEntry('s', 'tool-result', { tool: 'exec', toolCallId: 'c1', status: 'completed', runId: 'run_r', text: '{}' });
        const wait = await t.appendEntry('s', 'tool-call', { tool: 'wait', toolCallId: 'c2', agentRunId: 'ar', runId: 'run_w' });
        const exec = await t.appendEntry('s', 'tool-call', { tool: 'exec', toolCallId: 'c3', agentRunId: 'ar', code: 'return 1' });
        const stored = await t.appendEntry('s', 'code-mode-store', { runId: 'run_s', sets: [], deletes: [] });
        const damaged = { ...stored, payload: { runId: '', sets: [], deletes: [] } };
        expect([result, wait, exec, stored, damaged, await say(t, 's', 'hi')].map(entryRunId)).toEqual(['run_r', 'run_w', undefined, 'run_s', undefined, undefined]);
      });

      it('appendEntry: each entry hangs under the previous one and becomes the leaf; what is read back equals what was returned', async () => {
        const t = await transcript();
        const a = await say(t, 's', 'a');
        const b = await say(t, 's', 'b');
        expect(a.parentId).toBeNull();
        expect(b.parentId).toBe(a.id);
        expect(await t.leaf('s')).toBe(b.id);
        expect(await t.branch('s')).toEqual([a, b]);
      });

      it('appendEntry on two sessions: each has its own tree, and both are listed', async () => {
        const t = await transcript();
        await say(t, 's1', 'one');
        await say(t, 's2', 'two');
        expect(await texts(t, 's1')).toEqual(['one']);
        expect(await texts(t, 's2')).toEqual(['two']);
        const sessions = await t.sessions();
        expect(sessions.map((s) => s.sessionId).sort()).toEqual(['s1', 's2']);
        expect(sessions.every((s) => s.entryCount === 1 && typeof s.createdAt === 'number' && typeof s.updatedAt === 'number')).toBe(true);
      });

      it('appendEntry on bad input: rejects naming the field and what to pass, and writes nothing', async () => {
        const t = await transcript();
        await expect(say(t, '  ', 'x')).rejects.toThrow(/sessionId must be a non-empty string/);
        await expect(say(t, 'x'.repeat(500), 'x')).rejects.toThrow(/sessionId is 500 characters/);
        await expect(say(t, 'a\0b', 'x')).rejects.toThrow(/sessionId contains a NUL character/);
        await expect(t.appendEntry('s', 'note' as EntryType, { role: 'user', text: 'x' })).rejects.toThrow(/type must be one of tool-call/);
        await expect(t.appendEntry('s', 'message', null as never)).rejects.toThrow(/payload of a "message" entry must be a JSON object/);
        const cyclic: Record<string, unknown> = { role: 'user', text: 'x' };
        cyclic.self = cyclic;
        await expect(t.appendEntry('s', 'message', cyclic as never)).rejects.toThrow(InvalidInputError);
        expect(await t.branch('s')).toEqual([]);
        expect(await t.sessions()).toEqual([]);
      });

      it('text round-trips exactly: quotes, newlines, control characters, emoji and non-BMP text in payloads and session ids', async () => {
        const t = await transcript();
        const text = 'quote " backslash \\ newline \n tab \t nul \u0000 bell \u0007 emoji 🧪 han 漢字 \u{1F600}';
        const sessionId = 'sess ünï 🧪 "quoted"';
        const entry = await say(t, sessionId, text);
        expect(await t.branch(sessionId)).toEqual([entry]);
        expect(entry.payload).toEqual({ role: 'user', text });
      });
    });

    describe('branches', () => {
      it('branchFrom: later entries form a new branch, and the old branch leaves the path but stays stored', async () => {
        const t = await transcript();
        const a = await say(t, 's', 'a');
        await say(t, 's', 'b');
        await t.branchFrom('s', a.id);
        expect(await texts(t, 's')).toEqual(['a']);
        const c = await say(t, 's', 'c');
        expect(c.parentId).toBe(a.id);
        expect(await texts(t, 's')).toEqual(['a', 'c']);
        expect((await t.sessions())[0]?.entryCount).toBe(3);
      });

      it('branchFrom null: the next entry starts a new root', async () => {
        const t = await transcript();
        await say(t, 's', 'a');
        await t.branchFrom('s', null);
        expect(await t.branch('s')).toEqual([]);
        expect((await say(t, 's', 'fresh')).parentId).toBeNull();
        expect(await texts(t, 's')).toEqual(['fresh']);
      });

      it('branchFrom an entry of another session, an unknown id or an id with NUL: rejects naming entryId, and the leaf stays', async () => {
        const t = await transcript();
        const other = await say(t, 'other', 'x');
        const mine = await say(t, 's', 'a');
        await expect(t.branchFrom('s', other.id)).rejects.toThrow(/entryId "e_.*" is not an entry of session "s"/);
        await expect(t.branchFrom('s', 'e_missing')).rejects.toThrow(InvalidInputError);
        await expect(t.branchFrom('s', `${mine.id}\0`)).rejects.toThrow(InvalidInputError);
        await expect(t.branchFrom('s', '' as string)).rejects.toThrow(/entryId must be the id of an entry/);
        await expect(t.branchFrom('nobody', null)).rejects.toThrow(/has no transcript yet/);
        expect(await t.leaf('s')).toBe(mine.id);
      });

      it('branchFrom: the session generation changes so cached projections rebuild', async () => {
        const t = await transcript();
        const a = await say(t, 's', 'a');
        const before = t.generation('s');
        await t.branchFrom('s', a.id);
        expect(t.generation('s')).toBe(before + 1);
      });

      it('reopening the database (a restart): the tree and the leaf are there', async () => {
        const at = await place();
        const first = new Transcript(at.open());
        const a = await say(first, 's', 'a');
        await say(first, 's', 'b');
        await first.branchFrom('s', a.id);
        await first.close();
        const second = await transcript(at);
        expect(await second.leaf('s')).toBe(a.id);
        expect(await texts(second, 's')).toEqual(['a']);
        expect(await second.hasEntries('s')).toBe(true);
      });
    });

    describe('paged reads (sessions.transcript)', () => {
      it('walks the branch root first, a page of at most `limit` entries at a time, to the same entries as the whole branch', async () => {
        const t = await transcript();
        for (let i = 0; i < 7; i++) await say(t, 's', `m${i}`);
        const seen: string[] = [];
        let page = await t.page('s', { limit: 3 });
        const sizes = [page.entries.length];
        seen.push(...page.entries.map((e) => e.id));
        while (page.nextCursor !== null) {
          page = await t.page('s', { limit: 3, after: page.nextCursor });
          sizes.push(page.entries.length);
          seen.push(...page.entries.map((e) => e.id));
        }
        expect(sizes).toEqual([3, 3, 1]);
        expect(page.total).toBe(7);
        expect(seen).toEqual((await t.branch('s')).map((e) => e.id));
        expect(await t.page('nobody')).toEqual({ entries: [], nextCursor: null, total: 0 });
      });

      it(`bounds a page by stored bytes (${MAX_TRANSCRIPT_PAGE_BYTES}): a long session comes in many small answers, an entry bigger than the bound alone`, async () => {
        const t = await transcript();
        const big = 'x'.repeat(300 * 1024);
        for (let i = 0; i < 10; i++) await say(t, 's', `${i}${big}`);
        await say(t, 's', 'y'.repeat(MAX_TRANSCRIPT_PAGE_BYTES + 10));
        const sizes: number[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await t.page('s', after !== undefined ? { after } : {});
          sizes.push(page.entries.length);
          if (page.nextCursor === null) break;
          after = page.nextCursor;
        }
        expect(sizes).toEqual([3, 3, 3, 1, 1]);
      });

      it('a cursor that left the branch (branched away) or names another session is refused with what to do', async () => {
        const t = await transcript();
        const first = await say(t, 's', 'a');
        const second = await say(t, 's', 'b');
        await t.branchFrom('s', first.id);
        await say(t, 's', 'c');
        await expect(t.page('s', { after: second.id })).rejects.toThrow(InvalidInputError);
        await expect(t.page('s', { after: second.id })).rejects.toThrow('is not on the current branch of session "s"');
        await expect(t.page('s', { after: (await say(t, 'other', 'z')).id })).rejects.toThrow('read the transcript again from its start');
      });
    });

    describe('compaction', () => {
      it('compact: the model context starts at the summary and leaves out activity and store entries', async () => {
        const t = await transcript();
        await say(t, 's', 'old question');
        await t.appendEntry('s', 'code-mode-store', { runId: 'r1', sets: [{ key: 'k', json: '1', networkContent: false }], deletes: [] });
        const c = await t.compact('s', 'the user asked about k');
        expect(c.payload).toEqual({ summary: 'the user asked about k', compactedEntries: 2 });
        await say(t, 's', 'new question');
        await t.appendEntry('s', 'nested-activity', activity(1, 'r2'));
        expect((await t.context('s')).map((e) => e.type)).toEqual(['compaction', 'message']);
        expect(await texts(t, 's')).toEqual(['old question', 'code-mode-store', 'compaction', 'new question', 'nested-activity']);
        expect((await t.compact('s', 'again')).payload.compactedEntries).toBe(2);
      });

      it('compact with an empty summary: rejects naming summary', async () => {
        const t = await transcript();
        await say(t, 's', 'a');
        await expect(t.compact('s', ' ')).rejects.toThrow(/summary must be a non-empty string/);
      });
    });

    describe('appendDeferred (batched display-only rows)', () => {
      it('rows queued between other appends: a read sees them at once, in append order, chained under the leaf', async () => {
        const t = await transcript();
        await say(t, 's', 'before');
        const errors: string[] = [];
        t.appendDeferred('s', 'nested-activity', activity(1), (m) => errors.push(m));
        t.appendDeferred('s', 'nested-activity', activity(2), (m) => errors.push(m));
        t.appendDeferred('other', 'nested-activity', activity(3), (m) => errors.push(m));
        // a write flushes the queue first, so the message lands after the two rows
        await say(t, 's', 'after');
        const branch = await t.branch('s');
        expect(branch.map((e) => (e.type === 'nested-activity' ? e.payload.invocationId : e.type === 'message' ? e.payload.text : e.type))).toEqual([
          'before',
          'cell:1',
          'cell:2',
          'after',
        ]);
        for (let i = 1; i < branch.length; i++) expect(branch[i]?.parentId).toBe(branch[i - 1]?.id);
        expect((await t.branch('other')).map((e) => e.type)).toEqual(['nested-activity']);
        expect(errors).toEqual([]);
      });

      it('a batch: the append listeners hear every row once; nothing queued is lost when the transcript closes', async () => {
        const at = await place();
        const t = new Transcript(at.open());
        const heard: string[] = [];
        t.onAppend((e) => heard.push(e.type === 'nested-activity' ? e.payload.invocationId : e.type));
        for (let n = 1; n <= 3; n++) t.appendDeferred('s', 'nested-activity', activity(n), () => {});
        await t.flushDeferred();
        expect(heard).toEqual(['cell:1', 'cell:2', 'cell:3']);
        t.appendDeferred('s', 'nested-activity', activity(4), () => {});
        await t.close();
        const reopened = await transcript(at);
        expect((await reopened.branch('s')).map((e) => (e.type === 'nested-activity' ? e.payload.invocationId : e.type))).toEqual(['cell:1', 'cell:2', 'cell:3', 'cell:4']);
      });

      it('a batch larger than one insert statement: every row is written, in order, one chain', async () => {
        const t = await transcript();
        for (let n = 1; n <= 250; n++) t.appendDeferred('s', 'nested-activity', activity(n), () => {});
        const branch = await t.branch('s');
        expect(branch.map((e) => (e.type === 'nested-activity' ? e.payload.startedAt : 0))).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
        for (let i = 1; i < branch.length; i++) expect(branch[i]?.parentId).toBe(branch[i - 1]?.id);
      });

      it('an invalid session id or payload: throws at once, like appendEntry, and queues nothing', async () => {
        const t = await transcript();
        expect(() => t.appendDeferred('', 'nested-activity', activity(1), () => {})).toThrow(InvalidInputError);
        expect(() => t.appendDeferred('s', 'nested-activity', [] as never, () => {})).toThrow(/JSON object/);
        expect(await t.branch('s')).toEqual([]);
      });

      it('a batch the database refuses: every row owner hears why; the transcript keeps working', async () => {
        const t = await transcript();
        await say(t, 's', 'a');
        // a leaf that names no entry: the rows' parent does not exist, so the insert fails its foreign key
        await t.db.run("UPDATE sessions SET leaf_id = 'e_gone' WHERE id = 's'");
        const errors: string[] = [];
        t.appendDeferred('s', 'nested-activity', activity(1), (m) => errors.push(m));
        await t.flushDeferred();
        expect(errors).toEqual([expect.stringMatching(/^the session transcript did not record 1 nested-activity entries: /)]);
        await t.branchFrom('s', null);
        expect((await say(t, 's', 'fresh')).parentId).toBeNull();
      });
    });

    describe('session store', () => {
      it('replay: later sets win, deletes remove keys, provenance is per key', async () => {
        const s = await store();
        await s.commit('s', 'r1', writes({ a: 1, b: 'web' }, ['b']));
        await s.commit('s', 'r2', writes({ a: 2, c: [3] }));
        await s.commit('s', 'r3', writes({ c: undefined }));
        expect(await view(s)).toEqual({ a: 2, b: 'web' });
        expect((await s.entries('s')).find((e) => e.key === 'b')?.networkContent).toBe(true);
        expect((await s.entries('s')).find((e) => e.key === 'a')?.networkContent).toBe(false);
        expect((await s.history('s')).map((c) => c.runId)).toEqual(['r1', 'r2', 'r3']);
      });

      it('a completed write set: ONE code-mode-store entry with sets, deletes and provenance; an empty one appends nothing', async () => {
        const s = await store();
        expect(await s.commit('s', 'r0', new Map())).toBeUndefined();
        await s.commit('s', 'r1', writes({ a: 1, gone: undefined, net: true }, ['net']));
        const entries = await s.transcript.branch('s');
        expect(entries).toHaveLength(1);
        expect(entries[0]).toMatchObject({
          type: 'code-mode-store',
          payload: {
            runId: 'r1',
            sets: [
              { key: 'a', json: '1', networkContent: false },
              { key: 'net', json: 'true', networkContent: true },
            ],
            deletes: ['gone'],
          },
        });
      });

      it('branches: replay follows ancestry and leaves out the other branch', async () => {
        const s = await store();
        const first = await s.commit('s', 'r1', writes({ a: 1 }));
        const second = await s.commit('s', 'r2', writes({ a: 2, b: 2 }));
        await s.transcript.branchFrom('s', first!.entryId);
        expect(await view(s)).toEqual({ a: 1 });
        await s.commit('s', 'r3', writes({ c: 3 }));
        expect(await view(s)).toEqual({ a: 1, c: 3 });
        // back to the tip of the first branch: its writes return, the new branch's do not
        await s.transcript.branchFrom('s', second!.entryId);
        expect(await view(s)).toEqual({ a: 2, b: 2 });
      });

      it('compaction: values committed before it still replay', async () => {
        const s = await store();
        await s.commit('s', 'r1', writes({ early: 'kept' }));
        await s.transcript.appendEntry('s', 'message', { role: 'user', text: 'long chat' });
        await s.transcript.compact('s', 'summary of the chat');
        await s.commit('s', 'r2', writes({ late: 1 }));
        expect(await view(s)).toEqual({ early: 'kept', late: 1 });
        expect((await s.forTurn({}).get('s', 'early'))?.json).toBe('"kept"');
      });

      it('store keys named like Object.prototype members: committed, replayed and listed in history as own keys', async () => {
        const s = await store();
        const keys = ['__proto__', 'constructor', 'prototype'];
        await s.commit('s', 'r1', new Map(keys.map((key, i) => [key, { json: String(i), networkContent: false }])));
        await s.commit('s', 'r2', new Map([['prototype', { json: undefined, networkContent: false }]]));
        expect((await s.entries('s')).map((e) => [e.key, e.json])).toEqual([
          ['__proto__', '0'],
          ['constructor', '1'],
        ]);
        const [first, second] = await s.history('s');
        expect(Object.keys(first!.writes)).toEqual(keys);
        expect(Object.getPrototypeOf(first!.writes)).toBe(Object.prototype);
        expect(Object.hasOwn(second!.writes, 'prototype')).toBe(true);
      });

      it('a turn view: built at its first read, then it applies only its own commits', async () => {
        const s = await store();
        await s.commit('s', 'r0', writes({ base: 0 }));
        const a = s.forTurn({});
        const b = s.forTurn({});
        expect((await a.get('s', 'base'))?.json).toBe('0');
        await b.commit('s', 'rb', writes({ fromB: 1 }));
        expect(await a.get('s', 'fromB')).toBeUndefined();
        await a.commit('s', 'ra', writes({ fromA: 1, base: undefined }));
        expect((await a.get('s', 'fromA'))?.json).toBe('1');
        expect(await a.get('s', 'base')).toBeUndefined();
        expect((await b.get('s', 'fromB'))?.json).toBe('1');
        expect(await view(s)).toEqual({ fromA: 1, fromB: 1 });
      });

      it('the same scope object gets the same view; a loaded projection answers without waiting', async () => {
        const s = await store();
        const scope = {};
        expect(s.forTurn(scope)).toBe(s.forTurn(scope));
        expect(s.forTurn(scope)).not.toBe(s.forTurn({}));
        await s.commit('s', 'r1', writes({ k: 1 }));
        const projection = await s.forTurn(scope).projection('s');
        expect(projection.get('k')?.json).toBe('1');
        expect(projection.capacityProblem(writes({ k: 2 }))).toBeUndefined();
      });

      it('branchFrom after a view read: the view rebuilds from the new branch at its next read', async () => {
        const s = await store();
        const first = await s.commit('s', 'r1', writes({ a: 1 }));
        await s.commit('s', 'r2', writes({ a: 2 }));
        const v = s.forTurn({});
        expect((await v.get('s', 'a'))?.json).toBe('2');
        await s.transcript.branchFrom('s', first!.entryId);
        expect((await v.get('s', 'a'))?.json).toBe('1');
      });

      it('commits of one view started together: each is checked against the ones before it, and all land in order', async () => {
        const s = await store();
        const v = s.forTurn({});
        const filler = 'x'.repeat(Math.floor(MAX_SESSION_STORE_BYTES / 2) - 100);
        const results = await Promise.allSettled([v.commit('s', 'r1', writes({ one: filler })), v.commit('s', 'r2', writes({ two: filler })), v.commit('s', 'r3', writes({ three: filler }))]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
        expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidInputError);
        expect((await s.history('s')).map((c) => c.runId)).toEqual(['r1', 'r2']);
      });

      it('an append failure: commit rejects with guidance and the projection stays unchanged', async () => {
        const s = await store();
        const v = s.forTurn({});
        await v.commit('s', 'r1', writes({ a: 1 }));
        expect((await v.get('s', 'a'))?.json).toBe('1');
        await harness.failStoreInserts(s.transcript.db);
        const err = await rejection(v.commit('s', 'r2', writes({ a: 2, b: 2 })));
        expect(err).toBeInstanceOf(SessionStoreError);
        expect((err as Error).message).toMatch(/disk full \(simulated\).*store them again in a later cell/);
        expect((await v.get('s', 'a'))?.json).toBe('1');
        expect(await v.get('s', 'b')).toBeUndefined();
        expect(await s.history('s')).toHaveLength(1);
      });

      it('a leaf that matches no entry: the first read fails with session_unavailable rather than exposing another branch', async () => {
        const s = await store();
        await s.commit('s', 'r1', writes({ a: 1 }));
        await s.transcript.db.run("UPDATE sessions SET leaf_id = 'e_elsewhere' WHERE id = 's'");
        const err = await rejection(s.forTurn({}).get('s', 'a'));
        expect(err).toBeInstanceOf(SessionStoreError);
        expect(err).toMatchObject({ code: 'session_unavailable', message: expect.stringContaining('matches no entry') });
        expect(await rejection(s.transcript.branch('s'))).toMatchObject({ message: expect.stringContaining('leaf "e_elsewhere" of session "s" matches no entry') });
      });

      it('a closed database: reads and commits reject with a SessionStoreError saying so', async () => {
        const s = await store();
        const v = s.forTurn({});
        expect(await v.get('s', 'a')).toBeUndefined();
        await s.close();
        const err = await rejection(v.commit('s', 'r1', writes({ a: 1 })));
        expect(err).toBeInstanceOf(SessionStoreError);
        expect((err as Error).message).toContain('is closed');
        expect(await v.get('s', 'a')).toBeUndefined();
        expect(await rejection(s.transcript.branch('other'))).toBeInstanceOf(SessionStoreError);
        expect(s.transcript.open).toBe(false);
      });

      it('a commit of a value that is not text: rejects with invalid_input and appends nothing; values are stored as given', async () => {
        const s = await store();
        const bad: StoredValue = { json: { a: 1 } as unknown as string, networkContent: false };
        await expect(s.commit('s', 'r', new Map([['ok', { json: '1', networkContent: false }], ['object', bad]]))).rejects.toThrow(InvalidInputError);
        expect(await s.transcript.branch('s')).toEqual([]);
        const commit = await s.commit('s', 'r', new Map([['k', { json: '{"a":[1000,"A"]}', networkContent: false }]]));
        expect(commit?.writes['k']?.json).toBe('{"a":[1000,"A"]}');
        expect((await s.forTurn({}).get('s', 'k'))?.json).toBe('{"a":[1000,"A"]}');
      });

      it('capacity in bytes: a commit over MAX_SESSION_STORE_BYTES is refused naming it, nothing appended; deleting frees room', async () => {
        const s = await store();
        const big = 'x'.repeat(60 * 1024);
        const fits = Math.floor(MAX_SESSION_STORE_BYTES / (big.length + 2));
        await s.commit('s', 'r1', writes(Object.fromEntries(Array.from({ length: fits }, (_, i) => [`k${i}`, big]))));
        const before = (await s.history('s')).length;
        await expect(s.commit('s', 'r2', writes({ one_more: big }))).rejects.toThrow(
          /^the session store would hold \d+ bytes, over its 8388608-byte limit; keep summaries there, or delete keys you no longer need \(store\(key, undefined\)\); nothing was stored$/,
        );
        expect(await s.history('s')).toHaveLength(before);
        expect((await s.get('s', 'k0'))?.json).toBe(JSON.stringify(big));
        await s.commit('s', 'r3', writes({ k0: undefined, one_more: big }));
        expect((await s.get('s', 'one_more'))?.json).toBe(JSON.stringify(big));
      });

      it('capacity in keys: past MAX_SESSION_STORE_KEYS, or one cell writing more keys than that, is refused; another session is not counted', async () => {
        const s = await store();
        await s.commit('s', 'r1', writes(Object.fromEntries(Array.from({ length: MAX_SESSION_STORE_KEYS }, (_, i) => [`k${i}`, i]))));
        await expect(s.commit('s', 'r2', writes({ extra: 1 }))).rejects.toThrow(`the session store would hold ${MAX_SESSION_STORE_KEYS + 1} keys, over its ${MAX_SESSION_STORE_KEYS}-key limit`);
        expect(await s.commit('other', 'r3', writes({ extra: 1 }))).toBeDefined();
        const deletes = new Map(Array.from({ length: MAX_SESSION_STORE_KEYS + 1 }, (_, i): [string, StoredValue] => [`gone${i}`, { json: undefined, networkContent: false }]));
        await expect(s.commit('other', 'r4', deletes)).rejects.toThrow(`one cell may write at most ${MAX_SESSION_STORE_KEYS} keys of the session store (this one wrote ${MAX_SESSION_STORE_KEYS + 1})`);
      });
    });

    describe('migrations', () => {
      it('a new database gets every migration once; reopening applies none again', async () => {
        const at = await place();
        const first = await transcript(at);
        await say(first, 's', 'a');
        const second = await transcript(at);
        await second.ready();
        const rows = await second.db.all<{ version: unknown }>('SELECT version FROM schema_migrations ORDER BY version');
        expect(rows.map((r) => Number(r.version))).toEqual(SESSION_MIGRATIONS.map((m) => m.version));
        expect(await texts(second, 's')).toEqual(['a']);
      });

      it('a database at a newer schema version: refused naming both versions and the config field; every operation says so', async () => {
        const at = await place();
        const first = new Transcript(at.open());
        await first.ready();
        const newer = SESSION_MIGRATIONS.length + 1;
        await first.db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [newer, 'from a newer build', Date.now()]);
        await first.close();
        const second = await transcript(at);
        const err = await rejection(second.ready());
        expect(err).toBeInstanceOf(SessionStoreError);
        const field = harness.dialect === 'sqlite' ? 'sessions.path' : 'sessions.url';
        expect((err as Error).message).toMatch(new RegExp(`has schema version ${newer}, newer than this build's ${newer - 1}; use a newer build or another ${field.replace('.', '\\.')}`));
        await expect(say(second, 's', 'x')).rejects.toThrow(/newer than this build/);
        await expect(second.branch('s')).rejects.toThrow(/newer than this build/);
      });

      it('two connections migrating one new database at once: both succeed and the schema is made once', async () => {
        const at = await place();
        const [a, b] = [await transcript(at), await transcript(at)];
        await Promise.all([a.ready(), b.ready()]);
        const rows = await a.db.all('SELECT version FROM schema_migrations');
        expect(rows).toHaveLength(SESSION_MIGRATIONS.length);
      });
    });

    describe('concurrent appends (two Gateways on one database)', () => {
      it('appends from two connections to one session at once: one chain in commit order, every entry on it, none forked', async () => {
        const at = await place();
        const [a, b] = [await transcript(at), await transcript(at)];
        await Promise.all([a.ready(), b.ready()]);
        const each = 15;
        // each Gateway appends as its recorder does (one after another) while the other does the same; a burst of
        // appends nobody waits between comes on top
        const inTurn = async (t: Transcript, who: string) => {
          const out = [];
          for (let i = 0; i < each; i++) out.push(await say(t, 'shared', `${who}${i}`));
          return out;
        };
        const burst = Array.from({ length: 10 }, (_, i) => say(i % 2 === 0 ? a : b, 'shared', `burst${i}`));
        const appended = [...(await Promise.all([inTurn(a, 'a'), inTurn(b, 'b')])).flat(), ...(await Promise.all(burst))];
        const branch = await a.branch('shared');
        expect(branch).toHaveLength(each * 2 + 10);
        expect(new Set(branch.map((e) => e.id))).toEqual(new Set(appended.map((e) => e.id)));
        // one chain: the first entry is the root and each entry's parent is the one before it
        expect(branch[0]?.parentId).toBeNull();
        for (let i = 1; i < branch.length; i++) expect(branch[i]?.parentId).toBe(branch[i - 1]?.id);
        expect(await b.leaf('shared')).toBe(branch.at(-1)?.id);
        // what each append returned is what was stored
        const stored = new Map(branch.map((e) => [e.id, e.parentId]));
        for (const e of appended) expect(stored.get(e.id)).toBe(e.parentId);
        // appends one Gateway made one after another keep their order
        for (const who of ['a', 'b']) {
          const mine = branch.flatMap((e) => (e.type === 'message' && /^[ab]\d+$/.test(e.payload.text) && e.payload.text.startsWith(who) ? [Number(e.payload.text.slice(1))] : []));
          expect(mine).toEqual(Array.from({ length: each }, (_, i) => i));
        }
      });

      it('batches from two connections over the same sessions in opposite orders: every row is written, each session one chain', async () => {
        const at = await place();
        const [a, b] = [await transcript(at), await transcript(at)];
        await Promise.all([a.ready(), b.ready()]);
        const errors: string[] = [];
        for (let round = 0; round < 5; round++) {
          for (const [t, sessions] of [
            [a, ['x', 'y']],
            [b, ['y', 'x']],
          ] as const) {
            for (const sessionId of sessions) t.appendDeferred(sessionId, 'nested-activity', activity(round, `run_${sessionId}`), (m) => errors.push(m));
          }
          await Promise.all([a.flushDeferred(), b.flushDeferred()]);
        }
        expect(errors).toEqual([]);
        for (const sessionId of ['x', 'y']) {
          const branch = await a.branch(sessionId);
          expect(branch).toHaveLength(10);
          for (let i = 1; i < branch.length; i++) expect(branch[i]?.parentId).toBe(branch[i - 1]?.id);
        }
      });

      it('a branch on one connection moves the leaf for the other: its next append hangs under the new leaf', async () => {
        const at = await place();
        const [a, b] = [await transcript(at), await transcript(at)];
        const first = await say(a, 's', 'first');
        await say(b, 's', 'second');
        await a.branchFrom('s', first.id);
        const third = await say(b, 's', 'third');
        expect(third.parentId).toBe(first.id);
        expect(await texts(a, 's')).toEqual(['first', 'third']);
      });
    });

    describe('damaged rows (everything read back is hostile)', () => {
      /** Appends an entry, then rewrites its payload text as a hand edit or another build might have left it. */
      async function damagedRow(t: Transcript, sessionId: string, type: EntryType, payloadText: string): Promise<string> {
        const entry = await t.appendEntry(sessionId, type, { runId: 'placeholder', sets: [], deletes: [] } as never);
        await t.db.run('UPDATE entries SET payload = ? WHERE id = ?', [payloadText, entry.id]);
        return entry.id;
      }

      it('a store entry whose payload is not a JSON object: replay skips it and keeps every other key; history leaves it out', async () => {
        const s = await store();
        await s.commit('s', 'r1', writes({ a: 1, gone: 2 }));
        for (const text of ['{"runId":"r2","sets":[{"key":"a","json":"3"', 'null', '[1,2]', '"text"', '42', '']) await damagedRow(s.transcript, 's', 'code-mode-store', text);
        await damagedRow(s.transcript, 's', 'code-mode-store', JSON.stringify({ runId: 'r3', sets: 'nope', deletes: ['gone'] }));
        await damagedRow(s.transcript, 's', 'code-mode-store', JSON.stringify({ runId: 'r4', sets: [null, { key: 7, json: '1' }, { json: '1' }], deletes: [{}] }));
        expect(await view(s)).toEqual({ a: 1 });
        expect((await s.forTurn({}).get('s', 'a'))?.json).toBe('1');
        expect((await s.history('s')).map((c) => c.runId)).toEqual(['r1', 'r3']);
        expect((await s.history('s'))[1]?.writes).toEqual({ gone: { json: undefined, networkContent: false } });
        // a generated compaction summary reads the same rows without failing
        expect(defaultCompactionSummary(await s.transcript.branch('s'))).toContain('store keys deleted: gone');
      });

      it('a set whose json is not text: only that key is damaged, across reopening; a new value repairs it', async () => {
        const at = await place();
        const first = new SessionStore(at.open());
        await first.commit('s', 'r1', writes({ good: { n: 1 }, objectJson: 'before', badText: 'before' }));
        await damagedRow(first.transcript, 's', 'code-mode-store', JSON.stringify({ runId: 'r2', sets: [{ key: 'objectJson', json: { a: 1 }, networkContent: false }], deletes: [] }));
        await damagedRow(first.transcript, 's', 'code-mode-store', JSON.stringify({ runId: 'r3', sets: [{ key: 'badText', json: '{"a":', networkContent: false }], deletes: [] }));
        await first.commit('s', 'r4', writes({ later: [2] }));
        await first.close();

        const second = await store(at);
        const v = second.forTurn({});
        expect(await v.get('s', 'good')).toEqual({ json: '{"n":1}', networkContent: false });
        expect((await v.get('s', 'later'))?.json).toBe('[2]');
        expect(await v.get('s', 'objectJson')).toMatchObject({ json: undefined, damaged: expect.stringContaining('an object, not JSON text') });
        // replay parses no value: text that does not parse fails its key at load (dispatcher.test.ts)
        expect(await v.get('s', 'badText')).toEqual({ json: '{"a":', networkContent: false });
        expect(await second.entries('s')).toEqual([
          { key: 'good', json: '{"n":1}', networkContent: false },
          { key: 'objectJson', json: '', networkContent: false, damaged: expect.any(String) },
          { key: 'badText', json: '{"a":', networkContent: false },
          { key: 'later', json: '[2]', networkContent: false },
        ]);
        expect((await second.history('s')).map((c) => c.runId)).toEqual(['r1', 'r2', 'r3', 'r4']);
        await second.commit('s', 'r5', writes({ objectJson: 'fresh' }));
        expect(await second.forTurn({}).get('s', 'objectJson')).toEqual({ json: '"fresh"', networkContent: false });
      });

      it('any other entry whose payload is not a JSON object: reading the branch fails with a SessionStoreError naming the entry', async () => {
        const t = await transcript();
        await say(t, 's', 'fine');
        for (const text of ['not json', 'null', '[]']) {
          const id = await damagedRow(t, `s_${text}`, 'message', text);
          const err = await rejection(t.branch(`s_${text}`));
          expect(err).toBeInstanceOf(SessionStoreError);
          expect((err as Error).message).toBe(`entry "${id}" of session "s_${text}" does not hold a JSON object; the transcript is damaged`);
        }
        expect(await texts(t, 's')).toEqual(['fine']);
      });

      it('an entry of a type a newer build wrote: kept in the database, left out of the branch; appends go on under it', async () => {
        const t = await transcript();
        await say(t, 's', 'a');
        const future = await say(t, 's', 'b');
        await t.db.run("UPDATE entries SET type = 'hologram' WHERE id = ?", [future.id]);
        expect(await texts(t, 's')).toEqual(['a']);
        const c = await say(t, 's', 'c');
        expect(c.parentId).toBe(future.id);
        expect(await texts(t, 's')).toEqual(['a', 'c']);
      });

      it('parent links turned into a loop, or a chain that leaves the session: the branch read fails clearly instead of running forever', async () => {
        const t = await transcript();
        const a = await say(t, 's', 'a');
        const b = await say(t, 's', 'b');
        await t.db.run('UPDATE entries SET parent_id = ? WHERE id = ?', [b.id, a.id]);
        await expect(t.branch('s')).rejects.toThrow(`the branch of session "s" loops back to entry "${b.id}"; the transcript is damaged`);

        const other = await say(t, 'other', 'x');
        const c = await say(t, 't', 'c');
        await t.db.run('UPDATE entries SET parent_id = ? WHERE id = ?', [other.id, c.id]);
        await expect(t.branch('t')).rejects.toThrow(`the branch of session "t" breaks at entry "${c.id}" (its parent "${other.id}" is not in the session); the transcript is damaged`);
        // the damage is the session's own: others read as before
        expect(await texts(t, 'other')).toEqual(['x']);
      });

      it('a session whose leaf is another session entry: refused as damage, and branchFrom repairs it', async () => {
        const t = await transcript();
        const mine = await say(t, 's', 'mine');
        const theirs = await say(t, 'other', 'theirs');
        await t.db.run('UPDATE sessions SET leaf_id = ? WHERE id = ?', [theirs.id, 's']);
        await expect(t.branch('s')).rejects.toThrow(/matches no entry of that session/);
        await t.branchFrom('s', mine.id);
        expect(await texts(t, 's')).toEqual(['mine']);
      });
    });

    durableConformance(harness);
    runViewsConformance(harness);
  });
}
