'use client';
// Renders the playground in the browser only: its first state comes from the URL (cell, run), which the server cannot see.
import dynamic from 'next/dynamic';

export const PlaygroundLoader = dynamic(() => import('./Playground.tsx').then((m) => m.Playground), {
  ssr: false,
  loading: () => (
    <div className="flex h-screen items-center justify-center font-mono text-xs text-neutral-500" data-testid="playground-loading">
      Loading the playground…
    </div>
  ),
});
