'use client';
// The browser's tRPC bindings: typed by AppRouter (a type-only import from the server), nothing else from server/.
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { AppRouter } from '../server/trpc/routers/_app.ts';

export const API_URL = '/api/trpc';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** Subscriptions over SSE, everything else one plain request each (an exec can take the whole deadline). */
export function createApiClient() {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url: API_URL }),
        false: httpLink({ url: API_URL }),
      }),
    ],
  });
}
