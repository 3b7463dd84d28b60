// Concurrent event streams per client: a cap, so one client cannot make the Gateway hold unbounded subscriptions.
import { TRPCError } from '@trpc/server';

/**
 * The operator is every playground tab at once (each tab holds one or two streams), so it gets a cap of its
 * own instead of an API client's: a developer with many tabs open must not find the next one stuck.
 */
export const OPERATOR_MAX_EVENT_SUBSCRIBERS = 64;

export class SubscriberRegistry {
  private readonly open = new Map<string, number>();

  constructor(readonly maxPerClient: number) {}

  /** Takes a slot for `clientId` (at most `limit`, default maxPerClient) or throws TOO_MANY_REQUESTS; the returned release is idempotent. */
  acquire(clientId: string, limit = this.maxPerClient): () => void {
    const held = this.open.get(clientId) ?? 0;
    if (held >= limit) {
      throw new TRPCError({
        code: 'TOO_MANY_REQUESTS',
        message:
          `this client already has ${held} open event subscriptions, the limit (${limit === this.maxPerClient ? 'server.maxEventSubscribersPerClient' : 'the operator\'s cap'}); ` +
          'close one (one stream with several turnTokens sees all your turns) and subscribe again',
      });
    }
    this.open.set(clientId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.open.get(clientId) ?? 1) - 1;
      if (now <= 0) this.open.delete(clientId);
      else this.open.set(clientId, now);
    };
  }

  held(clientId: string): number {
    return this.open.get(clientId) ?? 0;
  }
}
