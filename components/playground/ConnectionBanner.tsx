'use client';
// The live-updates line of the page header and the banner shown while the events stream is down or slow to connect.
import { useEffect, useState } from 'react';
import type { ConnectionState } from '../live/useLiveRuns.ts';

export const CONNECTION_LABELS: Record<ConnectionState, { text: string; color: string }> = {
  live: { text: 'live', color: 'bg-emerald-500' },
  connecting: { text: 'connecting…', color: 'bg-sky-500 animate-pulse' },
  reconnecting: { text: 'reconnecting…', color: 'bg-amber-500 animate-pulse' },
  lost: { text: 'disconnected', color: 'bg-rose-500' },
};

/** A first connection slower than this is worth a message: the user may be waiting on a dead server. */
export const SLOW_CONNECT_MS = 4_000;

export function ConnectionBanner({ state, error }: { state: ConnectionState; error?: string }) {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    setSlow(false);
    if (state !== 'connecting') return;
    const timer = setTimeout(() => setSlow(true), SLOW_CONNECT_MS);
    return () => clearTimeout(timer);
  }, [state]);
  if (state === 'live' || (state === 'connecting' && !slow)) return null;
  const lost = state === 'lost';
  const message = {
    lost: `Live updates failed${error ? `: ${error}` : ''}. Reload the page once the server is back.`,
    reconnecting: 'Live updates lost; reconnecting… Runs and approvals shown may be stale until the connection is back.',
    connecting: `Cannot reach the live-updates stream yet; retrying… Runs and approvals will not update until it connects${error ? ` (${error})` : ''}.`,
  }[state];
  return (
    <div
      data-testid="connection-banner"
      data-state={state}
      role="status"
      className={`border-b px-3 py-1 text-xs ${lost ? 'border-rose-900 bg-rose-950/60 text-rose-200' : 'border-amber-900 bg-amber-950/50 text-amber-200'}`}
    >
      {message}
    </div>
  );
}
