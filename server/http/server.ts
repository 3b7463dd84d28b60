// The one HTTP server: request checks, the operator cookie and login, tRPC on /api/trpc, MCP at mcpServer.path, everything else to the page handler (Next).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { GatewayApi } from '../gateway-types.ts';
import type { TestPlanService } from '../testplan/service.ts';
import type { McpServerOptions, ServerOptions } from '../config/types.ts';
import { newToken, tokensEqual } from '../access/tokens.ts';
import { createContextFactory, createEdgeState, type Access } from '../trpc/context.ts';
import { appRouter } from '../trpc/routers/_app.ts';
import { MAX_BATCH_CALLS } from '../trpc/init.ts';
import { readSmallBody } from '../util/read-body.ts';
import { noteOwnListener } from '../util/own-listeners.ts';
import { createMcpHttpHandler, type McpHttpHandler } from '../mcp-server/http.ts';
import {
  checkRequest,
  exposureFor,
  isPageNavigation,
  LOGIN_PATH,
  operatorCookie,
  refuseUnprotectedExposure,
  servedOverHttps,
  type Exposure,
} from './request-checks.ts';

export const API_BASE_PATH = '/api/trpc/';
/** The login form posts one token; anything longer is not a login. */
export const MAX_LOGIN_BODY_BYTES = 4 * 1024;

/** Serves every request that is not the API (Next in production; tests pass a plain handler). */
export type PageHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface PlaygroundServerOptions {
  gateway: GatewayApi;
  /** The server's test plan runner (main.ts builds one over its Gateway); absent: testPlan.run answers NOT_IMPLEMENTED. */
  testPlan?: TestPlanService;
  host: string;
  port: number;
  server: ServerOptions;
  /** Already resolved (env over config); required when `host` is not loopback. */
  accessToken: string | undefined;
  handlePage: PageHandler;
  /** The MCP server face (config.mcpServer); absent or disabled: nothing is served at its path. */
  mcpServer?: McpServerOptions;
  /** Where API faults the caller cannot fix are reported. */
  logError?: (line: string, err: unknown) => void;
}

export interface PlaygroundServer {
  server: Server;
  exposure: Exposure;
  /** This process's operator token (the cookie value); tests use it to act as the page. */
  operatorToken: string;
  /** The MCP face when served (its sessions; the shutdown closes them). */
  mcp?: McpHttpHandler;
}

/** The machine's own addresses: a wildcard bind answers to each of them. */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** How long a client may take to send a whole request (headers and body). */
const REQUEST_RECEIVE_TIMEOUT_MS = 60_000;

function refuse(res: ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.end(`${message}\n`);
}

const LOGIN_PAGE = `<!doctype html><meta charset="utf-8"><title>Code Mode Playground: log in</title>
<form method="post" action="${LOGIN_PATH}" style="font:16px system-ui;margin:4em auto;max-width:28em">
<p>This playground is exposed beyond loopback and needs its access token.</p>
<input name="token" type="password" autocomplete="current-password" style="width:100%" autofocus>
<p><button>Log in</button></p></form>`;

function loginPage(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.end(LOGIN_PAGE);
}

/**
 * Binds the server and returns it with its exposure. Refuses (ExposureError) before binding when the address
 * is not loopback and there is no access token.
 */
