// The quick index in the exec description: one bounded line per callable, output hints first, a footer when tools are left out.
import type { Catalog, CatalogEntry } from './types.ts';
import { compactSignature } from './schema-to-ts.ts';

/** Characters the whole quick index may take (DESIGN 4.3): enough for dozens of tools without crowding the model's context. */
export const DEFAULT_QUICK_INDEX_MAX_CHARS = 8000;
/** Characters one line may take: a huge schema gets a shallower rendering, then a cut, instead of eating the budget. */
export const MAX_QUICK_INDEX_LINE_CHARS = 240;
/** Characters of description after a signature: the first sentence is usually enough to tell tools apart. */
export const MAX_QUICK_INDEX_SUMMARY_CHARS = 80;

/** Shortest description summary worth showing: below it a cut sentence says nothing. */
export const MIN_QUICK_INDEX_SUMMARY_CHARS = 12;

/** Successively shallower renderings tried until a signature fits one line: most real tools fit the first, huge ones still get their top-level fields named. */
export const QUICK_INDEX_LINE_RENDERINGS = [
  { maxDepth: 3, maxProperties: 12, maxUnionMembers: 8 },
  { maxDepth: 2, maxProperties: 6, maxUnionMembers: 4 },
  { maxDepth: 1, maxProperties: 3, maxUnionMembers: 2 },
] as const;

const SUMMARY_SEPARATOR = '  // ';

/** A source with more tools than this is summarised by group (an OpenAPI tag) in one block, not listed tool by tool. */
export const QUICK_INDEX_GROUP_SUMMARY_MIN_TOOLS = 100;
/** Characters a source's summary block may take: its groups, largest first, until it is full. */
export const MAX_QUICK_INDEX_SOURCE_SUMMARY_CHARS = 900;

export interface QuickIndexOptions {
  maxChars?: number;
}

/** The callable path of an entry as guest code writes it: `web_search` or `MCP.demo.echo`. */
export function callablePath(entry: CatalogEntry): string {
  return entry.mcp ? `MCP.${entry.mcp.serverCallable}.${entry.callableName}` : entry.callableName;
}

/** One index line: `name(input: T) -> Out  // summary`, at most MAX_QUICK_INDEX_LINE_CHARS characters. */
export function quickIndexLine(entry: CatalogEntry): string {
  const path = callablePath(entry);
  let signature = '';
  for (const limits of QUICK_INDEX_LINE_RENDERINGS) {
    const { param, output } = compactSignature(entry.inputSchema, entry.outputSchema, limits);
    signature = `${path}(${param}) -> ${entry.mcp ? (entry.outputSchema ? `McpCallToolResult<${output}>` : 'McpCallToolResult') : output}`;
    if (signature.length <= MAX_QUICK_INDEX_LINE_CHARS) break;
  }
  if (signature.length > MAX_QUICK_INDEX_LINE_CHARS) return `${signature.slice(0, MAX_QUICK_INDEX_LINE_CHARS - 1)}…`;
  const summary = summarize(entry.description, Math.min(MAX_QUICK_INDEX_SUMMARY_CHARS, MAX_QUICK_INDEX_LINE_CHARS - signature.length - SUMMARY_SEPARATOR.length));
  return summary === '' ? signature : `${signature}${SUMMARY_SEPARATOR}${summary}`;
}

function summarize(description: string, maxChars: number): string {
  if (maxChars < MIN_QUICK_INDEX_SUMMARY_CHARS) return '';
  const flat = description.replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length <= maxChars ? sentence : `${sentence.slice(0, maxChars - 1).trimEnd()}…`;
}

/**
 * The quick index: non-MCP tools with an output schema first, then the rest (catalog order within
 * each group), then MCP tools. Lines that do not fit `maxChars` are left out for a footer saying how
 * many and where to find them.
 */
