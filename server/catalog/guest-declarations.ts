// The fixed declaration files every catalog carries: the guest runtime's globals, saved results and the MCP types (implemented by server/guest).

/** Shapes every guest program may use; the guest runtime (server/guest) implements them. */
export const GUEST_RUNTIME_DECLARATIONS = `// Code Mode guest runtime: globals every cell can use.
type ToolSource = "core" | "bundled_plugin" | "external_plugin" | "openapi" | "mcp" | "client";

/** What describe() returns for a tool handle. */
interface ToolDescription {
  callableName: string;
  /** The tool's exact name as its source spells it. */
  name: string;
  description: string;
  source: ToolSource;
  /** TypeScript declaration of the global (same text as API.read("tools/<callableName>.d.ts")). */
  declaration: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/** A callable catalog tool: call it like the global of the same callableName. */
interface ToolHandle {
  (input?: unknown): Promise<unknown>;
  /** The global this tool is callable as. */
  readonly callableName: string;
  /** The tool's exact name as its source spells it. */
  readonly name: string;
  readonly description: string;
  readonly source: ToolSource;
  /** Full declaration and JSON Schemas of this tool. */
  describe(): Promise<ToolDescription>;
}

/** Discover tools that are not in the quick index. MCP tools are under MCP.<server>, not here. */
declare const catalog: {
  /** Tools matching the query (names, descriptions, input fields), best first. */
  search(query: string, opts?: { limit?: number }): Promise<ToolHandle[]>;
  /** Every callable tool, in catalog order. */
  all(): Promise<ToolHandle[]>;
};

/** Read the generated declaration files without a tool call: "tools/<name>.d.ts", "openapi/<source>.d.ts" (an OpenAPI source's named types), "mcp/index.d.ts", "mcp/<server>.d.ts", "results.d.ts". */
declare const API: {
  /** Paths starting with prefix ("tools/", "mcp"); all paths without one. */
  list(prefix?: string): string[];
  /** Text of one declaration file; throws for an unknown path. */
  read(path: string): string;
};

/** Save a small JSON value for later turns of this session (committed when the cell completes). */
declare function store(key: string, value: unknown): Promise<void>;
/** A value saved with store(key, value), or undefined. */
declare function load(key: string): Promise<unknown>;
/** Suspend the cell now: exec returns "waiting" and wait(runId) continues here. */
declare function yield_control(reason?: string): Promise<void>;
/** Append a text line to the cell's output. */
declare function text(value: unknown): void;
/** Append a value as pretty JSON to the cell's output. */
declare function json(value: unknown): void;
declare const console: {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
  debug(...values: unknown[]): void;
};
/** Host-bridged timer: a pending timer keeps the cell alive (and may suspend it). */
declare function setTimeout(callback: (...args: unknown[]) => void, delayMs?: number, ...args: unknown[]): number;
declare function clearTimeout(timer: number | undefined): void;
/** The run's clock: ms since the run started (whole ms), and the start's epoch ms. Date reads the same clock. */
declare const performance: { now(): number; readonly timeOrigin: number };`;

/** results.d.ts: saved-result references. */
export const RESULTS_DECLARATIONS = `// Saved results: keep a large JSON value host-side for the rest of this reply and pass its ref to later cells.
declare const results: {
  /** Save a JSON value; the ref expires when the reply ends (use store() for values needed later). */
  save(value: unknown): Promise<{ ref: string; bytes: number }>;
  /** A detached copy of a saved value. */
  load(ref: string): Promise<unknown>;
  /** Free a saved value's capacity; false when the ref is unknown. */
  delete(ref: string): Promise<boolean>;
};`;

/** Types shared by every MCP server namespace (head of mcp/index.d.ts). */
export const MCP_SHARED_DECLARATIONS = `type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; description?: string; mimeType?: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };

/** What an MCP tool call returns (MCP CallToolResult). */
interface McpCallToolResult<T = unknown> {
  content: McpContent[];
  /** Present when the tool declares an output schema. */
  structuredContent?: T;
  /** The tool reported a failure in its content. */
  isError?: boolean;
}

/** What MCP.<server>.$api() returns: the server's tools with schemas and declarations. */
interface McpServerApi {
  server: string;
  tools: Array<{
    /** Property name under MCP.<server>. */
    callableName: string;
    /** The tool's exact MCP name. */
    name: string;
    description: string;
    declaration: string;
    inputSchema: unknown;
    outputSchema?: unknown;
  }>;
  /** Same text as API.read("mcp/<server>.d.ts"). */
  declarations: string;
}`;
