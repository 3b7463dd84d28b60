'use client';
// The browser's tRPC bindings: typed by AppRouter (a type-only import from the server), nothing else from server/.
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { AppRouter } from '../server/trpc/routers/_app.ts';
import { checkedFetch } from './apiFetch.ts';

export const API_URL = '/api/trpc';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/**
 * Subscriptions over SSE, everything else one plain request each (an exec can take the whole deadline), through
 * a fetch that reports the HTTP layer's plain-text refusals (an oversized body's 413) as what they say.
 */
export function createApiClient() {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url: API_URL }),
        false: httpLink({ url: API_URL, fetch: checkedFetch() }),
      }),
    ],
  });
}
