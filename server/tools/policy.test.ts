// Tests for applyToolPolicy: pattern kinds, deny over allow, both layers, empty allowlist, rule labels, bad patterns.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { applyToolPolicy, hasEmptyAllowlist, toolPatternMatches } from './policy.ts';
import type { ToolDefinition, ToolSource } from './types.ts';

function tool(name: string, source: ToolSource, owner?: string): ToolDefinition {
  return { name, description: name, source, inputSchema: { type: 'object' }, ...(owner ? { owner } : {}) };
}

const tools = [
  tool('read', 'core'),
  tool('web_search', 'core'),
  tool('web_fetch', 'core'),
  tool('weather.lookup', 'bundled_plugin', 'weather'),
  tool('delete', 'external_plugin', 'edge-names'),
  tool('echo', 'mcp', 'demo'),
  tool('add', 'mcp', 'math'),
  tool('pick_color', 'client'),
];
const names = (list: readonly ToolDefinition[]): string[] => list.map((t) => t.name);

describe('toolPatternMatches', () => {
  const cases: Array<[string, string[]]> = [
    ['web_fetch', ['web_fetch']],
    ['web_*', ['web_search', 'web_fetch']],
    ['*.lookup', ['weather.lookup']],
    ['*', names(tools)],
    ['source:mcp', ['echo', 'add']],
    ['source:client', ['pick_color']],
    ['weather/*', ['weather.lookup']],
    ['edge-names/delete', ['delete']],
    ['demo/*', ['echo']],
    ['mcp:demo/*', ['echo']],
    ['mcp:math', ['add']],
    ['mcp:*', ['echo', 'add']],
    ['MCP', ['echo', 'add']],
    ['MCP.demo', ['echo']],
    ['MCP.math.add', ['add']],
  ];
  for (const [pattern, expected] of cases) {
    it(`on "${pattern}": matches ${expected.join(', ')}`, () => {
      expect(names(tools.filter((t) => toolPatternMatches(pattern, t)))).toEqual(expected);
    });
  }
});

describe('applyToolPolicy', () => {
  it('on no lists: admits every tool in order', () => {
    const { effective, denied } = applyToolPolicy(tools, { gateway: {} });
    expect(effective).toEqual(tools);
    expect(denied).toEqual([]);
  });

  it('on a gateway deny: removes the tool and names the rule', () => {
    const { effective, denied } = applyToolPolicy(tools, { gateway: { deny: ['web_fetch'] } });
    expect(names(effective)).not.toContain('web_fetch');
    expect(denied.map((d) => [d.tool.name, d.rule])).toEqual([['web_fetch', 'tools.deny: "web_fetch"']]);
  });

  it('on an agent allowlist: admits only matches and labels the rest "not listed" under the agent', () => {
    const { effective, denied } = applyToolPolicy(tools, { gateway: {}, agent: { allow: ['web_*', 'read', 'MCP'] }, agentId: 'research' });
    expect(names(effective)).toEqual(['read', 'web_search', 'web_fetch', 'echo', 'add']);
    expect(denied.find((d) => d.tool.name === 'delete')?.rule).toBe('agents.list[research].tools.allow (not listed)');
  });

  it('on allow and deny of the same tool: deny wins and is the rule reported', () => {
    const { effective, denied } = applyToolPolicy(tools, { gateway: { allow: ['*'] }, agent: { allow: ['web_*'], deny: ['web_fetch'] }, agentId: 'r' });
    expect(names(effective)).toEqual(['web_search']);
    expect(denied.find((d) => d.tool.name === 'web_fetch')?.rule).toBe('agents.list[r].tools.deny: "web_fetch"');
  });

  it('on a tool both unlisted and denied: reports the deny, not "not listed"', () => {
    const { denied } = applyToolPolicy(tools, { gateway: { allow: ['read'], deny: ['web_fetch'] } });
    expect(denied.find((d) => d.tool.name === 'web_fetch')?.rule).toBe('tools.deny: "web_fetch"');
    expect(denied.find((d) => d.tool.name === 'web_search')?.rule).toBe('tools.allow (not listed)');
  });

  it('on both layers: a tool must pass the gateway and the agent', () => {
    const { effective, denied } = applyToolPolicy(tools, { gateway: { allow: ['source:core'] }, agent: { deny: ['read'] }, agentId: 'a' });
    expect(names(effective)).toEqual(['web_search', 'web_fetch']);
    expect(denied.find((d) => d.tool.name === 'read')?.rule).toBe('agents.list[a].tools.deny: "read"');
    expect(denied.find((d) => d.tool.name === 'echo')?.rule).toBe('tools.allow (not listed)');
  });

  it('on an empty allowlist: admits no tools and reports the run as tool-less', () => {
    const layers = { gateway: {}, agent: { allow: [] }, agentId: 'quiet' };
    const { effective, denied } = applyToolPolicy(tools, layers);
    expect(effective).toEqual([]);
    expect(denied[0]?.rule).toBe('agents.list[quiet].tools.allow (empty: no tools)');
    expect(hasEmptyAllowlist(layers)).toBe(true);
    expect(hasEmptyAllowlist({ gateway: { allow: ['read'] } })).toBe(false);
  });

  it('on an unknown source pattern: throws a ConfigError naming the entry', () => {
    let error: unknown;
    try {
      applyToolPolicy(tools, { gateway: { deny: ['read', 'source:plugin'] } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe('tools.deny[1]');
    expect((error as ConfigError).message).toContain('source:bundled_plugin');
  });

  it('on a blank pattern in an agent list: names the agent field', () => {
    expect(() => applyToolPolicy(tools, { gateway: {}, agent: { allow: [' '] }, agentId: 'x' })).toThrow(/agents\.list\[x\]\.tools\.allow\[0\]/);
  });
});
