// The Streamable HTTP face: one SDK transport and one McpSession per MCP session id; requests reach it only after the server's request checks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { GatewayApi } from '../gateway-types.ts';
import { McpSession } from './session.ts';

/** The header the SDK's transport reads and sets (MCP spec: Streamable HTTP, session management). */
const SESSION_HEADER = 'mcp-session-id';
/** The query parameter that picks the agent whose surface a new session serves. */
export const AGENT_QUERY_PARAM = 'agent';

export interface McpHttpOptions {
  /** The request body cap of the server (server.maxRequestBodyBytes): the transport enforces it on chunked bodies too. */
  maxRequestBodyBytes: number;
  log?: (line: string) => void;
}

export interface McpHttpHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Live sessions (tests, the shutdown log). */
  sessionCount(): number;
  /** Closes every session (each ends its turn). */
  close(): Promise<void>;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.end(`${message}\n`);
}

/** Serves MCP at the mounted path: a request without a session id starts one (the SDK accepts only `initialize` there). */
export function createMcpHttpHandler(gateway: GatewayApi, opts: McpHttpOptions): McpHttpHandler {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; session: McpSession }>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers[SESSION_HEADER];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const known = sessions.get(sessionId);
      // MCP spec: an unknown or ended session is 404, and the client starts a new one with initialize
      if (!known) return refuse(res, 404, `MCP session "${sessionId}" is not open here (ended, or the server restarted); initialize a new session`);
      return known.transport.handleRequest(req, res);
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
      onsessioninitialized: (id) => void sessions.set(id, { transport, session }),
    });
    // a session ends when its client DELETEs it or its transport closes: its turn ends with it
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      void session.close();
    };
    await session.server.connect(transport);
    await transport.handleRequest(req, res);
    // not an initialize (the SDK answered it with its error): nothing was opened, so nothing is kept
    if (transport.sessionId === undefined) await session.close();
  }

  return {
    handle,
    sessionCount: () => sessions.size,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(async ({ transport, session }) => {
        await transport.close();
        await session.close();
      }));
    },
  };
}
