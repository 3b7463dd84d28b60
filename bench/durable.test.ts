// Tests for (r)'s verdict on the parked-runs RSS target: the ratio of what was read, and that only runs that parked can meet it (no timing asserted).
import { describe, expect, it } from 'vitest';
import { parkedRssVerdict } from './durable.ts';

const MiB = 1024 * 1024;

describe('parkedRssVerdict', () => {
  it('is the RSS with the runs parked over the idle RSS', () => {
    expect(parkedRssVerdict({ idleRss: 100 * MiB, rss: 130 * MiB, parked: 10_000, wanted: 10_000, maxRatio: 1.5 }).ratio).toBeCloseTo(1.3, 10);
  });

  it('is short when fewer runs parked than wanted, however small the ratio', () => {
    expect(parkedRssVerdict({ idleRss: 100 * MiB, rss: 100 * MiB, parked: 64, wanted: 10_000, maxRatio: 1.5 }).met).toBe(false);
  });

  it('is met only when the wanted runs parked and the ratio is within the bound', () => {
    expect(parkedRssVerdict({ idleRss: 100 * MiB, rss: 140 * MiB, parked: 10_000, wanted: 10_000, maxRatio: 1.5 }).met).toBe(true);
    expect(parkedRssVerdict({ idleRss: 100 * MiB, rss: 160 * MiB, parked: 10_000, wanted: 10_000, maxRatio: 1.5 }).met).toBe(false);
  });

  it('refuses a reading with no idle RSS or no RSS with the runs parked', () => {
    expect(() => parkedRssVerdict({ idleRss: 0, rss: 1, parked: 64, wanted: 10_000, maxRatio: 1.5 })).toThrow(RangeError);
    expect(() => parkedRssVerdict({ idleRss: 100 * MiB, rss: 0, parked: 10_000, wanted: 10_000, maxRatio: 1.5 })).toThrow(/one with the runs parked/);
  });
});
