// The one subscription: run events of the caller's turns and appends to their sessions (all for the operator), streamed over SSE with a per-subscriber queue bound.
import { TRPCError } from '@trpc/server';
import { publicProcedure } from '../init.ts';
import { eventVisible, visibleTurns } from '../guards.ts';
import { eventsInputSchema } from '../schemas.ts';
import { TURN_TOKEN_HEADER } from '../context.ts';
import type { RunEvent, RunView } from '../../runs/types.ts';

/**
 * What the stream sends: run.updated without the cell source (run.started carried it once, and a busy run
 * sends many updates; a reader keeps the source it already has).
 */
export type StreamedRunEvent =
  | Exclude<RunEvent, { type: 'run.updated' }>
  | { type: 'run.updated'; runId: string; at: number; view: Omit<RunView, 'code'> };

export function streamedEvent(event: RunEvent): StreamedRunEvent {
  if (event.type !== 'run.updated') return event;
  const { code: _source, ...view } = event.view;
  return { ...event, view };
}

export interface RunEventsOptions {
  /** Only events this accepts are queued. */
  accept?: (event: RunEvent) => boolean;
  /** Events queued for a reader that is not keeping up before its stream is ended with an error. */
  maxQueued: number;
  signal?: AbortSignal;
}

/** The error a stream ends with when its reader fell `maxQueued` events behind. */
export function slowReaderError(maxQueued: number): TRPCError {
  return new TRPCError({
    code: 'TIMEOUT',
    message:
      `this event stream fell ${maxQueued} events behind (server.maxQueuedEventsPerSubscriber) and was closed to bound the server's memory; ` +
      'read events as they arrive, then subscribe again and reload runs.list',
  });
}

/**
 * Yields events from `subscribe` until `signal` aborts; unsubscribes on exit. A reader that lets `maxQueued`
 * events pile up is dropped: the queue is freed at once and the stream ends with slowReaderError.
 */
export async function* runEvents(subscribe: (listener: (event: RunEvent) => void) => () => void, opts: RunEventsOptions): AsyncGenerator<StreamedRunEvent> {
  const queue: StreamedRunEvent[] = [];
  let overflowed = false;
  let wake: (() => void) | undefined;
  const unsubscribe = subscribe((event) => {
    if (overflowed || (opts.accept && !opts.accept(event))) return;
    if (queue.length >= opts.maxQueued) {
      overflowed = true;
      queue.length = 0;
      unsubscribe();
    } else queue.push(streamedEvent(event));
    wake?.();
  });
  const onAbort = () => wake?.();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    while (!opts.signal?.aborted) {
      if (overflowed) throw slowReaderError(opts.maxQueued);
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

export const eventsProcedure = publicProcedure.input(eventsInputSchema).subscription(({ ctx, input, signal }) => {
  const visible = visibleTurns(ctx, input?.turnTokens);
  if (visible !== 'all' && visible.size === 0) {
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message:
        `events needs turnTokens: pass the turnToken of each turn whose runs you want to follow (turns.prepare returns it) as turnTokens or, comma-separated, in the ${TURN_TOKEN_HEADER} header; the playground page acts as operator and sees every run`,
    });
  }
  const runId = input?.runId;
  const { limits } = ctx.edge;
  const release = ctx.edge.subscribers.acquire(ctx.access.owner);
  const accept = (event: RunEvent) => (runId === undefined || event.runId === runId) && eventVisible(ctx, event, visible);
  signal?.addEventListener('abort', release, { once: true });
  const events = runEvents((listener) => ctx.gateway.subscribe(listener), {
    accept,
    maxQueued: limits.maxQueuedEventsPerSubscriber,
    ...(signal !== undefined ? { signal } : {}),
  });
  return (async function* () {
    try {
      yield* events;
    } finally {
      release();
    }
  })();
});
