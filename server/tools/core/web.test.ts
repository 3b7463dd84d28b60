// Tests for the offline web_search / web_fetch fake over the shipped fixture corpus.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../errors.ts';
import { callTool, findTool } from '../testing.ts';
import { withInputValidation } from '../validate.ts';
import { DEFAULT_WEB_CORPUS_PATH, DEFAULT_WEB_SEARCH_LIMIT, type WebPage, type WebSearchHit, createWebTools, rankPages } from './web.ts';

const tools = createWebTools().map(withInputValidation);
const webSearch = findTool(tools, 'web_search');
const webFetch = findTool(tools, 'web_fetch');
const corpus = JSON.parse(readFileSync(DEFAULT_WEB_CORPUS_PATH, 'utf8')) as WebPage[];

describe('the shipped corpus', () => {
  it('holds 20 to 40 pages with unique urls', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(20);
    expect(corpus.length).toBeLessThanOrEqual(40);
    expect(new Set(corpus.map((p) => p.url)).size).toBe(corpus.length);
  });
});

describe('web_search', () => {
  it('on a query: ranks the page sharing most terms first', async () => {
    const result = (await callTool(webSearch, { query: 'QuickJS snapshot restore WASI' })) as { results: WebSearchHit[] };
    expect(result.results[0]?.url).toBe('https://docs.example/quickjs/wasi-snapshots');
    const scores = result.results.map((hit) => hit.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('on no limit: returns at most the default number of hits', async () => {
    const result = (await callTool(webSearch, { query: 'the weather in winter and summer city' })) as { results: WebSearchHit[] };
    expect(result.results.length).toBeLessThanOrEqual(DEFAULT_WEB_SEARCH_LIMIT);
    expect(result.results.length).toBeGreaterThan(0);
  });

  it('on a limit: honours it', async () => {
    const result = (await callTool(webSearch, { query: 'weather city winter', limit: 2 })) as { results: WebSearchHit[] };
    expect(result.results).toHaveLength(2);
  });

  it('on a query matching nothing: returns no hits', async () => {
    const result = (await callTool(webSearch, { query: 'zzyzx qwerty' })) as { results: WebSearchHit[] };
    expect(result.results).toEqual([]);
  });

  it('on a bad limit: names the field', async () => {
    await expect(callTool(webSearch, { query: 'x', limit: 0 })).rejects.toThrow(/"limit" must be >= 1/);
  });

  it('marks its output as network content', () => {
    expect(webSearch.networkContent).toBe(true);
    expect(webFetch.networkContent).toBe(true);
  });

  it('ranks title hits above text-only hits', () => {
    const pages: WebPage[] = [
      { url: 'a', title: 'Other', text: 'bikes bikes' },
      { url: 'b', title: 'Bikes', text: 'bikes' },
    ];
    expect(rankPages(pages, 'bikes', 5).map((h) => h.url)).toEqual(['b', 'a']);
  });
});

describe('web_fetch', () => {
  it('on a corpus url: returns its title and text', async () => {
    const page = corpus[3];
    if (!page) throw new Error('corpus too small');
    expect(await callTool(webFetch, { url: page.url })).toEqual(page);
  });

  it('on a url with a trailing slash or fragment: still finds the page', async () => {
    const page = corpus[0];
    if (!page) throw new Error('corpus too small');
    expect(((await callTool(webFetch, { url: `${page.url}/#intro` })) as WebPage).url).toBe(page.url);
  });

  it('on an unknown url: fails with guidance to use web_search', async () => {
    const error = await callTool(webFetch, { url: 'https://unknown.example/' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toContain('not in the offline corpus; use web_search to find urls');
  });

  it('on a malformed corpus file: fails with a clear error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-'));
    writeFileSync(join(dir, 'c.json'), '{"not":"an array"}');
    const [search] = createWebTools({ corpusPath: join(dir, 'c.json') });
    await expect(callTool(search!, { query: 'x' })).rejects.toThrow(/JSON array of \{ url, title, text \}/);
  });
});
