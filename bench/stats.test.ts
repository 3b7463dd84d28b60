// Tests for the benchmark arithmetic: medians, iteration counting, ratios and units (no timing asserted).
import { describe, expect, it } from 'vitest';
import { collect, formatBytes, formatMs, measure, median, ratio, summarize } from './stats.ts';

describe('median', () => {
  it('on an odd count: returns the middle value whatever the order', () => {
    expect(median([9, 1, 5])).toBe(5);
  });

  it('on an even count: averages the two middle values', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('on no values: throws a RangeError saying values are needed', () => {
    expect(() => median([])).toThrow(RangeError);
    expect(() => median([])).toThrow(/at least one number/);
  });

  it('on an outlier: is not pulled by it, unlike min and max', () => {
    const s = summarize([10, 11, 12, 1000]);
    expect(s).toEqual({ median: 11.5, min: 10, max: 1000, iterations: 4 });
  });
});

describe('measure', () => {
  it('on warm-up runs: calls fn warmup + iterations times and records only the iterations', async () => {
    let calls = 0;
    const s = await measure(() => {
      calls++;
    }, { warmup: 3, iterations: 5 });
    expect(calls).toBe(8);
    expect(s.iterations).toBe(5);
    expect(s.min).toBeGreaterThanOrEqual(0);
  });

  it('on zero iterations: throws naming the field and what it must be', async () => {
    await expect(measure(() => undefined, { warmup: 0, iterations: 0 })).rejects.toThrow(/iterations must be an integer >= 1, got 0/);
  });

  it('on a negative warm-up: throws naming the field', async () => {
    await expect(measure(() => undefined, { warmup: -1, iterations: 1 })).rejects.toThrow(/warmup must be an integer >= 0/);
  });
});

describe('collect', () => {
  it('on named numbers: summarizes each name over the recorded iterations only', async () => {
    let i = 0;
    const out = await collect(async () => {
      i++;
      return { bytes: i * 10, ms: 100 - i };
    }, { warmup: 2, iterations: 3 });
    // warm-up returned i = 1 and 2; recorded i = 3, 4, 5
    expect(out.bytes).toEqual({ median: 40, min: 30, max: 50, iterations: 3 });
    expect(out.ms.median).toBe(96);
  });
});

describe('ratio', () => {
  it('on two values: formats a / b with an x', () => {
    expect(ratio(3, 2)).toBe('1.50x');
    expect(ratio(45, 3)).toBe('15.0x');
    expect(ratio(2500, 1)).toBe('2500x');
  });

  it('on a missing, zero or negative baseline: is blank rather than Infinity', () => {
    expect(ratio(1, undefined)).toBe('');
    expect(ratio(undefined, 1)).toBe('');
    expect(ratio(1, 0)).toBe('');
    expect(ratio(1, -2)).toBe('');
  });
});

describe('units', () => {
  it('on times below a millisecond: prints microseconds', () => {
    expect(formatMs(0.145)).toBe('145 µs');
    expect(formatMs(0.00005)).toBe('0.05 µs');
  });

  it('on times of a second or more: prints seconds', () => {
    expect(formatMs(1500)).toBe('1.50 s');
    expect(formatMs(4.5)).toBe('4.50 ms');
  });

  it('on byte counts: uses binary units and keeps the sign of a delta', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(160 * 1024)).toBe('160 KiB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.50 MiB');
    expect(formatBytes(-2048)).toBe('-2.00 KiB');
  });
});
