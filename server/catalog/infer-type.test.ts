// Output type inference: unions of kinds, optional keys, arrays, and the bounds that keep it small.
import { describe, expect, it } from 'vitest';
import { MAX_INFER_DEPTH, MAX_INFER_KEYS, MAX_INFERRED_TYPE_CHARS, observe, renderShape, type Shape } from './infer-type.ts';

function inferred(...values: unknown[]): string {
  let s: Shape | undefined;
  for (const v of values) s = observe(s, v);
  return renderShape(s);
}
const flat = (t: string) => t.replace(/\s+/g, ' ');

describe('inferred output types', () => {
  it('on one object: its keys, all required', () => {
    expect(flat(inferred({ id: 'u1', age: 3, ok: true, note: null }))).toBe('{ id: string; age: number; ok: boolean; note: null; }');
  });

  it('on objects with different keys: keys missing from some become optional', () => {
    expect(flat(inferred({ a: 1, b: 'x' }, { a: 2 }))).toBe('{ a: number; b?: string; }');
  });

  it('on different kinds of value: a union', () => {
    expect(inferred('x', 1, null)).toBe('string | number | null');
    expect(flat(inferred({ v: 1 }, { v: 'one' }))).toBe('{ v: string | number; }');
  });

  it('on arrays: one element type merged over the elements, empty arrays never[]', () => {
    expect(flat(inferred([{ type: 'text', text: 'hi' }, { type: 'image', data: 'b64' }]))).toBe('Array<{ type: string; text?: string; data?: string; }>');
    expect(inferred([1, 2], ['a'])).toBe('Array<string | number>');
    expect(inferred([])).toBe('never[]');
    expect(inferred([1, 'a'])).toBe('Array<string | number>');
  });

  it('on an MCP CallToolResult without structured content: the content array typed from what came back', () => {
    const r = (text: string) => ({ content: [{ type: 'text', text }] });
    expect(flat(inferred(r('hi'), r('there')))).toBe('{ content: Array<{ type: string; text: string; }>; }');
  });

  it('keys that are not identifiers are quoted', () => {
    expect(flat(inferred({ 'lookup-user': 1 }))).toBe('{ "lookup-user": number; }');
  });

  it('bounded: depth past MAX_INFER_DEPTH is unknown', () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_INFER_DEPTH + 3; i++) deep = { d: deep };
    const t = inferred(deep);
    expect(t).toContain('unknown');
    expect(t).not.toContain('number');
  });

  it('bounded: keys past MAX_INFER_KEYS fold into an index signature', () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_INFER_KEYS + 5 }, (_, i) => [`k${i}`, i]));
    const t = inferred(wide);
    expect(t).toContain(`k${MAX_INFER_KEYS - 1}: number`);
    expect(t).not.toContain(`k${MAX_INFER_KEYS}:`);
    expect(t).toContain('[key: string]: unknown;');
  });

  it('bounded: a type longer than MAX_INFERRED_TYPE_CHARS renders as unknown', () => {
    const keys = (p: string) => Object.fromEntries(Array.from({ length: MAX_INFER_KEYS }, (_, i) => [`${p}_long_key_name_${i}`, { x: 1, y: 'z' }]));
    expect(renderShape(observe(undefined, keys('a'))).length).toBeLessThanOrEqual(MAX_INFERRED_TYPE_CHARS);
    expect(inferred({ a: keys('a'), b: keys('b'), c: keys('c') })).toBe('unknown');
  });

  it('nothing observed: unknown', () => {
    expect(renderShape(undefined)).toBe('unknown');
  });
});
