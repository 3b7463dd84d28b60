// describeRequest: one label, kind and shown input per bridge op, resolved against the run's projection.
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../catalog/build.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { describeRequest } from './describe.ts';

const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object' },
  source: 'core',
  execute: async () => null,
  ...extra,
});

const catalog = buildCatalog([tool('read'), tool('ask_user', { source: 'client', execute: undefined }), tool('lookup-user', { source: 'mcp', owner: 'demo' })]);

describe('describeRequest', () => {
  it('on a call to a tool with execute: a tool call labelled by its callable name, showing its input', () => {
    expect(describeRequest({ id: 'r1', op: 'call', tool: 'read', input: { path: 'a' } }, catalog)).toEqual({ label: 'read', kind: 'tool', input: { path: 'a' } });
  });

  it('on a call to a tool without execute: a client call', () => {
    expect(describeRequest({ id: 'r1', op: 'call', tool: 'ask_user', input: {} }, catalog).kind).toBe('client');
  });

  it('on a call to a name outside the projection: still a tool call, labelled as the guest wrote it', () => {
    expect(describeRequest({ id: 'r1', op: 'call', tool: 'nope', input: 1 }, catalog)).toEqual({ label: 'nope', kind: 'tool', input: 1 });
  });

  it('on an MCP call: labelled by its MCP path', () => {
    expect(describeRequest({ id: 'r1', op: 'call', mcp: ['demo', 'lookup_user'], input: { q: 1 } }, catalog)).toEqual({
      label: 'MCP.demo.lookup_user',
      kind: 'mcp',
      input: { q: 1 },
    });
  });

  it('on each bridge op: its guest-visible label, kind and parameters', () => {
    const cases: Array<[Parameters<typeof describeRequest>[0], ReturnType<typeof describeRequest>]> = [
      [{ id: 'r', op: 'search', query: 'weather', limit: 3 }, { label: 'catalog.search', kind: 'search', input: { query: 'weather', limit: 3 } }],
      [{ id: 'r', op: 'all' }, { label: 'catalog.all', kind: 'search', input: {} }],
      [{ id: 'r', op: 'describe', tool: 'read' }, { label: 'read.describe', kind: 'describe', input: { tool: 'read' } }],
      [{ id: 'r', op: 'describe', mcpServer: 'demo' }, { label: 'MCP.demo.$api', kind: 'describe', input: { tool: 'demo' } }],
      [{ id: 'r', op: 'timer', ms: 5, timer: 1 }, { label: 'setTimeout', kind: 'timer', input: { ms: 5 } }],
      [{ id: 'r', op: 'store', action: 'set', key: 'k', json: '1' }, { label: 'store', kind: 'store', input: { key: 'k' } }],
      [{ id: 'r', op: 'store', action: 'get', key: 'k' }, { label: 'load', kind: 'store', input: { key: 'k' } }],
      [{ id: 'r', op: 'results', action: 'load', ref: 'res_1' }, { label: 'results.load', kind: 'results', input: { action: 'load', ref: 'res_1' } }],
      [{ id: 'r', op: 'yield', reason: 'x' }, { label: 'yield_control', kind: 'yield', input: {} }],
    ];
    for (const [req, expected] of cases) expect(describeRequest(req, catalog)).toEqual(expected);
  });
});
