// Concurrent event streams per owner: a share, so one owner cannot make the Gateway hold unbounded subscriptions or take every client's.
import { TRPCError } from '@trpc/server';
import { moreRoomHint, shareName, type Owner } from '../access/owners.ts';
import { ShareCount } from '../access/share-count.ts';

export class SubscriberRegistry {
  private readonly open = new ShareCount('eventStreams');

  /**
   * Takes a stream for `owner`, at most its share (owner.shares.eventStreams), or throws TOO_MANY_REQUESTS naming
   * the config field that sets the share; the returned release is idempotent.
   */
  acquire(owner: Owner): () => void {
    if (!this.open.tryTake(owner)) {
      throw new TRPCError({
        code: 'TOO_MANY_REQUESTS',
        message:
          `this owner (${owner.label}) already holds ${this.open.held(owner)} open event subscriptions, the limit (${shareName(owner, 'eventStreams')}); ` +
          `close one (one stream with several turnTokens sees all your turns) and subscribe again; ${moreRoomHint(owner)}`,
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open.release(owner);
    };
  }

  held(owner: Pick<Owner, 'id'>): number {
    return this.open.held(owner);
  }
}
