// Tests for the postMessage floor probe: it runs its round trips and reports a figure (no time asserted).
import { describe, expect, it } from 'vitest';
import { postMessageFloorMs } from './floor.ts';

describe('postMessageFloorMs', () => {
  it('on a few round trips: reports a positive, finite time per round trip', async () => {
    const ms = await postMessageFloorMs({ warmup: 5, rounds: 3, perBatch: 10 });
    expect(Number.isFinite(ms)).toBe(true);
    expect(ms).toBeGreaterThan(0);
  });
});
