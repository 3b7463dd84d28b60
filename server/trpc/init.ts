// tRPC initialised once: the procedures the API uses, the error formatter and the Gateway-error mapping.
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { CodeModeError, ConfigError } from '../errors.ts';
import type { InnerContext } from './context.ts';

/** Server-sent-event pings keep proxies from closing an idle events stream and let the client notice a dead one. */
export const SSE_PING_INTERVAL_MS = 5_000;
/** Client reconnects when nothing (not even a ping) arrived for this long: three missed pings. */
export const SSE_RECONNECT_AFTER_INACTIVITY_MS = 3 * SSE_PING_INTERVAL_MS;

/** `runId: Too small: ...` for each zod issue, the field as a dotted path into the procedure's input. */
export function describeZodError(error: ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(the whole input)';
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

/** Calls one batched request may carry (`?batch=1`): the page sends none, an agent a few; each runs on the event loop in turn. */
export const MAX_BATCH_CALLS = 16;

const t = initTRPC.context<InnerContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    if (cause instanceof ZodError) {
      const fields = cause.issues.map((issue) => issue.path.map(String).join('.'));
      return { ...shape, message: describeZodError(cause), data: { ...shape.data, fields } };
    }
    if (error.code === 'PAYLOAD_TOO_LARGE' && !error.message.includes('maxRequestBodyBytes')) {
      // the adapter's own refusal of a streamed body says only the code; say which limit and what to do
      return { ...shape, message: 'the request body is over the limit (server.maxRequestBodyBytes); send a smaller request (a smaller cell, fewer client tools)' };
    }
    if (error.code === 'BAD_REQUEST' && error.message === 'Batch call exceeds maximum size') {
      return { ...shape, message: `a batch may hold at most ${MAX_BATCH_CALLS} calls; split it into several requests` };
    }
    const codeModeCode = cause instanceof CodeModeError ? cause.code : undefined;
    const configPath = cause instanceof ConfigError ? cause.path : undefined;
    return { ...shape, data: { ...shape.data, codeModeCode, configPath } };
  },
  sse: {
    ping: { enabled: true, intervalMs: SSE_PING_INTERVAL_MS },
    client: { reconnectAfterInactivityMs: SSE_RECONNECT_AFTER_INACTIVITY_MS },
  },
});

/**
 * Gateway faults the caller can fix (bad input, unknown run, bad config) become BAD_REQUEST with the
 * Gateway's own message, so the page shows what the Gateway said rather than "Internal server error".
 */
const mapGatewayErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof CodeModeError || cause instanceof ConfigError) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: cause.message, cause });
    }
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapGatewayErrors);

/**
 * Procedures that build a turn's catalog (turns.prepare, catalog, surface) first wait for MCP servers still in
 * their first connection attempt, so the first turn after a start sees their tools. The wait happens here,
 * before the resolver: a resolver's checks and the Gateway call it guards then run with no await between them
 * (two clients claiming one new session id must not both pass the check while MCP connects).
 */
export const turnStartProcedure = publicProcedure.use(async ({ ctx, next }) => {
  await ctx.gateway.mcpReady();
  return next();
});
export const createCallerFactory = t.createCallerFactory;
