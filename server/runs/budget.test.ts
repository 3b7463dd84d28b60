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

  it('on a hold while the VM is readied: spends nothing until unheld, then the whole budget', () => {
    let now = 0;
    const b = new ExecutionBudget(100, () => now);
    b.hold('opening');
    now += 5_000; // a cold worker start is the machinery's time
    expect(b.deadlineAt).toBe(Infinity);
    b.unhold('opening');
    expect(b.remainingMs).toBe(100);
    expect(b.deadlineAt).toBe(5_100);
  });

  it('on holds for different reasons: runs only when every reason is released, and a repeated hold counts once', () => {
    let now = 0;
    const b = new ExecutionBudget(100, () => now);
    b.hold('opening');
    b.hold('approval');
    b.hold('approval');
    b.unhold('opening');
    expect(b.paused).toBe(true);
    b.unhold('approval');
    expect(b.paused).toBe(false);
    b.unhold('approval'); // not held any more: no extra resume
    now += 40;
    expect(b.spentMs).toBe(40);
  });
});
