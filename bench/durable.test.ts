// Tests for (r)'s verdict on the parked-runs RSS target: the projection, and that only runs that parked can meet it (no timing asserted).
import { describe, expect, it } from 'vitest';
import { parkedRssVerdict } from './durable.ts';

const MiB = 1024 * 1024;

describe('parkedRssVerdict', () => {
  it('projects the idle RSS plus the measured growth per parked run times the wanted count', () => {
    const v = parkedRssVerdict({ idleRss: 100 * MiB, growth: 64 * 1024, parked: 64, wanted: 10_000, maxRatio: 1.5 });
    // 1 KiB per run: 10,000 runs add ~9.77 MiB
    expect(v.projectedRss).toBe(100 * MiB + 10_000 * 1024);
    expect(v.ratio).toBeCloseTo(1 + (10_000 * 1024) / (100 * MiB), 10);
  });

  it('is short when fewer runs parked than wanted, however small the projection', () => {
    expect(parkedRssVerdict({ idleRss: 100 * MiB, growth: 0, parked: 64, wanted: 10_000, maxRatio: 1.5 }).met).toBe(false);
  });

  it('is met only when the wanted runs parked and the ratio is within the bound', () => {
    expect(parkedRssVerdict({ idleRss: 100 * MiB, growth: 40 * MiB, parked: 10_000, wanted: 10_000, maxRatio: 1.5 }).met).toBe(true);
    expect(parkedRssVerdict({ idleRss: 100 * MiB, growth: 60 * MiB, parked: 10_000, wanted: 10_000, maxRatio: 1.5 }).met).toBe(false);
  });

  it('counts RSS that went down during the round as no growth', () => {
    expect(parkedRssVerdict({ idleRss: 100 * MiB, growth: -5 * MiB, parked: 64, wanted: 10_000, maxRatio: 1.5 }).projectedRss).toBe(100 * MiB);
  });

  it('refuses a round with no idle RSS or no parked run', () => {
    expect(() => parkedRssVerdict({ idleRss: 0, growth: 1, parked: 64, wanted: 10_000, maxRatio: 1.5 })).toThrow(RangeError);
    expect(() => parkedRssVerdict({ idleRss: 100 * MiB, growth: 1, parked: 0, wanted: 10_000, maxRatio: 1.5 })).toThrow(/at least one parked run/);
  });
});
