// The MCP tool source: one background connection per configured server, offered to the catalog as ToolDefinitions.
//
// Starting never blocks: `start()` returns at once and each server connects (and later reconnects) on
// its own. Turn preparation waits only for each server's *first* attempt (`ready()`, bounded by the
// connect timeout), so the first turn after a start sees the tools of a server that is merely slow to
// answer `initialize`; a reconnect never blocks a turn. `tools()` is read every time a turn's catalog is
// built, so a server that connects later appears in the next turn; a server that drops keeps its last
// tools, whose calls then wait for the reconnect or fail with a ToolError naming the server, the tool
// and what to do.
import { ConfigError } from '../../errors.ts';
import type { GatewayConfig, McpServerConfig } from '../../config/types.ts';
import type { McpServerStatus } from './types.ts';
import type { ToolDefinition } from '../types.ts';
import { McpConnection, type McpConnectionSettings } from './connection.ts';

/** A slow server (an `npx` download, a cold container) gets this long to answer `initialize` and list its tools. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 15_000;
/** Per-call timeout; the SDK's own default request timeout, which MCP servers are written against. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;
/** Consecutive failed attempts before a server is `failed` (about 7.5 s of backoff with the default delays). */
export const DEFAULT_MCP_MAX_CONNECT_ATTEMPTS = 5;
/** First reconnect delay after a quick failure; doubles per consecutive failure. */
export const DEFAULT_MCP_RECONNECT_BASE_DELAY_MS = 500;
/** Backoff ceiling, so a recovered server is picked up within this long. */
export const DEFAULT_MCP_MAX_RECONNECT_DELAY_MS = 30_000;
/** A connection that lived this long before closing was healthy: the close starts a fresh attempt budget. */
export const DEFAULT_MCP_STABLE_CONNECTION_MS = 30_000;
/** Tools kept per server: every turn builds a catalog from them, so a runaway server must not flood it. */
export const MAX_MCP_TOOLS_PER_SERVER = 512;
/** Server stderr lines kept for the operator view and failure messages. */
export const DEFAULT_MCP_STDERR_TAIL_LINES = 20;

export interface McpManagerOptions {
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
  maxConnectAttempts?: number;
  reconnectBaseDelayMs?: number;
  maxReconnectDelayMs?: number;
  stableConnectionMs?: number;
  maxToolsPerServer?: number;
  stderrTailLines?: number;
  /** Server stderr and connection changes (the gateway's log); default: dropped. */
  log?: (line: string) => void;
}

/** What the Gateway needs from an MCP tool source (GatewayOptions.mcp). */
export interface McpToolSource {
  /** Resolves when every server's first connection attempt has settled (bounded by its connect timeout). */
  ready(): Promise<void>;
  tools(): ToolDefinition[];
  /** Rises whenever any server's tool list is replaced (connect, reconnect, list_changed): a cheap "did tools() change". */
  revision(): number;
  /** Calls `listener` after each such replacement (revision() has risen by then); returns the unsubscribe. */
  onToolsChanged(listener: () => void): () => void;
  /** Each configured server's state, in config order (the catalog adds the name a cell uses). */
  views(): McpServerStatus[];
  close(): Promise<void>;
}

export class McpManager implements McpToolSource {
  private connections: McpConnection[];
  private readonly log: ((line: string) => void) | undefined;
  private readonly settings: McpConnectionSettings;
  private firstAttempts: Promise<void> | undefined;
  private readonly toolsListeners = new Set<() => void>();
  /** Revision carried over from removed connections plus one per add/remove, so revision() never falls. */
  private structuralRevision = 0;

  constructor(
    private readonly config: Pick<GatewayConfig, 'mcp' | 'baseDir'>,
    opts: McpManagerOptions = {},
  ) {
    this.settings = { ...resolveSettings(opts), onToolsReplaced: () => this.toolsChanged() };
    this.log = this.settings.log;
    const servers = Object.entries(config.mcp?.servers ?? {});
    this.connections = servers.map(([name, server]) => new McpConnection(name, checkServer(name, server, config.baseDir), this.settings));
  }

