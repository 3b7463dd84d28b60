// Bounding final values to maxOutputBytes.
import { describe, expect, it } from 'vitest';
import { boundValue, truncateUtf8 } from './bound.ts';

describe('boundValue', () => {
  it('on a value within the limit: returns it parsed and untouched', () => {
    expect(boundValue('{"a":1}', 100, () => 'r')).toEqual({ value: { a: 1 }, truncated: false, bytes: 7 });
  });

  it('on a value over the limit: returns a preview, the byte count and the retained ref', () => {
    const json = JSON.stringify('x'.repeat(1000));
    const out = boundValue(json, 100, () => 'res_1');
    expect(out.truncated).toBe(true);
    expect(out.value).toMatchObject({ truncated: true, bytes: 1002, ref: 'res_1' });
    expect((out.value as { preview: string }).preview.length).toBeLessThanOrEqual(90);
  });

  it('on retention refused: still returns the preview without a ref', () => {
    const out = boundValue(JSON.stringify('y'.repeat(500)), 100, () => undefined);
    expect(out.value).not.toHaveProperty('ref');
  });
});

describe('truncateUtf8', () => {
  it('on a multi-byte character at the cut: never splits it', () => {
    expect(truncateUtf8('aé', 2)).toBe('a');
    expect(truncateUtf8('aé', 3)).toBe('aé');
  });
});