export async function startPlaygroundServer(opts: PlaygroundServerOptions): Promise<PlaygroundServer> {
  // refused before listening: an unprotected exposure must never be bound, even for a moment
  refuseUnprotectedExposure(opts.host, opts.accessToken);
  const operatorToken = newToken('op');
  const edge = createEdgeState(opts.server);

  // the request checks' verdict, handed to the tRPC context: the operator cookie is read once per request
  const accessByRequest = new WeakMap<IncomingMessage, Access>();
  const accessOf = (req: IncomingMessage): Access => {
    const access = accessByRequest.get(req);
    // fail closed: an API request that skipped the checks is a bug here, never an operator
    if (!access) throw new Error('an API request reached tRPC without passing the request checks; route every request through the server handler');
    return access;
  };
  const handleApi = createHTTPHandler({
    router: appRouter,
    createContext: createContextFactory({ gateway: opts.gateway, edge, ...(opts.testPlan ? { testPlan: opts.testPlan } : {}) }, accessOf),
    basePath: API_BASE_PATH,
    maxBodySize: opts.server.maxRequestBodyBytes,
    maxBatchSize: MAX_BATCH_CALLS,
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') opts.logError?.(`[api] ${path ?? '?'}:`, error.cause ?? error);
    },
  });

  const mcpOptions = opts.mcpServer?.enabled ? opts.mcpServer : undefined;
  const mcp = mcpOptions
    ? createMcpHttpHandler(opts.gateway, {
        maxRequestBodyBytes: opts.server.maxRequestBodyBytes,
        maxSessions: mcpOptions.maxSessions,
        sessionIdleMs: mcpOptions.sessionIdleSeconds * 1000,
        ...(opts.logError ? { log: (line: string) => opts.logError?.('[mcp]', line) } : {}),
      })
    : undefined;

  // the request handler is attached after listen, once the port (and so the exposure) is known: a connection
  // accepted in between is only read on a later turn of the event loop, when the handler is in place
  // a request's headers and body must arrive within a minute (Node's default is five): a client that trickles a
  // body holds a connection no longer than that; responses (event streams, a long exec) are not bounded by it
  const server = createServer({ requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(new Error(`${opts.host}:${opts.port} is already in use; stop the other server or set PORT to a free port`));
      } else reject(err);
    });
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const exposure = exposureFor({ bindHost: opts.host, port, server: opts.server, accessToken: opts.accessToken, interfaceAddresses: interfaceAddresses() });
  // outbound requests a guest can steer (OpenAPI calls, document fetches) are refused this address (util/own-listeners.ts)
  server.once('close', noteOwnListener(opts.host, port));

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // an absolute-form target (GET http://other.example/...) would reach the page's router as a path-less URL and
    // come back as a redirect to that host; browsers never send one to an origin server
    if (!req.url?.startsWith('/')) return refuse(res, 400, 'the request target must be a path (/...), not an absolute URL; send the path with a Host header');
    const path = req.url.split('?')[0] ?? '/';
    const isMcp = mcp !== undefined && path === mcpOptions?.path;
    // the same checks as the API's; the MCP path also opens to its own token (mcpServer.token)
    const verdict = checkRequest(exposure, req, operatorToken, isMcp ? mcpOptions?.token : undefined);
    const isApi = req.url?.startsWith(API_BASE_PATH) ?? false;
    if (!verdict.ok && isMcp) {
      // MCP clients look for the challenge on a 401 (MCP spec: authorization)
      if (verdict.status === 401) res.setHeader('www-authenticate', 'Bearer');
      return refuse(res, verdict.status, verdict.message);
    }
    if (!verdict.ok) {
      if (verdict.status === 401 && path === LOGIN_PATH && req.method === 'POST') return void login(req, res, exposure, operatorToken);
      if (verdict.status === 401 && !isApi && req.method === 'GET') return loginPage(res, 401);
      return refuse(res, verdict.status, verdict.message);
    }
    if (isMcp) {
      return void mcp.handle(req, res, verdict.owner).catch((err: unknown) => {
        opts.logError?.('[mcp]', err);
        if (!res.headersSent) refuse(res, 500, 'the MCP request failed inside the server; see the server log');
        else res.end();
      });
    }
    if (isApi) {
      const type = String(req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (req.method === 'POST' && type !== 'application/json') {
        // tRPC would read form data or a byte stream as the input and answer with its field names; say what it takes
        return refuse(res, 415, `the API takes JSON bodies; send the input with content-type: application/json (got ${type ? `"${type}"` : 'none'})`);
      }
      accessByRequest.set(req, { operator: verdict.operator, exposed: exposure.exposed, owner: verdict.owner });
      return void handleApi(req, res);
    }
    // the page is the operator: on loopback a browser that navigates to it, when exposed whoever logged in with the token
    if (!verdict.operator && !exposure.exposed && isPageNavigation({ method: req.method, headers: req.headers, path })) {
      res.setHeader('set-cookie', operatorCookie(exposure.port, operatorToken, { secure: servedOverHttps(req) }));
    }
    if (path === LOGIN_PATH) {
      res.statusCode = 303;
      res.setHeader('location', '/');
      return void res.end();
    }
    opts.handlePage(req, res).catch((err: unknown) => {
      opts.logError?.('[page]', err);
      if (!res.headersSent) res.statusCode = 500;
      res.end('internal error');
    });
  });
  return { server, exposure, operatorToken, ...(mcp ? { mcp } : {}) };
}

/** The login form's POST: the right access token earns the operator cookie and a redirect to the page. */
async function login(req: IncomingMessage, res: ServerResponse, exposure: Exposure, operatorToken: string): Promise<void> {
  const body = await readSmallBody(req, MAX_LOGIN_BODY_BYTES);
  const token = body === undefined ? undefined : (new URLSearchParams(body).get('token') ?? undefined);
  if (exposure.accessToken === undefined || !tokensEqual(token, exposure.accessToken)) return loginPage(res, 401);
  res.statusCode = 303;
  res.setHeader('set-cookie', operatorCookie(exposure.port, operatorToken, { secure: servedOverHttps(req) }));
  res.setHeader('location', '/');
  res.end();
}
