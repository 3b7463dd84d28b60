// Run notices between Gateways: the wire form and its checks, the in-process hub (SQLite), and LISTEN/NOTIFY (PostgreSQL: two Gateways, schemas apart, hostile payloads, a dropped connection, close).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newGatewayInstanceId } from '../durable/instance-id.ts';
import { InvalidInputError } from '../errors.ts';
import { until } from '../testing.ts';
import type { SqlDatabase } from './database.ts';
import { decodeNotice, encodeNotice, LocalRunNotifier, openRunNotifier, PostgresRunNotifier, type RunNotice, type RunNotifier } from './notifier.ts';
import { openPostgresDatabase } from './postgres.ts';
import { adminQuery, freshSchema, type TestSchema } from './postgres.testing.ts';
import { openSqliteDatabase } from './sqlite.ts';

const GW = 'gw_AAAAAAAAAAAAAAAA';

describe('the notice wire form', () => {
  it('round trip: kind, run, session and sender; ids of any text but NUL, up to the bound', () => {
    const notice: RunNotice = { kind: 'parked', runId: 'run_1', sessionId: 'sess "ünï" 🧪', from: GW };
    expect(decodeNotice(encodeNotice(notice))).toEqual(notice);
    expect(() => encodeNotice({ ...notice, runId: '' })).toThrow(InvalidInputError);
    expect(() => encodeNotice({ ...notice, sessionId: 'x'.repeat(257) })).toThrow(/at most 256 characters/);
    expect(() => encodeNotice({ ...notice, kind: 'gossip' as RunNotice['kind'] })).toThrow(/kind must be one of/);
    expect(() => encodeNotice({ ...notice, from: 'me' })).toThrow(/Gateway instance id/);
  });

  it('what is received is hostile: every payload that is not exactly a notice is a reason, never a throw', () => {
    const good = JSON.parse(encodeNotice({ kind: 'settled', runId: 'r', sessionId: 's', from: GW })) as Record<string, unknown>;
    const bad: Array<[unknown, string]> = [
      [undefined, 'no payload'],
      ['{', 'not JSON'],
      ['[1]', 'not a JSON object'],
      [JSON.stringify({ ...good, v: 2 }), 'version 2'],
      [JSON.stringify({ ...good, k: 'exec' }), 'kind'],
      [JSON.stringify({ ...good, r: 5 }), 'run id'],
      [JSON.stringify({ ...good, s: 'a\0b' }), 'session id'],
      [JSON.stringify({ ...good, g: 'gw_short' }), 'sender'],
      ['x'.repeat(10_000), 'over'],
    ];
    for (const [payload, why] of bad) {
      const result = decodeNotice(payload);
      expect(typeof result, why).toBe('string');
      expect(result).toContain(why);
    }
  });
});

/** Collects what a notifier hears. */
function recorder(notifier: RunNotifier): { notices: RunNotice[]; gaps: number } {
  const heard = { notices: [] as RunNotice[], gaps: 0 };
  notifier.subscribe((n) => heard.notices.push(n));
  notifier.onGap(() => heard.gaps++);
  return heard;
}

