// ExecutionBudget with a fake clock: pauses give no credit, resumes keep exactly the unused budget.
import { describe, expect, it, vi } from 'vitest';
import { ExecutionBudget } from './budget.ts';

describe('ExecutionBudget', () => {
  it('on a pause: stops spending and resumes with exactly the unused budget', () => {
    let now = 1000;
    const b = new ExecutionBudget(500, () => now);
    now += 200;
    b.pause();
    expect(b.deadlineAt).toBe(Infinity);
    now += 10_000; // approval pending: parked time adds no spend and no credit
    expect(b.spentMs).toBe(200);
    b.resume();
    expect(b.remainingMs).toBe(300);
    expect(b.deadlineAt).toBe(now + 300);
  });

  it('on nested pauses: runs again only after the last resume', () => {
    let now = 0;
    const b = new ExecutionBudget(100, () => now);
    b.pause();
    b.pause();
    b.resume();
    expect(b.paused).toBe(true);
    now += 50;
    b.resume();
    expect(b.spentMs).toBe(0);
  });

  it('on expiry: calls the handler once the spent time reaches the total', () => {
    vi.useFakeTimers();
    try {
      const b = new ExecutionBudget(100);
      const fn = vi.fn();
      b.whenExpired(fn);
      vi.advanceTimersByTime(50);
      b.pause();
      vi.advanceTimersByTime(1000);
      expect(fn).not.toHaveBeenCalled();
      b.resume();
      vi.advanceTimersByTime(60);
      expect(fn).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
