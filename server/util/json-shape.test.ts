// jsonShapeProblem: the depth and size bounds on schemas that come from outside.
import { describe, expect, it } from 'vitest';
import { jsonShapeProblem, MAX_SCHEMA_DEPTH } from './json-shape.ts';

/** A JSON Schema with `levels` nested properties (two JSON levels each). */
function nestedSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'object' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

describe('jsonShapeProblem', () => {
  it('on ordinary schemas and plain values: no problem', () => {
    expect(jsonShapeProblem({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] })).toBeUndefined();
    expect(jsonShapeProblem(nestedSchema(MAX_SCHEMA_DEPTH / 2 - 1))).toBeUndefined();
    for (const v of [null, 1, 'x', [], {}]) expect(jsonShapeProblem(v)).toBeUndefined();
  });

  it('on nesting past the limit: names the limit and what to do, without overflowing the stack (100000 levels)', () => {
    expect(jsonShapeProblem(nestedSchema(MAX_SCHEMA_DEPTH / 2))).toBe(`nests deeper than ${MAX_SCHEMA_DEPTH} levels (or contains itself); flatten it`);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonShapeProblem(deep)).toMatch(/^nests deeper than/);
  });

  it('on a value that contains itself: reads as too deep instead of looping', () => {
    const self: Record<string, unknown> = { type: 'object' };
    self['properties'] = { me: self };
    expect(jsonShapeProblem(self)).toMatch(/^nests deeper than .* \(or contains itself\)/);
  });

  it('on a shared part repeated until the expansion is huge (2^40 values, a few objects): counts the repeats and stops at the limit', () => {
    let shared: unknown = { type: 'string' };
    for (let i = 0; i < 40; i++) shared = { type: 'object', properties: { left: shared, right: shared } };
    expect(jsonShapeProblem(shared)).toMatch(/^holds more than 200000 values \(counting each repeat of a shared part\)/);
    expect(jsonShapeProblem(shared, { maxDepth: 1000, maxNodes: 10 })).toMatch(/^holds more than 10 values/);
  });
});