describe('in-process notices (SQLite)', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  function notifierOn(db: SqlDatabase, log?: (line: string) => void): RunNotifier {
    const n = openRunNotifier(db, { gatewayId: newGatewayInstanceId(), ...(log ? { log } : {}) });
    cleanup.push(() => n.close());
    return n;
  }

  it('two Gateways on one file hear each other (and themselves); one on another file hears nothing; after close, nothing and publish is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-notify-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const [dbA, dbB, dbOther] = [openSqliteDatabase(join(dir, 'a.db')), openSqliteDatabase(join(dir, 'a.db')), openSqliteDatabase(join(dir, 'other.db'))];
    cleanup.push(() => Promise.all([dbA.close(), dbB.close(), dbOther.close()]).then(() => undefined));
    const [a, b, other] = [notifierOn(dbA), notifierOn(dbB), notifierOn(dbOther)];
    expect(a).toBeInstanceOf(LocalRunNotifier);
    const [heardA, heardB, heardOther] = [recorder(a), recorder(b), recorder(other)];
    await a.publish({ kind: 'parked', runId: 'run_1', sessionId: 's1' });
    await until(() => heardB.notices.length === 1 && heardA.notices.length === 1, { what: 'both Gateways on the file to hear the notice' });
    expect(heardB.notices[0]).toEqual({ kind: 'parked', runId: 'run_1', sessionId: 's1', from: a.gatewayId });
    await other.publish({ kind: 'settled', runId: 'run_2', sessionId: 's2' });
    await until(() => heardOther.notices.length === 1, { what: 'the other file to hear its own notice' });
    expect(heardA.notices).toHaveLength(1);
    await b.close();
    await a.publish({ kind: 'settled', runId: 'run_1', sessionId: 's1' });
    await until(() => heardA.notices.length === 2, { what: 'the second notice' });
    expect(heardB.notices).toHaveLength(1);
    await expect(b.publish({ kind: 'settled', runId: 'run_1', sessionId: 's1' })).rejects.toThrow(/is closed/);
    await expect(a.publish({ kind: 'settled', runId: '', sessionId: 's1' })).rejects.toThrow(InvalidInputError);
  });

  it('a listener that throws is logged; the others still hear the notice', async () => {
    const db = openSqliteDatabase(':memory:');
    cleanup.push(() => db.close());
    const lines: string[] = [];
    const n = notifierOn(db, (line) => lines.push(line));
    n.subscribe(() => {
      throw new Error('listener bug');
    });
    const heard = recorder(n);
    await n.publish({ kind: 'approval', runId: 'run_1', sessionId: 's1' });
    await until(() => heard.notices.length === 1, { what: 'the notice' });
    expect(lines.join('\n')).toContain('a run-notice listener failed on a "approval" notice of run run_1: listener bug');
  });
});

