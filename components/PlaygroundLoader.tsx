'use client';
// Renders the playground in the browser only: its first state comes from the URL (cell, run), which the server cannot see.
// While the page's own code loads, the loader starts what the first view waits for (issue 14): Monaco's chunk, and
// the agents, then the catalog (the editor's declarations) and surface of the turn the page will ask for.
import { useQueryClient } from '@tanstack/react-query';
import dynamic from 'next/dynamic';
import { useEffect } from 'react';
import { preloadCellEditor } from './editor/index.ts';
import { readCellUrl } from './playground/cellUrl.ts';
import { DEFAULT_CLIENT_TOOLS } from './playground/clientTools.ts';
import { effectiveAgentId, turnRequestOf } from './playground/turnRequest.ts';
import { useTRPC } from './trpc.ts';

const loadPlayground = () => import('./Playground.tsx').then((m) => m.Playground);

const Playground = dynamic(loadPlayground, {
  ssr: false,
  loading: () => (
    <div className="flex h-screen items-center justify-center font-mono text-xs text-neutral-500" data-testid="playground-loading">
      Loading the playground…
    </div>
  ),
});

// Monaco's chunks load beside the page's own from the start: compressed once per server process, they no longer hold the page's
// chunk back, and evaluating Monaco (most of the first view's main-thread time) then starts as early as it can.
if (typeof window !== 'undefined') {
  void loadPlayground().catch(() => undefined);
  void preloadCellEditor().catch(() => undefined);
}

/** The first view's data, fetched into the page's query cache under the keys the page reads (a miss only costs a request). */
function usePrefetchFirstView(): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  useEffect(() => {
    const linked = readCellUrl(window.location.href).settings;
    queryClient
      .fetchQuery(trpc.config.agents.queryOptions())
      .then((agents) => {
        const request = turnRequestOf(effectiveAgentId(linked?.agentId, agents), linked?.model ?? '', linked?.clientTools ?? DEFAULT_CLIENT_TOOLS);
        if (!request) return;
        void queryClient.prefetchQuery(trpc.catalog.list.queryOptions(request));
        void queryClient.prefetchQuery(trpc.config.surface.queryOptions(request));
      })
      // the page's own query shows the error (and retries)
      .catch(() => undefined);
  }, [trpc, queryClient]);
}

export function PlaygroundLoader() {
  usePrefetchFirstView();
  return <Playground />;
}
