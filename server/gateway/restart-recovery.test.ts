// Restart recovery: a wait on a run an earlier Gateway process parked, answered from the session transcript (after a close, and after kill -9).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { Gateway } from '../gateway.ts';
import { MSG_ALREADY_RESUMING, MSG_UNAVAILABLE } from '../runs/messages.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { openSqliteDatabase } from '../sessions/sqlite.ts';
import type { TranscriptEntry } from '../sessions/types.ts';
import { expectCompleted, expectFailed, expectWaiting, testGateway, until } from '../testing.ts';
import { REPO_ROOT } from '../tools/testing.ts';
import { findRecordedRun, rebuiltWarning, type RecordedRun } from './restart-recovery.ts';
import { heldRead, ORDINARY_CELL, RESTART_SAFE_CELL, type HeldRead } from './restart-recovery.testing.ts';
import { firstLineThenKill } from './child-gateway.testing.ts';

let executor: QuickJsExecutor;
let dir: string;
let files = 0;

beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 1 });
  await executor.ready();
  dir = mkdtempSync(join(tmpdir(), 'codemode-restart-'));
});
afterAll(async () => {
  await executor.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A Gateway on the SQLite file `path` with `held_read`. The first process parks cells on a read it never releases
 * (a small exec deadline); a restarted one gets a generous deadline, so a rebuilt cell finishes in its first leg.
 */
async function gateway(path: string, read: HeldRead, timeoutMs = 10_000): Promise<Gateway> {
  return testGateway({ executor, tools: [read.tool], codeMode: { timeoutMs }, config: { sessions: { path } } });
}

function freshFile(): string {
  return join(dir, `r${++files}.db`);
}

/** Parks a restartSafe and an ordinary cell in session `sessionId` on a Gateway over `path`, then closes that Gateway. */
async function parkThenClose(path: string, sessionId: string): Promise<{ safe: string; ordinary: string; transcript: TranscriptEntry[] }> {
  const first = await gateway(path, heldRead('never'), 300);
  const t = first.prepareTurn({ sessionId });
  const safe = expectWaiting(await first.exec(t.agentRunId, { code: RESTART_SAFE_CELL, restartSafe: true })).runId;
  const ordinary = expectWaiting(await first.exec(t.agentRunId, { code: ORDINARY_CELL })).runId;
  const transcript = await first.transcript(sessionId);
  await first.close();
  return { safe, ordinary, transcript };
}

/** Waits on `runId` in a new turn of `sessionId` until it is no longer waiting. */
async function waitOut(gw: Gateway, agentRunId: string, runId: string): Promise<CodeModeResult> {
  let r = await gw.wait(agentRunId, { runId });
  while (r.status === 'waiting') {
    expect(r.runId).toBe(runId);
    r = await gw.wait(agentRunId, { runId });
  }
  return r;
}

describe('spec 01/02 restart recovery: a restartSafe cell that was waiting is rebuilt from the transcript', () => {
  it('on a new Gateway on the same file, a new turn of the same session: wait(old runId) re-runs its replay-safe read and completes with the value, under the same run id', async () => {
    const path = freshFile();
    const parked = await parkThenClose(path, 'notes');
    const read = heldRead('42 widgets');
    read.release();
    const second = await gateway(path, read);
    const t = second.prepareTurn({ sessionId: 'notes' });
    const done = expectCompleted(await waitOut(second, t.agentRunId, parked.safe));
    expect(done.value).toEqual({ read: '42 widgets', calls: 1 });
    expect(done.telemetry.runId).toBe(parked.safe);
    expect(done.warnings).toEqual([rebuiltWarning(0)]);
    expect(done.warnings?.[0]).toContain('rebuilt from the session transcript and run again from the start');
    expect(read.calls()).toBe(1);
    // the run is this process's now: it answers as any finished run does
    expect(await second.wait(t.agentRunId, { runId: parked.safe })).toMatchObject({ status: 'failed', code: 'invalid_input', error: MSG_UNAVAILABLE });
    // the transcript kept everything from before, then this wait and its completed result under the same run id
    const after = await second.transcript('notes');
    expect(after.slice(0, parked.transcript.length)).toEqual(parked.transcript);
    const results = after.filter((e) => e.type === 'tool-result' && e.payload.runId === parked.safe).map((e) => e.type === 'tool-result' && [e.payload.tool, e.payload.status]);
    // (the refused wait above failed before any run, so its result names no run)
    expect(results).toEqual([
      ['exec', 'waiting'],
      ['wait', 'completed'],
    ]);
  });

  it('on a rebuilt cell that parks again: waiting under the old run id, and the next wait completes it', async () => {
    const path = freshFile();
    const parked = await parkThenClose(path, 'again');
    const read = heldRead('late');
    const second = await gateway(path, read, 300);
    const t = second.prepareTurn({ sessionId: 'again' });
    expect(expectWaiting(await second.wait(t.agentRunId, { runId: parked.safe })).runId).toBe(parked.safe);
    expect(read.calls()).toBe(1);
    read.release();
    expect(expectCompleted(await waitOut(second, t.agentRunId, parked.safe)).value).toEqual({ read: 'late', calls: 1 });
  });

  it('on a second wait while the rebuild is in flight: refused as already resuming, and the first completes', async () => {
    const path = freshFile();
    const parked = await parkThenClose(path, 'twice');
    const read = heldRead('once');
    const second = await gateway(path, read);
    const t = second.prepareTurn({ sessionId: 'twice' });
    const first = second.wait(t.agentRunId, { runId: parked.safe });
    await until(() => read.calls() === 1, { what: 'the rebuilt cell to call held_read again' });
    expect(await second.wait(t.agentRunId, { runId: parked.safe })).toMatchObject({ status: 'failed', code: 'invalid_input', error: MSG_ALREADY_RESUMING });
    read.release();
    expect(expectCompleted(await first).value).toEqual({ read: 'once', calls: 1 });
    expect(read.calls()).toBe(1);
  });
});

describe('spec 01 restart recovery: only replay-safe calls are replayed, and the yields already passed are passed again', () => {
  it('on a cell that yielded twice and was continued past the first: the wait after a restart continues past the second, with the same draws (its recorded seed)', async () => {
    const path = freshFile();
    const first = await gateway(path, heldRead('x'));
    const t1 = first.prepareTurn({ sessionId: 'yields' });
    const code = 'const a = Math.random();\nawait yield_control("one");\nconst b = Math.random();\nawait yield_control("two");\nreturn [a, b, Math.random()];';
    const parked = expectWaiting(await first.exec(t1.agentRunId, { code, restartSafe: true }));
    expect(expectWaiting(await first.wait(t1.agentRunId, { runId: parked.runId })).reason).toBe('yield');
    const seed = first.run(parked.runId)!.seed;
    await first.close();
    const second = await gateway(path, heldRead('x'));
    const t2 = second.prepareTurn({ sessionId: 'yields' });
    const done = expectCompleted(await second.wait(t2.agentRunId, { runId: parked.runId }));
    expect(done.warnings).toEqual([rebuiltWarning(2)]);
    expect(done.warnings?.[0]).toContain('passing again the 2 yields already continued');
    // the same cell from the same seed in a fresh turn draws the same three numbers
    const t3 = second.prepareTurn({});
    let again = await second.exec(t3.agentRunId, { code }, { seed });
    while (again.status === 'waiting') again = await second.wait(t3.agentRunId, { runId: again.runId });
    expect(done.value).toEqual(expectCompleted(again).value);
  });

  it('on a tool the restarted Gateway no longer marks replay-safe: the rebuilt cell may not call it (a catchable invalid_input, here uncaught), and it is never called', async () => {
    const path = freshFile();
    const parked = await parkThenClose(path, 'unsafe-now');
    const read = heldRead('unused');
    read.release();
    const second = await testGateway({ executor, tools: [{ ...read.tool, replaySafe: false }], codeMode: { timeoutMs: 10_000 }, config: { sessions: { path } } });
    const t = second.prepareTurn({ sessionId: 'unsafe-now' });
    const r = expectFailed(await second.wait(t.agentRunId, { runId: parked.safe }));
    expect(r.error).toContain('held_read is not replay-safe; restartSafe cells may call only audited read-only tools');
    expect(read.calls()).toBe(0);
  });
});

describe('spec 01 restart recovery: a run that was not restartSafe answers failed, never "unknown run"', () => {
  it('on wait(old runId) after a restart: failed with runtime_unavailable saying the Gateway restarted and the run was not restartSafe; nothing is re-run', async () => {
    const path = freshFile();
    const parked = await parkThenClose(path, 'plain');
    const read = heldRead('unused');
    read.release();
    const second = await gateway(path, read);
    const t = second.prepareTurn({ sessionId: 'plain' });
    const failed = expectFailed(await second.wait(t.agentRunId, { runId: parked.ordinary }), 'runtime_unavailable');
    expect(failed.error).toContain(`code mode run ${parked.ordinary} could not be kept: the Gateway restarted while it was waiting, and it was not restartSafe`);
    expect(failed.error).toContain('run the cell again');
    expect(failed.error).not.toContain(MSG_UNAVAILABLE);
    expect(read.calls()).toBe(0);
    // the answer is recorded, and asking again gives the same answer (the transcript still says it was waiting)
    expect(expectFailed(await second.wait(t.agentRunId, { runId: parked.ordinary }), 'runtime_unavailable').error).toBe(failed.error);
  });

  it('on a run id of another session: unknown ("unavailable or expired"), and the owning session still rebuilds it afterwards', async () => {
    const path = freshFile();
    const parked = await parkThenClose(path, 'owner');
    const read = heldRead('mine');
    read.release();
    const second = await gateway(path, read);
    const stranger = second.prepareTurn({ sessionId: 'stranger' });
    for (const runId of [parked.safe, parked.ordinary]) {
      expect(await second.wait(stranger.agentRunId, { runId })).toMatchObject({ status: 'failed', code: 'invalid_input', error: MSG_UNAVAILABLE });
    }
    expect(read.calls()).toBe(0);
    const owner = second.prepareTurn({ sessionId: 'owner' });
    expect(expectCompleted(await waitOut(second, owner.agentRunId, parked.safe)).value).toEqual({ read: 'mine', calls: 1 });
  });

  it('on a run that had already completed before the restart: invalid_input naming what the transcript recorded', async () => {
    const path = freshFile();
    const first = await gateway(path, heldRead('x'), 10_000);
    const t1 = first.prepareTurn({ sessionId: 'finished' });
    const parked = expectWaiting(await first.exec(t1.agentRunId, { code: 'await yield_control("once");\nreturn 7', restartSafe: true }));
    expect(expectCompleted(await first.wait(t1.agentRunId, { runId: parked.runId })).value).toBe(7);
    await first.close();
    const second = await gateway(path, heldRead('x'));
    const t2 = second.prepareTurn({ sessionId: 'finished' });
    const r = expectFailed(await second.wait(t2.agentRunId, { runId: parked.runId }), 'invalid_input');
    expect(r.error).toBe(`${MSG_UNAVAILABLE} Run ${parked.runId} had already completed before the Gateway restarted; its result is in the transcript.`);
  });
});

describe('restart recovery reads the transcript as hostile', () => {
  /** Rewrites the exec tool-call row of the run's cell in `path` with `edit` (raw SQL, as an operator could). */
  async function damageExecCall(path: string, edit: (payload: Record<string, unknown>) => string): Promise<void> {
    const db = openSqliteDatabase(path);
    try {
      const rows = await db.all<{ id: string; payload: string }>("SELECT id, payload FROM entries WHERE type = 'tool-call'");
      const row = rows.find((r) => (JSON.parse(r.payload) as { restartSafe?: boolean }).restartSafe === true);
      await db.run('UPDATE entries SET payload = ? WHERE id = ?', [edit(JSON.parse(row!.payload) as Record<string, unknown>), row!.id]);
    } finally {
      await db.close();
    }
  }

  const damages: Array<{ what: string; edit: (p: Record<string, unknown>) => string; error: string }> = [
    { what: 'a code that is not a string', edit: (p) => JSON.stringify({ ...p, code: 42 }), error: "its exec call's code is 42, not a string" },
    { what: 'a seed out of range', edit: (p) => JSON.stringify({ ...p, seed: -1 }), error: "its exec call's seed is -1, not an integer from 0 to 4294967295" },
    { what: 'the exec call gone (its tool-call id changed)', edit: (p) => JSON.stringify({ ...p, toolCallId: 'call_other' }), error: 'the transcript holds no exec call for the result that started it' },
    { what: 'a code grown past maxSourceBytes', edit: (p) => JSON.stringify({ ...p, code: `${String(p.code)}\n//${'x'.repeat(300_000)}` }), error: 'its recorded source is over the limit (exec: the cell\'s code is' },
    { what: 'a payload that is not JSON', edit: () => '{not json', error: 'the session transcript, where the runs of an earlier process are looked up, could not be read' },
  ];
  for (const d of damages) {
    it(`on an exec row with ${d.what}: a failed result that names the damage, not a throw, and no re-run`, async () => {
      const path = freshFile();
      const parked = await parkThenClose(path, 'damaged');
      await damageExecCall(path, d.edit);
      const read = heldRead('unused');
      read.release();
      const second = await gateway(path, read);
      const t = second.prepareTurn({ sessionId: 'damaged' });
      const r = expectFailed(await second.wait(t.agentRunId, { runId: parked.safe }), 'runtime_unavailable');
      expect(r.error).toContain(d.error);
      expect(read.calls()).toBe(0);
    });
  }

  it('on a recorded source with masked credentials: refused with what stands in the way (the masked text is not the cell that ran)', async () => {
    const path = freshFile();
    const first = await gateway(path, heldRead('never'), 300);
    const t1 = first.prepareTurn({ sessionId: 'masked' });
    const code = 'const API_TOKEN = "abc123";\nconst r = await held_read({ q: API_TOKEN });\nreturn r.answer;';
    const parked = expectWaiting(await first.exec(t1.agentRunId, { code, restartSafe: true }));
    await first.close();
    const read = heldRead('unused');
    read.release();
    const second = await gateway(path, read);
    const t2 = second.prepareTurn({ sessionId: 'masked' });
    const r = expectFailed(await second.wait(t2.agentRunId, { runId: parked.runId }), 'runtime_unavailable');
    expect(r.error).toContain('its recorded source has values masked (***), so it is not the cell that ran. Run the cell again.');
    expect(read.calls()).toBe(0);
  });
});

describe('findRecordedRun: the transcript rows of one run', () => {
  let seq = 0;
  const at = 1_000;
  function entry(type: 'tool-call' | 'tool-result', payload: Record<string, unknown>, createdAt = at): TranscriptEntry {
    return { id: `e${++seq}`, parentId: null, sessionId: 's', type, payload, createdAt } as unknown as TranscriptEntry;
  }
  const execCall = (extra: Record<string, unknown> = {}) => entry('tool-call', { tool: 'exec', toolCallId: 'c1', agentRunId: 'a', code: 'return 1', restartSafe: true, seed: 5, clock: 'real', ...extra });
  const execWaiting = entry('tool-result', { tool: 'exec', toolCallId: 'c1', status: 'waiting', runId: 'run_1', text: '{}' });

  it('on a parked restartSafe exec: waiting, with its source, language, seed and clock', () => {
    expect(findRecordedRun([execCall({ language: 'typescript' }), execWaiting], 'run_1', 2_000)).toEqual<RecordedRun>({
      kind: 'waiting',
      exec: { toolCallId: 'c1', input: { code: 'return 1', language: 'typescript', restartSafe: true }, restartSafe: true, seed: 5, clock: 'real', yieldsPassed: 0 },
    });
  });

  it('on an unknown id, or rows this process wrote (newer than its start): absent, so the run manager answers', () => {
    expect(findRecordedRun([execCall(), execWaiting], 'run_2', 2_000)).toEqual({ kind: 'absent' });
    expect(findRecordedRun([execCall(), execWaiting], 'run_1', at - 1)).toEqual({ kind: 'absent' });
  });

  it('on a later wait result: the last one decides (completed is finished; waiting again is still waiting)', () => {
    const waitDone = entry('tool-result', { tool: 'wait', toolCallId: 'c2', status: 'failed', errorCode: 'timeout', runId: 'run_1', text: '{}' });
    expect(findRecordedRun([execCall(), execWaiting, waitDone], 'run_1', 2_000)).toEqual({ kind: 'finished', status: 'failed', errorCode: 'timeout' });
    const waitParked = entry('tool-result', { tool: 'wait', toolCallId: 'c2', status: 'waiting', runId: 'run_1', text: '{}' });
    expect(findRecordedRun([execCall(), execWaiting, waitParked], 'run_1', 2_000)).toMatchObject({ kind: 'waiting' });
  });

  it('on yields: counts the waiting results that parked on a yield (reason, or the model text of rows without it)', () => {
    const yielded = (toolCallId: string, extra: Record<string, unknown>) => entry('tool-result', { tool: 'wait', toolCallId, status: 'waiting', runId: 'run_1', ...extra });
    const rows = [
      execCall(),
      entry('tool-result', { tool: 'exec', toolCallId: 'c1', status: 'waiting', runId: 'run_1', reason: 'yield', text: '' }),
      yielded('c2', { reason: 'pending_tools', text: '' }),
      yielded('c3', { text: '{"status":"waiting","runId":"run_1","reason":"yield"}' }),
      yielded('c4', { text: '<<<EXTERNAL_UNTRUSTED_CONTENT>>> {"reason":"yield"}' }),
    ];
    expect(findRecordedRun(rows, 'run_1', 2_000)).toMatchObject({ kind: 'waiting', exec: { yieldsPassed: 2 } });
  });

  it('on hostile rows: damage named, never a throw', () => {
    const odd = entry('tool-result', { tool: 'wait', toolCallId: 'c2', status: { x: 1 }, runId: 'run_1', text: '{}' });
    expect(findRecordedRun([execCall(), execWaiting, odd], 'run_1', 2_000)).toEqual({ kind: 'damaged', reason: 'its last recorded result has status {"x":1}, not completed, waiting or failed' });
    const waitOnly = entry('tool-result', { tool: 'wait', toolCallId: 'c2', status: 'waiting', runId: 'run_1', text: '{}' });
    expect(findRecordedRun([waitOnly], 'run_1', 2_000)).toEqual({ kind: 'damaged', reason: 'the transcript holds no waiting exec result that started it' });
    expect(findRecordedRun([execCall({ code: undefined })], 'run_1', 2_000)).toEqual({ kind: 'absent' });
    expect(findRecordedRun([execCall({ code: undefined }), execWaiting], 'run_1', 2_000)).toEqual({ kind: 'damaged', reason: 'its exec call has neither code nor command' });
    expect(findRecordedRun([execCall({ restartSafe: 'yes' }), execWaiting], 'run_1', 2_000)).toEqual({ kind: 'damaged', reason: `its exec call's restartSafe is "yes", not true or false` });
    expect(findRecordedRun([execCall({ clock: 'x'.repeat(100) }), execWaiting], 'run_1', 2_000)).toMatchObject({ kind: 'damaged', reason: expect.stringContaining('…, not "real", "logical" or "replayed"') });
    // rows whose run id is not a string are not this run's
    expect(findRecordedRun([execCall(), entry('tool-result', { tool: 'exec', toolCallId: 'c1', status: 'waiting', runId: ['run_1'], text: '' })], 'run_1', 2_000)).toEqual({ kind: 'absent' });
  });
});

describe('restart recovery after kill -9', () => {
  it('on a child Gateway killed with SIGKILL while both cells wait: a new Gateway on its file completes the restartSafe one and fails the other clearly', async () => {
    const path = freshFile();
    const line = await firstLineThenKill(join(REPO_ROOT, 'server/gateway/restart-recovery-child.testing.ts'), [path]);
    const { safe, ordinary } = JSON.parse(line) as { safe: CodeModeResult; ordinary: CodeModeResult };
    const safeId = expectWaiting(safe).runId;
    const ordinaryId = expectWaiting(ordinary).runId;

    const read = heldRead('after the crash');
    read.release();
    const second = await gateway(path, read);
    const t = second.prepareTurn({ sessionId: 'crash' });
    expect(expectCompleted(await waitOut(second, t.agentRunId, safeId)).value).toEqual({ read: 'after the crash', calls: 1 });
    expect(expectFailed(await second.wait(t.agentRunId, { runId: ordinaryId }), 'runtime_unavailable').error).toContain('the Gateway restarted while it was waiting, and it was not restartSafe');
  }, 180_000);
});
