// Bounding final values to maxOutputBytes, and the host's check of value JSON from a worker.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boundValue, jsonNestingDepth, MAX_VALUE_DEPTH, parseValueJson, truncateUtf8 } from './bound.ts';

const parsed = (json: string) => ({ json, value: JSON.parse(json) as unknown });

describe('boundValue', () => {
  it('on a value within the limit: returns it parsed and untouched', () => {
    expect(boundValue(parsed('{"a":1}'), 100, () => 'r')).toEqual({ value: { a: 1 }, truncated: false, bytes: 7 });
  });

  it('on a value over the limit: returns a preview, the byte count and the retained ref', () => {
    const json = JSON.stringify('x'.repeat(1000));
    const out = boundValue(parsed(json), 100, () => 'res_1');
    expect(out.truncated).toBe(true);
    expect(out.value).toMatchObject({ truncated: true, bytes: 1002, ref: 'res_1' });
    expect((out.value as { preview: string }).preview.length).toBeLessThanOrEqual(90);
  });

  it('on retention refused: still returns the preview without a ref', () => {
    const out = boundValue(parsed(JSON.stringify('y'.repeat(500))), 100, () => undefined);
    expect(out.value).not.toHaveProperty('ref');
  });
});

describe('truncateUtf8', () => {
  it('on a multi-byte character at the cut: never splits it', () => {
    expect(truncateUtf8('aé', 2)).toBe('a');
    expect(truncateUtf8('aé', 3)).toBe('aé');
  });
});

describe('parseValueJson', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const problem = (text: unknown) => {
    const r = parseValueJson(text);
    return r.ok ? undefined : r.error;
  };

  it('on plain JSON up to MAX_VALUE_DEPTH levels: returns the text and its value', () => {
    const text = '{"a":[1,{"b":null}],"s":"x"}';
    expect(parseValueJson(text)).toEqual({ ok: true, json: text, value: { a: [1, { b: null }], s: 'x' } });
    expect(problem(nested(MAX_VALUE_DEPTH))).toBeUndefined();
  });

  it('on a value nested deeper than MAX_VALUE_DEPTH: says so and what to do', () => {
    expect(problem(nested(MAX_VALUE_DEPTH + 1))).toMatch(/nested more than 1000 levels deep; flatten it/);
  });

  it('on text that is not JSON, or not a string: says so', () => {
    expect(problem('{"a":')).toMatch(/not valid JSON/);
    expect(problem(undefined)).toMatch(/did not arrive as JSON text/);
    expect(problem({ json: '1' })).toMatch(/did not arrive as JSON text/);
  });

  it('on the prelude: its MAX_VALUE_DEPTH is the host constant (the guest refuses first, with its own message)', () => {
    const prelude = readFileSync(new URL('../guest/prelude.js', import.meta.url), 'utf8');
    expect(/var MAX_VALUE_DEPTH = (\d+);/.exec(prelude)?.[1]).toBe(String(MAX_VALUE_DEPTH));
  });
});

describe('jsonNestingDepth', () => {
  it('on brackets and escaped quotes inside strings: ignores them', () => {
    expect(jsonNestingDepth('["[[[", "\\"[[", {"k]": ["}"]}]')).toBe(3);
    expect(jsonNestingDepth('"just a string"')).toBe(0);
  });

  it('on a large flat array of 30k rows: counts two levels', () => {
    expect(jsonNestingDepth(JSON.stringify(Array.from({ length: 30_000 }, (_, id) => ({ id }))))).toBe(2);
  });
});
