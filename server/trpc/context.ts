// tRPC context: the inner part holds plain dependencies and the caller's access (tests build it directly), the outer part reads the request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayApi } from '../gateway-types.ts';
import type { ServerOptions } from '../config/types.ts';
import { SubscriberRegistry } from './subscribers.ts';

/** What the caller may do beyond what its tokens open. */
export interface Access {
  /** The playground page (it holds the operator cookie): may watch and act on every run without tokens. */
  operator: boolean;
  /** Whom the subscriber cap counts against: "operator", or the remote address (all loopback clients share one). */
  clientId: string;
}

type EventStreamLimits = Pick<ServerOptions, 'maxEventSubscribersPerClient' | 'maxEventSubscribersOperator' | 'maxQueuedEventsPerSubscriber'>;

/** State the edge shares across requests of one server: the event-stream limits and who holds which stream. */
export interface EdgeState {
  subscribers: SubscriberRegistry;
  limits: Readonly<EventStreamLimits>;
}

export function createEdgeState(server: EventStreamLimits): EdgeState {
  const { maxEventSubscribersPerClient, maxEventSubscribersOperator, maxQueuedEventsPerSubscriber } = server;
  return {
    subscribers: new SubscriberRegistry(),
    limits: { maxEventSubscribersPerClient, maxEventSubscribersOperator, maxQueuedEventsPerSubscriber },
  };
}

export interface InnerContext {
  gateway: GatewayApi;
  access: Access;
  edge: EdgeState;
}

export interface Context extends InnerContext {
  /** Absent when a test calls a router through `createCaller`. */
  req?: IncomingMessage;
}

/** The context without any request: what `createCaller` in tests uses. */
export function createInnerContext(deps: InnerContext): InnerContext {
  return { gateway: deps.gateway, access: deps.access, edge: deps.edge };
}

/**
 * Builds the per-request context for the HTTP adapter. `accessOf` is the HTTP layer's verdict on the request
 * (operator cookie or not); the HTTP server has already refused requests it must not serve.
 */
export function createContextFactory(gateway: GatewayApi, edge: EdgeState, accessOf: (req: IncomingMessage) => Access) {
  return ({ req }: { req: IncomingMessage; res: ServerResponse }): Context => ({
    ...createInnerContext({ gateway, access: accessOf(req), edge }),
    req,
  });
}
