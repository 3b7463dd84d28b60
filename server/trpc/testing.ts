// Test harness for the routers: a real Gateway on the short-timeout demo config and a caller (no HTTP).
import { fileURLToPath } from 'node:url';
import { TRPCError } from '@trpc/server';
import { createGateway } from '../gateway.ts';
import type { GatewayApi } from '../gateway-types.ts';
import { createInnerContext } from './context.ts';
import { createCallerFactory } from './init.ts';
import { appRouter } from './routers/_app.ts';

export const SHORT_TIMEOUT_CONFIG = fileURLToPath(new URL('../../demo/configs/short-timeout.json', import.meta.url));

const createCaller = createCallerFactory(appRouter);
export type RouterCaller = ReturnType<typeof createCaller>;

export async function openRouterHarness(): Promise<{ gateway: GatewayApi; caller: RouterCaller }> {
  const gateway = await createGateway({ configPath: SHORT_TIMEOUT_CONFIG });
  return { gateway, caller: createCaller(createInnerContext({ gateway })) };
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
