// The named types of sources whose tools share schemas (OpenAPI): one namespace and one declaration file per
// source, tool declarations that refer to the names, and the describe() text that carries the ones a tool reaches.
//
// Rendering is the one generator's (schema-to-ts.ts); what is here is which names go where, and the caches: a
// source's types and its tools' declarations never change once loaded, while every turn builds a catalog.
import type { SchemaDefs, ToolDefinition } from '../tools/types.ts';
import { referencedNames } from '../tools/schema-defs.ts';
import { declarationFor, namedTypesDeclaration, type NamedTypes } from './schema-to-ts.ts';
import { isReservedGlobal, projectNames } from './names.ts';
import { internText } from '../util/text-memo.ts';
import type { Catalog, CatalogEntry } from './types.ts';

/** Everything a cell is typechecked against: the ambient declarations and every source's named types. */
export function checkDeclarations(catalog: Catalog): string {
  if (catalog.typeFiles.size === 0) return catalog.ambientDeclarations;
  let text = joinedDeclarations.get(catalog);
  if (text === undefined) {
    text = [catalog.ambientDeclarations, ...catalog.typeFiles.values()].join('\n') + '\n';
    joinedDeclarations.set(catalog, text);
  }
  return text;
}
const joinedDeclarations = new WeakMap<Catalog, string>();

/**
 * The namespace each source's named schemas are declared in: the source's name as an identifier (`github`,
 * `my_api`), projected like a tool name so two sources never share one.
 */
export function typeNamespaces(tools: readonly ToolDefinition[]): Map<SchemaDefs, string> {
  const all = [...new Set(tools.map((t) => t.schemaDefs).filter((d): d is SchemaDefs => d !== undefined))];
  if (all.length === 0) return new Map();
  const projected = projectNames(
    all.map((d, i) => ({ identity: `types\u0000${d.owner}\u0000${i}`, name: d.owner })),
    isReservedGlobal,
  );
  return new Map(all.map((d, i) => [d, projected.get(`types\u0000${d.owner}\u0000${i}`) ?? d.owner]));
}

// A source's types and its tools' declarations never change once loaded; every turn's catalog asks again.
const typeFileCache = new WeakMap<SchemaDefs, Map<string, string>>();
const declarationCache = new WeakMap<ToolDefinition, Map<string, string>>();

/** `openapi/<namespace>.d.ts` -> its text, per source. */
export function typeFilesOf(namespaces: ReadonlyMap<SchemaDefs, string>): Map<string, string> {
  return new Map([...namespaces].map(([defs, namespace]) => [`openapi/${namespace}.d.ts`, typesFile(defs, namespace)]));
}

function typesFile(defs: SchemaDefs, namespace: string): string {
  let byNamespace = typeFileCache.get(defs);
  if (!byNamespace) typeFileCache.set(defs, (byNamespace = new Map()));
  let text = byNamespace.get(namespace);
  if (text === undefined) {
    const head = `// OpenAPI source "${defs.owner}": its named schemas, referred to as ${namespace}.<Name> by its tools.\n`;
    text = internText(namedTypesDeclaration(namespace, defs, defs.names(), head));
    byNamespace.set(namespace, text);
  }
  return text;
}

function namedIn(defs: SchemaDefs, namespace: string): NamedTypes {
  return { defs, qualify: (name) => `${namespace}.${name}` };
}

export function toolDeclaration(tool: ToolDefinition, callableName: string, namespace: string | undefined): string {
  if (!tool.schemaDefs || namespace === undefined) return declarationFor(callableName, tool.inputSchema, tool.outputSchema, tool.description);
  const key = `${callableName}\u0000${namespace}`;
  let byName = declarationCache.get(tool);
  if (!byName) declarationCache.set(tool, (byName = new Map()));
  let text = byName.get(key);
  if (text === undefined) {
    text = declarationFor(callableName, tool.inputSchema, tool.outputSchema, tool.description, namedIn(tool.schemaDefs, namespace));
    byName.set(key, text);
  }
  return text;
}

/** Named types a describe() declaration carries at most; past them it points to the source's declaration file. */
export const MAX_DESCRIBE_NAMED_TYPES = 64;

/** The declaration describe() returns: the tool's, preceded by the named types it reaches, so it reads on its own. */
export function describedDeclaration(entry: CatalogEntry): string {
  const defs = entry.tool.schemaDefs;
  const namespace = entry.typeNamespace;
  if (!defs || namespace === undefined) return entry.declaration;
  const { names, complete } = referencedNames([entry.inputSchema, entry.outputSchema], defs, MAX_DESCRIBE_NAMED_TYPES);
  if (names.length === 0) return entry.declaration;
  const more = complete ? '' : `// more named types: API.read("openapi/${namespace}.d.ts")\n`;
  return `${namedTypesDeclaration(namespace, defs, names)}\n${more}${entry.declaration}`;
}
