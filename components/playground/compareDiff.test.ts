// The comparison view's value diff: which lines only the reference has, which only the other value.
import { describe, expect, it } from 'vitest';
import { jsonLineDiff, prettyJson } from './compareDiff.ts';

describe('jsonLineDiff', () => {
  it('on equal values: every line is common', () => {
    expect(jsonLineDiff('{"a":1}', '{"a":1}').every((l) => l.mark === ' ')).toBe(true);
  });

  it('on a changed field: the old line is removed and the new one added, the rest kept', () => {
    const diff = jsonLineDiff('{"name":"RangeError","n":1}', '{"name":"InternalError","n":1}');
    expect(diff).toEqual([
      { mark: ' ', text: '{' },
      { mark: '+', text: '  "name": "InternalError",' },
      { mark: '-', text: '  "name": "RangeError",' },
      { mark: ' ', text: '  "n": 1' },
      { mark: ' ', text: '}' },
    ]);
  });

  it('on a scalar against another: one line each', () => {
    expect(jsonLineDiff('"RangeError"', '"InternalError"')).toEqual([
      { mark: '+', text: '"InternalError"' },
      { mark: '-', text: '"RangeError"' },
    ]);
  });

  it('on text that is not JSON: shown as it is', () => {
    expect(prettyJson('not json')).toBe('not json');
  });
});
