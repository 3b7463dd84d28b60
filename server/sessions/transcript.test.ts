// Transcript trees: append under the leaf, branches, ancestry checks, compaction and the model's context view.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { openSessionDatabase, SessionStoreError } from './db.ts';
import { entryRunId, Transcript } from './transcript.ts';
import type { EntryType } from './types.ts';

const open: Transcript[] = [];
function transcript(path = ':memory:'): Transcript {
  const t = new Transcript(openSessionDatabase(path));
  open.push(t);
  return t;
}
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

const say = (t: Transcript, sessionId: string, text: string) => t.appendEntry(sessionId, 'message', { role: 'user', text });
const texts = (t: Transcript, sessionId: string) => t.branch(sessionId).map((e) => (e.type === 'message' ? e.payload.text : e.type));

describe('hasEntries', () => {
  it('is false for an unknown session, true once it has an entry, and stays true after branching to before the first entry', () => {
    const t = transcript();
    expect(t.hasEntries('s')).toBe(false);
    say(t, 's', 'a');
    expect(t.hasEntries('s')).toBe(true);
    expect(t.hasEntries('other')).toBe(false);
    t.branchFrom('s', null);
    expect(t.branch('s')).toEqual([]);
    expect(t.hasEntries('s')).toBe(true);
  });
});

describe('onAppend', () => {
  it('on appends: each listener hears every written entry once, as appendEntry returns it; after unsubscribing, none', () => {
    const t = transcript();
    const heard: unknown[] = [];
    const stop = t.onAppend((entry) => heard.push(entry));
    const a = say(t, 's', 'a');
    const stored = t.appendEntry('other', 'code-mode-store', { runId: 'run_1', sets: [], deletes: ['k'] });
    expect(heard).toEqual([a, stored]);
    stop();
    say(t, 's', 'b');
    expect(heard).toHaveLength(2);
  });

  it('on an append that fails: no listener hears of it', () => {
    const t = transcript();
    const heard: unknown[] = [];
    t.onAppend((entry) => heard.push(entry));
    expect(() => t.appendEntry('', 'message', { role: 'user', text: 'x' })).toThrow(InvalidInputError);
    expect(heard).toEqual([]);
  });
});

describe('entryRunId', () => {
  it('names the run of result, nested-activity, store and wait-call entries; none for an exec call, a message or a damaged store entry', () => {
    const t = transcript();
    const result = t.appendEntry('s', 'tool-result', { tool: 'exec', toolCallId: 'c1', status: 'completed', runId: 'run_r', text: '{}' });
    const wait = t.appendEntry('s', 'tool-call', { tool: 'wait', toolCallId: 'c2', agentRunId: 'ar', runId: 'run_w' });
    const exec = t.appendEntry('s', 'tool-call', { tool: 'exec', toolCallId: 'c3', agentRunId: 'ar', code: 'return 1' });
    const store = t.appendEntry('s', 'code-mode-store', { runId: 'run_s', sets: [], deletes: [] });
    const damaged = { ...store, payload: { runId: '', sets: [], deletes: [] } };
    expect([result, wait, exec, store, damaged, say(t, 's', 'hi')].map(entryRunId)).toEqual(['run_r', 'run_w', undefined, 'run_s', undefined, undefined]);
  });
});

