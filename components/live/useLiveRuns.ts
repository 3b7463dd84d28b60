'use client';
// Live runs and approvals: seeded by queries, kept current by the events subscription (no manual refresh), which also marks session views stale.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useCallback, useMemo, useState } from 'react';
import { useTRPC } from '../trpc.ts';
import { applyApprovalEvent, applyRunEvent, sortRuns } from './runsState.ts';
import { sessionChangedBy } from '../session/sessionEvents.ts';
import { HoldQueue } from '../playground/holdQueue.ts';
import type { Approval as ApprovalView, LiveEvent as RunEvent, Run as RunView } from '../api.ts';

/** `live`: events flow. `connecting`: first connect. `reconnecting`: the stream dropped and is retrying. `lost`: it failed. */
export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'lost';

export interface LiveRuns {
  runs: RunView[];
  approvals: ApprovalView[];
  connection: ConnectionState;
  /** Why the connection or the initial load failed, in words. */
  error?: string;
  /**
   * Hold incoming events while the page's own exec is in flight (at most MAX_HOLD_MS), then apply them in one
   * render: a run's first events otherwise re-render the page on the cores the Gateway is running it on.
   */
  holdEvents(): void;
  releaseEvents(): void;
}

export function useLiveRuns(): LiveRuns {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const runsQuery = useQuery({ ...trpc.runs.list.queryOptions(), select: sortRuns });
  const approvalsQuery = useQuery(trpc.approvals.list.queryOptions());
  const [everLive, setEverLive] = useState(false);

  const apply = useCallback(
    (event: RunEvent) => {
      queryClient.setQueryData(trpc.runs.list.queryKey(), (old: RunView[] | undefined) => applyRunEvent(old ?? [], event));
      queryClient.setQueryData(trpc.approvals.list.queryKey(), (old: ApprovalView[] | undefined) => applyApprovalEvent(old ?? [], event));
      // a run gone from another Gateway may still be a durable row any Gateway can resume: the list says which
      if (event.type === 'remote.gone') void queryClient.invalidateQueries({ queryKey: trpc.runs.list.queryKey() });
      // Only a shown session's queries are active, so only the session panel on screen refetches.
      const sessionId = sessionChangedBy(event);
      if (sessionId !== undefined) {
        void queryClient.invalidateQueries({ queryKey: trpc.sessions.transcript.queryKey({ sessionId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.sessions.store.queryKey({ sessionId }) });
      }
    },
    [queryClient, trpc],
  );
  // events held while the page's exec runs, applied in order when it releases them (one render: React Query batches)
  const held = useMemo(() => new HoldQueue<RunEvent>((events) => events.forEach(apply)), [apply]);
  const onData = useCallback(
    (event: RunEvent) => {
      if (!held.offer(event)) apply(event);
    },
    [held, apply],
  );
  const holdEvents = useCallback(() => held.hold(), [held]);
  const releaseEvents = useCallback(() => held.release(), [held]);

  const subscription = useSubscription(
    trpc.events.subscriptionOptions(undefined, {
      onStarted: () => {
        setEverLive(true);
        // Events sent while the stream was down are lost: reload the lists once it is back.
        void queryClient.invalidateQueries({ queryKey: trpc.runs.list.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.approvals.list.queryKey() });
        void queryClient.invalidateQueries(trpc.sessions.pathFilter());
      },
      onData,
    }),
  );

  let connection: ConnectionState;
  if (subscription.status === 'pending') connection = 'live';
  else if (subscription.status === 'error') connection = 'lost';
  else connection = everLive ? 'reconnecting' : 'connecting';

  const error = subscription.error?.message ?? runsQuery.error?.message ?? approvalsQuery.error?.message;
  const live: LiveRuns = { runs: runsQuery.data ?? [], approvals: approvalsQuery.data ?? [], connection, holdEvents, releaseEvents };
  if (error !== undefined) live.error = error;
  return live;
}
