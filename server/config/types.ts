// Shapes of the gateway config and of resolved code-mode options (the zod schema in schema.ts produces these).
import type { RedactionOptions } from './redaction.ts';
import type { TelemetryOptions } from './telemetry.ts';

export type ExecutorKind = 'node' | 'quickjs' | 'quickjs-emscripten';

/** Who may pick another executor than the agent's for one cell over the API (`exec` with `executor`). */
export type ExecutorOverridePolicy = 'never' | 'operator' | 'always';

/** `tools.codeMode` after defaults and clamps (DESIGN.md 4.2). Code reads these, never literals. */
export interface CodeModeOptions {
  enabled: boolean | 'auto';
  executor: ExecutorKind;
  timeoutMs: number;
  memoryLimitBytes: number;
  maxOutputBytes: number;
  maxSnapshotBytes: number;
  maxPendingToolCalls: number;
  snapshotTtlSeconds: number;
  searchDefaultLimit: number;
  maxSearchLimit: number;
  /** Largest cell source (`code` or `command`, UTF-8 bytes) exec accepts. */
  maxSourceBytes: number;
  /** Tool calls one headless turn may make in all (spec 02: "headless total tool-call limits"); the next fails its cell. */
  maxHeadlessToolCalls: number;
  /** Who may override the executor per cell over the API; in-process callers (the CLI) always may. */
  allowExecutorOverride: ExecutorOverridePolicy;
}

/** The HTTP server's exposure and limits (`server` in the config file), resolved. */
export interface ServerOptions {
  /**
   * Required to bind a non-loopback address: API requests then need `Authorization: Bearer <token>` or the
   * operator cookie obtained with it. CODEMODE_ACCESS_TOKEN overrides it.
   */
  accessToken?: string;
  /** Extra `Host` header values (`name` or `name:port`) accepted besides the bound address and loopback names. */
  allowedHosts: string[];
  /** Extra `Origin` values (`https://app.example`) accepted besides the server's own origins. */
  allowedOrigins: string[];
  maxRequestBodyBytes: number;
  maxQueuedEventsPerSubscriber: number;
  /** API clients by name, each with the SHA-256 of its key (`codemode keys add NAME`): a key makes its holder an owner of its own. */
  clients: Readonly<Record<string, ApiClientEntry>>;
  /** How much of each shared resource one owner of each class may hold (config/shares.ts). */
  shares: Readonly<Record<OwnerClass, ShareSizes>>;
}

/** One API client of `server.clients`: its key is never stored, only the key's SHA-256 (hex). */
export interface ApiClientEntry {
  keySha256: string;
}

/**
 * Who holds a share of the Gateway's shared resources (server/access/owners.ts): the operator (the page), a
 * client that presents an API key (each key its own owner), and everyone else on loopback as one anonymous owner.
 */
export type OwnerClass = 'operator' | 'client' | 'anonymous';

/** The resources an owner holds a share of: live turns, event streams, suspended-run slots, /mcp sessions, places in the grep and typecheck queues. */
export type ShareResource = 'liveTurns' | 'eventStreams' | 'suspendedRuns' | 'mcpSessions' | 'queuedJobs';

export type ShareSizes = Readonly<Record<ShareResource, number>>;

/** The Gateway's own MCP server face (`mcpServer` in the config file), resolved. */
export interface McpServerOptions {
  /** Serve MCP at `path` on the playground's port (the `codemode mcp` command serves stdio either way). */
  enabled: boolean;
  /** Where Streamable HTTP is served; starts with "/" and stays clear of the playground's /api. */
  path: string;
  /**
   * A bearer that opens `path` only (never the playground or its API) when the server is exposed: give it to an
   * agent instead of the access token. The access token opens `path` too.
   */
  token?: string;
  /** Concurrent Streamable HTTP sessions; an `initialize` past it is refused (503) until one ends. */
  maxSessions: number;
  /** A session with no request for this long, and none in flight, is closed: its turn ends and its runs are aborted. */
  sessionIdleSeconds: number;
}

/** Per-model entry (`agents.defaults.models[...]`, `agents.list[].models[...]`). */
export interface ModelEntry {
  /** Per-model code-mode switch; unset means "no opinion". */
  codeMode?: boolean;
  /** `"auto"` engages only for models that say they prefer code mode. */
  prefersCodeMode?: boolean;
  /** Models to fall back to, in order; a fallback keeps the enclosing limits. */
  fallbacks?: string[];
}

export interface ToolPolicy {
  allow?: string[];
  deny?: string[];
}

export interface AgentConfig {
  id: string;
  name?: string;
  /** "provider/model" */
  model?: string;
  models?: Record<string, ModelEntry>;
  tools?: ToolPolicy & { codeMode?: Partial<CodeModeOptions> & { enabled?: boolean | 'auto' } };
}

