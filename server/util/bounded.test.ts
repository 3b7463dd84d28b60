// trimOldest: the oldest entries of a Set or Map go first, down to the bound.
import { expect, it } from 'vitest';
import { trimOldest } from './bounded.ts';

it('drops the oldest entries of a Set or a Map down to the bound, and leaves one within it as it is', () => {
  const ids = new Set(['a', 'b', 'c', 'd']);
  trimOldest(ids, 2);
  expect([...ids]).toEqual(['c', 'd']);
  trimOldest(ids, 5);
  expect([...ids]).toEqual(['c', 'd']);
  const byId = new Map([
    ['x', 1],
    ['y', 2],
    ['z', 3],
  ]);
  byId.delete('x');
  byId.set('x', 4);
  trimOldest(byId, 1);
  expect([...byId]).toEqual([['x', 4]]);
  trimOldest(byId, 0);
  expect(byId.size).toBe(0);
});
