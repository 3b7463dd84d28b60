// The host side of the bridge treats guest requests as hostile: only the run's projection is reachable.
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../catalog/build.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { ResultsStore } from '../results/store.ts';
import { SessionStore } from '../sessions/store.ts';
import { testCodeModeOptions, testContext } from '../tools/testing.ts';
import { CallScheduler } from './scheduler.ts';
import { dispatchRequest, type DispatchContext } from './dispatcher.ts';
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

  it('on a hook block or an approval denial: replies with a coded error naming the reason', async () => {
    const blocked = context({ hooks: { ...context().hooks, beforeToolCall: async (_e, input) => ({ blocked: 'no reading today', input }) } });
    expect(await reply({ id: 'r8', op: 'call', tool: 'read', input: {} }, blocked)).toMatchObject({ ok: false, code: 'blocked', error: expect.stringContaining('no reading today') });
    const approvalTool = buildCatalog([tool('exec', { approval: 'required' })]);
    const denied = context({ catalog: approvalTool, hooks: { ...context().hooks, requestApproval: async () => ({ approved: false, reason: 'nope' }) } });
    expect(await reply({ id: 'r9', op: 'call', tool: 'exec', input: {} }, denied)).toMatchObject({ ok: false, code: 'approval_denied', error: expect.stringContaining('nope') });
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
    expect(ctx.sessions.get('s', 'k')).toBeUndefined();
  });
});
