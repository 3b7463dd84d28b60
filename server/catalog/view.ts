// The catalog as the playground and the CLI show it: every effective and denied tool with its projection, plus MCP server states.
import type { ToolDefinition, ToolSource } from '../tools/types.ts';
import type { McpServerStatus, McpServerView } from '../tools/mcp/types.ts';
import { isCatalogControl, isReservedMcpMember, mcpServerIdentity, projectNames } from './names.ts';
import type { Catalog } from './types.ts';

export interface CatalogToolView {
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
  /** Ambient .d.ts for the editor (exact declarations the Gateway generates). */
  declarations: string;
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
  const view = (t: ToolDefinition, deniedBy?: string): CatalogToolView => {
    const entry = entries.get(t);
    const path = entry?.mcp ? `MCP.${entry.mcp.serverCallable}.${entry.callableName}` : undefined;
    return {
      callableName: entry?.callableName ?? t.name,
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
    pluginErrors: [...src.pluginErrors],
  };
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
