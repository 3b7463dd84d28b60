// One MCP session over the Gateway: the SDK's Server answering tools/list with the model surface and tools/call with exec and wait, in one turn.
//
// An MCP client is an agent: it gets exactly what a model gets (exec with its quick index, wait, the
// direct-only tools, with the same descriptions and input schemas) and its calls take the model's path
// (gateway.exec / gateway.wait), so the transcript, the boards and every limit are the same. One MCP session
// is one turn: it is prepared on the first tools/list or tools/call (the client's name from `initialize` is
// known by then and labels the turn's runs on the boards) and ended when the session closes. The transport
// (stdio or Streamable HTTP) is the caller's business; this file never writes JSON-RPC itself.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CatalogFace, ModelFace, ModelTool, RunsFace, TurnInfo } from '../gateway-types.ts';
import type { Owner } from '../access/owners.ts';
import type { CodeModeExecInput, CodeModeResult, RunEvent } from '../runs/types.ts';
import { CODE_MODE_RESULT_SCHEMA, describeProgress, MCP_SERVER_NAME, MCP_SERVER_VERSION, structuredResult } from './surface.ts';

/** tools/call with any params: the SDK's Server then checks them against CallToolRequestSchema and answers -32602. */
const LOOSE_CALL_TOOL_REQUEST = z.object({ method: z.literal('tools/call'), params: z.looseObject({}).optional() }).loose();

/** The names the Gateway itself answers; every other listed tool is direct-only. */
const EXEC = 'exec';
const WAIT = 'wait';
/** What labels a turn whose client sent no name in `initialize`. */
export const UNNAMED_CLIENT = 'MCP client';

export interface McpSessionOptions {
  /** The agent whose surface the session serves (`--agent`, `?agent=`); the config's default agent when absent. */
  agentId?: string;
  /** Where faults the client cannot see go (stderr on stdio, the server log over HTTP). */
  log?: (line: string) => void;
  /** Whose shares the session's turn draws on (its credentials over HTTP); absent on stdio: the in-process caller. */
  owner?: Owner;
}

/** What an MCP session calls: the model face, the catalog's readiness and changes, and a run's abort and progress events. */
export type McpGateway = ModelFace & Pick<CatalogFace, 'agents' | 'mcpReady' | 'toolSourcesRevision' | 'onToolSourcesChanged'> & Pick<RunsFace, 'abortRun' | 'subscribe'>;

/** One MCP session: connect `server` to one transport, and close the session when the transport closes. */
export class McpSession {
  readonly server: Server;
  private turnPromise: Promise<TurnInfo> | undefined;
  private turn: TurnInfo | undefined;
  /** The tools the client was last sent (tools/list), to tell it once when they change. */
  private listedSurface: string | undefined;
  /** The tool sources' revision `turn.surface` was built at: the surface is rebuilt only when it moved. */
  private builtAt = -1;
  private closed = false;
  /** Stops hearing the Gateway's tool-source changes (set once the turn is prepared). */
  private unsubscribeSources: (() => void) | undefined;

