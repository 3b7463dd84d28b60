// Concurrent event streams per client: a cap, so one client cannot make the Gateway hold unbounded subscriptions.
import { TRPCError } from '@trpc/server';

export class SubscriberRegistry {
  private readonly open = new Map<string, number>();

  /**
   * Takes a slot for `clientId`, at most `limit` of them, or throws TOO_MANY_REQUESTS naming `limitName` (the
   * config field that sets the limit); the returned release is idempotent.
   */
  acquire(clientId: string, limit: number, limitName: string): () => void {
    const held = this.open.get(clientId) ?? 0;
    if (held >= limit) {
      throw new TRPCError({
        code: 'TOO_MANY_REQUESTS',
        message:
          `this client already has ${held} open event subscriptions, the limit (${limitName}); ` +
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
