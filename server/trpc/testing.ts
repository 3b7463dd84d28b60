// Test harness for the routers: a real Gateway on the demo config (default budget) and a caller (no HTTP).
import { fileURLToPath } from 'node:url';
import { TRPCError } from '@trpc/server';
import { DEFAULT_CODE_MODE_OPTIONS } from '../config/schema.ts';
import { loadConfigFile } from '../config/load.ts';
import { createGateway } from '../gateway.ts';
import type { GatewayApi } from '../gateway-types.ts';
import { createInnerContext } from './context.ts';
import { createCallerFactory } from './init.ts';
import { appRouter } from './routers/_app.ts';

/** The demo tools, plugins and MCP server, without a session file. */
export const DEMO_CONFIG = fileURLToPath(new URL('../../demo/configs/short-timeout.json', import.meta.url));

const createCaller = createCallerFactory(appRouter);
export type RouterCaller = ReturnType<typeof createCaller>;

export async function openRouterHarness(): Promise<{ gateway: GatewayApi; caller: RouterCaller }> {
  const config = loadConfigFile(DEMO_CONFIG);
  // the default budget, not the file's 1 s: no router test is about the deadline, and runs that must wait park with yield_control()
  config.tools.codeMode.timeoutMs = DEFAULT_CODE_MODE_OPTIONS.timeoutMs;
  const gateway = await createGateway({ config });
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
