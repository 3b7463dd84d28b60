// What turns derive from a catalog, made once per catalog and shared by every turn over the same tools (catalog/cache.ts
// keeps one catalog per tool set): the quick index, the guest's packed declaration files, and the token meter's counts.
// Over a big source each is costly (GitHub's REST API: megabytes of text), so none is made once per turn.
import { packDeclarationFiles, type DeclarationFiles } from '../bridge/declaration-files.mjs';
import { renderQuickIndex } from '../catalog/quick-index.ts';
import type { Catalog } from '../catalog/types.ts';
import { textTokens } from '../runs/tokens.ts';
import { directSurfaceTools, type SurfaceView } from '../surface/surface.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { memoShortText } from '../util/text-memo.ts';

/** `make(catalog)`, made at the first call per catalog and kept while the catalog lives. */
function perCatalog<T>(make: (catalog: Catalog) => T): (catalog: Catalog) => T {
  const made = new WeakMap<Catalog, { value: T }>();
  return (catalog) => {
    let kept = made.get(catalog);
    if (!kept) {
      kept = { value: make(catalog) };
      made.set(catalog, kept);
    }
    return kept.value;
  };
}

/** The quick index of a catalog. */
export const quickIndexOf = perCatalog(renderQuickIndex);

/** A catalog's declaration files packed for the guest (bridge/declaration-files.mjs). */
export const declarationFilesOf = perCatalog((catalog): DeclarationFiles => packDeclarationFiles(catalog.files));

/** Distinct definition texts kept (one per agent, model and client tool set in use; a few KiB each). */
const MAX_DEFINITION_COUNTS = 64;
/** Every definition text is remembered, whatever its length: a turn's are counted once per distinct text. */
const definitionTextTokens = memoShortText(textTokens, Infinity, MAX_DEFINITION_COUNTS);

/** Tokens of tool definitions as the model reads them (compact JSON), counted once per distinct text. */
function definitionTokens(definitions: unknown): number {
  return definitionTextTokens(JSON.stringify(definitions) ?? 'null');
}

/**
 * Tokens of the direct surface (every effective tool with its schemas), per catalog: over a big source the text is
 * megabytes (GitHub's REST API: 1.8 MB, half a second to serialize and count), so it is counted once per tool set.
 * The catalog stands for the tool set it was built from (catalog/cache.ts keys one by the other).
 */
const directTokensByCatalog = new WeakMap<Catalog, number>();
function directDefinitionTokens(eff: { tools: ToolDefinition[]; catalog: Catalog }): number {
  let n = directTokensByCatalog.get(eff.catalog);
  if (n === undefined) {
    n = definitionTokens(directSurfaceTools(eff.tools));
    directTokensByCatalog.set(eff.catalog, n);
  }
  return n;
}

/** The token meter's definition counts for a turn's surface, counted at first use and kept (a turn's tools are fixed until updateClientTools). */
export function definitionTokensOf(eff: { surface: Pick<SurfaceView, 'tools'>; tools: ToolDefinition[]; catalog: Catalog }): () => { codeMode: number; direct: number } {
  let counted: { codeMode: number; direct: number } | undefined;
  return () => (counted ??= { codeMode: definitionTokens(eff.surface.tools), direct: directDefinitionTokens(eff) });
}
