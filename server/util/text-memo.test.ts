// Tests for memoShortText: short texts computed once, long ones every time, the oldest forgotten first.
import { describe, expect, it } from 'vitest';
import { memoShortText } from './text-memo.ts';

describe('memoShortText', () => {
  it('computes a short text once and a long one on every call', () => {
    const seen: string[] = [];
    const f = memoShortText((t) => (seen.push(t), t.length), 4, 8);
    expect([f('ab'), f('ab'), f('abcde'), f('abcde')]).toEqual([2, 2, 5, 5]);
    expect(seen).toEqual(['ab', 'abcde', 'abcde']);
  });
  it('forgets the oldest text first once it holds `entries` texts', () => {
    const seen: string[] = [];
    const f = memoShortText((t) => (seen.push(t), t), 10, 2);
    f('a');
    f('b');
    f('c'); // 'a' is forgotten
    f('b');
    f('a');
    expect(seen).toEqual(['a', 'b', 'c', 'a']);
  });
});

