// Builds the run-scoped catalog from policy-filtered tools: winners, ids, callable names, declarations and virtual .d.ts files.
import type { JsonSchema, ToolDefinition, ToolSource } from '../tools/types.ts';
import { TOOL_SOURCE_ORDER } from '../tools/types.ts';
import { GUEST_RUNTIME_DECLARATIONS, MCP_SHARED_DECLARATIONS, RESULTS_DECLARATIONS } from './guest-declarations.ts';
import type { Catalog, CatalogEntry, GuestToolMeta } from './types.ts';
import {
  catalogId,
  effectiveTools,
  hostIdentity,
  isCatalogControl,
  isReservedGlobal,
  isReservedMcpMember,
  mcpServerIdentity,
  projectNames,
} from './names.ts';
import { docComment, signatureParts, TypeAliasRegistry } from './schema-to-ts.ts';
import { selfContainedSchema } from '../tools/schema-defs.ts';
import { describedDeclaration, toolDeclaration, typeFilesOf, typeNamespaces } from './named-types.ts';
import { internText } from '../util/text-memo.ts';
import { isRecord } from '../util/is-record.mjs';
import { jsonShapeProblem } from '../util/json-shape.ts';

/** A tool list the catalog cannot be built from; `field` names the offending input (`tools[3].owner`). */
export class CatalogInputError extends Error {
  override name = 'CatalogInputError';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** What `describe()` on a handle resolves to (no id). */
export interface ToolDescription {
  callableName: string;
  name: string;
  description: string;
  source: ToolSource;
  declaration: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

/** What `MCP.<server>.$api()` resolves to (no ids). */
export interface McpServerApi {
  server: string;
  tools: Array<{ callableName: string; name: string; description: string; declaration: string; inputSchema: JsonSchema; outputSchema?: JsonSchema }>;
  declarations: string;
}

/**
 * Build the catalog from tools that are already policy-filtered. Direct-only and control tools (by
 * flag or by name, isCatalogControl) are dropped; one winner per exact name (later wins); non-MCP entries in source order, then MCP.
 */
export function buildCatalog(tools: readonly ToolDefinition[]): Catalog {
  if (!Array.isArray(tools)) throw new CatalogInputError('tools', 'must be an array of tool definitions');
  tools.forEach(validateTool);

  const eligible = tools.filter((t) => t.directOnly !== true && !isCatalogControl(t));
  // Stable sort: callers pass source order already; this only guards the contract.
  const ordered = eligible
    .map((tool, index) => ({ tool, index }))
    .sort((a, b) => TOOL_SOURCE_ORDER.indexOf(a.tool.source) - TOOL_SOURCE_ORDER.indexOf(b.tool.source) || a.index - b.index)
    .map((x) => x.tool);

  const plain = effectiveTools(
    ordered.filter((t) => t.source !== 'mcp'),
    (t) => t.name,
  );
  const mcpTools = effectiveTools(
    ordered.filter((t) => t.source === 'mcp'),
    (t) => JSON.stringify([t.owner, t.name]),
  );

  const plainNames = projectNames(
    plain.map((t) => ({ identity: hostIdentity(t), name: t.name })),
    isReservedGlobal,
  );

  const entries: CatalogEntry[] = [];
  const byCallable = new Map<string, CatalogEntry>();
  const files = new Map<string, string>();
  const namespaces = typeNamespaces(plain); // a source's named schemas: one namespace and one declaration file each
  const typeFiles = typeFilesOf(namespaces);
  for (const tool of plain) {
    const identity = hostIdentity(tool);
    const callableName = mustGet(plainNames, identity);
    const namespace = tool.schemaDefs ? namespaces.get(tool.schemaDefs) : undefined;
    const entry = makeEntry(tool, identity, callableName, toolDeclaration(tool, callableName, namespace));
    if (namespace !== undefined) entry.typeNamespace = namespace;
    entries.push(entry);
    byCallable.set(callableName, entry);
  }

  // MCP: server names are escaped within `MCP`, tool names within their server.
  const servers = [...new Set(mcpTools.map((t) => t.owner ?? ''))];
  const serverNames = projectNames(
    servers.map((s) => ({ identity: mcpServerIdentity(s), name: s })),
    isReservedMcpMember,
  );
  const mcp = new Map<string, Map<string, CatalogEntry>>();
  const serverFiles: string[] = [];
  const serverMembers: string[] = [];
  for (const server of servers) {
    const serverCallable = mustGet(serverNames, mcpServerIdentity(server));
    const serverTools = mcpTools.filter((t) => (t.owner ?? '') === server);
    const toolNames = projectNames(
      serverTools.map((t) => ({ identity: hostIdentity(t), name: t.name })),
      isReservedMcpMember,
    );
    const members = new Map<string, CatalogEntry>();
    const aliasTexts: string[] = [];
    const memberTexts: string[] = [];
    for (const tool of serverTools) {
      const identity = hostIdentity(tool);
      const callableName = mustGet(toolNames, identity);
      const prefix = `${mcpInterfaceName(serverCallable)}__${callableName}__`;
      const standalone = mcpMember(callableName, tool, '', new TypeAliasRegistry(prefix));
      const inFile = mcpMember(callableName, tool, '  ', new TypeAliasRegistry(prefix));
      memberTexts.push(inFile.member);
      if (inFile.aliases !== '') aliasTexts.push(inFile.aliases);
      const declaration = standalone.aliases === '' ? standalone.member : `${standalone.aliases}\n${standalone.member}`;
      const entry = makeEntry(tool, identity, callableName, declaration);
      entry.mcp = { server, serverCallable };
      entries.push(entry);
      members.set(callableName, entry);
    }
    mcp.set(serverCallable, members);
    const file = mcpServerFile(server, serverCallable, memberTexts, aliasTexts.join('\n'));
    files.set(`mcp/${serverCallable}.d.ts`, internText(file));
    serverFiles.push(file);
    serverMembers.push(`  ${docComment(`MCP server "${server}": ${serverTools.length} ${serverTools.length === 1 ? 'tool' : 'tools'}.`, '  ')}${serverCallable}: ${mcpInterfaceName(serverCallable)};`);
  }

  const mcpIndex = [
    '// MCP servers: MCP.<server>.<tool>({ ...input }) calls a tool; MCP.<server>.$api() returns its schemas; API.read("mcp/<server>.d.ts") its declarations.',
    MCP_SHARED_DECLARATIONS,
    '',
    serverMembers.length === 0 ? 'declare const MCP: {};' : `declare const MCP: {\n${serverMembers.join('\n')}\n};`,
  ].join('\n');
  files.set('mcp/index.d.ts', internText(mcpIndex));
  files.set('results.d.ts', RESULTS_DECLARATIONS);

  const toolFiles: string[] = [];
  for (const entry of entries) {
    if (entry.mcp) continue;
    const file = toolFile(entry);
    files.set(`tools/${entry.callableName}.d.ts`, internText(file));
    toolFiles.push(file);
  }

  for (const [path, text] of typeFiles) files.set(path, text);
  // each turn builds its own catalog; equal texts are kept once across turns
  const ambientDeclarations = internText([GUEST_RUNTIME_DECLARATIONS, RESULTS_DECLARATIONS, mcpIndex, ...serverFiles, ...toolFiles].join('\n\n') + '\n');
  return { entries, byCallable, mcp, files: sortedMap(files), ambientDeclarations, typeFiles };
}

function makeEntry(tool: ToolDefinition, identity: string, callableName: string, declaration: string): CatalogEntry {
  const entry: CatalogEntry = {
    id: catalogId(identity),
    tool,
    name: tool.name,
    callableName,
    source: tool.source,
    description: tool.description,
    inputSchema: tool.inputSchema,
    executionMode: tool.executionMode ?? 'parallel',
    declaration: internText(declaration),
  };
  if (tool.outputSchema !== undefined) entry.outputSchema = tool.outputSchema;
  return entry;
}

export function mcpInterfaceName(serverCallable: string): string {
  return `McpServer_${serverCallable}`;
}

/** One `tool(input): Promise<McpCallToolResult<Out>>;` interface member, and the `type` aliases it needs (top level). */
function mcpMember(callableName: string, tool: ToolDefinition, indent: string, aliases: TypeAliasRegistry): { member: string; aliases: string } {
  const { param, output } = signatureParts(tool.inputSchema, tool.outputSchema, { indent, aliases });
  const result = tool.outputSchema === undefined ? 'McpCallToolResult' : `McpCallToolResult<${output}>`;
  return { member: `${docComment(tool.description, indent)}${callableName}(${param}): Promise<${result}>;`, aliases: aliases.render() };
}

function mcpServerFile(server: string, serverCallable: string, members: string[], aliasText: string): string {
  const head = `// MCP server "${server}": call its tools as MCP.${serverCallable}.<tool>({ ...input }).`;
  const apiMember = `  /** This server's tools with their JSON Schemas and declarations. */\n  $api(): Promise<McpServerApi>;`;
  const body = `interface ${mcpInterfaceName(serverCallable)} {\n${[...members.map((m) => `  ${m}`), apiMember].join('\n')}\n}`;
  return [head, ...(aliasText === '' ? [] : [aliasText]), body].join('\n');
}

function toolFile(entry: CatalogEntry): string {
  const head =
    entry.name === entry.callableName
      ? `// Tool "${entry.name}" (${entry.source}).`
      : `// Tool "${entry.name}" (${entry.source}), callable as ${entry.callableName}(...).`;
  const types = entry.typeNamespace === undefined ? '' : ` Named types (${entry.typeNamespace}.<Name>): API.read("openapi/${entry.typeNamespace}.d.ts").`;
  return `${head}${types}\n${entry.declaration}`;
}

/** What the guest may see of an entry. */
export function guestMeta(entry: CatalogEntry): GuestToolMeta {
  return {
    callableName: entry.callableName,
    name: entry.name,
    description: entry.description,
    source: entry.source,
    declaration: entry.declaration,
  };
}

/** What a handle's `describe()` resolves to: a declaration and schemas that read on their own (named types included). */
export function describeTool(entry: CatalogEntry): ToolDescription {
  const defs = entry.tool.schemaDefs;
  const out: ToolDescription = { ...guestMeta(entry), declaration: describedDeclaration(entry), inputSchema: selfContainedSchema(entry.inputSchema, defs) };
  if (entry.outputSchema !== undefined) out.outputSchema = selfContainedSchema(entry.outputSchema, defs);
  return out;
}

/** What `MCP.<serverCallable>.$api()` resolves to; undefined for an unknown server. */
export function mcpServerApi(catalog: Catalog, serverCallable: string): McpServerApi | undefined {
  const members = catalog.mcp.get(serverCallable);
  const declarations = catalog.files.get(`mcp/${serverCallable}.d.ts`);
  if (!members || declarations === undefined) return undefined;
  const first = members.values().next().value;
  return {
    server: first?.mcp?.server ?? serverCallable,
    tools: [...members.values()].map((e) => {
      const t: McpServerApi['tools'][number] = {
        callableName: e.callableName,
        name: e.name,
        description: e.description,
        declaration: e.declaration,
        inputSchema: e.inputSchema,
      };
      if (e.outputSchema !== undefined) t.outputSchema = e.outputSchema;
      return t;
    }),
    declarations,
  };
}

/** The MCP namespaces the guest boots with: each server's guest name and its tools' (no ids). Non-MCP tools: boot-tools.ts. */
export function guestMcpNamespaces(catalog: Catalog): Array<{ name: string; tools: string[] }> {
  return [...catalog.mcp].map(([name, members]) => ({ name, tools: [...members.keys()] }));
}

function validateTool(tool: unknown, i: number): void {
  const at = `tools[${i}]`;
  if (!isRecord(tool)) throw new CatalogInputError(at, 'must be a tool definition object with name, description, inputSchema and source');
  const label = typeof tool.name === 'string' ? `${at} ("${tool.name}")` : at;
  if (typeof tool.name !== 'string' || tool.name === '') throw new CatalogInputError(`${at}.name`, 'must be a non-empty string: the exact tool name');
  if (typeof tool.description !== 'string') throw new CatalogInputError(`${label}.description`, 'must be a string (use "" when the tool has none)');
  if (!isRecord(tool.inputSchema)) {
    throw new CatalogInputError(`${label}.inputSchema`, 'must be a JSON Schema object, e.g. { "type": "object", "properties": {} }');
  }
  if (tool.outputSchema !== undefined && !isRecord(tool.outputSchema)) {
    throw new CatalogInputError(`${label}.outputSchema`, 'must be a JSON Schema object, or omitted when the output is unknown');
  }
  for (const key of ['inputSchema', 'outputSchema'] as const) {
    const shape = jsonShapeProblem(tool[key] ?? null);
    if (shape) throw new CatalogInputError(`${label}.${key}`, shape);
  }
  if (typeof tool.source !== 'string' || !(TOOL_SOURCE_ORDER as readonly string[]).includes(tool.source)) {
    throw new CatalogInputError(`${label}.source`, `must be one of ${TOOL_SOURCE_ORDER.join(', ')}`);
  }
  if (tool.source === 'mcp' && (typeof tool.owner !== 'string' || tool.owner === '')) {
    throw new CatalogInputError(`${label}.owner`, 'MCP tools need their server name as owner (it becomes MCP.<server>)');
  }
  if (tool.owner !== undefined && typeof tool.owner !== 'string') throw new CatalogInputError(`${label}.owner`, 'must be a string (plugin id or MCP server name) or omitted');
  if (tool.executionMode !== undefined && tool.executionMode !== 'parallel' && tool.executionMode !== 'sequential') {
    throw new CatalogInputError(`${label}.executionMode`, 'must be "parallel" or "sequential" (or omitted for parallel)');
  }
}

function mustGet<V>(map: Map<string, V>, key: string): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`catalog: no projected name for ${key}`); // a bug, not bad input
  return value;
}

function sortedMap(map: Map<string, string>): Map<string, string> {
  return new Map([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
