// One MCP server connection: connect in the background, list its tools, reconnect with backoff, call tools.
// long: one connection's state machine; the generation guard that makes reconnects race-free needs every transition in one place.
//
// Lifecycle: `connecting` (an attempt is in flight) -> `connected`; a failed attempt or a close goes to
// `disconnected` with a retry timer, and after `maxConnectAttempts` consecutive failures to `failed`
// (no more timers; `reconnect()` starts over). A close soon after connecting counts as a failure, so a
// server that dies on start cannot respawn forever; one that ran for `stableConnectionMs` starts a fresh
// budget and reconnects at once. Every attempt has a generation number: callbacks of an older attempt
// (a late close, a late list) are ignored, which is what makes reconnects race-free.
//
// The last tool list survives a disconnect: the catalog keeps offering the tools and a call while the
// server is away waits for the reconnect (bounded by the call timeout) or fails with a clear ToolError.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../../errors.ts';
import type { McpServerConfig } from '../../config/types.ts';
import type { JsonSchema, ToolContext, ToolDefinition } from '../types.ts';
import { checkSchema, INVALID_TOOL_INPUT_CODE } from '../validate.ts';
import { jsonShapeProblem } from '../../util/json-shape.ts';
import { callFault, checkCallResult, isTransportFailure, MCP_FAULT_CODES, unavailableFault, type McpCallResult, type McpStateSummary } from './faults.ts';

export type McpConnectionState = 'connecting' | 'connected' | 'disconnected' | 'failed';

/** Resolved timing and retry settings (McpManager fills in the defaults). */
export interface McpConnectionSettings {
  connectTimeoutMs: number;
  callTimeoutMs: number;
  maxConnectAttempts: number;
  reconnectBaseDelayMs: number;
  maxReconnectDelayMs: number;
  stableConnectionMs: number;
  maxToolsPerServer: number;
  stderrTailLines: number;
  /** Where server stderr lines and connection changes go (the gateway log); default: nowhere. */
  log?: (line: string) => void;
  /** Called after each replacement of the tool list (the manager's change event). */
  onToolsReplaced?: () => void;
}

/** What a connection reports to views. */
export interface McpConnectionStatus {
  state: McpConnectionState;
  error?: string;
  toolCount: number;
  resourceCount?: number;
  promptCount?: number;
  /** Consecutive failed attempts (0 once a connection is stable). */
  attempts: number;
  /** Epoch ms of the next reconnect attempt while `disconnected`. */
  retryAt?: number;
  /** Tools the server listed that could not be offered (empty name, too many), by reason. */
  skipped?: string[];
}

/** Name and version this gateway introduces itself with in `initialize`. */
export const MCP_CLIENT_INFO = { name: 'code-mode-gateway', version: '0.1.0' } as const;

/** Upper bound on `tools/list` pages: a server that keeps returning cursors must not loop the gateway forever. */
export const MAX_TOOL_LIST_PAGES = 64;

/** Longest stderr line kept for the operator view; servers may print whole stack traces on one line. */
export const MAX_STDERR_LINE_CHARS = 400;

/** A caller waiting for the connection to settle: `connected` resolves it, `failed` or close fails it. */
interface Waiter {
  resolve: (client: Client) => void;
  fail: (summary: McpStateSummary) => void;
}

