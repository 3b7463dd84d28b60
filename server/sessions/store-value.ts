// What a stored value must be to be committed and read back: JSON text the host parsed and re-serialized itself.
//
// The guest's JSON crosses the bridge from hostile memory (a guest can redefine `toJSON` or forge a request),
// so the host trusts neither its type, its syntax nor its size: the dispatcher parses it once, writes its own
// serialization, and measures that. A committed value is parsed again only when it is loaded, so an entry
// an older build or a hand edit left damaged fails only its key.

/** The host's own serialization of a guest JSON text, or why there is none. Pure: no I/O. */
export type CanonicalJson = { ok: true; json: string; bytes: number } | { ok: false; reason: string };

export function canonicalJson(raw: unknown): CanonicalJson {
  if (typeof raw !== 'string') return { ok: false, reason: `the value is ${describeType(raw)}, not JSON text` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    return { ok: false, reason: `the value is not valid JSON (${(err as Error).message})` };
  }
  let json: string;
  try {
    json = JSON.stringify(parsed);
  } catch (err) {
    // only a nesting too deep for the host's stack gets here: parsed JSON has no cycles, BigInts or toJSON
    return { ok: false, reason: `the value cannot be re-serialized (${(err as Error).message}); nest it less deeply` };
  }
  return { ok: true, json, bytes: Buffer.byteLength(json, 'utf8') };
}

/** A short name for a value's type in error messages ("an object", "null"). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The guest-visible error code of a load whose committed value cannot be read back. */
export const DAMAGED_VALUE_CODE = 'damaged_value';

/** What a load of a damaged key says: what is wrong and what to do. */
export function damagedValueMessage(key: string, reason: string): string {
  return `stored value for key ${JSON.stringify(key)} is damaged (${reason}); store a new value under ${JSON.stringify(key)}, or store(${JSON.stringify(key)}, undefined) to delete it`;
}
