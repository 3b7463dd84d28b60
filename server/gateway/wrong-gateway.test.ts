// Several Gateways on one session database without runs.durable: a `wait` that reaches a Gateway other than the live one holding the run names that Gateway; once it is gone, restart recovery answers as after a restart.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionsConfig } from '../config/types.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { Gateway } from '../gateway.ts';
import { openSessionDatabase } from '../sessions/db.ts';
import { GatewayPresenceStore, PRESENCE_STALE_MS } from '../sessions/gateway-presence.ts';
import { freshSchema, type TestSchema } from '../sessions/postgres.testing.ts';
import type { TranscriptEntry } from '../sessions/types.ts';
import { expectCompleted, expectFailed, expectWaiting, testGateway } from '../testing.ts';
import { findRecordedRun } from './restart-recovery.ts';

const RESTART_SAFE = { code: 'await yield_control("x"); return 1', restartSafe: true };

let executor: QuickJsExecutor;
let dir: string;
let pg: TestSchema;
beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 2 });
  await executor.ready();
  dir = mkdtempSync(join(tmpdir(), 'codemode-wrong-gw-'));
  pg = await freshSchema();
});
afterAll(async () => {
  await executor.close();
  rmSync(dir, { recursive: true, force: true });
  await pg.drop();
});

function gateway(sessions: SessionsConfig): Promise<Gateway> {
  return testGateway({ executor, config: { sessions } });
}

async function sql(sessions: SessionsConfig, statement: string, params: Array<string | number> = []): Promise<void> {
  const db = openSessionDatabase(sessions);
  try {
    await db.run(statement, params);
  } finally {
    await db.close();
  }
}

const backends: Array<[string, () => SessionsConfig]> = [
  ['SQLite', () => ({ path: join(dir, `s-${Math.random().toString(36).slice(2)}.db`) })],
  ['PostgreSQL', () => ({ url: pg.url })],
];

