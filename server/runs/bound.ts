// Bounding a cell's final value to maxOutputBytes: a preview with a truncation marker, the whole
// value retained in the results store when it fits there (spec: automatic retention). The value
// JSON comes from a worker, so the host checks it (valueJsonProblem) before anything parses it.

export interface BoundedValue {
  value: unknown;
  truncated: boolean;
  bytes: number;
  ref?: string;
}

/**
 * Deepest nesting of arrays and objects a value may have when it crosses the bridge. Real JSON data
 * nests a few dozen levels; 1000 leaves generated trees ample room while every recursive walk of a
 * value (V8's JSON.stringify for tRPC, the transcript and the results store, the playground's viewer)
 * stays far from its stack limit. The guest controller (server/guest/prelude.js, MAX_VALUE_DEPTH)
 * refuses deeper values with a clear error before they leave the guest; the host checks again because
 * the guest's memory is not trusted.
 */
export const MAX_VALUE_DEPTH = 1000;

/**
 * What is wrong with a value's JSON text from a worker (not a string, not JSON, nested deeper than
 * MAX_VALUE_DEPTH), or undefined when it is safe to parse and keep. One linear scan, then one parse.
 */
export function valueJsonProblem(valueJson: unknown): string | undefined {
  if (typeof valueJson !== 'string') return 'the cell value did not arrive as JSON text; return plain JSON data';
  const depth = jsonNestingDepth(valueJson);
  if (depth > MAX_VALUE_DEPTH) {
    return `the final value is nested more than ${MAX_VALUE_DEPTH} levels deep; flatten it or return a smaller part`;
  }
  try {
    JSON.parse(valueJson);
  } catch {
    return 'the cell value is not valid JSON; return plain JSON data';
  }
  return undefined;
}

/** Deepest bracket nesting in JSON text, brackets inside strings ignored; linear in the text's length. */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return max;
}

/** Share of maxOutputBytes a preview may use (the rest is the marker's own fields). */
const PREVIEW_SHARE = 0.9;

/** `valueJson` must have passed valueJsonProblem. */
export function boundValue(valueJson: string, maxBytes: number, retain: (json: string) => string | undefined): BoundedValue {
  const bytes = Buffer.byteLength(valueJson, 'utf8');
  if (bytes <= maxBytes) return { value: JSON.parse(valueJson), truncated: false, bytes };
  const ref = retain(valueJson);
  const preview = truncateUtf8(valueJson, Math.floor(maxBytes * PREVIEW_SHARE));
  return {
    value: { truncated: true, bytes, preview, ...(ref ? { ref } : {}) },
    truncated: true,
    bytes,
    ...(ref ? { ref } : {}),
  };
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes, never splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  // step back over continuation bytes (10xxxxxx)
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}
