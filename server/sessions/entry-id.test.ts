import { describe, expect, it } from 'vitest';
import { newEntryId } from './entry-id.ts';

describe('newEntryId', () => {
  it('makes ids that sort in the order they were made, within one millisecond and across them', () => {
    const ids = [newEntryId(1_800_000_000_000), newEntryId(1_800_000_000_000), newEntryId(1_800_000_000_001), newEntryId(1_800_000_000_001), newEntryId(1_800_000_000_500)];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps growing when the clock steps back', () => {
    const ahead = newEntryId(1_900_000_000_000);
    const behind = [newEntryId(1_899_999_999_000), newEntryId(1_800_000_000_000)];
    expect([ahead, ...behind]).toEqual([ahead, ...behind].sort());
  });

  it('has a fixed shape: e_, 9 time digits, 4 counter digits, 8 random hex digits', () => {
    const id = newEntryId();
    expect(id).toMatch(/^e_[0-9a-z]{9}[0-9a-z]{4}[0-9a-f]{8}$/);
  });

  it('borrows the next millisecond once a millisecond has used every counter value', () => {
    const at = 2_000_000_000_000;
    let prev = newEntryId(at);
    for (let i = 0; i < 36 ** 4 + 5; i++) {
      const next = newEntryId(at);
      if (next <= prev) throw new Error(`${next} does not sort after ${prev}`);
      prev = next;
    }
    expect(prev.slice(2, 11)).toBe((at + 1).toString(36).padStart(9, '0'));
  });
});
