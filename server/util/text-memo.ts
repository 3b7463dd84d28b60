// A pure function of a short text, remembered: a loop's nested calls repeat their small inputs and results,
// so their previews and token counts are worked out once. Bounded in entries and in text length; the oldest
// entry is forgotten first.

/** `fn`, remembering its result for texts of at most `maxChars` characters (up to `entries` of them). */
export function memoShortText<T>(fn: (text: string) => T, maxChars: number, entries: number): (text: string) => T {
  const memo = new Map<string, T>();
  return (text) => {
    if (text.length > maxChars) return fn(text);
    let out = memo.get(text);
    if (out === undefined) {
      out = fn(text);
      if (memo.size >= entries) memo.delete(memo.keys().next().value!);
      memo.set(text, out);
    }
    return out;
  };
}

/** Texts handed out by internText (bounded like a memo: the oldest is forgotten first). */
const INTERNED_ENTRIES = 4096;
const interned = new Map<string, string>();

/**
 * One shared copy of a text many owners build alike (each turn's catalog builds the same tool declarations):
 * the first copy seen is kept, flat, and every later equal text is answered with it, so the later copies
 * (often ropes of many small pieces) become garbage.
 */
export function internText(text: string): string {
  const kept = interned.get(text);
  if (kept !== undefined) return kept;
  if (interned.size >= INTERNED_ENTRIES) interned.delete(interned.keys().next().value!);
  interned.set(text, text);
  return text;
}
