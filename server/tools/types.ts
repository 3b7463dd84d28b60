// Tool definitions: the one shape every tool source (core, plugin, MCP, client) produces.
import type { Owner } from '../access/owners.ts';

/** A JSON Schema object, as tools declare their input and output. */
export type JsonSchema = { [key: string]: unknown };

/** How a tool schema names a schema of its source's `SchemaDefs`: `{ "$ref": "#/$defs/Issue" }`. */
export const DEFS_REF_PREFIX = '#/$defs/';

/**
 * Named schemas every tool of one source shares (an OpenAPI document's components). A tool schema refers to
 * one as `{ $ref: "#/$defs/<Name>" }`; the catalog declares each name once (the source's declaration file)
 * and refers to it by name, and validation follows the names, so a shared schema is never copied per tool.
 */
export interface SchemaDefs {
  /** The source the names belong to (its declaration file and namespace are named after it). */
  readonly owner: string;
  /** A named schema (JSON Schema, its own references again `#/$defs/<Name>`), or undefined for an unknown name. */
  get(name: string): JsonSchema | undefined;
  /** Every name, in a stable order. Names are TypeScript identifiers. */
  names(): readonly string[];
}

/**
 * Where a tool comes from; also the catalog order (spec: tool catalog). `openapi` (an OpenAPI document's
 * operations) is not in the spec's list: it sits with external plugins, after them and before MCP (docs/decisions.md).
 */
export type ToolSource = 'core' | 'bundled_plugin' | 'external_plugin' | 'openapi' | 'mcp' | 'client';
export const TOOL_SOURCE_ORDER: readonly ToolSource[] = ['core', 'bundled_plugin', 'external_plugin', 'openapi', 'mcp', 'client'];

/** What a tool implementation receives besides its input: the run it serves. */
export interface ToolContext {
  agentId: string;
  agentRunId: string;
  sessionId: string;
  /** Aborted when the owning run, the exec call or the catalog closes. */
  signal: AbortSignal;
  /** Nested invocation id (includes the cell's identity); for logs and trajectories. */
  invocationId: string;
  /** Folder the workspace tools (read, grep, exec) work in. */
  workspaceDir: string;
  /** Whose shares the call draws on (the run's turn's owner): a grep's place in the shared queue counts against it. */
  owner?: Owner;
  /** Effective tools of this run after policy. Direct-mode Tool Search (tool_search, tool_describe) searches these when set, else the registry's list. */
  tools?: readonly ToolDefinition[];
}

export interface ToolDefinition {
  /** Exact tool name as its source spells it (`llm-task`, `weather.lookup`, `2fa`). */
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** Absent: the output is `unknown` in declarations. */
  outputSchema?: JsonSchema;
  /** The named schemas the input and output schemas' `#/$defs/<Name>` references resolve to (OpenAPI sources). */
  schemaDefs?: SchemaDefs;
  /** The group the tool belongs to in its source (an OpenAPI operation's first tag): the quick index summarises big sources by it. */
  group?: string;
  source: ToolSource;
  /** Plugin id for plugin tools, server name for MCP tools. Part of the host identity. */
  owner?: string;
  /** `sequential` tools serialize with every other call of the run catalog (spec: nested tool execution). */
  executionMode?: 'parallel' | 'sequential';
  /** Stays model-visible and out of the catalog: its structured result cannot cross the bridge. */
  directOnly?: boolean;
  /** Output comes from the network: wrapped as untrusted when it reaches the model. */
  networkContent?: boolean;
  /** Each call waits for an operator decision before it runs. */
  approval?: 'required';
  /** A Tool Search control tool (tool_search, tool_describe, ...): hidden from the model and the catalog when code mode is active. */
  control?: boolean;
  /** Safe to replay after a gateway restart (read-only, audited). */
  replaySafe?: boolean;
  /** Absent for client tools: their calls are handed to the client. Throw ToolError for tool failures. */
  execute?: (input: unknown, ctx: ToolContext) => Promise<unknown>;
}
