// How much of one shared resource each owner holds: the count every per-owner share is checked against.
import type { ShareResource } from '../config/types.ts';
import type { Owner } from './owners.ts';

export class ShareCount {
  private readonly counts = new Map<string, number>();

  constructor(private readonly resource: ShareResource) {}

  held(owner: Pick<Owner, 'id'>): number {
    return this.counts.get(owner.id) ?? 0;
  }

  /** Whether `owner` is at its share of this resource (taking one more would pass it). */
  full(owner: Owner): boolean {
    return this.held(owner) >= owner.shares[this.resource];
  }

  /** Takes one unit for `owner` when it is under its share; false (nothing taken) at its share. */
  tryTake(owner: Owner): boolean {
    if (this.full(owner)) return false;
    this.counts.set(owner.id, this.held(owner) + 1);
    return true;
  }

  /** Gives one unit back (the caller gives back only what it took). */
  release(owner: Pick<Owner, 'id'>): void {
    const left = this.held(owner) - 1;
    if (left <= 0) this.counts.delete(owner.id);
    else this.counts.set(owner.id, left);
  }
}
