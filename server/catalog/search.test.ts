// Tests for catalog.search ranking and the search limit clamp.
import { describe, it, expect } from 'vitest';
import type { ToolDefinition, ToolSource } from '../tools/types.ts';
import { InvalidInputError } from '../errors.ts';
import { buildCatalog } from './build.ts';
import { clampSearchLimit, searchCatalog, tokenize } from './search.ts';

function tool(name: string, description: string, properties: Record<string, unknown> = {}, source: ToolSource = 'core', owner?: string): ToolDefinition {
  return { name, description, source, ...(owner ? { owner } : {}), inputSchema: { type: 'object', properties } };
}

const catalog = buildCatalog([
  tool('read', 'Read a file from the workspace.', { path: { type: 'string' } }),
  tool('grep', 'Search file contents in the workspace for a pattern.', { pattern: { type: 'string' }, path: { type: 'string' } }),
  tool('web_search', 'Search the web and return result titles and URLs.', { query: { type: 'string' } }),
  tool('getWeatherForecast', 'Daily forecast for a city.', { city: { type: 'string' } }, 'external_plugin', 'wx'),
  tool('sessions_spawn', 'Start a sub-agent session that works on a task.', { task: { type: 'string' }, agentId: { type: 'string' } }),
  tool('notes_add', 'Add a note. Mentions weather only in passing.', { text: { type: 'string' } }, 'bundled_plugin', 'notes'),
  tool('calendar', 'List events.', { timezone: { type: 'string' }, attendeeEmail: { type: 'string' } }, 'client'),
  tool('weather', 'Current weather from the weather MCP server.', { city: { type: 'string' } }, 'mcp', 'wx-mcp'),
]);

const names = (query: string, limit = 8) => searchCatalog(catalog, query, limit).map((e) => e.callableName);

describe('tokenize', () => {
  it('on snake, kebab, dotted and camelCase names: splits into lowercase words, plural folded', () => {
    expect(tokenize('getWeatherForecast')).toEqual(['get', 'weather', 'forecast']);
    expect(tokenize('llm-task.v2_runner')).toEqual(['llm', 'task', 'v2', 'runner']);
    expect(tokenize('HTTPServer files queries status')).toEqual(['http', 'server', 'file', 'query', 'status']);
  });
});

describe('searchCatalog', () => {
  it('on a word in a tool name: that tool ranks above tools that only mention it in prose', () => {
    expect(names('weather')[0]).toBe('getWeatherForecast');
    expect(names('weather')).toContain('notes_add');
    expect(names('weather').indexOf('getWeatherForecast')).toBeLessThan(names('weather').indexOf('notes_add'));
  });

  it('on a camelCase part of a name: matches it', () => {
    expect(names('forecast')).toEqual(['getWeatherForecast']);
  });

  it('on an input property name: finds the tool by its fields', () => {
    expect(names('timezone')).toEqual(['calendar']);
    expect(names('attendee email')).toEqual(['calendar']);
  });

  it('on several terms: the tool matching more of them ranks first', () => {
    const result = names('search web');
    expect(result[0]).toBe('web_search');
    expect(result).toContain('grep');
  });

  it('on a plural: matches the singular', () => {
    expect(names('files')).toEqual(expect.arrayContaining(['read', 'grep']));
  });

  it('on MCP tools: never returned, even for an exact name', () => {
    expect(names('weather')).not.toContain('weather');
    expect(searchCatalog(catalog, 'current weather mcp server', 50).every((e) => !e.mcp)).toBe(true);
  });

  it('on an empty query or only stop words: the first `limit` entries in catalog order', () => {
    const plain = catalog.entries.filter((e) => !e.mcp).map((e) => e.callableName);
    expect(names('', 3)).toEqual(plain.slice(0, 3));
    expect(names('  the of  ', 2)).toEqual(plain.slice(0, 2));
  });

  it('on a limit: returns at most that many', () => {
    expect(searchCatalog(catalog, 'a file session search weather', 2)).toHaveLength(2);
  });

  it('on no matching term: no results', () => {
    expect(names('kubernetes')).toEqual([]);
  });

  it('on a non-string query: invalid_input saying what to pass', () => {
    expect(() => searchCatalog(catalog, 42 as unknown as string, 5)).toThrow(/query must be a string/);
  });
});

describe('clampSearchLimit', () => {
  const opts = { searchDefaultLimit: 8, maxSearchLimit: 50 };

  it('on no limit: the configured default', () => {
    expect(clampSearchLimit(undefined, opts)).toBe(8);
    expect(clampSearchLimit(undefined, { searchDefaultLimit: 3, maxSearchLimit: 50 })).toBe(3);
  });

  it('on a limit above the maximum: the maximum', () => {
    expect(clampSearchLimit(500, opts)).toBe(50);
    expect(clampSearchLimit(Infinity, opts)).toBe(50);
  });

  it('on a fractional limit: rounded down', () => {
    expect(clampSearchLimit(3.9, opts)).toBe(3);
  });

  it('on zero, a negative number, NaN or a string: invalid_input naming opts.limit', () => {
    for (const bad of [0, -1, Number.NaN, '5']) {
      expect(() => clampSearchLimit(bad, opts)).toThrow(InvalidInputError);
      expect(() => clampSearchLimit(bad, opts)).toThrow(/opts\.limit must be a positive number/);
    }
  });
});
