// The session store replayed from code-mode-store entries: branch ancestry, compaction, turn views, failed appends, damaged entries.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { SessionStoreError } from './db.ts';
import { MAX_SESSION_STORE_BYTES, MAX_SESSION_STORE_KEYS, SessionStore, type StoredValue } from './store.ts';

const stores: SessionStore[] = [];
function store(): SessionStore {
  const s = new SessionStore();
  stores.push(s);
  return s;
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function writes(values: Record<string, unknown>, networkContent: string[] = []): Map<string, StoredValue> {
  return new Map(
    Object.entries(values).map(([key, v]) => [key, { json: v === undefined ? undefined : JSON.stringify(v), networkContent: networkContent.includes(key) }]),
  );
}

const view = (s: SessionStore, sessionId = 's') => Object.fromEntries(s.entries(sessionId).map((e) => [e.key, JSON.parse(e.json)]));

describe('replay', () => {
  it('on several commits: later sets win, deletes remove keys, provenance is per key', () => {
    const s = store();
    s.commit('s', 'r1', writes({ a: 1, b: 'web' }, ['b']));
    s.commit('s', 'r2', writes({ a: 2, c: [3] }));
    s.commit('s', 'r3', writes({ c: undefined }));
    expect(view(s)).toEqual({ a: 2, b: 'web' });
    expect(s.entries('s').find((e) => e.key === 'b')?.networkContent).toBe(true);
    expect(s.entries('s').find((e) => e.key === 'a')?.networkContent).toBe(false);
    expect(s.history('s').map((c) => c.runId)).toEqual(['r1', 'r2', 'r3']);
  });

  it('on a completed write set: it is ONE code-mode-store entry with sets, deletes and provenance', () => {
    const s = store();
    s.commit('s', 'r1', writes({ a: 1, gone: undefined, net: true }, ['net']));
    const entries = s.transcript.branch('s');
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

  it('on an empty write set: appends nothing', () => {
    const s = store();
    expect(s.commit('s', 'r1', new Map())).toBeUndefined();
    expect(s.transcript.branch('s')).toEqual([]);
  });

  it('on branches: replay follows ancestry and excludes the other branch writes', () => {
    const s = store();
    const first = s.commit('s', 'r1', writes({ a: 1 }));
    s.commit('s', 'r2', writes({ a: 2, b: 2 }));
    s.transcript.branchFrom('s', first!.entryId);
    expect(view(s)).toEqual({ a: 1 });
    s.commit('s', 'r3', writes({ c: 3 }));
    expect(view(s)).toEqual({ a: 1, c: 3 });
    // back to the tip of the first branch: its writes return, the new branch's do not
    const oldTip = s.transcript.db.prepare<[], { id: string }>("SELECT id FROM entries WHERE payload LIKE '%\"r2\"%'").get();
    s.transcript.branchFrom('s', oldTip!.id);
    expect(view(s)).toEqual({ a: 2, b: 2 });
  });

  it('on compaction: values committed before it still replay', () => {
    const s = store();
    s.commit('s', 'r1', writes({ early: 'kept' }));
    s.transcript.appendEntry('s', 'message', { role: 'user', text: 'long chat' });
    s.transcript.compact('s', 'summary of the chat');
    s.commit('s', 'r2', writes({ late: 1 }));
    expect(view(s)).toEqual({ early: 'kept', late: 1 });
    expect(s.forTurn({}).get('s', 'early')?.json).toBe('"kept"');
  });
});

describe('turn views', () => {
  it('on a turn view: the projection is built at the first read and then applies only its own commits', () => {
    const s = store();
    s.commit('s', 'r0', writes({ base: 0 }));
    const a = s.forTurn({});
    const b = s.forTurn({});
    expect(a.get('s', 'base')?.json).toBe('0');
    b.commit('s', 'rb', writes({ fromB: 1 }));
    expect(a.get('s', 'fromB')).toBeUndefined();
    a.commit('s', 'ra', writes({ fromA: 1, base: undefined }));
    expect(a.get('s', 'fromA')?.json).toBe('1');
    expect(a.get('s', 'base')).toBeUndefined();
    expect(b.get('s', 'fromB')?.json).toBe('1');
    expect(view(s)).toEqual({ fromA: 1, fromB: 1 });
  });

  it('on the same scope object: the same view is returned', () => {
    const s = store();
    const scope = {};
    expect(s.forTurn(scope)).toBe(s.forTurn(scope));
    expect(s.forTurn(scope)).not.toBe(s.forTurn({}));
  });

  it('on branchFrom after a view read: the view rebuilds from the new branch at its next read', () => {
    const s = store();
    const first = s.commit('s', 'r1', writes({ a: 1 }));
    s.commit('s', 'r2', writes({ a: 2 }));
    const v = s.forTurn({});
    expect(v.get('s', 'a')?.json).toBe('2');
    s.transcript.branchFrom('s', first!.entryId);
    expect(v.get('s', 'a')?.json).toBe('1');
  });

  it('on an append failure: commit throws with guidance and the projection stays unchanged', () => {
    const s = store();
    const v = s.forTurn({});
    v.commit('s', 'r1', writes({ a: 1 }));
    expect(v.get('s', 'a')?.json).toBe('1');
    s.transcript.db.exec(
      "CREATE TRIGGER fail_store BEFORE INSERT ON entries WHEN NEW.type = 'code-mode-store' BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END;",
    );
    expect(() => v.commit('s', 'r2', writes({ a: 2, b: 2 }))).toThrow(/disk full \(simulated\).*store them again in a later cell/);
    expect(v.get('s', 'a')?.json).toBe('1');
    expect(v.get('s', 'b')).toBeUndefined();
    expect(s.history('s')).toHaveLength(1);
  });

  it('on an unmatched leaf: the first read fails with session_unavailable rather than exposing another branch', () => {
    const s = store();
    s.commit('s', 'r1', writes({ a: 1 }));
    s.transcript.db.pragma('foreign_keys = OFF');
    s.transcript.db.prepare("UPDATE sessions SET leaf_id = 'e_elsewhere' WHERE id = 's'").run();
    const v = s.forTurn({});
    let caught: unknown;
    try {
      v.get('s', 'a');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SessionStoreError);
    expect(caught).toMatchObject({ code: 'session_unavailable', message: expect.stringContaining('matches no entry') });
  });

  it('on a closed database: a commit fails with a SessionStoreError', () => {
    const s = store();
    const v = s.forTurn({});
    expect(v.get('s', 'a')).toBeUndefined();
    s.close();
    expect(() => v.commit('s', 'r1', writes({ a: 1 }))).toThrow(SessionStoreError);
    expect(v.get('s', 'a')).toBeUndefined();
  });
});

describe('damaged entries', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function dbPath(): string {
    const d = mkdtempSync(join(tmpdir(), 'codemode-store-'));
    dirs.push(d);
    return join(d, 'sessions.db');
  }

  /** Appends a code-mode-store row as an older build (or a hand edit) left it: the payload text exactly as given. */
  function appendRawStoreRow(s: SessionStore, sessionId: string, payloadText: string): string {
    const entry = s.transcript.appendEntry(sessionId, 'code-mode-store', { runId: 'placeholder', sets: [], deletes: [] });
    s.transcript.db.prepare('UPDATE entries SET payload = ? WHERE id = ?').run(payloadText, entry.id);
    return entry.id;
  }

  it('on a set whose json is not text: only that key is damaged, across reopening the database', () => {
    const path = dbPath();
    const first = new SessionStore(path);
    first.commit('s', 'r1', writes({ good: { n: 1 }, objectJson: 'before', badText: 'before' }));
    // the toJSON attack of an older build: `json` committed as an object; and a hand edit that broke the text
    appendRawStoreRow(first, 's', JSON.stringify({ runId: 'r2', sets: [{ key: 'objectJson', json: { a: 1 }, networkContent: false }], deletes: [] }));
    appendRawStoreRow(first, 's', JSON.stringify({ runId: 'r3', sets: [{ key: 'badText', json: '{"a":', networkContent: false }], deletes: [] }));
    first.commit('s', 'r4', writes({ later: [2] }));
    first.close();

    const second = new SessionStore(path);
    stores.push(second);
    const v = second.forTurn({});
    expect(v.get('s', 'good')).toEqual({ json: '{"n":1}', networkContent: false });
    expect(v.get('s', 'later')?.json).toBe('[2]');
    expect(v.get('s', 'objectJson')).toMatchObject({ json: undefined, damaged: expect.stringContaining('an object, not JSON text') });
    // replay parses no value: text that does not parse fails its key at load (dispatcher.test.ts)
    expect(v.get('s', 'badText')).toEqual({ json: '{"a":', networkContent: false });
    expect(second.entries('s')).toEqual([
      { key: 'good', json: '{"n":1}', networkContent: false },
      { key: 'objectJson', json: '', networkContent: false, damaged: expect.any(String) },
      { key: 'badText', json: '{"a":', networkContent: false },
      { key: 'later', json: '[2]', networkContent: false },
    ]);
    expect(second.history('s').map((c) => c.runId)).toEqual(['r1', 'r2', 'r3', 'r4']);
  });

  it('on a new value stored under a damaged key: the key reads back again', () => {
    const s = store();
    appendRawStoreRow(s, 's', JSON.stringify({ runId: 'r1', sets: [{ key: 'k', json: 5, networkContent: false }], deletes: [] }));
    expect(s.forTurn({}).get('s', 'k')?.damaged).toBeDefined();
    s.commit('s', 'r2', writes({ k: 'fresh' }));
    expect(s.forTurn({}).get('s', 'k')).toEqual({ json: '"fresh"', networkContent: false });
  });

  it('on entries that name no key (payload not JSON, no sets list, a set without a string key): replay skips them and keeps every other key', () => {
    const path = dbPath();
    const s = new SessionStore(path);
    stores.push(s);
    s.commit('s', 'r1', writes({ a: 1, gone: 2 }));
    appendRawStoreRow(s, 's', '{"runId":"r2","sets":[{"key":"a","json":"3"');
    appendRawStoreRow(s, 's', JSON.stringify({ runId: 'r3', sets: 'nope', deletes: ['gone'] }));
    appendRawStoreRow(s, 's', JSON.stringify({ runId: 'r4', sets: [null, { key: 7, json: '1' }, { json: '1' }], deletes: [{}] }));
    appendRawStoreRow(s, 's', 'null');
    expect(view(s)).toEqual({ a: 1 });
    expect(s.forTurn({}).get('s', 'a')?.json).toBe('1');
    // no phantom commits: the rows that name no write are not in the history
    expect(s.history('s').map((c) => c.runId)).toEqual(['r1', 'r3']);
    expect(s.history('s')[1]?.writes).toEqual({ gone: { json: undefined, networkContent: false } });
  });

  it('on a commit of a value that is not text: throws invalid_input and appends nothing', () => {
    const s = store();
    const bad: StoredValue = { json: { a: 1 } as unknown as string, networkContent: false };
    expect(() => s.commit('s', 'r', new Map([['ok', { json: '1', networkContent: false }], ['object', bad]]))).toThrow(InvalidInputError);
    expect(s.transcript.branch('s')).toEqual([]);
  });

  it('on a commit: values are stored as given (the dispatcher already wrote them canonically), not parsed again', () => {
    const s = store();
    const commit = s.commit('s', 'r', new Map([['k', { json: '{"a":[1000,"A"]}', networkContent: false }]]));
    expect(commit?.writes['k']?.json).toBe('{"a":[1000,"A"]}');
    expect(s.forTurn({}).get('s', 'k')?.json).toBe('{"a":[1000,"A"]}');
  });
});

describe('capacity (a session store is for small values: MAX_SESSION_STORE_KEYS keys, MAX_SESSION_STORE_BYTES bytes)', () => {
  const big = 'x'.repeat(60 * 1024);

  it('on a commit that would pass the byte limit: InvalidInputError naming it and what to do, nothing appended, what was stored stays; deleting frees room', () => {
    const s = store();
    const fits = Math.floor(MAX_SESSION_STORE_BYTES / (big.length + 2));
    s.commit('s', 'r1', writes(Object.fromEntries(Array.from({ length: fits }, (_, i) => [`k${i}`, big]))));
    const before = s.history('s').length;
    expect(() => s.commit('s', 'r2', writes({ one_more: big }))).toThrow(InvalidInputError);
    expect(() => s.commit('s', 'r2', writes({ one_more: big }))).toThrow(
      /^the session store would hold \d+ bytes, over its 8388608-byte limit; keep summaries there, or delete keys you no longer need \(store\(key, undefined\)\); nothing was stored$/,
    );
    expect(s.history('s')).toHaveLength(before);
    expect(s.get('s', 'k0')?.json).toBe(JSON.stringify(big));
    // replacing a value, or deleting one and adding another in the same write set, fits
    s.commit('s', 'r3', writes({ k0: undefined, one_more: big }));
    expect(s.get('s', 'one_more')?.json).toBe(JSON.stringify(big));
  });

  it('on a commit that would pass the key limit, or one cell writing more keys than that: refused naming the limit; another session is not counted', () => {
    const s = store();
    s.commit('s', 'r1', writes(Object.fromEntries(Array.from({ length: MAX_SESSION_STORE_KEYS }, (_, i) => [`k${i}`, i]))));
    expect(() => s.commit('s', 'r2', writes({ extra: 1 }))).toThrow(`the session store would hold ${MAX_SESSION_STORE_KEYS + 1} keys, over its ${MAX_SESSION_STORE_KEYS}-key limit`);
    expect(s.commit('other', 'r3', writes({ extra: 1 }))).toBeDefined();
    const deletes = new Map(Array.from({ length: MAX_SESSION_STORE_KEYS + 1 }, (_, i): [string, StoredValue] => [`gone${i}`, { json: undefined, networkContent: false }]));
    expect(() => s.commit('other', 'r4', deletes)).toThrow(`one cell may write at most ${MAX_SESSION_STORE_KEYS} keys of the session store (this one wrote ${MAX_SESSION_STORE_KEYS + 1})`);
  });
});
