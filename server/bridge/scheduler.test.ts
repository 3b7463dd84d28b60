// executionMode scheduling: sequential calls serialize against everything, parallel calls overlap.
import { describe, expect, it } from 'vitest';
import { until } from '../testing.ts';
import { CallScheduler } from './scheduler.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('CallScheduler', () => {
  it('on parallel calls: starts them all at once', async () => {
    const s = new CallScheduler();
    const started: string[] = [];
    const gates = [deferred(), deferred()];
    const a = s.schedule('parallel', async () => (started.push('a'), gates[0]!.promise));
    const b = s.schedule('parallel', async () => (started.push('b'), gates[1]!.promise));
    await Promise.resolve();
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    gates.forEach((g) => g.resolve());
    await Promise.all([a, b]);
  });

  it('on a sequential call: waits for earlier calls and blocks later ones until it finishes', async () => {
    const s = new CallScheduler();
    const order: string[] = [];
    const gate = deferred();
    const seqGate = deferred();
    const p1 = s.schedule('parallel', async () => {
      order.push('p1 start');
      await gate.promise;
      order.push('p1 end');
    });
    const seq = s.schedule('sequential', async () => {
      order.push('seq start');
      await seqGate.promise;
      order.push('seq end');
    });
    const p2 = s.schedule('parallel', async () => {
      order.push('p2 start');
    });
    // until() checks again only after a macrotask, so every call the scheduler let start has started by then
    await until(() => order.includes('p1 start'));
    expect(order).toEqual(['p1 start']);
    gate.resolve();
    await until(() => order.includes('seq start'));
    expect(order).toEqual(['p1 start', 'p1 end', 'seq start']);
    seqGate.resolve();
    await Promise.all([p1, seq, p2]);
    expect(order).toEqual(['p1 start', 'p1 end', 'seq start', 'seq end', 'p2 start']);
  });

  it('on a call held back by an earlier one: onWait says so at once; a call that starts at once never hears it', async () => {
    const s = new CallScheduler();
    const waited: string[] = [];
    const gate = deferred();
    const p1 = s.schedule('parallel', () => gate.promise, () => waited.push('p1'));
    const seq = s.schedule('sequential', async () => undefined, () => waited.push('seq'));
    const p2 = s.schedule('parallel', async () => undefined, () => waited.push('p2'));
    expect(waited).toEqual(['seq', 'p2']);
    gate.resolve();
    await Promise.all([p1, seq, p2]);
    // nothing pending any more: a sequential call starts at once
    await s.schedule('sequential', async () => undefined, () => waited.push('late'));
    expect(waited).toEqual(['seq', 'p2']);
  });

  it('on a failed sequential call: later calls still run', async () => {
    const s = new CallScheduler();
    const bad = s.schedule('sequential', async () => {
      throw new Error('x');
    });
    await expect(bad).rejects.toThrow('x');
    await expect(s.schedule('parallel', async () => 'after')).resolves.toBe('after');
  });
});
