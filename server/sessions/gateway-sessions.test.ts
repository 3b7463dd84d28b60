// Sessions through a real Gateway (QuickJS) on each backend: commit rules, restart persistence, branches, compaction, control calls and nested activity in the transcript.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeModeOptions, SessionsConfig } from '../config/types.ts';
import { ConfigError } from '../errors.ts';
import { createGateway, type Gateway } from '../gateway.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { MSG_UNAVAILABLE } from '../runs/messages.ts';
import type { RunEvent } from '../runs/types.ts';
import { expectCompleted, expectWaiting, runReaches, testGateway } from '../testing.ts';
import { testConfig } from '../tools/testing.ts';
import type { SqlDatabase } from './database.ts';
import { openPostgresDatabase } from './postgres.ts';
import { freshSchema } from './postgres.testing.ts';
import { openSqliteDatabase } from './sqlite.ts';
import type { TranscriptEntry } from './types.ts';

let executor: QuickJsExecutor;
let dir: string;

beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 1 });
  await executor.ready();
  dir = mkdtempSync(join(tmpdir(), 'codemode-sessions-'));
});
afterAll(async () => {
  await executor.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One backend's session databases for this suite: a fresh one per call, reachable raw for the faults a test injects. */
interface Backend {
  name: 'sqlite' | 'postgres';
  fresh(): Promise<SessionsConfig>;
  /** A second connection to the same database (as another process, or an operator with psql, would have). */
  raw(sessions: SessionsConfig): SqlDatabase;
  /** From now on an insert of a code-mode-store entry fails with "disk full (simulated)". */
  failStoreInserts(db: SqlDatabase): Promise<void>;
}

let dbCounter = 0;
const backends: Backend[] = [
  {
    name: 'sqlite',
    fresh: async () => ({ path: join(dir, `s${++dbCounter}.db`) }),
    raw: (sessions) => openSqliteDatabase(sessions.path ?? ''),
    failStoreInserts: (db) =>
      db.script("CREATE TRIGGER fail_store BEFORE INSERT ON entries WHEN NEW.type = 'code-mode-store' BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END;"),
  },
  {
    name: 'postgres',
    fresh: async () => ({ url: (await freshSchema()).url }),
    raw: (sessions) => openPostgresDatabase(sessions.url ?? ''),
    failStoreInserts: (db) =>
      db.script(`
        CREATE FUNCTION fail_store() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full (simulated)'; END $$;
        CREATE TRIGGER fail_store BEFORE INSERT ON entries FOR EACH ROW WHEN (NEW.type = 'code-mode-store') EXECUTE FUNCTION fail_store();`),
  },
];

describe.each(backends)('sessions through a Gateway on $name', (backend) => {
  /**
   * The default budget: cells that must wait park with yield_control(), so none depends on how fast a loaded
   * machine runs it. The agent "tight" has a small budget, for the cell that is about the timeout. Each gateway
   * is closed when the test that made it finishes.
   */
  async function gateway(sessions?: SessionsConfig, o: Partial<CodeModeOptions> = {}): Promise<Gateway> {
    return testGateway({
      executor,
      codeMode: o,
      config: {
        agents: { defaults: { model: 'demo/coder', models: {} }, list: [{ id: 'main' }, { id: 'tight', tools: { codeMode: { timeoutMs: 300 } } }] },
        sessions: sessions ?? (await backend.fresh()),
      },
    });
  }

  /** A raw connection to `sessions`, closed before `fn` returns. */
  async function withRaw<T>(sessions: SessionsConfig, fn: (db: SqlDatabase) => Promise<T>): Promise<T> {
    const db = backend.raw(sessions);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  async function load(gw: Gateway, sessionId: string, key: string): Promise<unknown> {
    const t = gw.prepareTurn({ sessionId });
    return expectCompleted(await gw.exec(t.agentRunId, { code: `return await load(${JSON.stringify(key)})` })).value;
  }

  describe('commit only on completed', () => {
    it('on a completed cell: its writes are committed as one entry and later turns load them', async () => {
      const gw = await gateway();
      const t = gw.prepareTurn({ sessionId: 'done' });
      const r = await gw.exec(t.agentRunId, { code: 'await store("a", 1); await store("b", { x: [2] }); return "ok"' });
      expect(r).toMatchObject({ status: 'completed', value: 'ok' });
      expect(await gw.sessionStore('done')).toEqual([
        { key: 'a', json: '1', networkContent: false },
        { key: 'b', json: '{"x":[2]}', networkContent: false },
      ]);
      expect((await gw.transcript('done')).filter((e) => e.type === 'code-mode-store')).toHaveLength(1);
      expect(await load(gw, 'done', 'b')).toEqual({ x: [2] });
    });

    it('on failed, timed-out, aborted and expired cells: their writes are discarded', async () => {
      const gw = await gateway(undefined, { snapshotTtlSeconds: 1 });
      const t = gw.prepareTurn({ sessionId: 'discard' });
      expect(await gw.exec(t.agentRunId, { code: 'await store("failed", 1); throw new Error("boom")' })).toMatchObject({ status: 'failed' });
      const tight = gw.prepareTurn({ sessionId: 'discard', agentId: 'tight' });
      expect(await gw.exec(tight.agentRunId, { code: 'await store("timeout", 1); while (true) {}' })).toMatchObject({ status: 'failed', code: 'timeout' });

      const aborted = expectWaiting(await gw.exec(t.agentRunId, { code: 'await store("aborted", 1); await yield_control("park"); return 1' }));
      expect(gw.abortRun(aborted.runId)).toBe(true);
      expect(await gw.wait(t.agentRunId, { runId: aborted.runId })).toMatchObject({ status: 'failed', code: 'invalid_input' });

      const expired = expectWaiting(await gw.exec(t.agentRunId, { code: 'await store("expired", 1); await yield_control("park"); return 1' }));
      await runReaches(gw, expired.runId, 'expired');
      expect(await gw.wait(t.agentRunId, { runId: expired.runId })).toMatchObject({ status: 'failed', error: MSG_UNAVAILABLE });

      expect(await gw.sessionStore('discard')).toEqual([]);
      expect((await gw.transcript('discard')).some((e) => e.type === 'code-mode-store')).toBe(false);
      for (const key of ['failed', 'timeout', 'aborted', 'expired']) expect(await load(gw, 'discard', key)).toBeNull();
    });

    it('on a cell completed by wait: the writes made before and after suspension commit together', async () => {
      const gw = await gateway();
      const t = gw.prepareTurn({ sessionId: 'resumed' });
      const w = expectWaiting(await gw.exec(t.agentRunId, { code: 'await store("before", 1); await yield_control("park"); await store("after", 2); return 3' }));
      expect(await gw.sessionStore('resumed')).toEqual([]);
      expect(await gw.wait(t.agentRunId, { runId: w.runId })).toMatchObject({ status: 'completed', value: 3 });
      expect((await gw.sessionStore('resumed')).map((e) => e.key)).toEqual(['before', 'after']);
      expect((await gw.transcript('resumed')).filter((e) => e.type === 'code-mode-store')).toHaveLength(1);
    });
  });

  describe('append failure on commit', () => {
    it('on a failing append: the result is completed with a warning and the projection is unchanged', async () => {
      const sessions = await backend.fresh();
      const gw = await gateway(sessions);
      const t = gw.prepareTurn({ sessionId: 'faulty' });
      expect(await gw.exec(t.agentRunId, { code: 'await store("k", "first"); return 1' })).toMatchObject({ status: 'completed' });
      expect(await gw.exec(t.agentRunId, { code: 'return await load("k")' })).toMatchObject({ value: 'first' });

      // a second connection installs a failing statement for store entries only
      await withRaw(sessions, (db) => backend.failStoreInserts(db));

      const r = expectCompleted(await gw.exec(t.agentRunId, { code: 'await store("k", "second"); await store("extra", 1); return 2' }));
      expect(r).toMatchObject({ status: 'completed', value: 2 });
      expect(r.warnings?.join('\n')).toMatch(/store\(\) writes were not committed: .*disk full \(simulated\)/);
      expect(await gw.exec(t.agentRunId, { code: 'return [await load("k"), await load("extra")]' })).toMatchObject({ value: ['first', null] });
      expect(await gw.sessionStore('faulty')).toEqual([{ key: 'k', json: '"first"', networkContent: false }]);
    });
  });

  describe('restart persistence', () => {
    it('on a new Gateway on the same file: committed values and the transcript are there, continuations are not (a restartSafe cell is rebuilt from the transcript)', async () => {
      const sessions = await backend.fresh();
      const first = await gateway(sessions);
      const t1 = first.prepareTurn({ sessionId: 'durable' });
      expect(await first.exec(t1.agentRunId, { code: 'await store("kept", { n: 42 }); return 1' })).toMatchObject({ status: 'completed' });
      const parked = expectWaiting(await first.exec(t1.agentRunId, { code: 'await store("parked", 1); await yield_control("park"); return 2' }));
      const safe = expectWaiting(await first.exec(t1.agentRunId, { code: 'const r = Math.random(); await yield_control("park"); return r', restartSafe: true }, { seed: 7 }));
      const transcriptBefore = await first.transcript('durable');
      await first.close();

      const second = await gateway(sessions);
      expect(await load(second, 'durable', 'kept')).toEqual({ n: 42 });
      expect(await load(second, 'durable', 'parked')).toBeNull();
      const t2 = second.prepareTurn({ sessionId: 'durable' });
      expect(await second.wait(t2.agentRunId, { runId: parked.runId })).toMatchObject({
        status: 'failed',
        code: 'runtime_unavailable',
        error: expect.stringContaining('the Gateway restarted while it was waiting, and it was not restartSafe'),
      });
      // rebuilt under its recorded seed, it passes the yield the wait continues and completes with the same draw
      const done = expectCompleted(await second.wait(t2.agentRunId, { runId: safe.runId }));
      expect(done.telemetry.runId).toBe(safe.runId);
      const t3 = second.prepareTurn({});
      const again = expectWaiting(await second.exec(t3.agentRunId, { code: 'const r = Math.random(); await yield_control("park"); return r' }, { seed: 7 }));
      expect(expectCompleted(await second.wait(t3.agentRunId, { runId: again.runId })).value).toBe(done.value);
      expect((await second.transcript('durable')).slice(0, transcriptBefore.length)).toEqual(transcriptBefore);
    });
  });

  describe('damaged store entries', () => {
    it('on a key an older build committed as an object: after a restart only that key fails to load, with what to do; storing it again repairs it', async () => {
      const sessions = await backend.fresh();
      const first = await gateway(sessions, { timeoutMs: 10_000 });
      const t1 = first.prepareTurn({ sessionId: 'damaged' });
      expect(await first.exec(t1.agentRunId, { code: 'await store("good", { n: 1 }); await store("bad", 1); return 1' })).toMatchObject({ status: 'completed' });
      await first.close();
      // what the toJSON attack left in the database before the host re-serialized values: `json` is an object
      await withRaw(sessions, async (db) => {
        const [row] = await db.all<{ id: string; payload: string }>("SELECT id, payload FROM entries WHERE type = 'code-mode-store'");
        const payload = JSON.parse(row!.payload) as { sets: Array<{ key: string; json: unknown }> };
        for (const set of payload.sets) if (set.key === 'bad') set.json = { forged: true };
        await db.run('UPDATE entries SET payload = ? WHERE id = ?', [JSON.stringify(payload), row!.id]);
      });

      const second = await gateway(sessions, { timeoutMs: 10_000 });
      const t2 = second.prepareTurn({ sessionId: 'damaged' });
      const code = 'let bad; try { bad = await load("bad"); } catch (e) { bad = { code: e.code, message: e.message }; }\nreturn { good: await load("good"), bad };';
      const r = await second.exec(t2.agentRunId, { code });
      expect(r).toMatchObject({ status: 'completed', value: { good: { n: 1 }, bad: { code: 'damaged_value', message: expect.stringContaining('store a new value under "bad"') } } });
      expect(await second.exec(t2.agentRunId, { code: 'await store("bad", 2); return 1' })).toMatchObject({ status: 'completed' });
      expect(await load(second, 'damaged', 'bad')).toBe(2);
    });
  });

  describe('control calls in the transcript', () => {
    it('on exec then wait: tool-call and tool-result entries with redacted source, nested activity under its parent', async () => {
      const gw = await gateway();
      const t = gw.prepareTurn({ sessionId: 'history' });
      const code = 'const API_TOKEN = "hunter2-literal";\nconst n = computeLen(API_TOKEN);\nconst slept = sleep({ ms: 20 });\nawait yield_control("park");\nawait slept;\nreturn n;\nfunction computeLen(s) { return s.length }';
      const w = expectWaiting(await gw.exec(t.agentRunId, { code }, { toolCallId: 'call_exec_1' }));
      const done = await gw.wait(t.agentRunId, { runId: w.runId }, { toolCallId: 'call_wait_1' });
      expect(done).toMatchObject({ status: 'completed', value: 'hunter2-literal'.length });

      const entries = await gw.transcript('history');
      const kinds = entries.map((e) => e.type);
      expect(kinds.filter((k) => k === 'tool-call')).toHaveLength(2);
      expect(kinds.filter((k) => k === 'tool-result')).toHaveLength(2);

      const calls = entries.filter((e): e is Extract<TranscriptEntry, { type: 'tool-call' }> => e.type === 'tool-call');
      expect(calls[0]?.payload).toMatchObject({ tool: 'exec', toolCallId: 'call_exec_1', agentRunId: t.agentRunId });
      expect(calls[0]?.payload.code).toContain('const API_TOKEN = "***"');
      expect(calls[0]?.payload.code).toContain('computeLen(API_TOKEN)');
      expect(JSON.stringify(entries)).not.toContain('hunter2-literal');
      expect(calls[1]?.payload).toEqual({ tool: 'wait', toolCallId: 'call_wait_1', agentRunId: t.agentRunId, runId: w.runId });

      const results = entries.filter((e): e is Extract<TranscriptEntry, { type: 'tool-result' }> => e.type === 'tool-result');
      expect(results.map((r) => [r.payload.toolCallId, r.payload.status])).toEqual([
        ['call_exec_1', 'waiting'],
        ['call_wait_1', 'completed'],
      ]);
      expect(JSON.parse(results[0]!.payload.text)).toMatchObject({ status: 'waiting', runId: w.runId });
      expect(JSON.parse(results[1]!.payload.text)).toEqual(JSON.parse(JSON.stringify(done)));

      // the sleep started under exec_1 (it may finish before or after the park): one row, finished, with both parent ids
      const activity = entries.filter((e): e is Extract<TranscriptEntry, { type: 'nested-activity' }> => e.type === 'nested-activity');
      const trajectory = gw.trajectory(w.runId)!;
      const sleepCall = trajectory.calls[0]?.nested.find((n) => n.tool === 'sleep');
      expect(sleepCall).toBeDefined();
      // the yield_control() that parks the cell is in the trajectory but gets no activity row
      expect(activity).toHaveLength(trajectory.calls.flatMap((c) => c.nested).filter((n) => n.kind !== 'yield').length);
      expect(activity.find((a) => a.payload.tool === 'sleep')?.payload).toMatchObject({
        runId: w.runId,
        parentCallId: 'exec_1',
        parentToolCallId: 'call_exec_1',
        invocationId: sleepCall!.invocationId,
        kind: 'tool',
        status: 'ok',
      });
      // starts and partial updates are not persisted: each invocation appears once, finished
      const ids = activity.map((a) => a.payload.invocationId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(activity.every((a) => a.payload.endedAt !== undefined && a.payload.status !== 'running')).toBe(true);
      // order along the branch: exec call, its result, the wait call, its result
      const order = entries.filter((e) => e.type === 'tool-call' || e.type === 'tool-result').map((e) => `${e.type}:${e.payload.tool}`);
      expect(order).toEqual(['tool-call:exec', 'tool-result:exec', 'tool-call:wait', 'tool-result:wait']);
    });

    it('on a nested call dispatched by a wait: its row names the wait as parent', async () => {
      const gw = await gateway();
      const t = gw.prepareTurn({ sessionId: 'second-leg' });
      const w = expectWaiting(await gw.exec(t.agentRunId, { code: 'await sleep({ ms: 1 }); await yield_control("park"); return await sleep({ ms: 1 })' }, { toolCallId: 'x1' }));
      expect(await gw.wait(t.agentRunId, { runId: w.runId }, { toolCallId: 'x2' })).toMatchObject({ status: 'completed' });
      const rows = (await gw.transcript('second-leg')).flatMap((e) => (e.type === 'nested-activity' ? [e.payload] : []));
      expect(rows.map((r) => [r.parentCallId, r.parentToolCallId])).toEqual([
        ['exec_1', 'x1'],
        ['wait_2', 'x2'],
      ]);
    });

    it('on two runs of one session taking turns: each nested row names the tool call of its own run that dispatched it', async () => {
      const gw = await gateway();
      const t = gw.prepareTurn({ sessionId: 'interleaved' });
      const cell = (tag: string) => `await sleep({ ms: 1 }); await yield_control("park"); await sleep({ ms: 1 }); return "${tag}"`;
      const a = expectWaiting(await gw.exec(t.agentRunId, { code: cell('a') }, { toolCallId: 'a_exec' }));
      const b = expectWaiting(await gw.exec(t.agentRunId, { code: cell('b') }, { toolCallId: 'b_exec' }));
      expect(await gw.wait(t.agentRunId, { runId: b.runId }, { toolCallId: 'b_wait' })).toMatchObject({ status: 'completed', value: 'b' });
      expect(await gw.wait(t.agentRunId, { runId: a.runId }, { toolCallId: 'a_wait' })).toMatchObject({ status: 'completed', value: 'a' });
      const rows = (await gw.transcript('interleaved')).flatMap((e) => (e.type === 'nested-activity' && e.payload.tool === 'sleep' ? [e.payload] : []));
      expect(rows.map((r) => [r.runId, r.parentCallId, r.parentToolCallId]).sort()).toEqual(
        [
          [a.runId, 'exec_1', 'a_exec'],
          [a.runId, 'wait_2', 'a_wait'],
          [b.runId, 'exec_1', 'b_exec'],
          [b.runId, 'wait_2', 'b_wait'],
        ].sort(),
      );
    });

    it('on any append (control calls, nested rows, store commit, compaction): one session.appended event per entry, naming its run when it has one', async () => {
      const gw = await gateway();
      const heard: Array<Extract<RunEvent, { type: 'session.appended' }>> = [];
      gw.subscribe((e) => void (e.type === 'session.appended' && heard.push(e)));
      const t = gw.prepareTurn({ sessionId: 'announced' });
      const done = await gw.exec(t.agentRunId, { code: 'await store("k", 1); return await sleep({ ms: 1 })' }, { toolCallId: 'c1' });
      if (done.status !== 'completed') throw new Error(JSON.stringify(done));
      await gw.compactSession({ sessionId: 'announced' });
      const entries = await gw.transcript('announced');
      expect(entries.map((e) => e.type)).toEqual(['tool-call', 'nested-activity', 'nested-activity', 'code-mode-store', 'tool-result', 'compaction']);
      const runId = done.telemetry.runId;
      expect(heard.map((e) => [e.sessionId, e.entryId, e.runId])).toEqual(
        entries.map((e) => ['announced', e.id, e.type === 'tool-call' || e.type === 'compaction' ? undefined : runId]),
      );
    });

    it('on replay after restart: the model context holds only the control calls, and a compaction restarts it', async () => {
      const sessions = await backend.fresh();
      const first = await gateway(sessions);
      const t = first.prepareTurn({ sessionId: 'replay' });
      await first.exec(t.agentRunId, { code: 'await store("k", 1); return await sleep({ ms: 1 })' }, { toolCallId: 'c1' });
      await first.exec(t.agentRunId, { command: 'return 2' }, { toolCallId: 'c2' });
      await first.close();

      const second = await gateway(sessions);
      const context = await second.diagnostics.modelContext('replay');
      expect(context.map((e) => `${e.type}:${'toolCallId' in e.payload ? e.payload.toolCallId : ''}`)).toEqual([
        'tool-call:c1',
        'tool-result:c1',
        'tool-call:c2',
        'tool-result:c2',
      ]);
      expect(context[2]?.payload).toMatchObject({ tool: 'exec', command: 'return 2' });
      await second.compactSession({ sessionId: 'replay', summary: 'two cells ran' });
      expect((await second.diagnostics.modelContext('replay')).map((e) => e.type)).toEqual(['compaction']);
      expect(await load(second, 'replay', 'k')).toBe(1);
    });

    it('on an exec that fails before running: the call and its failed result are still recorded', async () => {
      const gw = await gateway();
      const t = gw.prepareTurn({ sessionId: 'invalid' });
      expect(await gw.exec(t.agentRunId, { code: 'return 1', command: 'return 2' })).toMatchObject({ status: 'failed', code: 'invalid_input' });
      const [call, result] = await gw.transcript('invalid');
      expect(call).toMatchObject({ type: 'tool-call', payload: { tool: 'exec', code: 'return 1', command: 'return 2' } });
      expect(result).toMatchObject({ type: 'tool-result', payload: { status: 'failed', errorCode: 'invalid_input' } });
    });

    it('on bad session ids: transcript fails naming sessionId; an unknown session is empty', async () => {
      const gw = await gateway();
      await expect(gw.transcript('')).rejects.toThrow(/sessionId must be a non-empty string/);
      await expect(gw.sessionStore(' ')).rejects.toThrow(/sessionId must be a non-empty string/);
      expect(await gw.transcript('nobody')).toEqual([]);
      expect(await gw.sessionStore('nobody')).toEqual([]);
    });
  });

  describe('branches and compaction', () => {
    it('on a branch: later cells load only what that branch committed; a compaction keeps every value loadable', async () => {
      const gw = await gateway();
      const t = gw.prepareTurn({ sessionId: 'forked' });
      expectCompleted(await gw.exec(t.agentRunId, { code: 'await store("k", "one"); return 1' }));
      const afterFirst = (await gw.transcript('forked')).at(-1);
      expect(afterFirst?.type).toBe('tool-result');
      expectCompleted(await gw.exec(t.agentRunId, { code: 'await store("k", "two"); await store("extra", true); return 2' }));
      expect(await load(gw, 'forked', 'k')).toBe('two');

      const branch = await gw.branchSession({ sessionId: 'forked', entryId: afterFirst!.id });
      expect(branch.at(-1)?.id).toBe(afterFirst!.id);
      expect(await load(gw, 'forked', 'k')).toBe('one');
      expect(await load(gw, 'forked', 'extra')).toBeNull();
      expect(await gw.sessionStore('forked')).toEqual([{ key: 'k', json: '"one"', networkContent: false }]);

      const compaction = await gw.compactSession({ sessionId: 'forked' });
      expect(compaction.payload.summary).toContain('store keys set: k');
      expect((await gw.diagnostics.modelContext('forked')).map((e) => e.type)).toEqual(['compaction']);
      expect(await load(gw, 'forked', 'k')).toBe('one');
      await expect(gw.branchSession({ sessionId: 'forked', entryId: 'e_nowhere' })).rejects.toThrow(/is not an entry of session "forked"/);
    });
  });

  it('on close: the Gateway holds no connection to the session database afterwards', async () => {
    const gw = await gateway();
    const t = gw.prepareTurn({ sessionId: 'closing' });
    expectCompleted(await gw.exec(t.agentRunId, { code: 'await store("k", 1); return await sleep({ ms: 1 })' }));
    await gw.close();
    const db = gw.diagnostics.sessionDatabase();
    expect(db.open).toBe(false);
    if (db.dialect === 'postgres') expect(db.openConnections).toBe(0);
    await expect(gw.transcript('closing')).rejects.toThrow(/is closed/);
  });
});

describe('a session database the Gateway cannot use at start', () => {
  it('on a PostgreSQL server nobody listens on: createGateway fails with a ConfigError naming sessions.url, without the password', async () => {
    const config = testConfig({ sessions: { url: 'postgres://codemode:hunter2@127.0.0.1:1/sessions' } });
    const err = await createGateway({ config, executors: { quickjs: executor } }).then(
      (gw) => gw.close().then(() => undefined),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ path: 'sessions.url', message: expect.stringContaining('postgres://codemode:***@127.0.0.1:1/sessions cannot be used') });
    expect((err as Error).message).not.toContain('hunter2');
  });
});