export function renderQuickIndex(catalog: Catalog, opts: QuickIndexOptions = {}): string {
  const maxChars = opts.maxChars ?? DEFAULT_QUICK_INDEX_MAX_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new RangeError(`renderQuickIndex: maxChars must be a positive integer, got ${String(maxChars)}; omit it for ${DEFAULT_QUICK_INDEX_MAX_CHARS}.`);
  }
  const summarised = bigSources(catalog);
  const plain = catalog.entries.filter((e) => !e.mcp && !summarised.has(e.tool.owner ?? ''));
  const ordered = [...plain.filter((e) => e.outputSchema !== undefined), ...plain.filter((e) => e.outputSchema === undefined), ...catalog.entries.filter((e) => e.mcp)];

  const lines: string[] = [];
  for (const [owner, entries] of summarised) {
    const block = sourceSummary(owner, entries);
    if (lines.join('\n').length + block.length + 1 > maxChars / 2) break; // half the budget at most: the other tools still need lines
    lines.push(block);
  }
  let used = lines.join('\n').length;
  let shown = 0;
  for (const entry of ordered) {
    const line = quickIndexLine(entry);
    const after = used + (lines.length === 0 ? 0 : 1) + line.length;
    const rest = ordered.slice(shown + 1);
    const footerCost = rest.length === 0 ? 0 : 1 + footer(rest).length;
    if (after + footerCost > maxChars) break;
    lines.push(line);
    used = after;
    shown++;
  }
  const omitted = ordered.slice(shown);
  if (omitted.length > 0) lines.push(footer(omitted));
  return lines.join('\n');
}

/** Sources (by owner) with more than QUICK_INDEX_GROUP_SUMMARY_MIN_TOOLS non-MCP tools that carry a group (or are OpenAPI operations), in catalog order. */
function bigSources(catalog: Catalog): Map<string, CatalogEntry[]> {
  const byOwner = new Map<string, CatalogEntry[]>();
  for (const e of catalog.entries) {
    if (e.mcp || e.tool.owner === undefined || (e.tool.group === undefined && e.source !== 'openapi')) continue;
    const list = byOwner.get(e.tool.owner) ?? [];
    list.push(e);
    byOwner.set(e.tool.owner, list);
  }
  for (const [owner, list] of byOwner) if (list.length <= QUICK_INDEX_GROUP_SUMMARY_MIN_TOOLS) byOwner.delete(owner);
  return byOwner;
}

/**
 * `github: 1223 OpenAPI tools by tag: repos 204, actions 187, ... Find one with catalog.search("create an issue"); named
 * types: API.read("openapi/github.d.ts")`: a big source in one block, its groups largest first, as many as fit.
 */
function sourceSummary(owner: string, entries: CatalogEntry[]): string {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.tool.group ?? 'untagged', (counts.get(e.tool.group ?? 'untagged') ?? 0) + 1);
  const groups = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const namespace = entries.find((e) => e.typeNamespace !== undefined)?.typeNamespace;
  const kind = entries[0]?.source === 'openapi' ? 'OpenAPI tools' : 'tools';
  const head = `${owner}: ${entries.length} ${kind} by tag: `;
  const example = entries[0]?.callableName ?? 'tool';
  const tail = `. Find one with catalog.search("<what to do>") (e.g. ${example}(...))${namespace !== undefined ? `; named types: API.read("openapi/${namespace}.d.ts")` : ''}`;
  const shown: string[] = [];
  let length = head.length + tail.length;
  for (const [group, count] of groups) {
    const part = `${group} ${count}`;
    if (length + part.length + 2 + 12 > MAX_QUICK_INDEX_SOURCE_SUMMARY_CHARS) break;
    shown.push(part);
    length += part.length + 2;
  }
  const rest = groups.length - shown.length;
  return `${head}${shown.join(', ')}${rest > 0 ? `, ${rest} more tags` : ''}${tail}`;
}

function footer(omitted: CatalogEntry[]): string {
  const mcp = omitted.filter((e) => e.mcp).length;
  const plain = omitted.length - mcp;
  const where: string[] = [];
  if (plain > 0) where.push('catalog.search("<keywords>")', 'API.list("tools/")');
  if (mcp > 0) where.push('API.list("mcp/")');
  const what = mcp === 0 ? `${plain} more ${plain === 1 ? 'tool' : 'tools'}` : plain === 0 ? `${mcp} more MCP ${mcp === 1 ? 'tool' : 'tools'}` : `${omitted.length} more tools (${mcp} MCP)`;
  const list = where.length === 1 ? where[0] : `${where.slice(0, -1).join(', ')} or ${where[where.length - 1]}`;
  return `… ${what}: use ${list}`;
}
