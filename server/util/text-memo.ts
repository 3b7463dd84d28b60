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
