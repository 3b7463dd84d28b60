// Token counts for the token meter: one real tokenizer (gpt-tokenizer, encoding o200k_base), bounded so a
// huge value costs a bounded amount of host time.
//
// o200k_base is the encoding of OpenAI's current models (GPT-4o, GPT-4.1, GPT-5, the o-series). Other
// model families use other tokenizers: for Claude, Gemini or Llama the counts are an estimate, typically
// within about 10-20 % on English prose and JSON (code and non-Latin text drift more). The meter says so.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { memoShortText } from '../util/text-memo.ts';

/** The encoding every count here uses (shown beside the meter). */
export const TOKEN_ENCODING = 'o200k_base';

/**
 * Characters counted exactly; past this a text's count is extrapolated from its first part at the same
 * tokens-per-character rate. 256 KiB tokenizes in tens of milliseconds; a multi-megabyte tool result
 * would otherwise stall the host for a second on every call.
 */
export const MAX_EXACT_TOKEN_CHARS = 256 * 1024;

// Guest text may contain `<|endoftext|>` and friends: they are plain text here, never special tokens
// (the library's default throws on them).
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Texts up to this long are counted once and remembered: a loop's nested calls repeat their small inputs and results. */
export const MEMO_MAX_CHARS = 256;
/** Short texts remembered (a few hundred KiB at most); the oldest is forgotten first. */
const MEMO_ENTRIES = 2048;
const shortTextTokens = memoShortText((text) => countTokens(text, PLAIN_TEXT), MEMO_MAX_CHARS, MEMO_ENTRIES);

/** Tokens of `text` in TOKEN_ENCODING (extrapolated past MAX_EXACT_TOKEN_CHARS). */
export function textTokens(text: string): number {
  if (text.length <= MEMO_MAX_CHARS) return shortTextTokens(text);
  if (text.length <= MAX_EXACT_TOKEN_CHARS) return countTokens(text, PLAIN_TEXT);
  const head = countTokens(text.slice(0, MAX_EXACT_TOKEN_CHARS), PLAIN_TEXT);
  return Math.round((head * text.length) / MAX_EXACT_TOKEN_CHARS);
}

/** Tokens of a value as a model would read it: compact JSON (undefined and unserializable values count as `null`). */
export function jsonTokens(value: unknown): number {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  return textTokens(json ?? 'null');
}
