// The host side of the bridge treats guest requests as hostile: only the run's projection is reachable.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildCatalog } from '../catalog/build.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { ResultsStore } from '../results/store.ts';
import { SessionStore } from '../sessions/store.ts';
import { testCodeModeOptions, testContext } from '../tools/testing.ts';
import { CallScheduler } from './scheduler.ts';
import { dispatchRequest, MAX_TIMER_DELAY_MS, type DispatchContext } from './dispatcher.ts';
import { MAX_SLEEP_MS } from '../tools/core/sleep.ts';
import type { BridgeRequest } from './protocol.ts';

const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object' },
  source: 'core',
  execute: async (input) => ({ tool: name, input }),
  ...extra,
});

const allowed = [tool('read'), tool('lookup-user', { source: 'mcp', owner: 'demo' }), tool('delete', { source: 'external_plugin', owner: 'edge' })];
const catalog = buildCatalog(allowed);

function context(over: Partial<DispatchContext> = {}): DispatchContext {
  return {
    catalog,
    options: testCodeModeOptions(),
    scheduler: new CallScheduler(),
    results: new ResultsStore(1 << 20),
    sessions: new SessionStore(),
    sessionId: 's',
    storeBuffer: new Map(),
    restartSafe: false,
    headless: false,
    signal: new AbortController().signal,
    toolContext: () => testContext(),
    hooks: {
      beforeToolCall: async (_e, input) => ({ input }),
      requestApproval: async () => ({ approved: true }),
      callClient: async () => null,
    },
    markNetworkContent: () => undefined,
    hasNetworkContent: () => false,
    onStatus: () => undefined,
    ...over,
  };
}

async function reply(req: BridgeRequest, ctx = context()) {
  return dispatchRequest(ctx, req, 'cm_test:1').reply;
}

