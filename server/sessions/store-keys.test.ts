// Session store keys are the guest's: __proto__, constructor and prototype are keys like any other.
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from './store.ts';

const stores: SessionStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

describe('store keys named like Object.prototype members', () => {
  it('on __proto__, constructor and prototype: committed, replayed and listed in history as own keys', () => {
    const s = new SessionStore();
    stores.push(s);
    const keys = ['__proto__', 'constructor', 'prototype'];
    s.commit('s', 'r1', new Map(keys.map((key, i) => [key, { json: String(i), networkContent: false }])));
    s.commit('s', 'r2', new Map([['prototype', { json: undefined, networkContent: false }]]));
    expect(s.entries('s').map((e) => [e.key, e.json])).toEqual([
      ['__proto__', '0'],
      ['constructor', '1'],
    ]);
    const [first, second] = s.history('s');
    expect(Object.keys(first!.writes)).toEqual(keys);
    expect(Object.getPrototypeOf(first!.writes)).toBe(Object.prototype);
    expect(Object.hasOwn(second!.writes, 'prototype')).toBe(true);
  });
});