export class McpConnection {
  private stateValue: McpConnectionState = 'connecting';
  private errorText: string | undefined;
  private client: Client | undefined;
  /** The client of the attempt in flight, so close() can kill it. */
  /** Attempts in flight (a reconnect may overtake one), so close() can kill their processes and wait for them. */
  private readonly inFlight = new Map<Client, Promise<void>>();
  private generation = 0;
  private failures = 0;
  private connectedAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryAt: number | undefined;
  private closed = false;
  private started = false;
  private definitions: ToolDefinition[] = [];
  /** Rises each time the tool list is replaced: turns and MCP sessions compare it instead of rebuilding a catalog to find out. */
  private toolsRevision = 0;
  private skipped: string[] = [];
  private resourceCount: number | undefined;
  private promptCount: number | undefined;
  private readonly stderrTail: string[] = [];
  private readonly waiters = new Set<Waiter>();
  /** The first attempt, bounded by the connect timeout; set by start(). Turns wait for it, never for reconnects. */
  private firstAttempt: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly settings: McpConnectionSettings,
  ) {}

  get transportKind(): 'stdio' | 'http' {
    return 'url' in this.config ? 'http' : 'stdio';
  }

  get state(): McpConnectionState {
    return this.stateValue;
  }

  /** Start connecting in the background; never throws and never blocks. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    const attempt = this.attempt();
    // Bounded here as well: the attempt's own timeouts apply per request (connect, then each list page).
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.settings.connectTimeoutMs);
      timer.unref();
    });
    this.firstAttempt = Promise.race([attempt, bound]).finally(() => clearTimeout(timer));
  }

  /**
   * Resolves once the first connection attempt has settled (connected or failed), at most the connect timeout
   * after start(); at once when never started. Later reconnects never delay it: a turn prepared while a
   * server is still coming up gets its tools, a turn prepared while it is away gets the unavailable namespace.
   */
  firstAttemptSettled(): Promise<void> {
    return this.firstAttempt ?? Promise.resolve();
  }

  /** Give up on the current connection (if any) and start a fresh attempt budget now. */
  reconnect(): void {
    if (this.closed) return;
    this.started = true;
    this.failures = 0;
    this.clearRetry();
    const old = this.client;
    this.client = undefined;
    if (old) void old.close().catch(() => {});
    void this.attempt();
  }

  tools(): ToolDefinition[] {
    return this.definitions;
  }

  /** How many times the tool list was replaced (0 before the first list). */
  revision(): number {
    return this.toolsRevision;
  }

  status(): McpConnectionStatus {
    return {
      state: this.stateValue,
      ...(this.errorText !== undefined ? { error: this.errorText } : {}),
      toolCount: this.definitions.length,
      ...(this.resourceCount !== undefined ? { resourceCount: this.resourceCount } : {}),
      ...(this.promptCount !== undefined ? { promptCount: this.promptCount } : {}),
      attempts: this.failures,
      ...(this.stateValue === 'disconnected' && this.retryAt !== undefined ? { retryAt: this.retryAt } : {}),
      ...(this.skipped.length > 0 ? { skipped: [...this.skipped] } : {}),
    };
  }

  /** Resolves once this connection is `connected` or `failed` (or closed). */
  async settled(): Promise<void> {
    if (this.stateValue === 'connected' || this.stateValue === 'failed' || this.closed) return;
    await new Promise<void>((resolve) => {
      this.waiters.add({ resolve: () => resolve(), fail: () => resolve() });
    });
  }

  /** Call one tool and return the native MCP result. Throws ToolError for every fault. */
  async callTool(tool: string, input: unknown, ctx: Pick<ToolContext, 'signal'>): Promise<McpCallResult> {
    const site = { server: this.name, tool };
    const timeoutMs = this.settings.callTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    const client = await this.ready(tool, ctx.signal, timeoutMs);
    try {
      const result = await client.callTool({ name: tool, arguments: input as Record<string, unknown> }, undefined, {
        signal: ctx.signal,
        timeout: Math.max(1, deadline - Date.now()),
      });
      return checkCallResult(site, result);
    } catch (err) {
      const fault = callFault(site, err, { aborted: ctx.signal.aborted, timeoutMs });
      // A transport that threw (HTTP fetch failed, broken pipe) may never report a close: replace it.
      if (!ctx.signal.aborted && isTransportFailure(err) && this.client === client) this.dropConnection(client, fault.message);
      throw fault;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.clearRetry();
    this.stateValue = 'disconnected';
    this.errorText = 'the gateway is shutting down';
    this.notify((w) => w.fail({ state: 'failed', ...this.errorSummary() }));
    const clients = [this.client, ...this.inFlight.keys()].filter((c): c is Client => c !== undefined);
    this.client = undefined;
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await Promise.all(this.inFlight.values());
  }

  // ---- internals -------------------------------------------------------------------------------

  /** The connected client, waiting (bounded) for a connect in progress. */
  private async ready(tool: string, signal: AbortSignal, timeoutMs: number): Promise<Client> {
    if (signal.aborted) throw new ToolError(`MCP server "${this.name}", tool "${tool}": the call was aborted before it started.`, MCP_FAULT_CODES.aborted);
    if (this.client && this.stateValue === 'connected') return this.client;
    if (this.closed || this.stateValue === 'failed' || !this.started) {
      throw unavailableFault({ server: this.name, tool }, { state: this.closed ? 'failed' : this.stateValue, ...this.errorSummary() });
    }
    return new Promise<Client>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter = {
        resolve: (client) => {
          finish();
          resolve(client);
        },
        fail: (summary) => {
          finish();
          reject(unavailableFault({ server: this.name, tool }, summary));
        },
      };
      const onAbort = () => {
        finish();
        reject(new ToolError(`MCP server "${this.name}", tool "${tool}": the call was aborted while the server was reconnecting.`, MCP_FAULT_CODES.aborted));
      };
      const timer = setTimeout(() => {
        finish();
        reject(unavailableFault({ server: this.name, tool }, { state: this.stateValue, ...this.errorSummary() }));
      }, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  private errorSummary(): { error?: string; attempts: number } {
    return { ...(this.errorText !== undefined ? { error: this.errorText } : {}), attempts: this.failures };
  }

  /** Starts one connection attempt; the promise settles (never rejects) when it has connected or failed. */
  private attempt(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const gen = ++this.generation;
    this.clearRetry();
    this.stateValue = 'connecting';
    const client = new Client(
      { ...MCP_CLIENT_INFO },
      {
        capabilities: {},
        listChanged: { tools: { autoRefresh: false, onChanged: () => void this.refreshTools(gen, client) } },
      },
    );
    client.onclose = () => this.onClientClosed(gen, client);
    client.onerror = (err) => this.settings.log?.(`[mcp:${this.name}] ${err.message}`);
    const done = this.connectOnce(gen, client).finally(() => this.inFlight.delete(client));
    this.inFlight.set(client, done);
    return done;
  }

  private async connectOnce(gen: number, client: Client): Promise<void> {
    let pid: number | null = null;
    try {
      const transport = this.createTransport();
      const connecting = client.connect(transport, { timeout: this.settings.connectTimeoutMs });
      // the child is spawned synchronously by connect(); its pid is gone once the SDK closes it
      if (transport instanceof StdioClientTransport) pid = transport.pid;
      await connecting;
      const listed = await this.listEverything(client);
      if (gen !== this.generation || this.closed) {
        await client.close().catch(() => {});
        return;
      }
      this.client = client;
      this.connectedAt = Date.now();
      this.applyTools(listed.tools);
      this.resourceCount = listed.resourceCount;
      this.promptCount = listed.promptCount;
      this.stateValue = 'connected';
      this.errorText = undefined;
      this.settings.log?.(`[mcp:${this.name}] connected: ${this.definitions.length} tools`);
      this.notify((w) => w.resolve(client));
    } catch (err) {
      // a server that never answered may ignore its closed stdin: the SDK's own close waits 2 s before
      // signalling it, and a process that exits meanwhile would leave it orphaned; stop it now
      await client.close().catch(() => {});
      if (pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      if (gen !== this.generation || this.closed) return;
      this.failures += 1;
      this.errorText = this.describeFailure(err);
      this.settings.log?.(`[mcp:${this.name}] connect failed: ${this.errorText}`);
      this.scheduleRetry();
    }
  }

  private createTransport(): Transport {
    const config = this.config;
    if ('url' in config) {
      return new StreamableHTTPClientTransport(new URL(config.url), config.headers ? { requestInit: { headers: config.headers } } : undefined);
    }
    const transport = new StdioClientTransport({
      command: config.command,
      ...(config.args ? { args: config.args } : {}),
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: 'pipe',
    });
    // the line being read, kept to its first MAX_STDERR_LINE_CHARS + 1 characters: a server that writes megabytes
    // without a newline must not grow this (or make every chunk re-split all of it)
    let partial = '';
    transport.stderr?.on('data', (chunk: Buffer | string) => {
      const text = chunk.toString();
      for (let start = 0; ; ) {
        const newline = text.indexOf('\n', start);
        const piece = newline === -1 ? text.slice(start) : text.slice(start, newline);
        if (partial.length <= MAX_STDERR_LINE_CHARS) partial += piece.slice(0, MAX_STDERR_LINE_CHARS + 1 - partial.length);
        if (newline === -1) break;
        this.noteStderr(partial);
        partial = '';
        start = newline + 1;
      }
    });
    return transport;
  }

  private noteStderr(line: string): void {
    const trimmed = line.trimEnd();
    if (trimmed === '') return;
    const text = trimmed.length > MAX_STDERR_LINE_CHARS ? `${trimmed.slice(0, MAX_STDERR_LINE_CHARS)}...` : trimmed;
    this.stderrTail.push(text);
    while (this.stderrTail.length > this.settings.stderrTailLines) this.stderrTail.shift();
    this.settings.log?.(`[mcp:${this.name}] ${text}`);
  }

  /** A failure as the operator view shows it: the error plus the server's last stderr line, which usually says why. */
  private describeFailure(err: unknown): string {
    const message = err instanceof Error ? err.message : String(err);
    const last = this.stderrTail[this.stderrTail.length - 1];
    const where = 'url' in this.config ? this.config.url : [this.config.command, ...(this.config.args ?? [])].join(' ');
    return `${message} (${where})${last ? `; last stderr: ${last}` : ''}`;
  }

  private async listEverything(client: Client): Promise<{ tools: Tool[]; resourceCount?: number; promptCount?: number }> {
    const caps = client.getServerCapabilities() ?? {};
    const opts = { timeout: this.settings.connectTimeoutMs };
    const tools = caps.tools ? await this.listTools(client) : [];
    // Resources and prompts are only counted (the views show them); a server that fails to list them still serves tools.
    const resourceCount = caps.resources ? await client.listResources(undefined, opts).then((r) => r.resources.length, () => undefined) : undefined;
    const promptCount = caps.prompts ? await client.listPrompts(undefined, opts).then((r) => r.prompts.length, () => undefined) : undefined;
    return { tools, ...(resourceCount !== undefined ? { resourceCount } : {}), ...(promptCount !== undefined ? { promptCount } : {}) };
  }

  private async listTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_LIST_PAGES; page++) {
      const res = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.settings.connectTimeoutMs });
      tools.push(...res.tools);
      cursor = res.nextCursor;
      if (!cursor || tools.length > this.settings.maxToolsPerServer) break;
    }
    return tools;
  }

  private async refreshTools(gen: number, client: Client): Promise<void> {
    try {
      const tools = await this.listTools(client);
      if (gen === this.generation && this.client === client) this.applyTools(tools);
    } catch (err) {
      this.settings.log?.(`[mcp:${this.name}] tools/list after list_changed failed: ${(err as Error).message}`);
    }
  }

  /** Server tools -> ToolDefinitions. Tools the catalog could not hold are skipped and reported, never fatal. */
  private applyTools(tools: readonly Tool[]): void {
    const skipped: string[] = [];
    const defs: ToolDefinition[] = [];
    for (const tool of tools) {
      if (typeof tool.name !== 'string' || tool.name.trim() === '') {
        skipped.push('a tool with an empty name');
        continue;
      }
      const shape = jsonShapeProblem(tool.inputSchema) ?? jsonShapeProblem(tool.outputSchema ?? null);
      if (shape) {
        skipped.push(`"${tool.name}": its schema ${shape}`);
        continue;
      }
      if (defs.length >= this.settings.maxToolsPerServer) {
        skipped.push(`"${tool.name}" and later tools: more than ${this.settings.maxToolsPerServer} tools`);
        break;
      }
      defs.push(this.definition(tool));
    }
    this.definitions = defs;
    this.toolsRevision++;
    this.skipped = skipped;
    this.settings.onToolsReplaced?.();
  }

  private definition(tool: Tool): ToolDefinition {
    const name = tool.name;
    const inputSchema = tool.inputSchema as JsonSchema;
    return {
      name,
      description: tool.description ?? tool.title ?? '',
      inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as JsonSchema } : {}),
      source: 'mcp',
      owner: this.name,
      // MCP servers are third-party code reading the outside world: untrusted unless the config says otherwise.
      networkContent: this.config.networkContent ?? true,
      execute: async (input: unknown, ctx: ToolContext) => {
        const issues = checkSchema(inputSchema, input);
        const first = issues[0];
        if (first) {
          const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
          throw new ToolError(
            `MCP server "${this.name}", tool "${name}": invalid input: ${first.message}${more}. ` +
              'Fix the input to match the tool schema ($api() on its MCP namespace, or API.read("mcp/<server>.d.ts"), shows it) and call again.',
            INVALID_TOOL_INPUT_CODE,
          );
        }
        return this.callTool(name, input, ctx);
      },
    };
  }

  private onClientClosed(gen: number, client: Client): void {
    if (this.closed || gen !== this.generation || this.client !== client) return;
    this.dropConnection(client, `the server closed the connection${this.stderrTail.length > 0 ? `; last stderr: ${this.stderrTail[this.stderrTail.length - 1]}` : ''}`);
  }

  /** Forget a connection that broke and schedule its replacement. */
  private dropConnection(client: Client, reason: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.close().catch(() => {});
    const lived = Date.now() - this.connectedAt;
    this.failures = lived >= this.settings.stableConnectionMs ? 0 : this.failures + 1;
    this.errorText = reason;
    this.settings.log?.(`[mcp:${this.name}] disconnected: ${reason}`);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    this.clearRetry();
    if (this.closed) return;
    if (this.failures >= this.settings.maxConnectAttempts) {
      this.stateValue = 'failed';
      this.notify((w) => w.fail({ state: 'failed', ...this.errorSummary() }));
      return;
    }
    this.stateValue = 'disconnected';
    const delay = this.failures === 0 ? 0 : Math.min(this.settings.reconnectBaseDelayMs * 2 ** (this.failures - 1), this.settings.maxReconnectDelayMs);
    this.retryAt = Date.now() + delay;
    this.retryTimer = setTimeout(() => this.attempt(), delay);
    // A pending reconnect must not keep a finished process (a CLI run, a test) alive.
    this.retryTimer.unref();
  }

  private notify(each: (w: Waiter) => void): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) each(w);
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.retryAt = undefined;
  }
}
