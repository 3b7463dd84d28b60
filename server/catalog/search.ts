// catalog.search: BM25 ranking of non-MCP catalog entries over names, descriptions and input field names.
import { InvalidInputError } from '../errors.ts';
import type { CodeModeOptions } from '../config/types.ts';
import type { Catalog, CatalogEntry } from './types.ts';

/** BM25 term-frequency saturation: the textbook value; tool descriptions are short, so repeats matter little. */
export const BM25_K1 = 1.2;
/** BM25 length normalization: the textbook value, so a long description does not bury a short precise one. */
export const BM25_B = 0.75;
/** Extra weight (times the term's idf) when a query term is part of the tool's name: a name says what a tool is more reliably than prose. */
export const NAME_MATCH_BOOST = 0.5;
/**
 * Extra weight (times the share of the name's terms the query matched, in idf units of the matched terms) for a
 * name the query covers: "create an issue" should rank `issues/create` over `reactions/create-for-issue`, whose
 * name says more than was asked. Matters in big catalogs where many names share the query's words.
 */
export const NAME_COVERAGE_BOOST = 1.0;
/** Extra weight (times the term's idf) when a query term is in the description's first line (an OpenAPI summary): it says what the tool does. */
export const SUMMARY_MATCH_BOOST = 0.5;
/** How deep input schemas are walked for property names: deeper fields rarely describe what a tool does. */
export const SCHEMA_TERM_DEPTH = 3;

const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'in', 'into', 'is', 'it', 'of', 'on', 'or', 'the', 'to', 'with']);

/**
 * The number of results to return: the default when `requested` is absent, capped at the maximum.
 * A limit that is not a positive number is a clear `invalid_input`.
 */
export function clampSearchLimit(requested: unknown, opts: Pick<CodeModeOptions, 'searchDefaultLimit' | 'maxSearchLimit'>): number {
  if (requested === undefined || requested === null) return Math.min(opts.searchDefaultLimit, opts.maxSearchLimit);
  if (typeof requested !== 'number' || Number.isNaN(requested) || requested < 1) {
    throw new InvalidInputError(
      `catalog.search: opts.limit must be a positive number (got ${describeValue(requested)}); omit it for the default of ${opts.searchDefaultLimit}, at most ${opts.maxSearchLimit}.`,
    );
  }
  return Math.min(Math.floor(requested), opts.maxSearchLimit);
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value);
  if (typeof value === 'number') return String(value);
  return typeof value;
}

/** Split text into lowercase search terms: words, snake/kebab/dotted parts and camelCase humps, lightly stemmed. */
export function tokenize(text: string): string[] {
  const spaced = text
    .replace(/([\p{Ll}\p{Nd}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2');
  const out: string[] = [];
  for (const word of spaced.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

/** Plural folding only: "files" matches "file", "queries" matches "query"; anything smarter guesses wrong on tool jargon. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

interface IndexedDoc {
  entry: CatalogEntry;
  terms: Map<string, number>;
  length: number;
  nameTerms: Set<string>;
  /** Terms of the exact name alone (`issues/create`: issue, create): the coverage boost's denominator. */
  exactNameTerms: Set<string>;
  /** Terms of the description's first line. */
  summaryTerms: Set<string>;
}

interface SearchIndex {
  docs: IndexedDoc[];
  docFreq: Map<string, number>;
  avgLength: number;
}

// Catalogs are immutable once built, so their index is computed once per catalog.
const indexes = new WeakMap<Catalog, SearchIndex>();
// Each turn builds its own catalog over mostly the same tool objects: a tool's terms are computed once per callable name.
const toolTerms = new WeakMap<object, { callableName: string; doc: Omit<IndexedDoc, 'entry'> }>();

function termsOf(entry: CatalogEntry): Omit<IndexedDoc, 'entry'> {
  const known = toolTerms.get(entry.tool);
  if (known?.callableName === entry.callableName) return known.doc;
  const nameTerms = [...tokenize(entry.callableName), ...tokenize(entry.name)];
  const all = [...nameTerms, ...tokenize(entry.description), ...schemaTerms(entry.inputSchema, 0)];
  const terms = new Map<string, number>();
  for (const t of all) terms.set(t, (terms.get(t) ?? 0) + 1);
  const summary = entry.description.trimStart().split(/\r?\n/, 1)[0] ?? '';
  const doc = { terms, length: all.length, nameTerms: new Set(nameTerms), exactNameTerms: new Set(tokenize(entry.name)), summaryTerms: new Set(tokenize(summary)) };
  toolTerms.set(entry.tool, { callableName: entry.callableName, doc });
  return doc;
}

function indexOf(catalog: Catalog): SearchIndex {
  const cached = indexes.get(catalog);
  if (cached) return cached;
  const docs: IndexedDoc[] = [];
  const docFreq = new Map<string, number>();
  for (const entry of catalog.entries) {
    if (entry.mcp) continue;
    const doc = termsOf(entry);
    for (const t of doc.terms.keys()) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
    docs.push({ entry, ...doc });
  }
  const avgLength = docs.length === 0 ? 0 : docs.reduce((sum, d) => sum + d.length, 0) / docs.length;
  const index = { docs, docFreq, avgLength };
  indexes.set(catalog, index);
  return index;
}

function schemaTerms(schema: unknown, depth: number): string[] {
  if (depth >= SCHEMA_TERM_DEPTH || typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const s = schema as { [key: string]: unknown };
  const out: string[] = [];
  const props = s.properties;
  if (typeof props === 'object' && props !== null && !Array.isArray(props)) {
    for (const [name, child] of Object.entries(props)) {
      out.push(...tokenize(name), ...schemaTerms(child, depth + 1));
    }
  }
  if (s.items !== undefined) out.push(...schemaTerms(s.items, depth + 1));
  return out;
}

/**
 * Non-MCP entries matching `query`, best first (ties keep catalog order), at most `limit`.
 * An empty query (or one of only stop words) returns the first `limit` entries in catalog order.
 */
export function searchCatalog(catalog: Catalog, query: string, limit: number): CatalogEntry[] {
  if (typeof query !== 'string') throw new InvalidInputError('catalog.search(query): query must be a string of keywords, e.g. catalog.search("weather forecast").');
  const index = indexOf(catalog);
  const queryTerms = [...new Set(tokenize(query))];
  if (queryTerms.length === 0) return index.docs.slice(0, limit).map((d) => d.entry);

  const n = index.docs.length;
  const scored: Array<{ entry: CatalogEntry; score: number; order: number }> = [];
  index.docs.forEach((doc, order) => {
    let score = 0;
    let coveredIdf = 0;
    let covered = 0;
    for (const term of queryTerms) {
      const tf = doc.terms.get(term);
      if (tf === undefined) continue;
      const df = index.docFreq.get(term) ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const norm = index.avgLength === 0 ? 1 : doc.length / index.avgLength;
      score += (idf * (tf * (BM25_K1 + 1))) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * norm));
      if (doc.nameTerms.has(term)) score += NAME_MATCH_BOOST * idf;
      if (doc.summaryTerms.has(term)) score += SUMMARY_MATCH_BOOST * idf;
      if (doc.exactNameTerms.has(term)) {
        covered += 1;
        coveredIdf += idf;
      }
    }
    if (covered > 0 && doc.exactNameTerms.size > 0) score += NAME_COVERAGE_BOOST * coveredIdf * (covered / doc.exactNameTerms.size);
    if (score > 0) scored.push({ entry: doc.entry, score, order });
  });
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.slice(0, Math.max(0, limit)).map((s) => s.entry);
}