export interface PluginRef {
  id: string;
  /** Folder (relative to the config file) holding an ES module `index.mjs` that exports tool definitions. */
  path: string;
}

export type McpServerConfig =
  | {
      command: string;
      args?: string[];
      env?: Record<string, string>;
      networkContent?: boolean;
      /** Folder the server process starts in (absolute after loading; the config file's folder unless set), so relative `args` work. */
      cwd?: string;
    }
  | {
      url: string;
      /** Sent with every request to the server (an auth header, typically). */
      headers?: Record<string, string>;
      networkContent?: boolean;
    };

/** `sources.openapi.<name>`: an OpenAPI 3.x document whose operations become tools (server/tools/openapi). */
export interface OpenApiSourceConfig {
  /** A file path (absolute after loading) or an http(s) URL of the document (JSON or YAML). */
  document?: string;
  /** The document's text itself (an upload from the page, never in the file); wins over `document`. */
  documentText?: string;
  /** Where calls go; default: the document's first `servers` URL (resolved against a document URL). */
  baseUrl?: string;
  /** The auth header sent with every call: `value` literally or the value of environment variable `env`. */
  auth?: { header?: string; value?: string; env?: string };
  /** Hosts (`name` or `name:port`) calls may reach; default: the base URL's host only. */
  allowedHosts?: string[];
  /** Results are network content (wrapped as untrusted); default true. */
  networkContent?: boolean;
  /** Per-call limit in ms; default 30 s. */
  timeoutMs?: number;
}

/** `sources` in the config file, resolved. */
export interface SourcesConfig {
  openapi: Record<string, OpenApiSourceConfig>;
  /** Lets the operator add stdio MCP servers from the page while the server is exposed (non-loopback HOST). Default false. */
  allowStdioWhenExposed: boolean;
  /** Largest OpenAPI document read (file, URL or upload), in bytes. Default 32 MiB (DEFAULT_OPENAPI_MAX_DOCUMENT_BYTES). */
  maxDocumentBytes: number;
}

/** `runs` in the config file, resolved. */
export interface RunsConfig {
  /** Parked runs kept in the session database, sealed with CODEMODE_SNAPSHOT_KEY (default false: in the process, spec 01). */
  durable: boolean;
  /** Durable runs parked in the session database at most, across every Gateway on it and across restarts (default 64, spec 01's cap; absent in a config built in code: the default). */
  maxParked?: number;
  /** Parked quiescent durable runs that keep their copy in memory, the most recently parked (default 64); the others live only in their rows. */
  parkedInMemory?: number;
}

/** The session database: exactly one of a SQLite file (`path`, the embedded default) and a PostgreSQL server (`url`). */
export type SessionsConfig = { path: string; url?: undefined } | { url: string; path?: undefined };

export interface GatewayConfig {
  /** Folder the config file lives in; relative paths resolve against it. */
  baseDir: string;
  /** Demo workspace folder the read/grep/exec tools work in (absolute after loading). */
  workspace: string;
  /** Commands the shell `exec` tool may run. */
  shellAllow: string[];
  tools: ToolPolicy & { codeMode: CodeModeOptions };
  agents: {
    defaults: { model: string; models: Record<string, ModelEntry> };
    list: AgentConfig[];
  };
  plugins: { bundled: string[]; external: PluginRef[] };
  mcp: { servers: Record<string, McpServerConfig> };
  /** OpenAPI tool sources and the live-sources switches (absent on configs built in code: none, stdio refused when exposed). */
  sources?: SourcesConfig;
  /**
   * Where session transcripts (and so the session store) persist: an absolute SQLite file path after loading,
   * or ":memory:"; or a PostgreSQL URL. Absent on configs built in code: those get an in-memory database.
   */
  sessions?: SessionsConfig;
  /** How runs park (absent on configs built in code: in the process). */
  runs?: RunsConfig;
  /** Exposure and request limits of the HTTP server, resolved (a config built in code: resolveServerOptions(undefined)). */
  server: ServerOptions;
  /** The MCP server face, resolved (a config built in code: resolveMcpServerOptions(undefined)). */
  mcpServer: McpServerOptions;
  /** Live trace export (absent: none; a run's OTLP JSON is still available to download). */
  telemetry?: TelemetryOptions;
  /** Source masking beyond the built-in rules: patterns and secret environment variables (absent: none). */
  redaction?: RedactionOptions;
  /** Absolute path of the file this config was loaded from (absent when built in memory). */
  configFile?: string;
  /** Values the loader changed rather than took as written (clamped limits); worth logging at start. */
  warnings?: string[];
}