  /** Names of the servers this manager holds, in order. */
  names(): string[] {
    return this.connections.map((c) => c.name);
  }

  /**
   * Add a server at runtime (the Sources panel): it connects in the background like a configured one and its
   * tools reach the next turn. Throws ConfigError for a bad shape or a name already held.
   */
  add(name: string, server: McpServerConfig): void {
    if (this.connections.some((c) => c.name === name)) throw new ConfigError(`mcp.servers.${name}`, `an MCP server named "${name}" is already connected; remove it first or pick another name`);
    const connection = new McpConnection(name, checkServer(name, server, this.config.baseDir), this.settings);
    this.connections = [...this.connections, connection];
    this.structuralRevision += 1;
    connection.start();
    this.toolsChanged();
  }

  /** Resolves when the named server's first attempt settled (connected or failed); at once for an unknown name. */
  async firstAttempt(name: string): Promise<void> {
    await this.connections.find((c) => c.name === name)?.firstAttemptSettled();
  }

  /** Close and forget a server (its process stops). Turns prepared before keep the tools they were built with; their calls then fail. */
  async remove(name: string): Promise<boolean> {
    const connection = this.connections.find((c) => c.name === name);
    if (!connection) return false;
    this.connections = this.connections.filter((c) => c !== connection);
    this.structuralRevision += connection.revision() + 1;
    this.toolsChanged();
    await connection.close();
    return true;
  }

  /** Connect every server in the background. Returns at once; idempotent. Logs once when the first attempts have settled. */
  start(): this {
    if (this.firstAttempts) return this;
    const startedAt = Date.now();
    for (const c of this.connections) c.start();
    this.firstAttempts = Promise.all(this.connections.map((c) => c.firstAttemptSettled())).then(() => {
      if (this.connections.length > 0) this.log?.(`ready after ${Date.now() - startedAt} ms: ${this.readiness()}`);
    });
    return this;
  }

  /**
   * Resolves when every server's first connection attempt has settled, connected or failed, at most the
   * connect timeout after start() (at once before start() or without servers). Never rejects and never
   * waits for a reconnect: this is what turn preparation awaits.
   */
  ready(): Promise<void> {
    return this.firstAttempts ?? Promise.resolve();
  }

  /** Current MCP tools of every server, in config order (last known tools for a server that is away). */
  tools(): ToolDefinition[] {
    return this.connections.flatMap((c) => c.tools());
  }

  revision(): number {
    // each connection's count only rises, so their sum does too (a removed one's count moves to structuralRevision)
    return this.connections.reduce((sum, c) => sum + c.revision(), this.structuralRevision);
  }

  onToolsChanged(listener: () => void): () => void {
    this.toolsListeners.add(listener);
    return () => void this.toolsListeners.delete(listener);
  }

  /** A connection replaced its tools: every listener hears it; one that throws is logged and does not stop the others or the connection. */
  private toolsChanged(): void {
    for (const listener of [...this.toolsListeners]) {
      try {
        listener();
      } catch (err) {
        this.log?.(`a tools-changed listener failed: ${(err as Error).message}`);
      }
    }
  }

  views(): McpServerStatus[] {
    return this.connections.map((c) => ({ name: c.name, transport: c.transportKind, ...c.status() }));
  }

