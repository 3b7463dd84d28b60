// Tests for the postMessage floor probe: it runs its round trips and reports a figure (no time asserted but the
// busy work it was told to do, which a round trip cannot take less than).
import { describe, expect, it } from 'vitest';
import { postMessageFloorMs } from './floor.ts';

describe('postMessageFloorMs', () => {
  it('on a few round trips: reports a positive, finite time per round trip', async () => {
    const ms = await postMessageFloorMs({ warmup: 5, rounds: 3, perBatch: 10 });
    expect(Number.isFinite(ms)).toBe(true);
    expect(ms).toBeGreaterThan(0);
  });

  it('with work on each side: each round trip takes at least both sides\' work (they take turns)', async () => {
    const ms = await postMessageFloorMs({ warmup: 2, rounds: 3, perBatch: 5, workUs: { main: 2000, worker: 3000 } });
    expect(ms).toBeGreaterThanOrEqual(5);
  });
});
