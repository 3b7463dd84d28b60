// The Streamable HTTP face: one SDK transport and one McpSession per MCP session id, at most mcpServer.maxSessions of them and each owner its share, idle ones closed; requests reach it only after the server's request checks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpSession, type McpGateway } from './session.ts';
import { readSmallBody } from '../util/read-body.ts';
import { moreRoomHint, shareName, type Owner } from '../access/owners.ts';
import { ShareCount } from '../access/share-count.ts';

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
  /** mcpServer.sessionIdleSeconds in ms: a session with no request other than ping for this long, none in flight, is closed. */
  sessionIdleMs: number;
  log?: (line: string) => void;
}

export interface McpHttpHandler {
  /** `owner`: whose share of sessions the request's credentials draw on (the request checks' verdict). */
  handle(req: IncomingMessage, res: ServerResponse, owner: Owner): Promise<void>;
  /** Live sessions of one owner (tests). */
  sessionsOf(owner: Pick<Owner, 'id'>): number;
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
  /** Who opened it: its place counts against this owner's share, and only the same credentials may use it. */
  owner: Owner;
  /** When its last activity (a request other than ping) started or ended. */
  lastActiveAt: number;
  /** Activity still being answered (a tools/call streaming its result); pings and the standalone GET stream do not count. */
  inFlight: number;
}

/**
 * Whether a POST body does something: a JSON-RPC request other than `ping`. Pings, notifications and the client's
 * responses to the server's own requests keep nothing going, so they do not hold a session open against
 * mcpServer.sessionIdleSeconds (a client pinging forever would hold its place forever).
 */
