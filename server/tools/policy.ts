// Tool policy: which tools a run may use, from the gateway's and the agent's allow/deny lists, with the rule that removed each.
//
// Supported patterns (each matches a tool when...):
//   web_fetch            the exact tool name
//   web_*  *  *.lookup   a glob over the exact name; `*` is any run of characters (the only wildcard)
//   source:<source>      the tool's source: source:core, source:bundled_plugin, source:external_plugin, source:openapi, source:mcp, source:client
//   <owner>/<glob>       a tool of that plugin id or MCP server: weather/*, edge-names/delete, demo/*
//   mcp:<server>/<glob>  an MCP tool of that server (mcp:demo/*, mcp:demo/echo); `mcp:<server>` alone is all its tools, `mcp:*` every MCP tool
//   MCP, MCP.<server>, MCP.<server>.<glob>
//                        the guest spelling of the same: every MCP tool, one server's, or matching ones
// Semantics: deny wins over allow; an absent allow list admits everything; a
// non-empty allow list admits only matches; `allow: []` admits nothing (a
// no-tool run). The gateway policy (`tools`) and the agent's
// (`agents.list[<id>].tools`) both apply: a tool must pass both.
import { ConfigError } from '../errors.ts';
import type { ToolPolicy } from '../config/types.ts';
import { TOOL_SOURCE_ORDER, type ToolDefinition, type ToolSource } from './types.ts';

export interface ToolPolicyLayers {
  gateway: ToolPolicy;
  agent?: ToolPolicy;
  /** Agent id, to name the agent's rules (`agents.list[research].tools.allow`). */
  agentId?: string;
}

export interface ToolPolicyResult {
  effective: ToolDefinition[];
  /** `rule` says where the denial came from: `tools.deny: "web_fetch"`, `agents.list[research].tools.allow (not listed)`. */
  denied: Array<{ tool: ToolDefinition; rule: string }>;
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

function globMatches(glob: string, value: string): boolean {
  return glob.includes('*') ? globToRegExp(glob).test(value) : glob === value;
}

/** What is wrong with a pattern, or undefined when it is usable. */
export function toolPatternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string' || !pattern.trim()) {
    return 'must be a non-empty string: a tool name, a glob (web_*), source:<source>, <plugin-or-server>/<glob> or mcp:<server>/<glob>';
  }
  if (pattern.startsWith('source:')) {
    const source = pattern.slice('source:'.length);
    if (!(TOOL_SOURCE_ORDER as readonly string[]).includes(source)) {
      return `unknown source "${source}"; use one of: ${TOOL_SOURCE_ORDER.map((s) => `source:${s}`).join(', ')}`;
    }
  }
  if (pattern.startsWith('mcp:') && pattern.length === 'mcp:'.length) return 'names no server; write mcp:<server>/<glob> or mcp:*';
  return undefined;
}

/** Throws a ConfigError naming the bad entry (`tools.deny[2]`) when a policy holds an unusable pattern. */
export function validateToolPolicy(policy: ToolPolicy, path: string): void {
  for (const list of ['allow', 'deny'] as const) {
    const patterns: unknown = policy[list];
    if (patterns === undefined) continue;
    if (!Array.isArray(patterns)) throw new ConfigError(`${path}.${list}`, 'must be an array of tool patterns');
    patterns.forEach((pattern: unknown, index) => {
      const problem = toolPatternProblem(pattern);
      if (problem) throw new ConfigError(`${path}.${list}[${index}]`, `${JSON.stringify(pattern)} ${problem}`);
    });
  }
}

export function toolPatternMatches(pattern: string, tool: Pick<ToolDefinition, 'name' | 'source' | 'owner'>): boolean {
  if (pattern.startsWith('source:')) return tool.source === (pattern.slice('source:'.length) as ToolSource);
  if (pattern === 'MCP' || pattern.startsWith('MCP.')) {
    if (tool.source !== 'mcp') return false;
    const rest = pattern.split('.');
    const server = rest[1] ?? '*';
    const name = rest.slice(2).join('.') || '*';
    return globMatches(server, tool.owner ?? '') && globMatches(name, tool.name);
  }
  if (pattern.startsWith('mcp:')) {
    if (tool.source !== 'mcp') return false;
    const body = pattern.slice('mcp:'.length);
    const slash = body.indexOf('/');
    const server = slash >= 0 ? body.slice(0, slash) : body;
    const name = slash >= 0 ? body.slice(slash + 1) : '*';
    return globMatches(server, tool.owner ?? '') && globMatches(name, tool.name);
  }
  if (globMatches(pattern, tool.name)) return true;
  const slash = pattern.indexOf('/');
  if (slash > 0 && tool.owner !== undefined) {
    return globMatches(pattern.slice(0, slash), tool.owner) && globMatches(pattern.slice(slash + 1), tool.name);
  }
  return false;
}

/** Why one policy layer refuses the tool, or undefined when the layer admits it. */
function layerRule(policy: ToolPolicy | undefined, label: string, tool: ToolDefinition, list: 'allow' | 'deny'): string | undefined {
  if (!policy) return undefined;
  if (list === 'deny') {
    const hit = (policy.deny ?? []).find((pattern) => toolPatternMatches(pattern, tool));
    return hit === undefined ? undefined : `${label}.deny: ${JSON.stringify(hit)}`;
  }
  if (policy.allow === undefined) return undefined;
  if (policy.allow.length === 0) return `${label}.allow (empty: no tools)`;
  return policy.allow.some((pattern) => toolPatternMatches(pattern, tool)) ? undefined : `${label}.allow (not listed)`;
}

export function applyToolPolicy(tools: readonly ToolDefinition[], layers: ToolPolicyLayers): ToolPolicyResult {
  const agentLabel = layers.agentId !== undefined ? `agents.list[${layers.agentId}].tools` : 'agent.tools';
  validateToolPolicy(layers.gateway, 'tools');
  if (layers.agent) validateToolPolicy(layers.agent, agentLabel);

  const effective: ToolDefinition[] = [];
  const denied: ToolPolicyResult['denied'] = [];
  for (const tool of tools) {
    // Deny rules first, so a tool both allowed and denied reports the deny that wins.
    const rule =
      layerRule(layers.gateway, 'tools', tool, 'deny') ??
      layerRule(layers.agent, agentLabel, tool, 'deny') ??
      layerRule(layers.gateway, 'tools', tool, 'allow') ??
      layerRule(layers.agent, agentLabel, tool, 'allow');
    if (rule) denied.push({ tool, rule });
    else effective.push(tool);
  }
  return { effective, denied };
}

/** An empty allow list at either layer means the run has no tools at all (code mode must not engage). */
export function hasEmptyAllowlist(layers: Pick<ToolPolicyLayers, 'gateway' | 'agent'>): boolean {
  return layers.gateway.allow?.length === 0 || layers.agent?.allow?.length === 0;
}
