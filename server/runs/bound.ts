// Bounding a cell's final value to maxOutputBytes: a preview with a truncation marker, the whole
// value retained in the results store when it fits there (spec: automatic retention). The value
// JSON comes from a worker, so the host checks it (parseValueJson) before it keeps anything; that is
// the host's one parse of the value.

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

/** A cell's value from a worker: its JSON text and the value parsed from it, or what is wrong with it. */
export type ParsedValue = { ok: true; json: string; value: unknown } | { ok: false; error: string };

/**
 * Parse a value's JSON text from a worker, refusing what is not a string, not JSON, or nested deeper
 * than MAX_VALUE_DEPTH (one linear scan first, so a deep value never reaches the recursive parser).
 */
export function parseValueJson(valueJson: unknown): ParsedValue {
  if (typeof valueJson !== 'string') return { ok: false, error: 'the cell value did not arrive as JSON text; return plain JSON data' };
  const depth = jsonNestingDepth(valueJson);
  if (depth > MAX_VALUE_DEPTH) {
    return { ok: false, error: `the final value is nested more than ${MAX_VALUE_DEPTH} levels deep; flatten it or return a smaller part` };
  }
  try {
    return { ok: true, json: valueJson, value: JSON.parse(valueJson) as unknown };
  } catch {
    return { ok: false, error: 'the cell value is not valid JSON; return plain JSON data' };
  }
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

/** The value itself within `maxBytes`; past it a preview of its JSON text and, when `retain` keeps the whole text, its ref. */
export function boundValue(parsed: { json: string; value: unknown }, maxBytes: number, retain: (json: string) => string | undefined): BoundedValue {
  const bytes = Buffer.byteLength(parsed.json, 'utf8');
  if (bytes <= maxBytes) return { value: parsed.value, truncated: false, bytes };
  const ref = retain(parsed.json);
  const preview = truncateUtf8(parsed.json, Math.floor(maxBytes * PREVIEW_SHARE));
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
