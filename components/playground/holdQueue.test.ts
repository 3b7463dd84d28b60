// What the page holds back while its own exec runs: queued in order, handed over on release or at the cap (issue 14).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HoldQueue, MAX_HOLD_MS } from './holdQueue.ts';

describe('HoldQueue', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('declines items when not held, queues them in order while held, and hands them over once on release', () => {
    const flushed: number[][] = [];
    const q = new HoldQueue<number>((items) => flushed.push(items));
    expect(q.offer(1)).toBe(false);
    q.hold();
    expect(q.offer(2)).toBe(true);
    expect(q.offer(3)).toBe(true);
    expect(q.queued).toEqual([2, 3]);
    expect(flushed).toEqual([]);
    q.release();
    expect(flushed).toEqual([[2, 3]]);
    expect(q.queued).toEqual([]);
    // released: offers are declined again, and a second release hands over nothing
    expect(q.offer(4)).toBe(false);
    q.release();
    expect(flushed).toEqual([[2, 3]]);
  });

  it('a hold ends by itself at its cap; holding again while held keeps the first deadline', () => {
    vi.useFakeTimers();
    const flushed: string[][] = [];
    const q = new HoldQueue<string>((items) => flushed.push(items));
    q.hold();
    q.offer('a');
    vi.advanceTimersByTime(MAX_HOLD_MS / 2);
    q.hold();
    q.offer('b');
    vi.advanceTimersByTime(MAX_HOLD_MS / 2 - 1);
    expect(flushed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(flushed).toEqual([['a', 'b']]);
    expect(q.offer('c')).toBe(false);
  });
});
