// Test harness for the routers: a real Gateway on the short-timeout demo config, an operator caller and client callers (no HTTP).
import { fileURLToPath } from 'node:url';
import { TRPCError } from '@trpc/server';
import { createGateway } from '../gateway.ts';
import type { GatewayApi } from '../gateway-types.ts';
import { createEdgeState, createInnerContext, type Access, type EdgeState } from './context.ts';
import { createCallerFactory } from './init.ts';
import { appRouter } from './routers/_app.ts';

export const SHORT_TIMEOUT_CONFIG = fileURLToPath(new URL('../../demo/configs/short-timeout.json', import.meta.url));

const createCaller = createCallerFactory(appRouter);
export type RouterCaller = ReturnType<typeof createCaller>;

/** The playground page's role: sees and acts on every run without tokens. */
export const OPERATOR: Access = { operator: true, clientId: 'operator' };

/** A caller with `access` on `gateway`; callers made for one server share `edge` (subscriber counts). */
/** `signal` ends the subscriptions the caller opens (as a closed HTTP connection does). */
export function callerFor(gateway: GatewayApi, access: Access, edge: EdgeState, signal?: AbortSignal): RouterCaller {
  return createCaller(createInnerContext({ gateway, access, edge }), signal ? { signal } : {});
}

export interface RouterHarness {
  gateway: GatewayApi;
  /** The operator (what most router tests exercise: every procedure, no tokens). */
  caller: RouterCaller;
  edge: EdgeState;
  /** An API client other than the operator, known to the subscriber cap as `clientId`. */
  client(clientId: string, signal?: AbortSignal): RouterCaller;
}

export async function openRouterHarness(): Promise<RouterHarness> {
  const gateway = await createGateway({ configPath: SHORT_TIMEOUT_CONFIG });
  const edge = createEdgeState();
  return {
    gateway,
    caller: callerFor(gateway, OPERATOR, edge),
    edge,
    client: (clientId, signal) => callerFor(gateway, { operator: false, clientId }, edge, signal),
  };
}

/** The TRPCError a call fails with (fails the test if it succeeds or throws something else). */
export async function rejection(promise: Promise<unknown>): Promise<TRPCError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof TRPCError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}
