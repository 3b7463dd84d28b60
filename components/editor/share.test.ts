// Tests for share-link encoding of cells in the URL hash.
import { describe, expect, it } from 'vitest';
import { decodeCellHash, encodeCellHash } from './share.ts';

describe('cell share links', () => {
  it('on a round trip: gives back the same code and language, unicode included', () => {
    const cell = { code: 'const r = await web_search({ query: "café ☕" });\nreturn r;', language: 'typescript' as const };
    expect(decodeCellHash(encodeCellHash(cell))).toEqual(cell);
  });
  it('in the URL: uses only URL-safe characters', () => {
    const hash = encodeCellHash({ code: '??>>~~'.repeat(20), language: 'javascript' });
    expect(hash).toMatch(/^#lang=js&code=[A-Za-z0-9_-]+$/);
  });
  it('on a hash without code: returns undefined', () => {
    expect(decodeCellHash('#lang=ts')).toBeUndefined();
    expect(decodeCellHash('')).toBeUndefined();
  });
  it('on damaged base64 or invalid UTF-8: returns undefined instead of throwing', () => {
    expect(decodeCellHash('#code=%%%')).toBeUndefined();
    expect(decodeCellHash('#code=_w')).toBeUndefined();
  });
  it('on an unknown language: falls back to javascript', () => {
    const hash = encodeCellHash({ code: 'return 1', language: 'javascript' }).replace('lang=js', 'lang=cobol');
    expect(decodeCellHash(hash)?.language).toBe('javascript');
  });
});
