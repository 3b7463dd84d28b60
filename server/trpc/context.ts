// tRPC context: the inner part holds plain dependencies (tests build it directly), the outer part reads the request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayApi } from '../gateway-types.ts';

export interface InnerContext {
  gateway: GatewayApi;
}

export interface Context extends InnerContext {
  /** Absent when a test calls a router through `createCaller`. */
  req?: IncomingMessage;
}

/** The context without any request: what `createCaller` in tests uses. */
export function createInnerContext(deps: InnerContext): InnerContext {
  return { gateway: deps.gateway };
}

/** Builds the per-request context for the HTTP adapter; the gateway is the process's one instance. */
export function createContextFactory(gateway: GatewayApi) {
  return ({ req }: { req: IncomingMessage; res: ServerResponse }): Context => ({
    ...createInnerContext({ gateway }),
    req,
  });
}
