// Remembered counts of short texts (tokens.ts): always the tokenizer's own count, through eviction too.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { MEMO_MAX_CHARS, textTokens } from './tokens.ts';

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
