// The Streamable HTTP face: one SDK transport and one McpSession per MCP session id, at most mcpServer.maxSessions of them, idle ones closed; requests reach it only after the server's request checks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { GatewayApi } from '../gateway-types.ts';
import { McpSession } from './session.ts';
import { readSmallBody } from '../util/read-body.ts';

/** The header the SDK's transport reads and sets (MCP spec: Streamable HTTP, session management). */
const SESSION_HEADER = 'mcp-session-id';
/** The query parameter that picks the agent whose surface a new session serves. */
export const AGENT_QUERY_PARAM = 'agent';
/** How often idle sessions are looked for (at most; a shorter idle limit sweeps more often). */
const IDLE_SWEEP_MS = 60 * 1000;
/** Ids of sessions closed for idleness, remembered so a late request hears why (bounded: a name per closed session). */
const MAX_REMEMBERED_IDLE_CLOSES = 256;
/** JSON-RPC "server error" range: the SDK's own transport errors use it for refusals too. */
const SERVER_ERROR_CODE = -32000;
/** JSON-RPC: the body is not JSON. */
const PARSE_ERROR_CODE = -32700;

export interface McpHttpOptions {
  /** The request body cap of the server (server.maxRequestBodyBytes): the transport enforces it on chunked bodies too. */
  maxRequestBodyBytes: number;
  /** mcpServer.maxSessions: an `initialize` past it is refused with 503. */
  maxSessions: number;
  /** mcpServer.sessionIdleSeconds in ms: a session with no request for this long, none in flight, is closed. */
  sessionIdleMs: number;
  log?: (line: string) => void;
}

export interface McpHttpHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Live sessions (tests, the shutdown log). */
  sessionCount(): number;
  /** Closes the sessions idle at `now` (the sweep calls it with the clock); resolves with how many it closed. */
  closeIdle(now?: number): Promise<number>;
  /** Closes every session (each ends its turn) and stops the idle sweep. */
  close(): Promise<void>;
}

interface OpenSession {
  transport: StreamableHTTPServerTransport;
  session: McpSession;
  /** When its last request started or ended. */
  lastActiveAt: number;
  /** Requests still being answered (a tools/call streaming its result); the standalone GET stream does not count. */
  inFlight: number;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.end(`${message}\n`);
}

/** A refusal an MCP client shows as it shows the SDK's own: a JSON-RPC error body. */
function refuseJsonRpc(res: ServerResponse, status: number, message: string, code = SERVER_ERROR_CODE): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** Serves MCP at the mounted path: a request without a session id starts one (the SDK accepts only `initialize` there). */
export function createMcpHttpHandler(gateway: GatewayApi, opts: McpHttpOptions): McpHttpHandler {
  const sessions = new Map<string, OpenSession>();
  const closedIdle = new Map<string, number>();
  /** Sessions being opened (an initialize in progress): counted against the cap so a burst cannot pass it. */
  let opening = 0;
  const idleSeconds = Math.round(opts.sessionIdleMs / 1000);

  function track(open: OpenSession, req: IncomingMessage, res: ServerResponse): void {
    open.lastActiveAt = Date.now();
    if (req.method === 'GET') return;
    open.inFlight++;
    res.once('close', () => {
      open.inFlight--;
      open.lastActiveAt = Date.now();
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers[SESSION_HEADER];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const known = sessions.get(sessionId);
      // MCP spec: an unknown or ended session is 404, and the client starts a new one with initialize
      if (!known) {
        const why = closedIdle.has(sessionId)
          ? `was closed after ${idleSeconds} s without a request (mcpServer.sessionIdleSeconds); its turn ended and its runs were aborted`
          : 'is not open here (ended, or the server restarted)';
        return refuse(res, 404, `MCP session "${sessionId}" ${why}; initialize a new session`);
      }
      track(known, req, res);
      return known.transport.handleRequest(req, res);
    }
    // a new session's initialize is read in full before it takes a place: a client that sends headers and then
    // stalls its body holds only its own connection, never a place under mcpServer.maxSessions
    let parsedBody: unknown;
    if (req.method === 'POST') {
      const text = await readSmallBody(req, opts.maxRequestBodyBytes);
      if (text === undefined) {
        return refuseJsonRpc(res, 413, `the request body is over the limit (server.maxRequestBodyBytes, ${opts.maxRequestBodyBytes} bytes); send a smaller request`);
      }
      try {
        parsedBody = JSON.parse(text) as unknown;
      } catch (err) {
        return refuseJsonRpc(res, 400, `the body is not JSON (${(err as Error).message}); send one JSON-RPC initialize request`, PARSE_ERROR_CODE);
      }
    }
    if (sessions.size + opening >= opts.maxSessions) {
      return refuseJsonRpc(
        res,
        503,
        `this server already has ${opts.maxSessions} MCP sessions open or opening (mcpServer.maxSessions); end one (close your client or DELETE its session), ` +
          `or wait until an idle one is closed (after ${idleSeconds} s without a request), then initialize again`,
      );
    }
    const agentId = new URL(req.url ?? '/', 'http://mcp.invalid').searchParams.get(AGENT_QUERY_PARAM) ?? undefined;
    if (agentId !== undefined && !gateway.agents().some((agent) => agent.id === agentId)) {
      const known = gateway.agents().map((agent) => agent.id).join(', ');
      return refuse(res, 400, `unknown agent ${JSON.stringify(agentId)} in ?${AGENT_QUERY_PARAM}=; use one of: ${known} (or leave it out for the default agent)`);
    }
    const session = new McpSession(gateway, { ...(agentId !== undefined ? { agentId } : {}), ...(opts.log ? { log: opts.log } : {}) });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: opts.maxRequestBodyBytes,
      onsessioninitialized: (id) => void sessions.set(id, { transport, session, lastActiveAt: Date.now(), inFlight: 0 }),
    });
    // a session ends when its client DELETEs it, its transport closes or it sat idle: its turn ends with it
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      void session.close();
    };
    opening++;
    try {
      await session.server.connect(transport);
      await transport.handleRequest(req, res, parsedBody);
    } finally {
      opening--;
    }
    // not an initialize (the SDK answered it with its error): nothing was opened, so nothing is kept
    if (transport.sessionId === undefined) await session.close();
  }

  async function closeIdle(now = Date.now()): Promise<number> {
    const idle = [...sessions].filter(([, open]) => open.inFlight === 0 && now - open.lastActiveAt >= opts.sessionIdleMs);
    for (const [id] of idle) {
      sessions.delete(id);
      closedIdle.set(id, now);
      if (closedIdle.size > MAX_REMEMBERED_IDLE_CLOSES) closedIdle.delete(closedIdle.keys().next().value as string);
    }
    await Promise.allSettled(
      idle.map(async ([id, { transport, session }]) => {
        opts.log?.(`session ${id} closed after ${idleSeconds} s without a request (mcpServer.sessionIdleSeconds); its turn ended`);
        await transport.close();
        await session.close();
      }),
    );
    return idle.length;
  }

  const sweep = setInterval(() => void closeIdle(), Math.min(opts.sessionIdleMs, IDLE_SWEEP_MS));
  sweep.unref();

  return {
    handle,
    sessionCount: () => sessions.size,
    closeIdle,
    async close() {
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(async ({ transport, session }) => {
        await transport.close();
        await session.close();
      }));
    },
  };
}