describe('appendEntry', () => {
  it('on appends: each entry hangs under the previous one and becomes the leaf', () => {
    const t = transcript();
    const a = say(t, 's', 'a');
    const b = say(t, 's', 'b');
    expect(a.parentId).toBeNull();
    expect(b.parentId).toBe(a.id);
    expect(t.leaf('s')).toBe(b.id);
    expect(texts(t, 's')).toEqual(['a', 'b']);
  });

  it('on two sessions: each has its own tree', () => {
    const t = transcript();
    say(t, 's1', 'one');
    say(t, 's2', 'two');
    expect(texts(t, 's1')).toEqual(['one']);
    expect(texts(t, 's2')).toEqual(['two']);
    expect(t.sessions().map((s) => s.sessionId).sort()).toEqual(['s1', 's2']);
  });

  it('on bad input: fails naming the field and what to pass', () => {
    const t = transcript();
    expect(() => say(t, '  ', 'x')).toThrow(/sessionId must be a non-empty string/);
    expect(() => say(t, 'x'.repeat(500), 'x')).toThrow(/sessionId is 500 characters/);
    expect(() => t.appendEntry('s', 'note' as EntryType, { role: 'user', text: 'x' })).toThrow(/type must be one of tool-call/);
    expect(() => t.appendEntry('s', 'message', null as never)).toThrow(/payload of a "message" entry must be a JSON object/);
    const cyclic: Record<string, unknown> = { role: 'user', text: 'x' };
    cyclic.self = cyclic;
    expect(() => t.appendEntry('s', 'message', cyclic as never)).toThrow(InvalidInputError);
    expect(t.branch('s')).toEqual([]);
  });
});

