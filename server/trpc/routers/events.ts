// The one subscription: run events from gateway.subscribe, streamed over SSE as an async generator.
import { publicProcedure } from '../init.ts';
import { eventsInputSchema } from '../schemas.ts';
import type { GatewayApi } from '../../gateway-types.ts';
import type { RunEvent } from '../../runs/types.ts';

/**
 * Events buffered for one slow subscriber before the oldest are dropped. A browser tab that stops
 * reading must not grow the Gateway's memory; run.updated events carry the full view, so a dropped
 * event is repaired by the next one for the same run.
 */
export const MAX_BUFFERED_EVENTS = 1_000;

/** Yields the Gateway's run events (optionally of one run) until `signal` aborts; unsubscribes on exit. */
export async function* runEvents(gateway: GatewayApi, opts: { runId?: string; signal?: AbortSignal }): AsyncGenerator<RunEvent> {
  const queue: RunEvent[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = gateway.subscribe((event) => {
    if (opts.runId !== undefined && event.runId !== opts.runId) return;
    queue.push(event);
    if (queue.length > MAX_BUFFERED_EVENTS) queue.shift();
    wake?.();
  });
  const onAbort = () => wake?.();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    while (!opts.signal?.aborted) {
      const event = queue.shift();
      if (event) {
        yield event;
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    unsubscribe();
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

export const eventsProcedure = publicProcedure
  .input(eventsInputSchema)
  .subscription(({ ctx, input, signal }) => {
    const opts: { runId?: string; signal?: AbortSignal } = {};
    if (input?.runId !== undefined) opts.runId = input.runId;
    if (signal !== undefined) opts.signal = signal;
    return runEvents(ctx.gateway, opts);
  });
