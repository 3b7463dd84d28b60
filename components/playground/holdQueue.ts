// Work the page holds back while its own exec is in flight, handed over in one go when the result shows (issue 14).

/** The longest anything is held: a long run's live updates and URL still come through at once after this. */
export const MAX_HOLD_MS = 200;

/**
 * Items offered while held are queued, in order, and handed to `flush` together on `release` or after the
 * hold's cap. Not held, `offer` declines and the caller does the work at once.
 */
export class HoldQueue<T> {
  private items: T[] | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly flush: (items: T[]) => void) {}

  /** What is queued now. */
  get queued(): readonly T[] {
    return this.items ?? [];
  }

  /** Queue offered items until `release`, for at most `maxMs`. Holding again while held keeps the first deadline. */
  hold(maxMs = MAX_HOLD_MS): void {
    if (this.items) return;
    this.items = [];
    this.timer = setTimeout(() => this.release(), maxMs);
  }

  /** True when `item` was queued (the caller leaves it to the flush). */
  offer(item: T): boolean {
    if (!this.items) return false;
    this.items.push(item);
    return true;
  }

  release(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const items = this.items;
    this.items = null;
    if (items && items.length > 0) this.flush(items);
  }
}

/**
 * Runs `fn` after the browser has painted the next frame (a result on screen is not held back by `fn`). A hidden
 * tab paints no frames: there a hold's own cap releases it.
 */
export function afterNextPaint(fn: () => void): void {
  requestAnimationFrame(() => setTimeout(fn, 0));
}
