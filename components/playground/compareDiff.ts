// A line diff of two JSON values for the comparison view: the reference row's value against another row's.

export interface DiffLine {
  /** ' ' in both, '-' only in the reference, '+' only in this value */
  mark: ' ' | '-' | '+';
  text: string;
}

/** Longest common subsequence over lines: small values (a cell's result), so the quadratic table is fine. */
const MAX_DIFF_LINES = 400;

/** The pretty-printed JSON text of a row's `valueJson` (the text itself when it does not parse). */
export function prettyJson(valueJson: string): string {
  try {
    return JSON.stringify(JSON.parse(valueJson), null, 2) ?? valueJson;
  } catch {
    return valueJson;
  }
}

/** Lines of `value` against `reference`, both JSON texts; past MAX_DIFF_LINES each side is shown whole. */
export function jsonLineDiff(referenceJson: string, valueJson: string): DiffLine[] {
  const a = prettyJson(referenceJson).split('\n');
  const b = prettyJson(valueJson).split('\n');
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) {
    return [...a.map((text) => ({ mark: '-' as const, text })), ...b.map((text) => ({ mark: '+' as const, text }))];
  }
  // lcs[i][j]: common lines of a[i..] and b[j..]
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ mark: ' ', text: a[i]! });
      i++;
      j++;
    } else if (j < b.length && (i >= a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push({ mark: '+', text: b[j]! });
      j++;
    } else {
      out.push({ mark: '-', text: a[i]! });
      i++;
    }
  }
  return out;
}