describe('LISTEN/NOTIFY notices (PostgreSQL)', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function schema(): Promise<TestSchema> {
    const s = await freshSchema();
    cleanup.push(() => s.drop());
    return s;
  }
  /** A Gateway's database and notifier on `at`, both closed after the test. */
  function gatewayOn(at: TestSchema, lines: string[] = []): PostgresRunNotifier {
    const db = openPostgresDatabase(at.url);
    const n = openRunNotifier(db, { gatewayId: newGatewayInstanceId(), log: (line) => lines.push(line) });
    if (!(n instanceof PostgresRunNotifier)) throw new Error('expected the PostgreSQL notifier');
    cleanup.push(async () => {
      await n.close();
      await db.close();
    });
    return n;
  }
  /** The LISTEN connections of `notifier` the server has now. */
  async function listenConnections(notifier: RunNotifier): Promise<Array<{ pid: number }>> {
    const result = await adminQuery('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [`codemode-notify ${notifier.gatewayId}`]);
    return result.rows as Array<{ pid: number }>;
  }

  it('two Gateways on one schema hear each other; a Gateway on another schema of the database does not', async () => {
    const [shared, elsewhere] = [await schema(), await schema()];
    const [a, b, other] = [gatewayOn(shared), gatewayOn(shared), gatewayOn(elsewhere)];
    const [heardA, heardB, heardOther] = [recorder(a), recorder(b), recorder(other)];
    await Promise.all([a.listening(), b.listening(), other.listening()]);
    expect(await a.channel()).toMatch(/^codemode_runs_[0-9a-f]{16}$/);
    expect(await other.channel()).not.toBe(await a.channel());
    await a.publish({ kind: 'parked', runId: 'run_1', sessionId: 's1' });
    await b.publish({ kind: 'client-call', runId: 'run_2', sessionId: 's2' });
    await until(() => heardA.notices.length === 2 && heardB.notices.length === 2, { what: 'both Gateways to hear both notices' });
    expect(heardB.notices).toEqual([
      { kind: 'parked', runId: 'run_1', sessionId: 's1', from: a.gatewayId },
      { kind: 'client-call', runId: 'run_2', sessionId: 's2', from: b.gatewayId },
    ]);
    // the other schema's Gateway heard none of it: its own notice is the first it hears
    await other.publish({ kind: 'updated', runId: 'run_3', sessionId: 's3' });
    await until(() => heardOther.notices.length === 1, { what: 'the other schema to hear its own notice' });
    expect(heardOther.notices.map((n) => n.runId)).toEqual(['run_3']);
  });

  it('published inside a transaction: heard only if it commits', async () => {
    const at = await schema();
    const db = openPostgresDatabase(at.url);
    cleanup.push(() => db.close());
    const publisher = openRunNotifier(db, { gatewayId: newGatewayInstanceId() });
    cleanup.push(() => publisher.close());
    const listener = gatewayOn(at);
    const heard = recorder(listener);
    await listener.listening();
    await expect(
      db.transaction(async (tx) => {
        await publisher.publish({ kind: 'parked', runId: 'rolled_back', sessionId: 's' }, tx);
        throw new Error('the park failed');
      }),
    ).rejects.toThrow('the park failed');
    await db.transaction((tx) => publisher.publish({ kind: 'parked', runId: 'committed', sessionId: 's' }, tx));
    await until(() => heard.notices.length === 1, { what: 'the committed notice' });
    expect(heard.notices.map((n) => n.runId)).toEqual(['committed']);
  });

  it('a NOTIFY on the channel that is not a notice (any client of the database may send one): dropped with a log line, and the next notice is heard', async () => {
    const at = await schema();
    const lines: string[] = [];
    const n = gatewayOn(at, lines);
    const heard = recorder(n);
    await n.listening();
    const channel = await n.channel();
    await adminQuery('SELECT pg_notify($1, $2)', [channel, '{"v":1,"k":"parked","r":"run_1","s":"s","g":"not-a-gateway"}']);
    await adminQuery('SELECT pg_notify($1, $2)', [channel, 'x'.repeat(7000)]);
    await n.publish({ kind: 'expired', runId: 'run_2', sessionId: 's' });
    await until(() => heard.notices.length === 1, { what: 'the real notice' });
    expect(heard.notices[0]?.runId).toBe('run_2');
    expect(lines.filter((l) => l.includes('was dropped'))).toHaveLength(2);
    expect(lines.join('\n')).toContain('its sender is not a Gateway instance id');
  });

  it('the LISTEN connection is killed: it reconnects, subscribers hear a gap, and notices flow again', async () => {
    const at = await schema();
    const lines: string[] = [];
    const n = gatewayOn(at, lines);
    const heard = recorder(n);
    await n.listening();
    const [before] = await listenConnections(n);
    expect(before).toBeDefined();
    await adminQuery('SELECT pg_terminate_backend($1)', [before?.pid]);
    await until(() => heard.gaps === 1, { what: 'the reconnect to announce a gap', timeoutMs: 20_000 });
    expect(lines.join('\n')).toContain('dropped');
    const [after] = await listenConnections(n);
    expect(after?.pid).not.toBe(before?.pid);
    await n.publish({ kind: 'updated', runId: 'run_after', sessionId: 's' });
    await until(() => heard.notices.length === 1, { what: 'a notice after the reconnect' });
  });

  it('close(): the LISTEN connection is gone from the server, no retry is pending, and it is not opened again; a database that cannot be reached is retried, not thrown', async () => {
    const at = await schema();
    const n = gatewayOn(at);
    recorder(n);
    await n.listening();
    expect(await listenConnections(n)).toHaveLength(1);
    await n.close();
    expect(n.connected).toBe(false);
    expect(await listenConnections(n)).toHaveLength(0);
    n.subscribe(() => {});
    expect(n.connected).toBe(false);
    await expect(n.publish({ kind: 'parked', runId: 'r', sessionId: 's' })).rejects.toThrow(/is closed/);

    const lines: string[] = [];
    const nowhere = openPostgresDatabase('postgres://codemode@127.0.0.1:1/none');
    const unreachable = openRunNotifier(nowhere, { gatewayId: newGatewayInstanceId(), log: (line) => lines.push(line) });
    if (!(unreachable instanceof PostgresRunNotifier)) throw new Error('expected the PostgreSQL notifier');
    unreachable.subscribe(() => {});
    await until(() => lines.some((l) => l.includes('cannot listen for run notices')), { what: 'the failed attempt to be logged' });
    expect(unreachable.retrying).toBe(true);
    await unreachable.close();
    expect(unreachable.retrying).toBe(false);
    expect(n.retrying).toBe(false);
    await nowhere.close();
  });
});
