// Tests for the examples menu's memory: which cells count as edited (loading an example over them asks first).
import { describe, expect, it } from 'vitest';
import { cellIsEdited, exampleStillLoaded, EXAMPLES, findExample } from './examples.ts';

const [first, second] = EXAMPLES as [(typeof EXAMPLES)[number], (typeof EXAMPLES)[number]];

describe('cellIsEdited', () => {
  it('on the untouched code of the loaded example (whitespace at the ends aside): not edited', () => {
    expect(cellIsEdited(first.code, first.id)).toBe(false);
    expect(cellIsEdited(`\n${first.code}\n\n`, first.id)).toBe(false);
  });
  it('on a change to the loaded example: edited, even when it now equals another example', () => {
    expect(cellIsEdited(`${first.code}\nreturn 1;`, first.id)).toBe(true);
    expect(cellIsEdited(second.code, first.id)).toBe(true);
  });
  it('on an empty cell: nothing to lose', () => {
    expect(cellIsEdited('  \n', first.id)).toBe(false);
    expect(cellIsEdited('', undefined)).toBe(false);
  });
  it('with no example loaded (a shared cell): edited unless it is some example untouched', () => {
    expect(cellIsEdited('return 42;', undefined)).toBe(true);
    expect(cellIsEdited(second.code, undefined)).toBe(false);
  });
});

describe('findExample', () => {
  it('finds a menu example by id and nothing for an unknown or missing id', () => {
    expect(findExample(second.id)).toBe(second);
    expect(findExample('no-such-example')).toBeUndefined();
    expect(findExample(undefined)).toBeUndefined();
  });
});

describe('exampleStillLoaded', () => {
  it('keeps the example while the cell is its code untouched', () => {
    expect(exampleStillLoaded(`${first.code}\n`, first.id)).toBe(first.id);
  });
  it('drops it once the cell no longer matches (edited, emptied, or another example)', () => {
    expect(exampleStillLoaded(`${first.code}\nreturn 1;`, first.id)).toBeUndefined();
    expect(exampleStillLoaded('', first.id)).toBeUndefined();
    expect(exampleStillLoaded(second.code, first.id)).toBeUndefined();
    expect(exampleStillLoaded(first.code, undefined)).toBeUndefined();
  });
});
