// The run-scoped catalog: effective tools with opaque ids and final guest callable names.
import type { JsonSchema, ToolDefinition, ToolSource } from '../tools/types.ts';

export interface CatalogEntry {
  /** Opaque host-only identity. Never in the prompt, the guest, handle metadata or error text. */
  id: string;
  /** The tool definition this entry routes to (host-only). */
  tool: ToolDefinition;
  /** Exact name as the source spells it. */
  name: string;
  /** Final guest global name (non-MCP), or the tool's property name under `MCP.<server>` (MCP). */
  callableName: string;
  source: ToolSource;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  executionMode: 'parallel' | 'sequential';
  /** `declare function ...` text from the one JSON Schema -> TypeScript generator. */
  declaration: string;
  /** Tools whose schemas name their source's schemas: the namespace those names are declared in (`github`). */
  typeNamespace?: string;
  /** MCP entries only: guest-side server property name (escaped) and raw server name. */
  mcp?: { server: string; serverCallable: string };
}

/** What the guest may see of an entry: no id, no host-only fields. */
export interface GuestToolMeta {
  callableName: string;
  name: string;
  description: string;
  source: ToolSource;
  declaration: string;
}

/** What the guest boots a tool's global and handle with (GuestBootConfig.tools): its metadata without the declaration. */
export type GuestBootTool = Omit<GuestToolMeta, 'declaration'>;

export interface Catalog {
  /** Non-MCP entries in spec order, then MCP entries. Direct-only and control tools are never here. */
  entries: CatalogEntry[];
  /** callableName -> entry, non-MCP only. */
  byCallable: Map<string, CatalogEntry>;
  /** serverCallable -> (toolCallable -> entry). */
  mcp: Map<string, Map<string, CatalogEntry>>;
  /** Virtual declaration files served by `API.list` / `API.read` ("tools/<name>.d.ts", "mcp/index.d.ts", "mcp/<server>.d.ts", "results.d.ts"). */
  files: Map<string, string>;
  /** All declarations as one ambient .d.ts (Monaco extra lib, typecheck), except the sources' named types. */
  ambientDeclarations: string;
  /** Each OpenAPI source's named types, one file each (`openapi/<namespace>.d.ts` -> text; also in `files`): the editor loads them one by one. */
  typeFiles: Map<string, string>;
}