describe('branches', () => {
  it('on branchFrom: later entries form a new branch and the old branch leaves the path but stays stored', () => {
    const t = transcript();
    const a = say(t, 's', 'a');
    say(t, 's', 'b');
    t.branchFrom('s', a.id);
    expect(texts(t, 's')).toEqual(['a']);
    const c = say(t, 's', 'c');
    expect(c.parentId).toBe(a.id);
    expect(texts(t, 's')).toEqual(['a', 'c']);
    expect(t.sessions()[0]?.entryCount).toBe(3);
  });

  it('on branchFrom null: the next entry starts a new root', () => {
    const t = transcript();
    say(t, 's', 'a');
    t.branchFrom('s', null);
    expect(t.branch('s')).toEqual([]);
    expect(say(t, 's', 'fresh').parentId).toBeNull();
    expect(texts(t, 's')).toEqual(['fresh']);
  });

  it('on branchFrom an entry of another session or an unknown id: fails naming entryId and leaves the leaf', () => {
    const t = transcript();
    const other = say(t, 'other', 'x');
    const mine = say(t, 's', 'a');
    expect(() => t.branchFrom('s', other.id)).toThrow(/entryId "e_.*" is not an entry of session "s"/);
    expect(() => t.branchFrom('s', 'e_missing')).toThrow(InvalidInputError);
    expect(() => t.branchFrom('nobody', null)).toThrow(/has no transcript yet/);
    expect(t.leaf('s')).toBe(mine.id);
  });

  it('on branchFrom: the session generation changes so cached projections rebuild', () => {
    const t = transcript();
    const a = say(t, 's', 'a');
    const before = t.generation('s');
    t.branchFrom('s', a.id);
    expect(t.generation('s')).toBe(before + 1);
  });

  it('on a leaf that matches no entry: reading the branch fails instead of showing another branch', () => {
    const t = transcript();
    say(t, 's', 'a');
    t.db.pragma('foreign_keys = OFF');
    t.db.prepare("UPDATE sessions SET leaf_id = 'e_gone' WHERE id = 's'").run();
    expect(() => t.branch('s')).toThrow(SessionStoreError);
    expect(() => t.branch('s')).toThrow(/leaf "e_gone" of session "s" matches no entry/);
  });

  it('on a file database: the tree and the leaf survive reopening', () => {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-transcript-'));
    try {
      const path = join(dir, 'nested', 'sessions.db');
      const first = transcript(path);
      const a = say(first, 's', 'a');
      say(first, 's', 'b');
      first.branchFrom('s', a.id);
      first.close();
      const second = transcript(path);
      expect(second.leaf('s')).toBe(a.id);
      expect(texts(second, 's')).toEqual(['a']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('compaction', () => {
  it('on compact: the model context starts at the summary and leaves out activity and store entries', () => {
    const t = transcript();
    say(t, 's', 'old question');
    t.appendEntry('s', 'code-mode-store', { runId: 'r1', sets: [{ key: 'k', json: '1', networkContent: false }], deletes: [] });
    const c = t.compact('s', 'the user asked about k');
    expect(c.payload).toEqual({ summary: 'the user asked about k', compactedEntries: 2 });
    say(t, 's', 'new question');
    t.appendEntry('s', 'nested-activity', {
      runId: 'r2',
      parentCallId: 'exec_1',
      invocationId: 'cm_x:1',
      requestId: '1',
      tool: 'probe',
      kind: 'tool',
      status: 'ok',
      inputBytes: 10,
      startedAt: 1,
    });
    expect(t.context('s').map((e) => e.type)).toEqual(['compaction', 'message']);
    expect(texts(t, 's')).toEqual(['old question', 'code-mode-store', 'compaction', 'new question', 'nested-activity']);
    expect(t.compact('s', 'again').payload.compactedEntries).toBe(2);
  });

  it('on an empty summary: fails naming summary', () => {
    const t = transcript();
    say(t, 's', 'a');
    expect(() => t.compact('s', ' ')).toThrow(/summary must be a non-empty string/);
  });
});

describe('appendDeferred (batched display-only rows)', () => {
  const activity = (n: number) => ({
    runId: 'run_1',
    parentCallId: 'c1',
    invocationId: `cell:${n}`,
    requestId: `r${n}`,
    tool: 'noop',
    kind: 'tool' as const,
    status: 'ok' as const,
    inputBytes: 2,
    startedAt: n,
  });

  it('on rows queued between other appends: a read sees them at once, in append order, chained under the leaf', () => {
    const t = transcript();
    say(t, 's', 'before');
    const errors: string[] = [];
    t.appendDeferred('s', 'nested-activity', activity(1), (m) => errors.push(m));
    t.appendDeferred('s', 'nested-activity', activity(2), (m) => errors.push(m));
    t.appendDeferred('other', 'nested-activity', activity(3), (m) => errors.push(m));
    // a write flushes the queue first, so the message lands after the two rows
    say(t, 's', 'after');
    const branch = t.branch('s');
    expect(branch.map((e) => (e.type === 'nested-activity' ? e.payload.invocationId : e.type === 'message' ? e.payload.text : e.type))).toEqual(['before', 'cell:1', 'cell:2', 'after']);
    for (let i = 1; i < branch.length; i++) expect(branch[i]?.parentId).toBe(branch[i - 1]?.id);
    expect(t.branch('other').map((e) => e.type)).toEqual(['nested-activity']);
    expect(errors).toEqual([]);
  });

  it('on a batch: the append listeners hear every row once; nothing queued is lost when the transcript closes', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cm-deferred-')), 'db.sqlite');
    const t = new Transcript(openSessionDatabase(path));
    const heard: string[] = [];
    t.onAppend((e) => heard.push(e.type === 'nested-activity' ? e.payload.invocationId : e.type));
    for (let n = 1; n <= 3; n++) t.appendDeferred('s', 'nested-activity', activity(n), () => {});
    t.flushDeferred();
    expect(heard).toEqual(['cell:1', 'cell:2', 'cell:3']);
    t.appendDeferred('s', 'nested-activity', activity(4), () => {});
    t.close();
    const reopened = transcript(path);
    expect(reopened.branch('s').map((e) => (e.type === 'nested-activity' ? e.payload.invocationId : e.type))).toEqual(['cell:1', 'cell:2', 'cell:3', 'cell:4']);
    rmSync(path, { force: true });
  });

  it('on an invalid session id or payload: throws at once, like appendEntry, and queues nothing', () => {
    const t = transcript();
    expect(() => t.appendDeferred('', 'nested-activity', activity(1), () => {})).toThrow(InvalidInputError);
    expect(() => t.appendDeferred('s', 'nested-activity', [] as never, () => {})).toThrow(/JSON object/);
    expect(t.branch('s')).toEqual([]);
  });
});
