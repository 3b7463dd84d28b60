// Core `web_search` and `web_fetch`: an OFFLINE FAKE over the fixture corpus shipped in demo/web/corpus.json (no network).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ToolError } from '../../errors.ts';
import type { ToolDefinition } from '../types.ts';

/** The shipped fixture pages; the machines this runs on have no internet. */
export const DEFAULT_WEB_CORPUS_PATH = fileURLToPath(new URL('../../../demo/web/corpus.json', import.meta.url));
/** A model needs a handful of hits to pick from; more is context spent on noise. */
export const DEFAULT_WEB_SEARCH_LIMIT = 5;
/** Upper bound for `limit`: the whole fixture corpus is about this size. */
export const MAX_WEB_SEARCH_LIMIT = 20;
/** Snippet length around the first hit: enough to judge relevance without fetching. */
export const WEB_SNIPPET_CHARS = 200;

export interface WebPage {
  url: string;
  title: string;
  text: string;
}

export interface WebSearchHit {
  url: string;
  title: string;
  snippet: string;
  score: number;
}

// Words that carry no topic: matching them would rank every page.
const STOPWORDS = new Set(
  'a an and are as at be by for from how in is it of on or that the this to was what when where which who why with'.split(' '),
);

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOPWORDS.has(word));
}

function isWebPage(value: unknown): value is WebPage {
  if (typeof value !== 'object' || value === null) return false;
  const page = value as Record<string, unknown>;
  return typeof page['url'] === 'string' && typeof page['title'] === 'string' && typeof page['text'] === 'string';
}

export async function loadWebCorpus(path: string): Promise<WebPage[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new ToolError(`the offline web corpus at ${path} cannot be read (${(error as Error).message}); ask the operator to restore demo/web/corpus.json.`);
  }
  if (!Array.isArray(parsed) || !parsed.every(isWebPage)) {
    throw new ToolError(`the offline web corpus at ${path} must be a JSON array of { url, title, text } pages.`);
  }
  return parsed;
}

/** Ranks pages by query-term overlap: each distinct term found counts, title hits twice, repeats add a little. */
export function rankPages(pages: readonly WebPage[], query: string, limit: number): WebSearchHit[] {
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0) return [];
  const scored: WebSearchHit[] = [];
  for (const page of pages) {
    const titleWords = new Set(tokenize(page.title));
    const textWords = tokenize(page.text);
    let score = 0;
    for (const term of terms) {
      const inTitle = titleWords.has(term);
      const count = textWords.filter((word) => word === term).length;
      if (inTitle) score += 2;
      if (count > 0) score += 1 + Math.min(count, 5) * 0.1;
    }
    if (score > 0) scored.push({ url: page.url, title: page.title, snippet: snippet(page.text, terms), score: Math.round(score * 100) / 100 });
  }
  scored.sort((a, b) => b.score - a.score || a.url.localeCompare(b.url));
  return scored.slice(0, limit);
}

function snippet(text: string, terms: readonly string[]): string {
  const lower = text.toLowerCase();
  const positions = terms.map((term) => lower.indexOf(term)).filter((index) => index >= 0);
  const first = positions.length ? Math.min(...positions) : 0;
  const start = Math.max(0, first - WEB_SNIPPET_CHARS / 4);
  const body = text.slice(start, start + WEB_SNIPPET_CHARS).trim();
  return `${start > 0 ? '...' : ''}${body}${start + WEB_SNIPPET_CHARS < text.length ? '...' : ''}`;
}

/** Fixture urls match with or without a trailing slash or fragment, and case-insensitively in scheme and host. */
function normalizeUrl(url: string): string {
  try {
    const parsed = new URL(url.trim());
    parsed.hash = '';
    return parsed.href.replace(/\/$/, '');
  } catch {
    return url.trim();
  }
}

export function createWebTools(options: { corpusPath?: string } = {}): ToolDefinition[] {
  const corpusPath = options.corpusPath ?? DEFAULT_WEB_CORPUS_PATH;
  let corpus: Promise<WebPage[]> | undefined;
  const pages = (): Promise<WebPage[]> => {
    corpus ??= loadWebCorpus(corpusPath).catch((error: unknown) => {
      corpus = undefined; // a later call may find the file restored
      throw error;
    });
    return corpus;
  };

  const webSearch: ToolDefinition = {
    name: 'web_search',
    description:
      'Search the web (offline fake: ranks a fixed corpus of fixture pages shipped with the demo by term overlap). ' +
      `Returns up to \`limit\` hits (default ${DEFAULT_WEB_SEARCH_LIMIT}) with url, title and snippet; pass a url to web_fetch for the page text.`,
    source: 'core',
    networkContent: true,
    replaySafe: true,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'Search words.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_WEB_SEARCH_LIMIT, description: `Hits to return (default ${DEFAULT_WEB_SEARCH_LIMIT}).` },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        results: {
          type: 'array',
          items: {
            type: 'object',
            properties: { url: { type: 'string' }, title: { type: 'string' }, snippet: { type: 'string' }, score: { type: 'number' } },
            required: ['url', 'title', 'snippet', 'score'],
            additionalProperties: false,
          },
        },
      },
      required: ['query', 'results'],
      additionalProperties: false,
    },
    async execute(input) {
      const record = input as { query: string; limit?: number };
      const results = rankPages(await pages(), record.query, record.limit ?? DEFAULT_WEB_SEARCH_LIMIT);
      return { query: record.query, results };
    },
  };

  const webFetch: ToolDefinition = {
    name: 'web_fetch',
    description:
      'Fetch a page by url (offline fake: only urls in the shipped fixture corpus exist; find them with web_search). Returns { url, title, text }.',
    source: 'core',
    networkContent: true,
    replaySafe: true,
    inputSchema: {
      type: 'object',
      properties: { url: { type: 'string', minLength: 1, description: 'A url returned by web_search.' } },
      required: ['url'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { url: { type: 'string' }, title: { type: 'string' }, text: { type: 'string' } },
      required: ['url', 'title', 'text'],
      additionalProperties: false,
    },
    async execute(input) {
      const url = (input as { url: string }).url;
      const wanted = normalizeUrl(url);
      const page = (await pages()).find((candidate) => normalizeUrl(candidate.url) === wanted);
      if (!page) {
        throw new ToolError(`web_fetch: ${JSON.stringify(url)} is not in the offline corpus; use web_search to find urls.`, 'not_found');
      }
      return { url: page.url, title: page.title, text: page.text };
    },
  };

  return [webSearch, webFetch];
}
