// The catalog view: MCP servers named by the property a cell writes, and tools with their projection and denial rule.
import { describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../tools/mcp/types.ts';
import { mcpServerViews } from './view.ts';

const status = (name: string): McpServerStatus => ({ name, transport: 'stdio', state: 'connecting', toolCount: 0 });

describe('mcpServerViews', () => {
  it('on server names that are not identifiers or are reserved: each view shows the escaped MCP property, deterministically', () => {
    const servers = ['my-server', 'default', '$api'].map(status);
    const a = mcpServerViews(servers);
    const b = mcpServerViews(servers);
    expect(a.map((v) => v.callableName)).toEqual(b.map((v) => v.callableName));
    expect(a[0]?.callableName).toBe('my_server');
    expect(a[1]?.callableName).toMatch(/^default_[a-z0-9]+$/);
    expect(a[2]?.callableName).not.toBe('$api');
  });

  it('on a plain name: the view keeps the state and names the property as the server is called', () => {
    expect(mcpServerViews([{ ...status('demo'), state: 'connected', toolCount: 5 }])).toEqual([
      { name: 'demo', callableName: 'demo', transport: 'stdio', state: 'connected', toolCount: 5 },
    ]);
  });
});
