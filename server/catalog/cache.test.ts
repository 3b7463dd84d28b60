// Tests for CatalogCache: turns over the same tool definitions share one catalog; changed tools build a new one.
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../tools/types.ts';
import { buildCatalog } from './build.ts';
import { CatalogCache } from './cache.ts';

const tool = (name: string, description = `${name} tool`): ToolDefinition => ({ name, source: 'core', description, inputSchema: { type: 'object', properties: {} } });

describe('CatalogCache', () => {
  it('on the same definitions (a new array of the same objects): the same catalog, equal to a fresh build', () => {
    const cache = new CatalogCache();
    const tools = [tool('read'), tool('web_search')];
    const first = cache.get(tools);
    expect(cache.get([...tools])).toBe(first);
    const fresh = buildCatalog(tools);
    expect(first.entries.map((e) => [e.id, e.callableName, e.declaration])).toEqual(fresh.entries.map((e) => [e.id, e.callableName, e.declaration]));
    expect([...first.files]).toEqual([...fresh.files]);
  });

  it('on a changed definition (a new object, even with equal fields), another order, or one tool fewer: another catalog', () => {
    const cache = new CatalogCache();
    const read = tool('read');
    const search = tool('web_search');
    const first = cache.get([read, search]);
    expect(cache.get([read, tool('web_search', 'Search the web, refreshed')])).not.toBe(first);
    expect(cache.get([search, read])).not.toBe(first);
    expect(cache.get([read])).not.toBe(first);
    expect(cache.get([read, search])).toBe(first);
  });

  it('past its bound: the least recently used catalog is built again, the others are kept', () => {
    const cache = new CatalogCache(2);
    const a = [tool('a')];
    const b = [tool('b')];
    const c = [tool('c')];
    const catA = cache.get(a);
    const catB = cache.get(b);
    expect(cache.get(a)).toBe(catA); // a is now the most recent
    cache.get(c); // evicts b
    expect(cache.size).toBe(2);
    expect(cache.get(a)).toBe(catA);
    expect(cache.get(b)).not.toBe(catB);
  });

  it('on definitions buildCatalog refuses: throws its error each time and keeps nothing', () => {
    const cache = new CatalogCache();
    const bad = [{ name: '', source: 'core', description: '', inputSchema: {} }] as ToolDefinition[];
    expect(() => cache.get(bad)).toThrow(/tools\[0\]\.name/);
    expect(() => cache.get([null as unknown as ToolDefinition])).toThrow(/tools\[0\]/);
    expect(cache.size).toBe(0);
  });
});
