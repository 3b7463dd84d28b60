// Tests for the panels' number formatting.
import { describe, expect, it } from 'vitest';
import { formatBytes, formatCountdown, formatDuration, percentOf, previewJson } from './format.ts';

describe('formatBytes', () => {
  it('on small sizes: prints whole bytes', () => {
    expect(formatBytes(512)).toBe('512 B');
  });
  it('on a snapshot-sized value: uses KB and MB with one decimal below ten', () => {
    expect(formatBytes(310 * 1024)).toBe('310 KB');
    expect(formatBytes(1.4 * 1024 * 1024)).toBe('1.4 MB');
  });
  it('on a negative or NaN size: prints a question mark instead of nonsense', () => {
    expect(formatBytes(-1)).toBe('?');
    expect(formatBytes(Number.NaN)).toBe('?');
  });
});

describe('formatDuration', () => {
  it('under a second: milliseconds', () => {
    expect(formatDuration(850)).toBe('850 ms');
  });
  it('under a minute: seconds with a decimal below ten', () => {
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(42_000)).toBe('42 s');
  });
  it('past a minute: minutes and padded seconds', () => {
    expect(formatDuration(125_000)).toBe('2 min 05 s');
  });
});

describe('formatCountdown', () => {
  it('before the deadline: minutes and seconds left, rounded up', () => {
    expect(formatCountdown(10_000 + 899_500, 10_000)).toBe('15:00');
    expect(formatCountdown(65_000, 0)).toBe('1:05');
  });
  it('past the deadline: says expired', () => {
    expect(formatCountdown(1_000, 2_000)).toBe('expired');
  });
  it('over an hour: adds the hours', () => {
    expect(formatCountdown(3_600_000 + 61_000, 0)).toBe('1:01:01');
  });
});

describe('previewJson', () => {
  it('on a long value: cuts it to the limit with an ellipsis', () => {
    const text = previewJson({ query: 'x'.repeat(100) }, 20);
    expect(text).toHaveLength(20);
    expect(text.endsWith('…')).toBe(true);
  });
  it('on a circular value: falls back to String instead of throwing', () => {
    const loop: { self?: unknown } = {};
    loop.self = loop;
    expect(previewJson(loop, 50)).toBe('[object Object]');
  });
});

describe('percentOf', () => {
  it('clamps to 0..100 and treats a zero whole as empty', () => {
    expect(percentOf(50, 200)).toBe(25);
    expect(percentOf(300, 200)).toBe(100);
    expect(percentOf(1, 0)).toBe(0);
  });
});
