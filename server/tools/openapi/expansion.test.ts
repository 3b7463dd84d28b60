// expandedSize: an OpenAPI document's size with its $refs resolved, counted without resolving them.
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { expandedSize } from './expansion.ts';

describe('expandedSize', () => {
  it('counts each use of a referenced schema in full, and a plain document as it is', () => {
    expect(expandedSize({ a: 1, b: [1, 2] })).toBe(5);
    const doc = { components: { s: { type: 'string' } }, x: { $ref: '#/components/s' }, y: { $ref: '#/components/s' } };
    // doc, components, s and its type, then x and y, each replaced by s (2 values each)
    expect(expandedSize(doc)).toBe(1 + 1 + 2 + 2 + 2);
  });

  it('on references that double per level: the count, and undefined past the limit, quickly (memoized per pointer)', () => {
    const doc = (n: number) => {
      const schemas: Record<string, unknown> = { S0: { type: 'string' } };
      for (let i = 1; i <= n; i++) schemas[`S${i}`] = { l: { $ref: `#/components/schemas/S${i - 1}` }, r: { $ref: `#/components/schemas/S${i - 1}` } };
      return { components: { schemas } };
    };
    // S_i holds 1 + 2·S_(i-1) values and S0 2, so S_i = 3·2^i - 1; the document, components and schemas add three
    const sum = (n: number) => Array.from({ length: n + 1 }, (_, i) => 3 * 2 ** i - 1).reduce((a, b) => a + b, 0);
    expect(expandedSize(doc(10))).toBe(3 + sum(10));
    expect(expandedSize(doc(60))).toBeUndefined();
    expect(expandedSize(doc(10), 100)).toBeUndefined();
  });

  it('on a circular schema: counts the cycle once (the parser leaves it as $ref); on a missing or escaped pointer: one value', () => {
    const doc = { components: { schemas: { 'a/b': { properties: { next: { $ref: '#/components/schemas/a~1b' } } } } }, missing: { $ref: '#/nope' } };
    expect(expandedSize(doc)).toBeGreaterThan(0);
    expect(expandedSize({ root: { $ref: '#/nope' } })).toBe(2);
  });

  it('on YAML aliases (one object used many times): counts every use', () => {
    const yaml = 'a: &x {k: [1, 2, 3]}\nb: *x\nc: *x\n';
    expect(expandedSize(parseYaml(yaml))).toBe(1 + 3 * 5);
  });
});
