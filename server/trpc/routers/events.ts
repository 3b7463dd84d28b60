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

/**
 * A reader that has taken nothing for this long while events waited for it has stopped reading: it is dropped, so a
 * client that holds a stream open without reading frees its place and what its queue held. Four times the client's
 * own reconnect-after-silence (SSE_RECONNECT_AFTER_INACTIVITY_MS, 15 s), so a busy reader is never taken for one.
 */
export const STALLED_READER_MS = 60_000;

export interface RunEventsOptions {
  /** Only events this accepts are queued. */
  accept?: (event: RunEvent) => boolean;
  /** Events queued for a reader that is not keeping up before its stream is ended with an error. */
  maxQueued: number;
  signal?: AbortSignal;
  /** How long a reader may take nothing while events wait before it is dropped; default STALLED_READER_MS. */
  stalledAfterMs?: number;
  /** The clock (tests); default Date.now. */
  now?: () => number;
}

/** The error a stream ends with when its reader fell `maxQueued` events behind, or stopped taking events. */
export function slowReaderError(maxQueued: number, why: 'behind' | 'stalled' = 'behind'): TRPCError {
  const what =
    why === 'behind'
      ? `fell ${maxQueued} events behind (server.maxQueuedEventsPerSubscriber)`
      : `took no event for ${STALLED_READER_MS / 1000} s while events waited for it`;
  return new TRPCError({
    code: 'TIMEOUT',
    message: `this event stream ${what} and was closed to bound the server's memory; read events as they arrive, then subscribe again and reload runs.list`,
  });
}

/**
 * What a newer queued event makes redundant: a run's view (run.updated carries the whole view), a nested call's record
 * (finished supersedes started), a session's append notice (the reader reloads the session either way). A reader that
 * is behind gets the newest of each in the place of the oldest, so its queue holds one per run, call and session
 * rather than one per event, and a burst of updates does not push it past maxQueued.
 */
function coalesceKey(event: StreamedRunEvent): string | undefined {
  switch (event.type) {
    case 'run.updated':
      return `run ${event.runId}`;
    case 'nested.started':
    case 'nested.finished':
      return `call ${event.runId} ${event.call.invocationId}`;
    case 'session.appended':
      return `session ${event.sessionId}`;
    case 'remote.run':
    case 'remote.gone':
      // another Gateway's run: only its newest state matters
      return `remote ${event.runId}`;
    default:
      return undefined;
  }
}

interface Queued {
  event: StreamedRunEvent;
  key: string | undefined;
}

/**
 * Yields events from `subscribe` until `signal` aborts; unsubscribes on exit. Redundant events coalesce while they
 * wait (coalesceKey). A reader that lets `maxQueued` events pile up, or takes none for `stalledAfterMs` while some
 * wait, is dropped: the queue is freed at once and the stream ends with slowReaderError.
 */
export async function* runEvents(subscribe: (listener: (event: RunEvent) => void) => () => void, opts: RunEventsOptions): AsyncGenerator<StreamedRunEvent> {
  const now = opts.now ?? Date.now;
  const stalledAfterMs = opts.stalledAfterMs ?? STALLED_READER_MS;
  const queue: Queued[] = [];
  const waiting = new Map<string, Queued>();
  let dropped: 'behind' | 'stalled' | undefined;
  /** When the reader last took an event, or the queue last went from empty to holding one. */
  let lastTakenAt = now();
  let wake: (() => void) | undefined;
  const drop = (why: 'behind' | 'stalled') => {
    dropped = why;
    queue.length = 0;
    waiting.clear();
    unsubscribe();
  };
  const unsubscribe = subscribe((event) => {
    if (dropped || (opts.accept && !opts.accept(event))) return;
    const streamed = streamedEvent(event);
    const key = coalesceKey(streamed);
    const earlier = key === undefined ? undefined : waiting.get(key);
    if (earlier) {
      earlier.event = streamed;
    } else if (queue.length > 0 && now() - lastTakenAt >= stalledAfterMs) {
      drop('stalled');
    } else if (queue.length >= opts.maxQueued) {
      drop('behind');
    } else {
      if (queue.length === 0) lastTakenAt = now();
      const item: Queued = { event: streamed, key };
      queue.push(item);
      if (key !== undefined) waiting.set(key, item);
    }
    wake?.();
  });
  const onAbort = () => wake?.();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    while (!opts.signal?.aborted) {
      if (dropped) throw slowReaderError(opts.maxQueued, dropped);
      const item = queue.shift();
      if (item) {
        if (item.key !== undefined) waiting.delete(item.key);
        lastTakenAt = now();
        yield item.event;
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
