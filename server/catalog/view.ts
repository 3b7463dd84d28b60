// The catalog as the playground and the CLI show it: every effective and denied tool with its projection, plus MCP server states.
import { cellTypeWorld, type CellTypeWorld } from '../../shared/cell-types.mjs';
import type { ToolDefinition, ToolSource } from '../tools/types.ts';
import type { McpServerStatus, McpServerView } from '../tools/mcp/types.ts';
import { hostIdentity, isCatalogControl, isReservedGlobal, isReservedMcpMember, mcpServerIdentity, projectNames } from './names.ts';
import type { Catalog } from './types.ts';

export interface CatalogToolView {
  /** The global (or MCP member) a cell calls; for a denied tool, the name it would have if policy allowed it. */
  callableName: string;
  name: string;
  source: ToolSource;
  owner?: string;
  description: string;
  declaration: string;
  executionMode: 'parallel' | 'sequential';
  networkContent: boolean;
  approval: boolean;
  directOnly: boolean;
  /** A Tool Search control tool: hidden from the model and the catalog when code mode is active. */
  control: boolean;
  /** Set when policy removed it: the rule that did (`tools.deny: "web_fetch"`). */
  deniedBy?: string;
  /** MCP tools: `MCP.<server>.<tool>` path. */
  mcpPath?: string;
}

export interface CatalogView {
  tools: CatalogToolView[];
  mcpServers: McpServerView[];
  /** Ambient .d.ts for the editor (exact declarations the Gateway generates), without the sources' named types. */
  declarations: string;
  /** Each OpenAPI source's named types as its own file (the editor adds them one by one and keeps unchanged ones). */
  typeFiles: Array<{ path: string; text: string }>;
  /** The compiler options and cell wrapper the typecheck uses (shared/cell-types.mjs): the editor checks with the same. */
  cellTypes: CellTypeWorld;
  /** Plugins that failed to load, by name, with the reason. */
  pluginErrors: Array<{ plugin: string; error: string }>;
}

/** What a catalog view is projected from: a turn's effective tools, the ones policy denied, and their catalog. */
export interface CatalogViewSource {
  tools: readonly ToolDefinition[];
  denied: ReadonlyArray<{ tool: ToolDefinition; rule: string }>;
  catalog: Catalog;
  mcpServers: McpServerView[];
  pluginErrors: ReadonlyArray<{ plugin: string; error: string }>;
}

/** Effective tools first (with their callable names and declarations), then denied ones greyed with their rule. */
export function catalogView(src: CatalogViewSource): CatalogView {
  const entries = new Map(src.catalog.entries.map((e) => [e.tool, e]));
  const deniedNames = deniedCallableNames(src);
  const view = (t: ToolDefinition, deniedBy?: string): CatalogToolView => {
    const entry = entries.get(t);
    const denied = deniedNames.get(t);
    const path = entry?.mcp ? `MCP.${entry.mcp.serverCallable}.${entry.callableName}` : denied?.mcpPath;
    return {
      callableName: entry?.callableName ?? denied?.callableName ?? t.name,
      name: t.name,
      source: t.source,
      ...(t.owner ? { owner: t.owner } : {}),
      description: t.description,
      declaration: entry?.declaration ?? '',
      executionMode: t.executionMode ?? 'parallel',
      networkContent: Boolean(t.networkContent),
      approval: t.approval === 'required',
      directOnly: Boolean(t.directOnly),
      control: isCatalogControl(t),
      ...(deniedBy ? { deniedBy } : {}),
      ...(path ? { mcpPath: path } : {}),
    };
  };
  return {
    tools: [...src.tools.map((t) => view(t)), ...src.denied.map((d) => view(d.tool, d.rule))],
    mcpServers: src.mcpServers,
    declarations: src.catalog.ambientDeclarations,
    typeFiles: [...src.catalog.typeFiles].map(([path, text]) => ({ path, text })),
    cellTypes: cellTypeWorld(),
    pluginErrors: [...src.pluginErrors],
  };
}

/**
 * What a cell would write to call each denied tool (a bare name, or `MCP.<server>.<tool>`), with the rule that denied
 * it: the run explains an uncaught ReferenceError or TypeError on one of these names with its rule (runs/denied.ts).
 */
export function deniedGuestNames(src: Pick<CatalogViewSource, 'tools' | 'denied' | 'catalog' | 'mcpServers'>): Map<string, string> {
  const out = new Map<string, string>();
  const names = deniedCallableNames(src);
  // a server's namespace as the catalog names it, for a server whose state is not reported (tools added in code)
  const namespaces = new Map(src.catalog.entries.flatMap((e) => (e.mcp ? [[e.mcp.server, e.mcp.serverCallable] as const] : [])));
  for (const { tool, rule } of src.denied) {
    const n = names.get(tool);
    if (!n) continue;
    const namespace = tool.source === 'mcp' ? namespaces.get(tool.owner ?? '') : undefined;
    out.set(n.mcpPath ?? (namespace !== undefined ? `MCP.${namespace}.${n.callableName}` : n.callableName), rule);
  }
  return out;
}

/**
 * The names a cell would write for each denied tool: the catalog's projection over the turn's tools and the
 * denied ones together (so `weather.lookup` is `weather_lookup`, as an agent that may call it sees it), never a
 * name an effective tool holds. The editor flags a call to one of them with the rule that denied it.
 */
function deniedCallableNames(src: Pick<CatalogViewSource, 'tools' | 'denied' | 'catalog' | 'mcpServers'>): Map<ToolDefinition, { callableName: string; mcpPath?: string }> {
  const out = new Map<ToolDefinition, { callableName: string; mcpPath?: string }>();
  if (src.denied.length === 0) return out;
  const all = [...src.tools, ...src.denied.map((d) => d.tool)];
  const plain = all.filter((t) => t.source !== 'mcp');
  const plainNames = projectNames(
    plain.map((t) => ({ identity: hostIdentity(t), name: t.name })),
    isReservedGlobal,
  );
  const taken = new Set(src.catalog.entries.filter((e) => !e.mcp).map((e) => e.callableName));
  const serverNames = new Map(src.mcpServers.map((s) => [s.name, s.callableName]));
  for (const { tool } of src.denied) {
    if (tool.source !== 'mcp') {
      const name = plainNames.get(hostIdentity(tool));
      if (name !== undefined && !taken.has(name)) out.set(tool, { callableName: name });
      continue;
    }
    const server = tool.owner ?? '';
    const siblings = all.filter((t) => t.source === 'mcp' && (t.owner ?? '') === server);
    const names = projectNames(
      siblings.map((t) => ({ identity: hostIdentity(t), name: t.name })),
      isReservedMcpMember,
    );
    const name = names.get(hostIdentity(tool));
    if (src.catalog.entries.some((e) => e.mcp?.server === server && e.callableName === name)) continue;
    const serverCallable = serverNames.get(server);
    if (name !== undefined) out.set(tool, { callableName: name, ...(serverCallable !== undefined ? { mcpPath: `MCP.${serverCallable}.${name}` } : {}) });
  }
  return out;
}

/**
 * Each MCP server's state with the property a cell writes for it (`MCP.<callableName>`): the same projection the
 * catalog gives the servers' namespaces, over every configured server, so a server that is down is named too.
 */
export function mcpServerViews(servers: readonly McpServerStatus[]): McpServerView[] {
  const names = projectNames(
    servers.map((s) => ({ identity: mcpServerIdentity(s.name), name: s.name })),
    isReservedMcpMember,
  );
  return servers.map((s) => ({ ...s, callableName: names.get(mcpServerIdentity(s.name)) ?? s.name }));
}
