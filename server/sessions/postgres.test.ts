// The session-store conformance suite on PostgreSQL (sessions.url), on the suite's throwaway cluster: each test gets a fresh schema.
import { describe, expect, it } from 'vitest';
import { sessionStoreConformance } from './conformance.testing.ts';
import { SessionStoreError, type SqlDatabase } from './database.ts';
import { openPostgresDatabase, redactedUrl } from './postgres.ts';
import { freshSchema } from './postgres.testing.ts';
import { Transcript } from './transcript.ts';

sessionStoreConformance({
  dialect: 'postgres',
  fresh: async () => {
    const schema = await freshSchema();
    return { open: () => openPostgresDatabase(schema.url), remove: () => schema.drop() };
  },
  failStoreInserts: async (db: SqlDatabase) => {
    await db.script(`
      CREATE FUNCTION fail_store() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full (simulated)'; END $$;
      CREATE TRIGGER fail_store BEFORE INSERT ON entries FOR EACH ROW WHEN (NEW.type = 'code-mode-store') EXECUTE FUNCTION fail_store();`);
  },
});

describe('PostgreSQL connections', () => {
  it('a server nobody listens on: every operation rejects with a SessionStoreError naming the URL without its password and sessions.url', async () => {
    const t = new Transcript(openPostgresDatabase('postgres://codemode:s3cret-pass@127.0.0.1:1/sessions'));
    const err = await t.ready().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SessionStoreError);
    const message = (err as Error).message;
    expect(message).toContain('the session database at postgres://codemode:***@127.0.0.1:1/sessions cannot be used');
    expect(message).toContain('check sessions.url');
    expect(message).not.toContain('s3cret-pass');
    await expect(t.appendEntry('s', 'message', { role: 'user', text: 'x' })).rejects.toThrow(SessionStoreError);
    await t.close();
  });

  it('redactedUrl: hides the password, keeps the rest; text that is not a URL is not echoed', () => {
    expect(redactedUrl('postgres://u:pw@db.internal:5432/app?sslmode=require')).toBe('postgres://u:***@db.internal:5432/app?sslmode=require');
    expect(redactedUrl('postgres://u@db/app')).toBe('postgres://u@db/app');
    expect(redactedUrl('not a url with pw')).toBe('the configured postgres URL');
  });

  it('close(): waits for the statements under way, then holds no connection; later statements are refused', async () => {
    const schema = await freshSchema();
    try {
      const db = openPostgresDatabase(schema.url);
      const t = new Transcript(db);
      const pending = Array.from({ length: 10 }, (_, i) => t.appendEntry('s', 'message', { role: 'user', text: String(i) }));
      const closing = t.close();
      await Promise.allSettled(pending);
      await closing;
      const written = await Promise.allSettled(pending);
      expect(written.every((r) => r.status === 'fulfilled' || r.reason instanceof SessionStoreError)).toBe(true);
      expect(db.open).toBe(false);
      expect(db.openConnections()).toBe(0);
      await expect(db.all('SELECT 1')).rejects.toThrow(/is closed/);
    } finally {
      await schema.drop();
    }
  });
});
