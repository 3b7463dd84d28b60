// Test harness for the routers: a real Gateway on the demo config (default budget), an operator caller and client callers (no HTTP).
import { fileURLToPath } from 'node:url';
import { TRPCError } from '@trpc/server';
import { DEFAULT_CODE_MODE_OPTIONS, DEFAULT_SERVER_OPTIONS } from '../config/schema.ts';
import { OwnerDirectory, type Owner } from '../access/owners.ts';
import { loadConfigFile } from '../config/load.ts';
import { createGateway } from '../gateway.ts';
import type { GatewayApi } from '../gateway-types.ts';
import type { GatewayConfig, ShareSizes } from '../config/types.ts';
import { createEdgeState, createInnerContext, type Access, type EdgeState, type PresentedTokens } from './context.ts';
import { createCallerFactory } from './init.ts';
import { appRouter } from './routers/_app.ts';

/** The demo tools, plugins and MCP server, without a session file. */
export const DEMO_CONFIG = fileURLToPath(new URL('../../demo/configs/short-timeout.json', import.meta.url));

/**
 * The demo config with the default budget, not the file's 1 s: no router test is about the deadline,
 * and runs that must wait park with yield_control().
 */
export function demoConfig(): GatewayConfig {
  const config = loadConfigFile(DEMO_CONFIG);
  config.tools.codeMode.timeoutMs = DEFAULT_CODE_MODE_OPTIONS.timeoutMs;
  return config;
}

const createCaller = createCallerFactory(appRouter);
export type RouterCaller = ReturnType<typeof createCaller>;

/** The owners of the default server config: the operator, keyless clients, and API clients made by `clientOwner`. */
export const TEST_OWNERS = new OwnerDirectory(DEFAULT_SERVER_OPTIONS);

/** The playground page's role: sees and acts on every run without tokens. */
export const OPERATOR: Access = { operator: true, owner: TEST_OWNERS.operator };

/** An API client owner as a key named `name` makes one (the client class's shares, or `shares` over them). */
export function clientOwner(name: string, shares: Partial<ShareSizes> = {}): Owner {
  return { id: `client:${name}`, kind: 'client', label: `API client "${name}"`, shares: { ...DEFAULT_SERVER_OPTIONS.shares.client, ...shares } };
}

/** The access of an API client (not the operator) that is `owner`. */
export function clientAccess(owner: Owner): Access {
  return { operator: false, owner };
}

/** A caller with `access` on `gateway`; callers made for one server share `edge` (subscriber counts). */
/** `signal` ends the subscriptions the caller opens (as a closed HTTP connection does). */
/** `presented`: tokens as the request headers would carry them (x-codemode-turn-token, x-codemode-session-token). */
export function callerFor(gateway: GatewayApi, access: Access, edge: EdgeState, signal?: AbortSignal, presented?: PresentedTokens): RouterCaller {
  return createCaller(createInnerContext({ gateway, access, edge, ...(presented ? { presented } : {}) }), signal ? { signal } : {});
}

export interface RouterHarness {
  gateway: GatewayApi;
  /** The operator (what most router tests exercise: every procedure, no tokens). */
  caller: RouterCaller;
  edge: EdgeState;
  /** An API client other than the operator: the API key named `name` (its own owner, the client class's shares). */
  client(name: string, signal?: AbortSignal): RouterCaller;
}

export async function openRouterHarness(): Promise<RouterHarness> {
  const gateway = await createGateway({ config: demoConfig() });
  const edge = createEdgeState(gateway.config.server);
  return {
    gateway,
    caller: callerFor(gateway, OPERATOR, edge),
    edge,
    client: (name, signal) => callerFor(gateway, clientAccess(clientOwner(name)), edge, signal),
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

/** A session's whole branch over the API, page after page (sessions.transcript answers a bounded page at a time). */
export async function wholeTranscript(caller: RouterCaller, input: { sessionId: string; sessionToken?: string; turnToken?: string }) {
  const page = await caller.sessions.transcript(input);
  const entries = [...page.entries];
  for (let after = page.nextCursor; after !== null; ) {
    const next = await caller.sessions.transcript({ ...input, after });
    entries.push(...next.entries);
    after = next.nextCursor;
  }
  return entries;
}
