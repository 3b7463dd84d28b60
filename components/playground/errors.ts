// Turns whatever a call rejected with into one sentence for the page (tRPC errors carry the Gateway's message).
import { TRPCClientError } from '@trpc/client';

export function errorMessage(err: unknown): string {
  if (err instanceof TRPCClientError) {
    // A fetch that never reached the server has no shape: say so rather than "Failed to fetch".
    if (!err.shape && /fetch|network/i.test(err.message)) {
      return `cannot reach the Gateway (${err.message}); is the server still running?`;
    }
    // the operator cookie is minted per server start: a page older than the server no longer holds it
    if (err.data?.code === 'UNAUTHORIZED') return `${err.message} (if the server restarted, reload the page)`;
    return err.message;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