describe('dispatchRequest', () => {
  it('on a projected callable name: runs the tool', async () => {
    expect(await reply({ id: 'r1', op: 'call', tool: 'read', input: { path: 'a' } })).toEqual({ id: 'r1', ok: true, value: { tool: 'read', input: { path: 'a' } } });
  });

  it('on the raw name of a suffixed tool, a denied tool, or a catalog id: refuses with not_found', async () => {
    const deleteEntry = catalog.entries.find((e) => e.name === 'delete')!;
    expect(deleteEntry.callableName).not.toBe('delete');
    for (const forged of ['delete', 'web_fetch', deleteEntry.id, 'constructor', '__proto__']) {
      expect(await reply({ id: 'r2', op: 'call', tool: forged, input: {} })).toMatchObject({ ok: false, code: 'not_found' });
    }
    // no oracle: a correct id guess is answered exactly like a wrong one
    const fake = 't_' + '0'.repeat(deleteEntry.id.length - 2);
    const real = await reply({ id: 'r3', op: 'call', tool: deleteEntry.id, input: {} });
    const wrong = await reply({ id: 'r3', op: 'call', tool: fake, input: {} });
    expect(JSON.stringify(real).replaceAll(deleteEntry.id, 'ID')).toBe(JSON.stringify(wrong).replaceAll(fake, 'ID'));
  });

  it('on an MCP lookalike (the unescaped name or another server): refuses with not_found', async () => {
    const escaped = [...catalog.mcp.get('demo')!.keys()][0]!;
    expect(escaped).not.toBe('lookup-user');
    expect(await reply({ id: 'r3', op: 'call', mcp: ['demo', escaped], input: {} })).toMatchObject({ ok: true });
    expect(await reply({ id: 'r4', op: 'call', mcp: ['demo', 'lookup-user'], input: {} })).toMatchObject({ ok: false, code: 'not_found' });
    expect(await reply({ id: 'r5', op: 'call', mcp: ['other', escaped], input: {} })).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('on a restartSafe cell: refuses tools that are not replay-safe and store ops', async () => {
    const ctx = context({ restartSafe: true });
    expect(await reply({ id: 'r6', op: 'call', tool: 'read', input: {} }, ctx)).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(await reply({ id: 'r7', op: 'store', action: 'set', key: 'k', json: '1' }, ctx)).toMatchObject({ ok: false, code: 'invalid_input' });
  });

  it('on a headless cell: calls any tool, refuses store and results ops; the refused ops leave the results store as it was', async () => {
    const ctx = context({ headless: true });
    const { ref } = ctx.results.save('1', false);
    expect(await reply({ id: 'h1', op: 'call', tool: 'read', input: { path: 'notes.md' } }, ctx)).not.toMatchObject({ code: 'invalid_input' });
    expect(await reply({ id: 'h2', op: 'store', action: 'get', key: 'k' }, ctx)).toMatchObject({ ok: false, code: 'invalid_input', error: expect.stringContaining('headless') });
    for (const [id, action] of [['h3', 'save'], ['h4', 'load'], ['h5', 'delete']] as const) {
      expect(await reply({ id, op: 'results', action, ref, json: '2' }, ctx)).toMatchObject({ ok: false, code: 'invalid_input', error: expect.stringContaining('headless') });
    }
    expect(ctx.results.size).toBe(1);
  });

  it('on a hook block or an approval denial: replies with a coded error naming the reason', async () => {
    const blocked = context({ hooks: { ...context().hooks, beforeToolCall: async (_e, input) => ({ blocked: 'no reading today', input }) } });
    expect(await reply({ id: 'r8', op: 'call', tool: 'read', input: {} }, blocked)).toMatchObject({ ok: false, code: 'blocked', error: expect.stringContaining('no reading today') });
    const approvalTool = buildCatalog([tool('exec', { approval: 'required' })]);
    const denied = context({ catalog: approvalTool, hooks: { ...context().hooks, requestApproval: async () => ({ approved: false, reason: 'nope' }) } });
    expect(await reply({ id: 'r9', op: 'call', tool: 'exec', input: {} }, denied)).toMatchObject({ ok: false, code: 'approval_denied', error: expect.stringContaining('nope') });
  });

  it('spec 02 "a sequential call blocks later calls until its result has been accepted": a later call, its hooks included, waits while a sequential call awaits approval', async () => {
    const cat = buildCatalog([tool('exec', { executionMode: 'sequential', approval: 'required', execute: async () => 'listed' }), tool('read')]);
    let approve!: () => void;
    const events: string[] = [];
    const ctx = context({
      catalog: cat,
      hooks: {
        ...context().hooks,
        beforeToolCall: async (entry, input) => (events.push(`hook ${entry.callableName}`), { input }),
        requestApproval: () => (events.push('approval asked'), new Promise((r) => (approve = () => r({ approved: true })))),
      },
      toolContext: () => testContext(),
      onStatus: (id, status) => void events.push(`${id} ${status}`),
    });
    const seq = dispatchRequest(ctx, { id: 'a', op: 'call', tool: 'exec', input: {} }, 'cm_test:1');
    const later = dispatchRequest(ctx, { id: 'b', op: 'call', tool: 'read', input: {} }, 'cm_test:2');
    await vi.waitFor(() => expect(events).toContain('approval asked'), { timeout: 20_000 });
    // the later call is queued behind the sequential one: its hooks have not run, the tool has not started
    expect(events).toEqual(['b queued', 'hook exec', 'a awaiting_approval', 'approval asked']);
    approve();
    expect(await seq.reply).toMatchObject({ ok: true, value: 'listed' });
    expect(await later.reply).toMatchObject({ ok: true });
    expect(events.slice(4)).toEqual(['a running', 'hook read', 'b running']);
  });

  it('a sequential call behind an earlier sequential call says queued, is asked for approval only when its turn comes, then runs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seq = buildCatalog([
      tool('slow', { executionMode: 'sequential', execute: async () => (await gate, 'slow') }),
      tool('exec', { executionMode: 'sequential', approval: 'required' }),
    ]);
    let approve!: () => void;
    let asked = false;
    const statuses: string[] = [];
    const ctx = context({
      catalog: seq,
      hooks: { ...context().hooks, requestApproval: () => ((asked = true), new Promise((r) => (approve = () => r({ approved: true })))) },
      onStatus: (id, status) => {
        if (id === 'a') statuses.push(status);
      },
    });
    const first = dispatchRequest(ctx, { id: 's', op: 'call', tool: 'slow', input: {} }, 'cm_test:1');
    const second = dispatchRequest(ctx, { id: 'a', op: 'call', tool: 'exec', input: {} }, 'cm_test:2');
    expect(statuses).toEqual(['queued']);
    // nobody is asked while "slow" has not finished
    await new Promise((r) => setImmediate(r));
    expect(asked).toBe(false);
    release();
    expect(await first.reply).toMatchObject({ ok: true, value: 'slow' });
    await vi.waitFor(() => expect(statuses).toEqual(['queued', 'awaiting_approval']), { timeout: 20_000 });
    approve();
    expect(await second.reply).toMatchObject({ ok: true });
    expect(statuses).toEqual(['queued', 'awaiting_approval', 'running']);
  });

  it('on a store() value over maxOutputBytes: refuses it with capacity_exceeded and keeps nothing', async () => {
    const ctx = context({ options: testCodeModeOptions({ maxOutputBytes: 1024 }) });
    const r = await reply({ id: 'big', op: 'store', action: 'set', key: 'k', json: JSON.stringify('x'.repeat(2000)) }, ctx);
    expect(r).toMatchObject({ ok: false, code: 'capacity_exceeded', error: expect.stringContaining('results.save') });
    expect(ctx.storeBuffer.size).toBe(0);
  });

  it('on store within a cell: load sees the buffered write before any commit', async () => {
    const ctx = context();
    await reply({ id: 'a', op: 'store', action: 'set', key: 'k', json: '{"v":2}' }, ctx);
    expect(await reply({ id: 'b', op: 'store', action: 'get', key: 'k' }, ctx)).toEqual({ id: 'b', ok: true, value: { v: 2 } });
    expect(await ctx.sessions.get('s', 'k')).toBeUndefined();
  });

  it('on store() writes and a load sent together (nothing awaited between): each is checked after the ones before it, and the load sees them', async () => {
    const ctx = context();
    const sent = [
      reply({ id: 'w1', op: 'store', action: 'set', key: 'k', json: '1' }, ctx),
      reply({ id: 'w2', op: 'store', action: 'set', key: 'k', json: '2' }, ctx),
      reply({ id: 'r', op: 'store', action: 'get', key: 'k' }, ctx),
      reply({ id: 'd', op: 'store', action: 'set', key: 'k' }, ctx),
      reply({ id: 'r2', op: 'store', action: 'get', key: 'k' }, ctx),
    ];
    expect((await Promise.all(sent)).map((r) => (r.ok ? r.value : r.error))).toEqual([null, null, 2, null, null]);
    expect(ctx.storeBuffer.get('k')).toEqual({ json: undefined, networkContent: false });
  });

  // a json field that is not a string (the toJSON attack) never gets here: protocol-check refuses it
  it('on a store() value whose json text does not parse: refuses with invalid_input and keeps nothing', async () => {
    const ctx = context();
    expect(await reply({ id: 's', op: 'store', action: 'set', key: 'k', json: '{"a":' }, ctx)).toMatchObject({ id: 's', ok: false, code: 'invalid_input' });
    expect(ctx.storeBuffer.size).toBe(0);
  });

  it('on a store() value that fits as sent but not as the host re-serializes it: refuses with capacity_exceeded', async () => {
    const ctx = context({ options: testCodeModeOptions({ maxOutputBytes: 1024 }) });
    // "1E5" is 3 bytes as sent and 6 as JSON.stringify writes it
    const json = `[${Array.from({ length: 250 }, () => '1E5').join(',')}]`;
    expect(Buffer.byteLength(json)).toBeLessThan(1024);
    expect(await reply({ id: 'g', op: 'store', action: 'set', key: 'k', json }, ctx)).toMatchObject({ ok: false, code: 'capacity_exceeded' });
    expect(ctx.storeBuffer.size).toBe(0);
  });

  it('on a store() value: buffers the host serialization, not the guest text', async () => {
    const ctx = context();
    await reply({ id: 'c', op: 'store', action: 'set', key: 'k', json: ' { "v" : 1E2 } ' }, ctx);
    expect(ctx.storeBuffer.get('k')).toEqual({ json: '{"v":100}', networkContent: false });
  });

  it('on load of a damaged key in a real session database: fails that key with what to do, other keys load, also after reopening', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-dispatch-'));
    try {
      const path = join(dir, 'sessions.db');
      const first = new SessionStore(path);
      await first.commit('s', 'r1', new Map([['good', { json: '{"n":1}', networkContent: false }]]));
      // a row as an older build committed it: the guest's toJSON made `json` an object
      await first.transcript.db.run('INSERT INTO entries (id, session_id, parent_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        'e_damaged',
        's',
        await first.transcript.leaf('s'),
        'code-mode-store',
        JSON.stringify({ runId: 'r2', sets: [{ key: 'bad', json: { x: 1 }, networkContent: false }, { key: 'badText', json: '{"a":', networkContent: false }], deletes: [] }),
        Date.now(),
      ]);
      await first.transcript.db.run("UPDATE sessions SET leaf_id = 'e_damaged' WHERE id = 's'");
      for (const sessions of [first, new SessionStore(path)]) {
        const ctx = context({ sessions: sessions.forTurn({}) });
        expect(await reply({ id: 'l1', op: 'store', action: 'get', key: 'good' }, ctx)).toEqual({ id: 'l1', ok: true, value: { n: 1 } });
        const bad = await reply({ id: 'l2', op: 'store', action: 'get', key: 'bad' }, ctx);
        expect(bad).toMatchObject({ ok: false, code: 'damaged_value', error: expect.stringContaining('stored value for key "bad" is damaged') });
        expect(bad).toMatchObject({ error: expect.stringContaining('store a new value under "bad"') });
        // text that does not parse is found at load, not at replay
        const badText = await reply({ id: 'l3', op: 'store', action: 'get', key: 'badText' }, ctx);
        expect(badText).toMatchObject({ ok: false, code: 'damaged_value', error: expect.stringContaining('stored value for key "badText" is damaged (the value is not valid JSON') });
        await sessions.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on results.save of text that does not parse: refuses with invalid_input; a saved value is the host serialization', async () => {
    const ctx = context();
    expect(await reply({ id: 'r', op: 'results', action: 'save', json: '[1,' }, ctx)).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(ctx.results.size).toBe(0);
    const saved = await reply({ id: 'r', op: 'results', action: 'save', json: ' [ 1E1 ] ' }, ctx);
    const ref = (saved as { value: { ref: string } }).value.ref;
    expect(ctx.results.load(ref).json).toBe('[10]');
  });

  // Field types are protocol-check's (checkBridgeRequest, protocol-check.test.ts); the input's shape is the dispatcher's.
  it.each([
    ['a call whose input is a string', { id: 'x', op: 'call', tool: 'read', input: 'README.md' }, /^read: "input" must be one object, got a string/],
    ['a call whose input is null', { id: 'x', op: 'call', tool: 'read', input: null }, /^read: "input" must be one object, got null/],
    ['an MCP call whose input is an array', { id: 'x', op: 'call', mcp: ['demo', 'lookup_user'], input: [] }, /^MCP\.demo\.lookup_user: "input" must be one object, got an array/],
  ] as Array<[string, BridgeRequest, RegExp]>)('on %s: replies invalid_input before any hook or tool sees it', async (_what, req, message) => {
    let hooked = false;
    const ctx = context({ hooks: { ...context().hooks, beforeToolCall: async (_e, input) => ((hooked = true), { input }) } });
    expect(await reply(req, ctx)).toMatchObject({ id: 'x', ok: false, code: 'invalid_input', error: expect.stringMatching(message) });
    expect(hooked).toBe(false);
  });

  it('on well-typed requests of every op: still answered (search without a limit, a timer, store set/get, results save/load/delete)', async () => {
    const ctx = context();
    expect(await reply({ id: 'a', op: 'search', query: 'read' }, ctx)).toMatchObject({ ok: true });
    expect(await reply({ id: 'b', op: 'describe', tool: 'read' }, ctx)).toMatchObject({ ok: true });
    expect(await reply({ id: 'c', op: 'timer', ms: 0, timer: 1 }, ctx)).toEqual({ id: 'c', ok: true, value: null });
    expect(await reply({ id: 'd', op: 'store', action: 'set', key: 'k' }, ctx)).toMatchObject({ ok: true });
    expect(ctx.storeBuffer.get('k')).toEqual({ json: undefined, networkContent: false });
    const saved = await reply({ id: 'e', op: 'results', action: 'save' }, ctx);
    const ref = (saved as { value: { ref: string } }).value.ref;
    expect(await reply({ id: 'f', op: 'results', action: 'load', ref }, ctx)).toEqual({ id: 'f', ok: true, value: null });
    expect(await reply({ id: 'g', op: 'results', action: 'delete', ref }, ctx)).toEqual({ id: 'g', ok: true, value: true });
  });

  it.each([2 ** 31, 1e300])('on a timer of %d ms: waits MAX_TIMER_DELAY_MS (the sleep cap), not days', async (ms) => {
    vi.useFakeTimers();
    try {
      let settled = false;
      const done = dispatchRequest(context(), { id: 't', op: 'timer', ms, timer: 1 }, 'cm_test:1').reply.then((r) => ((settled = true), r));
      await vi.advanceTimersByTimeAsync(MAX_TIMER_DELAY_MS - 1);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await done).toEqual({ id: 't', ok: true, value: null });
    } finally {
      vi.useRealTimers();
    }
  });

  it('on the prelude: its MAX_TIMER_MS is the host cap, which is the sleep tool\'s', () => {
    expect(MAX_TIMER_DELAY_MS).toBe(MAX_SLEEP_MS);
    const prelude = readFileSync(new URL('../guest/prelude.js', import.meta.url), 'utf8');
    expect(/var MAX_TIMER_MS = (\d+);/.exec(prelude)?.[1]).toBe(String(MAX_TIMER_DELAY_MS));
  });
});
