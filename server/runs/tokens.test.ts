// Remembered counts of short texts (tokens.ts): always the tokenizer's own count, through eviction too.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { LONG_RUN_CHARS, MEMO_MAX_CHARS, textTokens } from './tokens.ts';

const direct = (text: string) => countTokens(text, { disallowedSpecial: new Set<string>() });

describe('token counts of short texts (remembered)', () => {
  it('on thousands of distinct short texts, asked twice: every count is the tokenizer\'s, the first time and the second', () => {
    const texts = Array.from({ length: 5000 }, (_, i) => `{"id":${i},"name":"item ${i.toString(36)}","ok":${i % 2 === 0}}`);
    for (const text of texts) expect(textTokens(text)).toBe(direct(text));
    for (const text of texts.reverse()) expect(textTokens(text)).toBe(direct(text));
  });

  it('at the length where remembering stops: both sides count exactly', () => {
    const at = 'word '.repeat(MEMO_MAX_CHARS).slice(0, MEMO_MAX_CHARS);
    const past = `${at}x`;
    expect([textTokens(at), textTokens(at), textTokens(past)]).toEqual([direct(at), direct(at), direct(past)]);
  });
});

describe('token counts of long runs of one character class (the encoder takes time that grows with the square of a run)', () => {
  it('on text without long runs (prose, JSON, code, CJK words): exactly the encoder\'s count', () => {
    const texts = [
      'The quick brown fox jumps over the lazy dog. '.repeat(400),
      JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ['a', 'b'] }))),
      'const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);\n'.repeat(100),
      '東京は日本の首都です。 '.repeat(300),
    ];
    for (const text of texts) expect(textTokens(text)).toBe(direct(text));
  });

  it(`on runs of ${LONG_RUN_CHARS} or more letters, digits, spaces or punctuation: within two tokens per 100 characters of the encoder's count`, () => {
    for (const run of ['x', 'ab', '7', ' ', '!', 'é', '\u0301']) {
      const text = `before the run ${run.repeat(Math.ceil(3000 / run.length))} after the run`;
      const exact = direct(text);
      expect(Math.abs(textTokens(text) - exact), JSON.stringify(run)).toBeLessThanOrEqual(Math.ceil(text.length / 50));
    }
  });

  it('on a quarter of a mebibyte of one letter (which the encoder alone takes minutes over): a count, one token per few letters', () => {
    const n = 256 * 1024;
    const count = textTokens('x'.repeat(n));
    expect(count).toBeGreaterThan(n / 16);
    expect(count).toBeLessThan(n / 2);
  });
});
