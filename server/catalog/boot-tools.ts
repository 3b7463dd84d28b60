// Which tools a cell's guest defines as globals when it boots: the ones its source names, or every one when the
// source can reach globals by a computed name.
//
// A guest global per tool (spec 01: "bare async globals") costs the VM a handle, its metadata and a property of the
// global object: with GitHub's REST API loaded that is 1,223 handles, about 100 ms of boot per cell and a megabyte of
// every parked cell's snapshot, for tools almost no cell calls. A global a cell's code never names cannot be told from
// one that is not there, except through the global object or code built at run time, so a cell gets a global for
// each tool whose callable name occurs in its source as a word (strings and comments included: a few spare handles
// cost little), and every tool as before when its source names a way to the global object or to run-time code
// (`globalThis`, `this`, `eval`, `Function`, `constructor`). Handles found through catalog.search() and
// catalog.all() are made when those calls return (prelude.js), so they reach every tool either way.
import type { Catalog, GuestBootTool } from './types.ts';

/**
 * Words through which a cell can reach the global object or evaluate code built at run time: a cell naming one boots
 * with every tool's global. (`this` is the global object in a sloppy function called plainly; `constructor` leads to
 * the Function constructor from any function.)
 */
export const DYNAMIC_GLOBAL_WORDS: ReadonlySet<string> = new Set(['globalThis', 'this', 'eval', 'Function', 'constructor']);

/** An identifier as JavaScript reads one (the classes catalog/names.ts projects callable names into). */
const WORD = /[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*/gu;
/** `\u0061` and `\u{61}`: escapes an identifier may be spelled with. */
const UNICODE_ESCAPE = /\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})/g;

/** The guest's boot metadata of every non-MCP tool, per catalog (a cell that may reach any global gets them all). */
const allBootTools = new WeakMap<Catalog, GuestBootTool[]>();

/** What the guest makes a tool's handle from (no declaration: describe() fetches that). */
export function bootTool(entry: { callableName: string; name: string; description: string; source: GuestBootTool['source'] }): GuestBootTool {
  return { callableName: entry.callableName, name: entry.name, description: entry.description, source: entry.source };
}

/** Every non-MCP tool of `catalog` as the guest boots it, in catalog order. */
export function everyBootTool(catalog: Catalog): GuestBootTool[] {
  let all = allBootTools.get(catalog);
  if (!all) {
    // shared by every cell and catalog.all() reply of the catalog: frozen, so no reader can change it for the others
    all = Object.freeze(catalog.entries.filter((e) => !e.mcp).map((e) => Object.freeze(bootTool(e)))) as GuestBootTool[];
    allBootTools.set(catalog, all);
  }
  return all;
}

/** The words of `source` (identifier escapes decoded), each once. */
export function sourceWords(source: string): Set<string> {
  const decoded = source.includes('\\u')
    ? source.replace(UNICODE_ESCAPE, (whole, braced: string | undefined, four: string | undefined) => {
        const code = parseInt(braced ?? four ?? '', 16);
        return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      })
    : source;
  return new Set(decoded.match(WORD) ?? []);
}

/**
 * The tools a cell whose guest source is `body` boots with as globals: those whose callable name is a word of the
 * source (in the order the source first names them), or all of them when a word of DYNAMIC_GLOBAL_WORDS occurs.
 * Costs the source's length and the tools it names, not the catalog's size.
 */
export function bootTools(catalog: Catalog, body: string): GuestBootTool[] {
  const words = sourceWords(body);
  for (const word of DYNAMIC_GLOBAL_WORDS) if (words.has(word)) return everyBootTool(catalog);
  const named: GuestBootTool[] = [];
  for (const word of words) {
    const entry = catalog.byCallable.get(word);
    if (entry) named.push(bootTool(entry));
  }
  return named;
}
