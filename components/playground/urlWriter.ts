// Writes the page's URL (cellUrl.ts) without waking the router, and holds a Run's own writes until its result is shown.
import { cellUrl } from './cellUrl.ts';
import type { CellUrlChange } from './cellUrl.ts';
import { HoldQueue } from './holdQueue.ts';

/** The part of `window` the writer uses (a test passes its own). */
export interface UrlWindow {
  location: { href: string };
  history: { state: unknown; replaceState(data: unknown, unused: string, url: string): void };
}

/**
 * Every write is a replaceState (typing rewrites the hash; Back should leave the page, not undo keystrokes),
 * made only on a real change, with the entry's own state: Next's App Router keeps its state there (its `__NA`
 * mark and tree), and its patched replaceState then passes the write through instead of re-rendering the whole
 * page for a URL nothing reads through the router (the page reads window.location itself), while Back and
 * Forward still find the state they need.
 *
 * A Run writes the URL twice or three times while its exec is in flight (the cell, the previous run cleared,
 * the new run selected), and each write costs the browser a few milliseconds on the cores the Gateway is
 * running the cell on: `hold` queues writes until `release` (the result shown) or MAX_HOLD_MS, then
 * writes them as one.
 */
export class UrlWriter {
  private readonly held = new HoldQueue<CellUrlChange>((changes) => this.apply(changes));

  constructor(private readonly win: UrlWindow) {}

  write(change: CellUrlChange): void {
    if (!this.held.offer(change)) this.apply([change]);
  }

  /** Queue writes until `release`, for at most MAX_HOLD_MS (a reload after that finds the run the page shows). */
  hold(): void {
    this.held.hold();
  }

  /** Writes what was held, as one URL. */
  release(): void {
    this.held.release();
  }

  /** The URL once every held write is made. */
  href(): string {
    return this.compose(this.held.queued);
  }

  private compose(changes: readonly CellUrlChange[]): string {
    let next = this.win.location.href;
    for (const change of changes) next = cellUrl(next, change);
    return next;
  }

  private apply(changes: readonly CellUrlChange[]): void {
    const next = this.compose(changes);
    if (next !== this.win.location.href) this.win.history.replaceState(this.win.history.state, '', next);
  }
}
