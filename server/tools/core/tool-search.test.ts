// Tests for the Tool Search control tools (direct mode): ranking, describe, ctx.tools scoping, control flag.
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../errors.ts';
import type { ToolDefinition } from '../types.ts';
import { callTool, findTool, testConfig, testContext } from '../testing.ts';
import { type ToolDescription, type ToolSearchHit, createToolSearchTools } from './tool-search.ts';

const fixtureTools: ToolDefinition[] = [
  { name: 'web_search', description: 'Search the web for pages', source: 'core', inputSchema: { type: 'object' } },
  { name: 'weather.lookup', description: 'Current weather for a city', source: 'bundled_plugin', owner: 'weather', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
  { name: 'notes_append', description: 'Append a note', source: 'bundled_plugin', owner: 'notes', executionMode: 'sequential', inputSchema: { type: 'object' } },
];
const config = testConfig();
const all: ToolDefinition[] = [...fixtureTools];
all.push(...createToolSearchTools(config, () => all));
const search = findTool(all, 'tool_search');
const describeTool = findTool(all, 'tool_describe');

describe('tool_search / tool_describe', () => {
  it('are control tools', () => {
    expect(search.control).toBe(true);
    expect(describeTool.control).toBe(true);
  });

  it('on a query: ranks name hits first and never lists control tools', async () => {
    const result = (await callTool(search, { query: 'weather city search' })) as { results: ToolSearchHit[] };
    expect(result.results[0]?.name).toBe('weather.lookup');
    expect(result.results.map((h) => h.name)).toContain('web_search');
    const tools = (await callTool(search, { query: 'tool search describe' })) as { results: ToolSearchHit[] };
    expect(tools.results.some((h) => h.name.startsWith('tool_'))).toBe(false);
  });

  it('on more hits than searchDefaultLimit: returns that many', async () => {
    const many: ToolDefinition[] = Array.from({ length: 20 }, (_, i) => ({ name: `t${i}`, description: 'common word', source: 'core', inputSchema: {} }));
    const [manySearch] = createToolSearchTools(config, () => many);
    const result = (await callTool(manySearch!, { query: 'common' })) as { results: ToolSearchHit[] };
    expect(result.results).toHaveLength(config.tools.codeMode.searchDefaultLimit);
  });

  it('on ctx.tools: searches only the run\'s effective tools', async () => {
    const result = (await callTool(search, { query: 'weather' }, testContext({ tools: fixtureTools.slice(0, 1) }))) as { results: ToolSearchHit[] };
    expect(result.results.map((h) => h.name)).not.toContain('weather.lookup');
  });

  it('on an exact name: describes schema, mode and approval', async () => {
    const result = (await callTool(describeTool, { name: 'notes_append' })) as ToolDescription;
    expect(result).toMatchObject({ name: 'notes_append', owner: 'notes', executionMode: 'sequential', approval: false, inputSchema: { type: 'object' } });
    expect(result.outputSchema).toBeUndefined();
  });

  it('on an unknown name: suggests close names', async () => {
    const error = await callTool(describeTool, { name: 'weather' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toContain('did you mean weather.lookup');
  });
});