  constructor(
    private readonly gateway: McpGateway,
    private readonly opts: McpSessionOptions = {},
  ) {
    this.server = new Server(
      { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
      {
        capabilities: { tools: { listChanged: true } },
        instructions:
          'Code mode: write a JavaScript or TypeScript cell and run it with exec; the cell calls the tools described in exec. ' +
          'A waiting result names a runId: call wait with it to resume. Approvals are decided in the playground.',
      },
    );
    this.server.setRequestHandler(ListToolsRequestSchema, async () => {
      const surface = this.refreshSurface(await this.ensureTurn());
      this.listedSurface = fingerprint(surface.tools);
      return { tools: surface.tools.map(mcpTool) };
    });
    // registered with a loose schema: the SDK's own check of tools/call then answers a malformed call (arguments that
    // are not an object) with invalid params naming the field; with the strict schema the SDK's first parse threw
    // and the client heard "internal error"
    this.server.setRequestHandler(LOOSE_CALL_TOOL_REQUEST, async (loose, extra) => {
      const request = CallToolRequestSchema.parse(loose);
      const { name } = request.params;
      const args: Record<string, unknown> = request.params.arguments ?? {};
      const prepared = await this.ensureTurn();
      // the latest surface (refreshed on each list and after each call), not the one the turn started with
      const turn = this.turn ?? prepared;
      const listed = turn.surface.tools.some((tool) => tool.name === name);
      if (!listed) {
        throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}"; call one of the listed tools: ${turn.surface.tools.map((t) => t.name).join(', ')}`);
      }
      if (!turn.surface.codeMode || (name !== EXEC && name !== WAIT)) return directOnly(name);
      // the request id names the call in the transcript and finds its run for progress and cancellation
      const toolCallId = `mcp_${String(extra.requestId)}`;
      const progressToken = extra._meta?.progressToken;
      const follow = this.followRun(turn, name === WAIT ? stringField(args, 'runId') : undefined, toolCallId, (message, progress) => {
        if (progressToken === undefined) return;
        const notification: ServerNotification = { method: 'notifications/progress', params: { progressToken, progress, message } };
        extra.sendNotification(notification).catch((err: unknown) => this.opts.log?.(`mcp: progress not sent: ${(err as Error).message}`));
      });
      const onAbort = () => {
        if (follow.runId !== undefined) this.gateway.abortRun(follow.runId);
      };
      extra.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const result =
          name === EXEC
            ? await this.gateway.exec(turn.agentRunId, args as unknown as CodeModeExecInput, { toolCallId })
            : await this.gateway.wait(turn.agentRunId, { runId: stringField(args, 'runId') ?? '' }, { toolCallId });
        // canceled before the run was known (still being prepared): a parked result is not left behind
        if (extra.signal.aborted && result.status === 'waiting') this.gateway.abortRun(result.runId);
        return this.toolResult(result);
      } finally {
        extra.signal.removeEventListener('abort', onAbort);
        follow.stop();
      }
    });
  }

  /** The session's turn once prepared (tests and the HTTP handler's log); undefined before the first list or call. */
  get agentRunId(): string | undefined {
    return this.turn?.agentRunId;
  }

  /** Ends the session's turn (its runs are aborted, its catalog released). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribeSources?.();
    const turn = await this.turnPromise?.catch(() => undefined);
    if (turn) this.gateway.endTurn(turn.agentRunId);
    await this.server.close().catch(() => undefined);
  }

  /** Prepared once, after MCP sources had their first chance to connect (as the API and the CLI wait for them). */
  private ensureTurn(): Promise<TurnInfo> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'the MCP session is closed; open a new one'));
    this.turnPromise ??= this.gateway.mcpReady().then(() => {
      this.builtAt = this.gateway.toolSourcesRevision();
      const turn = this.gateway.prepareTurn({
        ...(this.opts.agentId !== undefined ? { agentId: this.opts.agentId } : {}),
        client: this.server.getClientVersion()?.name || UNNAMED_CLIENT,
        ...(this.opts.owner ? { owner: this.opts.owner } : {}),
      });
      this.turn = turn;
      // pushed: a source that changes while the client is idle is announced at once, not at its next call
      this.unsubscribeSources = this.gateway.onToolSourcesChanged(() => queueMicrotask(() => this.announceSurfaceChange()));
      return turn;
    });
    return this.turnPromise;
  }

  /**
   * The turn's surface as the Gateway's sources are now: an MCP source that connected (or whose tools changed)
   * since the turn was prepared shows in exec's quick index, and new cells see its tools. Rebuilt only when the
   * sources' revision moved (a catalog build per call would be work on every call's path), through the turn's
   * client-tool update (an MCP session brings none), which leaves running and parked cells as they are.
   */
  private refreshSurface(turn: TurnInfo): TurnInfo['surface'] {
    const current = this.turn ?? turn;
    const revision = this.gateway.toolSourcesRevision();
    if (this.closed || revision === this.builtAt) return current.surface;
    this.builtAt = revision;
    try {
      const fresh = this.gateway.updateClientTools(turn.agentRunId, []);
      this.turn = fresh;
      return fresh.surface;
    } catch (err) {
      // an ended turn (idle sweep, shutdown) keeps the surface it had: its calls say what happened
      this.opts.log?.(`mcp: surface not refreshed: ${(err as Error).message}`);
      return (this.turn ?? turn).surface;
    }
  }

  /**
   * On a tool-source change (deferred a microtask, so changes of several sources at once build one surface):
   * when the surface moved away from what the client last listed, send tools/list_changed (once, until it
   * lists again). A reconnect that brings the same tools changes nothing the client sees and sends nothing.
   */
  private announceSurfaceChange(): void {
    if (this.listedSurface === undefined || this.closed || this.turn === undefined) return;
    const now = fingerprint(this.refreshSurface(this.turn).tools);
    if (now === this.listedSurface) return;
    this.listedSurface = now;
    this.server.sendToolListChanged().catch((err: unknown) => this.opts.log?.(`mcp: tools/list_changed not sent: ${(err as Error).message}`));
  }

  /** The exact text a model receives (untrusted content wrapped) and the result object as structured content (structuredResult). */
  private toolResult(result: CodeModeResult): CallToolResult {
    const text = this.gateway.modelText(result);
    return {
      content: [{ type: 'text', text }],
      structuredContent: structuredResult(result, text),
      ...(result.status === 'failed' ? { isError: true } : {}),
    };
  }

  /**
   * Follows the run of one exec or wait call: a wait names it, an exec's run is the one that opens a call with
   * `toolCallId`. Nested calls started and finished are reported through `report` with a rising count.
   */
  private followRun(turn: TurnInfo, runId: string | undefined, toolCallId: string, report: (message: string, progress: number) => void) {
    let progress = 0;
    let followed = runId;
    const stop = this.gateway.subscribe((event: RunEvent) => {
      if (event.type === 'run.started' && followed === undefined && event.view.agentRunId === turn.agentRunId) {
        if (event.view.calls.some((call) => call.toolCallId === toolCallId)) followed = event.runId;
        return;
      }
      if (followed === undefined || event.runId !== followed) return;
      const message = describeProgress(event);
      if (message !== undefined) report(message, ++progress);
    });
    return {
      /** The run once known (a wait names it; an exec's is known from its run.started). */
      get runId(): string | undefined {
        return followed;
      },
      stop,
    };
  }
}

/** A listed tool as MCP declares it; exec and wait also declare the result object they return as structured content. */
function mcpTool(tool: ModelTool): Tool {
  const inputSchema = tool.inputSchema as Tool['inputSchema'];
  const controls = tool.name === EXEC || tool.name === WAIT;
  return { name: tool.name, description: tool.description, inputSchema, ...(controls ? { outputSchema: CODE_MODE_RESULT_SCHEMA } : {}) };
}

/** A direct-only tool is listed as a model sees it, but the Gateway runs only cells: the agent's own loop calls it. */
function directOnly(name: string): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text:
          `"${name}" is a direct-only tool: the Gateway lists it as a model sees it but runs only exec and wait over MCP. ` +
          'Call it from your agent\'s own tools, or use exec for everything the catalog offers.',
      },
    ],
  };
}

function fingerprint(tools: readonly ModelTool[]): string {
  return JSON.stringify(tools);
}

function stringField(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  return typeof value === 'string' ? value : undefined;
}
