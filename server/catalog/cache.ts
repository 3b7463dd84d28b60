// The catalogs built lately, by the tool definitions they were built from: turns over the same tools share one.
//
// A catalog is a pure function of its tool definitions and never changes once built (build.ts), while every turn
// (and every surface or catalog view) asks for one: over GitHub's REST API a build is 100-300 ms of the event loop.
// Tool sources hand out the same definition objects until their tools change (a source reloads, an MCP server
// lists anew, the operator adds a source), so the definitions' identities, in order, are the key: a changed tool
// is a new object and a new key. Client tools are made per turn request; the turn registry keeps one definition
// per distinct client tool so that equal requests give equal keys (gateway/turns.ts).
import type { ToolDefinition } from '../tools/types.ts';
import { buildCatalog } from './build.ts';
import type { Catalog } from './types.ts';

/**
 * Catalogs kept: one per tool set in use (an agent's tools, with or without a page's client tools). A GitHub-sized
 * catalog holds its entries and file map (the declaration texts are shared between catalogs); a handful covers the
 * agents and client tool sets a Gateway serves at once, and the oldest is built again if it comes back.
 */
export const MAX_CACHED_CATALOGS = 8;

export class CatalogCache {
  /** key (the definitions' ids in order) -> catalog, oldest first */
  private readonly catalogs = new Map<string, Catalog>();
  private readonly ids = new WeakMap<ToolDefinition, number>();
  private nextId = 1;

  constructor(private readonly max: number = MAX_CACHED_CATALOGS) {}

  /** The catalog of `tools` (policy-filtered, in order): the one built for the same definitions if kept, else a new one. */
  get(tools: readonly ToolDefinition[]): Catalog {
    const key = this.key(tools);
    // a definition that is not an object is buildCatalog's to refuse, with the field it names
    if (key === undefined) return buildCatalog(tools);
    const kept = this.catalogs.get(key);
    if (kept) {
      // most recently used last, so the oldest is the first to go
      this.catalogs.delete(key);
      this.catalogs.set(key, kept);
      return kept;
    }
    const catalog = buildCatalog(tools);
    if (this.catalogs.size >= this.max) this.catalogs.delete(this.catalogs.keys().next().value!);
    this.catalogs.set(key, catalog);
    return catalog;
  }

  /** Catalogs kept now (tests). */
  get size(): number {
    return this.catalogs.size;
  }

  private key(tools: readonly ToolDefinition[]): string | undefined {
    if (!Array.isArray(tools)) return undefined;
    let key = '';
    for (const tool of tools) {
      if (typeof tool !== 'object' || tool === null) return undefined;
      let id = this.ids.get(tool);
      if (id === undefined) {
        id = this.nextId++;
        this.ids.set(tool, id);
      }
      key += `${id},`;
    }
    return key;
  }
}