describe.each(backends)('a wait on the wrong Gateway, without runs.durable (%s)', (_name, sessionsFor) => {
  it('names the live Gateway that holds the run (its instance id, and that runs.durable lets any Gateway resume it), rebuilds nothing; the holder still completes it', async () => {
    const sessions = sessionsFor();
    const a = await gateway(sessions);
    const b = await gateway(sessions);
    const sessionId = `wrong-${Math.random().toString(36).slice(2)}`;
    const onA = a.prepareTurn({ sessionId });
    const w = expectWaiting(await a.exec(onA.agentRunId, RESTART_SAFE));
    const onB = b.prepareTurn({ sessionId });
    const r = expectFailed(await b.wait(onB.agentRunId, { runId: w.runId }), 'runtime_unavailable');
    expect(r.error).toContain(`is waiting on Gateway ${a.instanceId}, which is up`);
    expect(r.error).toContain('runs.durable');
    // nothing was rebuilt on B, and A's run is untouched
    expect(b.run(w.runId)).toBeUndefined();
    expect(expectCompleted(await a.wait(onA.agentRunId, { runId: w.runId })).value).toBe(1);
  });

  it('a holder that closed is gone: restart recovery answers (a restartSafe cell is rebuilt, another is "could not be kept")', async () => {
    const sessions = sessionsFor();
    const b = await gateway(sessions);
    const a = await gateway(sessions);
    const sessionId = `gone-${Math.random().toString(36).slice(2)}`;
    const onA = a.prepareTurn({ sessionId });
    const safe = expectWaiting(await a.exec(onA.agentRunId, RESTART_SAFE)).runId;
    const ordinary = expectWaiting(await a.exec(onA.agentRunId, { code: 'await yield_control("x"); return 2' })).runId;
    await a.close();
    const onB = b.prepareTurn({ sessionId });
    expect(expectCompleted(await b.wait(onB.agentRunId, { runId: safe })).value).toBe(1);
    expect(expectFailed(await b.wait(onB.agentRunId, { runId: ordinary }), 'runtime_unavailable').error).toContain('the Gateway restarted');
  });

  it('a holder silent past PRESENCE_STALE_MS (killed) is gone too, and its stale presence row is removed', async () => {
    const sessions = sessionsFor();
    const a = await gateway(sessions);
    const b = await gateway(sessions);
    try {
      const sessionId = `stale-${Math.random().toString(36).slice(2)}`;
      const onA = a.prepareTurn({ sessionId });
      const ordinary = expectWaiting(await a.exec(onA.agentRunId, { code: 'await yield_control("x"); return 2' })).runId;
      // A's last beat as a Gateway that died long ago would have left it
      await sql(sessions, 'UPDATE gateways SET seen_at = ? WHERE instance_id = ?', [Date.now() - PRESENCE_STALE_MS - 1000, a.instanceId]);
      const onB = b.prepareTurn({ sessionId });
      expect(expectFailed(await b.wait(onB.agentRunId, { runId: ordinary }), 'runtime_unavailable').error).toContain('the Gateway restarted');
      const db = openSessionDatabase(sessions);
      try {
        expect(await db.all('SELECT instance_id FROM gateways WHERE instance_id = ?', [a.instanceId])).toEqual([]);
      } finally {
        await db.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('a holder on this host whose process is gone', () => {
  it('is gone at once (a kill -9 and a restart on one machine recover without waiting PRESENCE_STALE_MS)', async () => {
    const sessions = { path: join(dir, 'killed.db') };
    const a = await gateway(sessions);
    const b = await gateway(sessions);
    try {
      const onA = a.prepareTurn({ sessionId: 'killed' });
      const ordinary = expectWaiting(await a.exec(onA.agentRunId, { code: 'await yield_control("x"); return 2' })).runId;
      // A's row as a process of this host that has exited would have left it (its beat fresh)
      const exited = spawnSync(process.execPath, ['-e', '0']);
      await sql(sessions, 'UPDATE gateways SET pid = ? WHERE instance_id = ?', [exited.pid ?? 0, a.instanceId]);
      const onB = b.prepareTurn({ sessionId: 'killed' });
      expect(expectFailed(await b.wait(onB.agentRunId, { runId: ordinary }), 'runtime_unavailable').error).toContain('the Gateway restarted');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('presence rows and recorded Gateway ids are hostile', () => {
  it('a damaged presence row reads as a gone Gateway, never a throw; an id that is not an instance id is never looked up', async () => {
    const sessions = { path: join(dir, 'presence.db') };
    const db = openSessionDatabase(sessions);
    try {
      const store = new GatewayPresenceStore(db);
      await store.beat('gw_AAAAAAAAAAAAAAAA', { startedAt: 1, durable: false, host: 'h', pid: 1 });
      expect(await store.live('gw_AAAAAAAAAAAAAAAA')).toMatchObject({ instanceId: 'gw_AAAAAAAAAAAAAAAA', durable: false });
      await db.run('UPDATE gateways SET durable = 7', []);
      expect(await store.live('gw_AAAAAAAAAAAAAAAA')).toBeUndefined();
      await db.run("UPDATE gateways SET durable = 1, seen_at = 'soon'", []);
      expect(await store.live('gw_AAAAAAAAAAAAAAAA')).toBeUndefined();
      expect(await store.live("gw_' OR 1=1 --")).toBeUndefined();
      await expect(store.beat('not-an-id', { startedAt: 1, durable: false, host: 'h', pid: 1 })).rejects.toThrow('instanceId must be a Gateway instance id');
    } finally {
      await db.close();
    }
  });

  it('findRecordedRun: a waiting result naming another Gateway is that Gateway\'s (however new); one naming this one is absent; a malformed id is ignored (the start-time rule decides)', () => {
    const at = 5_000;
    const branch = (gateway: unknown, createdAt: number): TranscriptEntry[] => [
      { id: 'c', parentId: null, sessionId: 's', type: 'tool-call', createdAt, payload: { tool: 'exec', toolCallId: 't1', code: 'await yield_control("x")' } },
      { id: 'r', parentId: 'c', sessionId: 's', type: 'tool-result', createdAt, payload: { tool: 'exec', toolCallId: 't1', status: 'waiting', runId: 'run_1', reason: 'yield', gateway, text: '{}' } },
    ] as TranscriptEntry[];
    const other = 'gw_BBBBBBBBBBBBBBBB';
    expect(findRecordedRun(branch(other, at + 1), 'run_1', at, 'gw_CCCCCCCCCCCCCCCC')).toMatchObject({ kind: 'waiting', gateway: other });
    expect(findRecordedRun(branch(other, at - 1), 'run_1', at, other)).toEqual({ kind: 'absent' });
    const malformed = findRecordedRun(branch({ not: 'an id' }, at - 1), 'run_1', at, 'gw_CCCCCCCCCCCCCCCC');
    expect(malformed).toMatchObject({ kind: 'waiting' });
    expect(malformed).not.toHaveProperty('gateway');
    expect(findRecordedRun(branch('gw_short', at + 1), 'run_1', at, 'gw_CCCCCCCCCCCCCCCC')).toEqual({ kind: 'absent' });
  });
});
