// One test for "a plain JSON-style object" (not null, not an array), shared by every side of the server.
// A leaf: it imports nothing, so any folder may import it. Plain JavaScript on purpose, so worker entry
// files (bridge/protocol-check.mjs) load it as it is; tsc reads its types from the JSDoc.

/**
 * Whether `value` is an object that is neither null nor an array (what JSON calls an object).
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
