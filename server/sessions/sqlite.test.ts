// The session-store conformance suite on SQLite (the embedded default), and what only SQLite files have: reopening older files, hand-edited column types.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionStoreConformance } from './conformance.testing.ts';
import { SessionStoreError, type SqlDatabase } from './database.ts';
import { DurableRunStore } from './durable-runs.ts';
import { SESSION_MIGRATIONS } from './migrations.ts';
import { openSqliteDatabase, type SqliteDatabase } from './sqlite.ts';
import { Transcript } from './transcript.ts';

function tempPath(): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-sqlite-'));
  return { path: join(dir, 'nested', 'sessions.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

sessionStoreConformance({
  dialect: 'sqlite',
  fresh: async () => {
    const temp = tempPath();
    return { open: () => openSqliteDatabase(temp.path), remove: async () => temp.remove() };
  },
  failStoreInserts: async (db: SqlDatabase) => {
    await db.script("CREATE TRIGGER fail_store BEFORE INSERT ON entries WHEN NEW.type = 'code-mode-store' BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END;");
  },
});

describe('SQLite files', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  function transcriptAt(path: string): Transcript {
    const t = new Transcript(openSqliteDatabase(path));
    cleanup.push(() => t.close());
    return t;
  }

  it('a file an earlier build made (its two tables, user_version 1, no schema_migrations): adopted with its entries', async () => {
    const temp = tempPath();
    cleanup.push(() => temp.remove());
    const first = transcriptAt(temp.path);
    await first.appendEntry('s', 'message', { role: 'user', text: 'from before' });
    await first.close();
    // what the earlier build left: no version table
    const raw = new Database(temp.path);
    raw.exec('DROP TABLE schema_migrations; DROP TABLE durable_runs; DROP TABLE access_tokens; DROP TABLE gateways; DROP TABLE run_views; DROP TABLE run_requests');
    raw.pragma('user_version = 1');
    raw.close();
    const second = transcriptAt(temp.path);
    expect((await second.branch('s')).map((e) => e.type === 'message' && e.payload.text)).toEqual(['from before']);
    expect(Number((second.db as SqliteDatabase).handle.pragma('user_version', { simple: true }))).toBe(SESSION_MIGRATIONS.length);
  });

  it('a file whose user_version is newer (a later build that predates schema_migrations checks it too): refused', async () => {
    const temp = tempPath();
    cleanup.push(() => temp.remove());
    await transcriptAt(temp.path).ready();
    const raw = new Database(temp.path);
    raw.pragma('user_version = 99');
    raw.close();
    await expect(transcriptAt(temp.path).ready()).rejects.toThrow(`has schema version 99, newer than this build's ${SESSION_MIGRATIONS.length}; use a newer build or another sessions.path`);
  });

  it('a path that cannot be a database (a folder in the way, a text file): refused at open, naming the path and sessions.path', () => {
    const temp = tempPath();
    cleanup.push(() => temp.remove());
    expect(() => openSqliteDatabase(' ')).toThrow(/sessions\.path must be a file path/);
    const folderInTheWay = join(temp.path, '..', '..');
    expect(() => openSqliteDatabase(folderInTheWay)).toThrow(SessionStoreError);
  });

  it('column types a hand edit changed (blobs for ids and leaves, text for times): read without a crash, as damage where it is', async () => {
    const temp = tempPath();
    cleanup.push(() => temp.remove());
    const t = transcriptAt(temp.path);
    const a = await t.appendEntry('s', 'message', { role: 'user', text: 'a' });
    await t.appendEntry('other', 'message', { role: 'user', text: 'b' });
    await t.db.run("UPDATE entries SET created_at = 'soon' WHERE id = ?", [a.id]);
    const [entry] = await t.branch('s');
    expect(entry).toMatchObject({ id: a.id, createdAt: 0 });
    // TEXT columns turn a number into text, so a blob is what a column of the wrong type looks like here
    await t.db.run("UPDATE sessions SET leaf_id = x'0506', created_at = 'x' WHERE id = 's'");
    await expect(t.branch('s')).rejects.toThrow('the leaf of session "s" is not an entry id; the transcript is damaged, branch from a listed entry');
    await expect(t.appendEntry('s', 'message', { role: 'user', text: 'c' })).rejects.toThrow(SessionStoreError);
    await t.db.run("INSERT INTO sessions (id, leaf_id, created_at, updated_at) VALUES (x'07', NULL, 1, 1)");
    const sessions = await t.sessions();
    expect(sessions.map((s) => s.sessionId).sort()).toEqual(['other', 's']);
    expect(sessions.find((s) => s.sessionId === 's')).toMatchObject({ leafId: null, createdAt: 0 });
    await t.branchFrom('s', a.id);
    expect((await t.branch('s')).map((e) => e.id)).toEqual([a.id]);
  });

  it('durable rows whose column types a hand edit changed (text for the blob, text for a time, a blob for an id): read as damage naming the column, never thrown', async () => {
    const temp = tempPath();
    cleanup.push(() => temp.remove());
    const db = openSqliteDatabase(temp.path);
    cleanup.push(() => db.close());
    const store = new DurableRunStore(db);
    const park = (runId: string) =>
      store.park({ runId, sessionId: 's', agentRunId: 'ar', ownerId: 'local', baseImageId: 'base', sealed: new Uint8Array([1, 2, 3]), snapshotRawBytes: 1, snapshotStoredBytes: 1, expiresAt: Date.now() + 60_000, parkedBy: 'gw_AAAAAAAAAAAAAAAA' });
    const edits: Array<[string, string, string]> = [
      ['blob', "UPDATE durable_runs SET sealed = 'abc' WHERE run_id = ?", 'its sealed is not bytes'],
      ['time', "UPDATE durable_runs SET expires_at = 'soon' WHERE run_id = ?", 'its expires_at is not a whole number'],
      ['id', "UPDATE durable_runs SET session_id = x'0102' WHERE run_id = ?", 'its session_id is not a non-empty text'],
    ];
    for (const [name, sql, what] of edits) {
      await park(name);
      await db.run(sql, [name]);
      const read = await store.get(name);
      expect(read?.ok === false && read.reason, name).toContain(what);
      const claim = await store.claim(name, 'gw_AAAAAAAAAAAAAAAA');
      expect(claim.kind, name).toBe('damaged');
    }
    expect((await store.list()).map((r) => [r.ok ? r.run.runId : r.runId, r.ok]).sort()).toEqual([['blob', true], ['id', false], ['time', false]]);
    await expect(store.deleteExpired()).resolves.toEqual([]);
    await expect(store.counts()).resolves.toMatchObject({ runs: expect.any(Number) });
  });

  it('two connections of one process to one file take turns (neither blocks the event loop on the other lock)', async () => {
    const temp = tempPath();
    cleanup.push(() => temp.remove());
    const [a, b] = [transcriptAt(temp.path), transcriptAt(temp.path)];
    const writes = Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).appendEntry('s', 'message', { role: 'user', text: String(i) }));
    await Promise.all(writes);
    expect(await a.branch('s')).toHaveLength(30);
  });
});
