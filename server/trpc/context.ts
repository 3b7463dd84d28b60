// tRPC context: the inner part holds plain dependencies and the caller's access (tests build it directly), the outer part reads the request.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import type { GatewayApi } from '../gateway-types.ts';
import type { ServerOptions } from '../config/types.ts';
import type { Owner } from '../access/owners.ts';
import type { TestPlanService } from '../testplan/service.ts';
import { MAX_TOKEN_LENGTH, MAX_TURN_TOKENS } from './schemas.ts';
import { SubscriberRegistry } from './subscribers.ts';
import { TurnQuota } from './turn-quota.ts';

/** What the caller may do beyond what its tokens open, and whose shares it draws on. */
export interface Access {
  /** The playground page (it holds the operator cookie): may watch and act on every run without tokens. */
  operator: boolean;
  /** The server is bound beyond loopback (adding a stdio MCP server is then refused unless the config allows it). Absent: not exposed. */
  exposed?: boolean;
  /** Whose shares its turns and event streams count against (server/access/owners.ts): the operator, an API key's client, or the keyless clients together. */
  owner: Owner;
}

type EdgeLimits = Pick<ServerOptions, 'maxQueuedEventsPerSubscriber'>;

/** State the edge shares across requests of one server: who holds which stream, whose turns are live, the stream queue bound. */
export interface EdgeState {
  subscribers: SubscriberRegistry;
  turns: TurnQuota;
  limits: Readonly<EdgeLimits>;
}

export function createEdgeState(server: EdgeLimits): EdgeState {
  return {
    subscribers: new SubscriberRegistry(),
    turns: new TurnQuota(),
    limits: { maxQueuedEventsPerSubscriber: server.maxQueuedEventsPerSubscriber },
  };
}

/**
 * Tokens sent in request headers rather than in the input: a query's input travels in the URL, which proxies and
 * servers log. A procedure uses them where its input leaves the token out.
 */
export interface PresentedTokens {
  turnTokens: readonly string[];
  sessionToken?: string;
}

/** One or more turn tokens, comma-separated (one header can speak for every turn of a client). */
export const TURN_TOKEN_HEADER = 'x-codemode-turn-token';
export const SESSION_TOKEN_HEADER = 'x-codemode-session-token';

const NO_TOKENS: PresentedTokens = { turnTokens: [] };

/** The tokens in a request's headers; throws BAD_REQUEST for more or longer tokens than an input may carry. */
export function presentedTokens(headers: IncomingHttpHeaders): PresentedTokens {
  const values = (name: string) => {
    const raw = headers[name];
    return (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  };
  const turnTokens = values(TURN_TOKEN_HEADER);
  const [sessionToken, ...extra] = values(SESSION_TOKEN_HEADER);
  const refuse = (message: string) => new TRPCError({ code: 'BAD_REQUEST', message });
  if (turnTokens.length > MAX_TURN_TOKENS) throw refuse(`the ${TURN_TOKEN_HEADER} header carries ${turnTokens.length} tokens; send at most ${MAX_TURN_TOKENS} and end turns you no longer use`);
  if (extra.length > 0) throw refuse(`the ${SESSION_TOKEN_HEADER} header carries several tokens; send the one session's token`);
  const tooLong = (tokens: readonly string[], header: string) => {
    if (tokens.some((t) => t.length > MAX_TOKEN_LENGTH)) throw refuse(`the ${header} header holds a token longer than ${MAX_TOKEN_LENGTH} characters; send the tokens as turns.prepare returned them`);
  };
  tooLong(turnTokens, TURN_TOKEN_HEADER);
  tooLong(sessionToken === undefined ? [] : [sessionToken], SESSION_TOKEN_HEADER);
  return sessionToken !== undefined ? { turnTokens, sessionToken } : { turnTokens };
}

export interface InnerContext {
  gateway: GatewayApi;
  access: Access;
  edge: EdgeState;
  /** The server's test plan runner (one plan at a time); absent where nothing serves one (router tests, a bare HTTP server). */
  testPlan?: TestPlanService;
  /** Tokens from the request headers (none through createCaller unless a test gives them). */
  presented: PresentedTokens;
}

export interface Context extends InnerContext {
  /** Absent when a test calls a router through `createCaller`. */
  req?: IncomingMessage;
}

/** The context without any request: what `createCaller` in tests uses. */
export function createInnerContext(deps: Omit<InnerContext, 'presented'> & { presented?: PresentedTokens }): InnerContext {
  return { gateway: deps.gateway, access: deps.access, edge: deps.edge, ...(deps.testPlan ? { testPlan: deps.testPlan } : {}), presented: deps.presented ?? NO_TOKENS };
}

/** What every request of one server shares: built once, at server start. */
export type ServerDeps = Pick<InnerContext, 'gateway' | 'edge' | 'testPlan'>;

/**
 * Builds the per-request context for the HTTP adapter. `accessOf` is the HTTP layer's verdict on the request
 * (operator cookie or not); the HTTP server has already refused requests it must not serve.
 */
export function createContextFactory(deps: ServerDeps, accessOf: (req: IncomingMessage) => Access) {
  return ({ req }: { req: IncomingMessage; res: ServerResponse }): Context => ({
    ...createInnerContext({ ...deps, access: accessOf(req), presented: presentedTokens(req.headers) }),
    req,
  });
}