  /** Resolves when every server is connected or failed, retries included (tests); turns await ready() instead. */
  async settled(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.settled()));
  }

  /** Drop a server's connection and connect it again with a fresh attempt budget (the operator's retry). False for an unknown name. */
  reconnect(name: string): boolean {
    const c = this.connections.find((x) => x.name === name);
    if (!c) return false;
    c.reconnect();
    return true;
  }

  /** One line per readiness log: each server's state after its first attempt, and why when it has no tools. */
  private readiness(): string {
    return this.views()
      .map((v) => {
        if (v.state === 'connected') return `${v.name} connected (${v.toolCount} tools)`;
        if (v.state === 'connecting') return `${v.name} still connecting; turns go ahead without its tools until it connects`;
        return `${v.name} ${v.state}${v.error ? `: ${v.error}` : ''}; turns get its MCP namespace as unavailable until it connects`;
      })
      .join('; ');
  }

  /** Close every connection and stop every server process this manager started. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }
}

/** Build and start the manager for a gateway config (no servers: a manager with nothing to do). */
export function startMcpManager(config: Pick<GatewayConfig, 'mcp' | 'baseDir'>, opts: McpManagerOptions = {}): McpManager {
  return new McpManager(config, opts).start();
}

function resolveSettings(opts: McpManagerOptions): McpConnectionSettings {
  const positive = (field: keyof McpManagerOptions, value: number | undefined, fallback: number, min = 1): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
      throw new ConfigError(`mcp.${field}`, `must be a number >= ${min} (got ${String(value)}); omit it for the default ${fallback}`);
    }
    return Math.floor(value);
  };
  return {
    connectTimeoutMs: positive('connectTimeoutMs', opts.connectTimeoutMs, DEFAULT_MCP_CONNECT_TIMEOUT_MS),
    callTimeoutMs: positive('callTimeoutMs', opts.callTimeoutMs, DEFAULT_MCP_CALL_TIMEOUT_MS),
    maxConnectAttempts: positive('maxConnectAttempts', opts.maxConnectAttempts, DEFAULT_MCP_MAX_CONNECT_ATTEMPTS),
    reconnectBaseDelayMs: positive('reconnectBaseDelayMs', opts.reconnectBaseDelayMs, DEFAULT_MCP_RECONNECT_BASE_DELAY_MS, 0),
    maxReconnectDelayMs: positive('maxReconnectDelayMs', opts.maxReconnectDelayMs, DEFAULT_MCP_MAX_RECONNECT_DELAY_MS, 0),
    stableConnectionMs: positive('stableConnectionMs', opts.stableConnectionMs, DEFAULT_MCP_STABLE_CONNECTION_MS, 0),
    maxToolsPerServer: positive('maxToolsPerServer', opts.maxToolsPerServer, MAX_MCP_TOOLS_PER_SERVER),
    stderrTailLines: positive('stderrTailLines', opts.stderrTailLines, DEFAULT_MCP_STDERR_TAIL_LINES),
    ...(opts.log ? { log: opts.log } : {}),
  };
}

/** The config loader validates files; this guards configs built in code, naming the field. */
function checkServer(name: string, server: McpServerConfig, baseDir: string): McpServerConfig {
  const at = `mcp.servers.${name}`;
  if (name.trim() === '') throw new ConfigError('mcp.servers', 'an MCP server name must not be empty');
  if (typeof server !== 'object' || server === null) {
    throw new ConfigError(at, 'must be an object: { "command": "node", "args": ["server.mjs"] } (stdio) or { "url": "http://..." } (HTTP)');
  }
  if ('url' in server) {
    let url: URL | undefined;
    try {
      url = new URL(server.url);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ConfigError(`${at}.url`, `${JSON.stringify(server.url)} is not an http(s) URL; give the MCP endpoint, e.g. "http://127.0.0.1:4000/mcp"`);
    }
    return server;
  }
  if (typeof server.command !== 'string' || server.command.trim() === '') {
    throw new ConfigError(`${at}.command`, 'must be the program that starts the MCP server, e.g. "node" (or give "url" for an HTTP server)');
  }
  if (server.args !== undefined && (!Array.isArray(server.args) || server.args.some((a) => typeof a !== 'string'))) {
    throw new ConfigError(`${at}.args`, 'must be an array of strings, e.g. ["demo/mcp/server.mjs"]');
  }
  // Relative args (a script path) resolve against the config's folder, as the config loader arranges.
  return { ...server, cwd: server.cwd ?? baseDir };
}
