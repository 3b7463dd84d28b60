// Bounding a cell's final value to maxOutputBytes: a preview with a truncation marker, the whole
// value retained in the results store when it fits there (spec: automatic retention).

export interface BoundedValue {
  value: unknown;
  truncated: boolean;
  bytes: number;
  ref?: string;
}

/** Share of maxOutputBytes a preview may use (the rest is the marker's own fields). */
const PREVIEW_SHARE = 0.9;

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