export function isActivity(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === 'object' && m !== null && 'method' in m && 'id' in m && (m as { method: unknown }).method !== 'ping');
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
export function createMcpHttpHandler(gateway: McpGateway, opts: McpHttpOptions): McpHttpHandler {
  const sessions = new Map<string, OpenSession>();
  const closedIdle = new Map<string, number>();
  /** Sessions being opened (an initialize in progress): counted against the cap so a burst cannot pass it. */
  let opening = 0;
  /** Places per owner, open or opening: taken before an initialize runs, given back when the session ends. */
  const places = new ShareCount('mcpSessions');
  const idleSeconds = Math.round(opts.sessionIdleMs / 1000);

  /** Ends a session's hold on its place once (DELETE, transport close, idle sweep, shutdown all come here). */
  function forget(id: string): OpenSession | undefined {
    const open = sessions.get(id);
    if (!open) return undefined;
    sessions.delete(id);
    places.release(open.owner);
    return open;
  }

  function track(open: OpenSession, res: ServerResponse, activity: boolean): void {
    if (!activity) return;
    open.lastActiveAt = Date.now();
    open.inFlight++;
    res.once('close', () => {
      open.inFlight--;
      open.lastActiveAt = Date.now();
    });
  }

  /** A POST's body read and parsed here (the transport takes it parsed), so its messages can be told apart; undefined: answered already. */
  async function readJson(req: IncomingMessage, res: ServerResponse, what: string): Promise<{ body: unknown } | undefined> {
    const text = await readSmallBody(req, opts.maxRequestBodyBytes);
    if (text === undefined) {
      refuseJsonRpc(res, 413, `the request body is over the limit (server.maxRequestBodyBytes, ${opts.maxRequestBodyBytes} bytes); send a smaller request`);
      return undefined;
    }
    try {
      return { body: JSON.parse(text) as unknown };
    } catch (err) {
      refuseJsonRpc(res, 400, `the body is not JSON (${(err as Error).message}); send ${what}`, PARSE_ERROR_CODE);
      return undefined;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, owner: Owner): Promise<void> {
    const header = req.headers[SESSION_HEADER];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const known = sessions.get(sessionId);
      // MCP spec: an unknown or ended session is 404, and the client starts a new one with initialize
      if (!known) {
        const why = closedIdle.has(sessionId)
          ? `was closed after ${idleSeconds} s without a request other than ping (mcpServer.sessionIdleSeconds); its turn ended and its runs were aborted`
          : 'is not open here (ended, or the server restarted)';
        return refuse(res, 404, `MCP session "${sessionId}" ${why}; initialize a new session`);
      }
      // MCP spec (security): a session is bound to who opened it; another client's credentials do not open it
      if (known.owner.id !== owner.id) return refuse(res, 403, `MCP session "${sessionId}" was opened with other credentials; use your own session (initialize one)`);
      if (req.method !== 'POST') return known.transport.handleRequest(req, res);
      const read = await readJson(req, res, 'JSON-RPC messages');
      if (!read) return;
      track(known, res, isActivity(read.body));
      return known.transport.handleRequest(req, res, read.body);
    }
    // a new session's initialize is read in full before it takes a place: a client that sends headers and then
    // stalls its body holds only its own connection, never a place under mcpServer.maxSessions
    let parsedBody: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req, res, 'one JSON-RPC initialize request');
      if (!read) return;
      parsedBody = read.body;
    }
    if (sessions.size + opening >= opts.maxSessions) {
      return refuseJsonRpc(
        res,
        503,
        `this server already has ${opts.maxSessions} MCP sessions open or opening (mcpServer.maxSessions); end one (close your client or DELETE its session), ` +
          `or wait until an idle one is closed (after ${idleSeconds} s without a request other than ping), then initialize again`,
      );
    }
    if (!places.tryTake(owner)) {
      return refuseJsonRpc(
        res,
        429,
        `this owner (${owner.label}) already has ${places.held(owner)} MCP sessions open or opening, its share (${shareName(owner, 'mcpSessions')}); ` +
          `end one (close your client or DELETE its session), or wait until an idle one is closed (after ${idleSeconds} s without a request other than ping); ${moreRoomHint(owner)}`,
      );
    }
    const agentId = new URL(req.url ?? '/', 'http://mcp.invalid').searchParams.get(AGENT_QUERY_PARAM) ?? undefined;
    if (agentId !== undefined && !gateway.agents().some((agent) => agent.id === agentId)) {
      places.release(owner);
      const known = gateway.agents().map((agent) => agent.id).join(', ');
      return refuse(res, 400, `unknown agent ${JSON.stringify(agentId)} in ?${AGENT_QUERY_PARAM}=; use one of: ${known} (or leave it out for the default agent)`);
    }
    const session = new McpSession(gateway, { ...(agentId !== undefined ? { agentId } : {}), owner, ...(opts.log ? { log: opts.log } : {}) });
    let opened = false;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: opts.maxRequestBodyBytes,
      onsessioninitialized: (id) => {
        opened = true;
        sessions.set(id, { transport, session, owner, lastActiveAt: Date.now(), inFlight: 0 });
      },
    });
    // a session ends when its client DELETEs it, its transport closes or it sat idle: its turn ends with it
    transport.onclose = () => {
      if (transport.sessionId !== undefined) forget(transport.sessionId);
      void session.close();
    };
    opening++;
    try {
      await session.server.connect(transport);
      await transport.handleRequest(req, res, parsedBody);
    } finally {
      opening--;
      // not an initialize (the SDK answered it with its error): nothing was opened, so its place goes back
      if (!opened) places.release(owner);
    }
    if (transport.sessionId === undefined) await session.close();
  }

  async function closeIdle(now = Date.now()): Promise<number> {
    const idle = [...sessions].filter(([, open]) => open.inFlight === 0 && now - open.lastActiveAt >= opts.sessionIdleMs);
    for (const [id] of idle) {
      forget(id);
      closedIdle.set(id, now);
      if (closedIdle.size > MAX_REMEMBERED_IDLE_CLOSES) closedIdle.delete(closedIdle.keys().next().value as string);
    }
    await Promise.allSettled(
      idle.map(async ([id, { transport, session }]) => {
        opts.log?.(`session ${id} closed after ${idleSeconds} s without a request other than ping (mcpServer.sessionIdleSeconds); its turn ended`);
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
    sessionsOf: (owner) => places.held(owner),
    closeIdle,
    async close() {
      clearInterval(sweep);
      const open = [...sessions.keys()].map(forget).filter((o): o is OpenSession => o !== undefined);
      await Promise.allSettled(open.map(async ({ transport, session }) => {
        await transport.close();
        await session.close();
      }));
    },
  };
}
