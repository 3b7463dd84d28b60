// API.list / API.read over the catalog's virtual declaration files (answered without a bridge call).
import { InvalidInputError } from '../errors.ts';
import type { Catalog } from './types.ts';

/** `./tools/x.d.ts`, `/tools/x.d.ts` and `tools/x.d.ts` name the same file. */
function normalizePath(path: string): string {
  return path.trim().replace(/^\.?\/+/, '');
}

/** Paths starting with `prefix` (all without one), sorted. `"mcp"` and `"mcp/"` both list the MCP files. */
export function listDeclarationFiles(catalog: Catalog, prefix?: string): string[] {
  if (prefix !== undefined && typeof prefix !== 'string') {
    throw new InvalidInputError('API.list(prefix): prefix must be a string such as "tools/" or "mcp/", or omitted for every file.');
  }
  const p = prefix === undefined ? '' : normalizePath(prefix);
  return [...catalog.files.keys()].filter((path) => path.startsWith(p)).sort();
}

/** Text of one declaration file; an unknown path is `invalid_input` naming what exists. */
export function readDeclarationFile(catalog: Catalog, path: string): string {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new InvalidInputError('API.read(path): path must be a file path from API.list(), e.g. "tools/web_search.d.ts" or "mcp/index.d.ts".');
  }
  const text = catalog.files.get(normalizePath(path));
  if (text !== undefined) return text;
  const dir = normalizePath(path).split('/')[0] ?? '';
  const hint = ['tools', 'mcp'].includes(dir) ? `API.list("${dir}/")` : 'API.list()';
  throw new InvalidInputError(`API.read: no declaration file "${path}". Call ${hint} to see the files that exist.`);
}
