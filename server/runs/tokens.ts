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
  if (text.length <= MAX_EXACT_TOKEN_CHARS) return runBoundedTokens(text);
  const head = runBoundedTokens(text.slice(0, MAX_EXACT_TOKEN_CHARS));
  return Math.round((head * text.length) / MAX_EXACT_TOKEN_CHARS);
}

/**
 * A run of one character class (letters, digits, spaces, other) at least this long is counted in
 * RUN_PIECE_CHARS pieces. The encoder merges each run as one piece, in time that grows with the square
 * of its length: 20,000 letters in a row took 0.45 s here, 200,000 over a minute, on the Gateway's
 * thread. A real token is never this long, so the pieces' sum is the run's count give or take one
 * token per piece.
 */
export const LONG_RUN_CHARS = 200;
const RUN_PIECE_CHARS = 100;

const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const DIGIT = /\p{N}/u;
const SPACE = /\s/u;

/** The class the encoder's pre-split keeps together: 1 letters (and marks), 2 digits, 3 whitespace, 4 the rest. */
function charClass(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 128) {
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return 1;
    if (code >= 48 && code <= 57) return 2;
    if (code === 32 || (code >= 9 && code <= 13)) return 3;
    return 4;
  }
  const ch = text[i] as string;
  return LETTER_OR_MARK.test(ch) ? 1 : DIGIT.test(ch) ? 2 : SPACE.test(ch) ? 3 : 4;
}

/** The encoder's count, with runs of LONG_RUN_CHARS or more counted in pieces (linear in the text's length). */
function runBoundedTokens(text: string): number {
  let total = 0;
  let counted = 0; // text before this index is in total
  let runStart = 0;
  let runClass = 0;
  const endRun = (end: number) => {
    if (end - runStart < LONG_RUN_CHARS) return;
    if (runStart > counted) total += countTokens(text.slice(counted, runStart), PLAIN_TEXT);
    for (let i = runStart; i < end; i += RUN_PIECE_CHARS) total += shortTextTokens(text.slice(i, Math.min(i + RUN_PIECE_CHARS, end)));
    counted = end;
  };
  for (let i = 0; i < text.length; i++) {
    const c = charClass(text, i);
    if (c === runClass) continue;
    endRun(i);
    runStart = i;
    runClass = c;
  }
  endRun(text.length);
  if (counted < text.length) total += countTokens(text.slice(counted), PLAIN_TEXT);
  return total;
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
