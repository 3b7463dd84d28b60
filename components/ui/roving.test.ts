// Tests for the roving tab index's key handling: which item an arrow, Home or End moves to, and which item holds the tab stop.
import { describe, expect, it } from 'vitest';
import { rovingStop, rovingTarget } from './roving.ts';

describe('rovingTarget', () => {
  it('on the forward arrow of its orientation: moves to the next item and wraps from the last to the first', () => {
    expect(rovingTarget('ArrowDown', 0, 3, 'vertical')).toBe(1);
    expect(rovingTarget('ArrowDown', 2, 3, 'vertical')).toBe(0);
    expect(rovingTarget('ArrowRight', 1, 3, 'horizontal')).toBe(2);
  });
  it('on the back arrow: moves to the previous item and wraps from the first to the last', () => {
    expect(rovingTarget('ArrowUp', 1, 3, 'vertical')).toBe(0);
    expect(rovingTarget('ArrowLeft', 0, 3, 'horizontal')).toBe(2);
  });
  it('on Home and End: moves to the first and the last item', () => {
    expect(rovingTarget('Home', 2, 4, 'horizontal')).toBe(0);
    expect(rovingTarget('End', 0, 4, 'vertical')).toBe(3);
  });
  it('on the other orientation arrows, other keys or an empty list: is no move', () => {
    expect(rovingTarget('ArrowRight', 0, 3, 'vertical')).toBeUndefined();
    expect(rovingTarget('ArrowDown', 0, 3, 'horizontal')).toBeUndefined();
    expect(rovingTarget('Enter', 0, 3, 'vertical')).toBeUndefined();
    expect(rovingTarget('Home', 0, 0, 'vertical')).toBeUndefined();
  });
});

describe('rovingStop', () => {
  it('keeps the tab stop on the item focused last while it is listed, else gives it to the first item', () => {
    expect(rovingStop(['a', 'b', 'c'], 'b')).toBe('b');
    expect(rovingStop(['a', 'c'], 'b')).toBe('a');
    expect(rovingStop(['a', 'c'], undefined)).toBe('a');
    expect(rovingStop([], 'b')).toBeUndefined();
  });
});
