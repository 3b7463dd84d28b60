// How large an OpenAPI document becomes once its $refs are resolved, counted before the parser resolves them.
//
// The parser walks every use of a referenced schema, so a document whose schemas each refer to the one
// before twice ("billion laughs" over $ref) grows twofold per level: 40 small schemas are 2^40 values,
// and resolving them would hold the Gateway's event loop for hours. Here each referenced part is counted
// once (memoized by its pointer and by object identity, for YAML aliases) and the count stops at a limit.

/** Values a document may hold with its references resolved (the parser takes ~1.5 s per million here, holding the event loop). */
export const MAX_OPENAPI_EXPANDED_VALUES = 1_000_000;

class OverLimit extends Error {}

/**
 * The number of values (objects, arrays, scalars) `doc` holds once its local `$ref`s (`#/...`) are
 * resolved, or `undefined` when that passes `limit`. A reference back into one being resolved (a
 * circular schema) counts as one value: the parser leaves it as a `$ref`.
 */
export function expandedSize(doc: unknown, limit = MAX_OPENAPI_EXPANDED_VALUES): number | undefined {
  const byPointer = new Map<string, number>();
  const byObject = new WeakMap<object, number>();
  const resolving = new Set<string>();
  let total = 0;

  const sizeOf = (node: unknown): number => {
    if (typeof node !== 'object' || node === null) return 1;
    const known = byObject.get(node);
    if (known !== undefined) return known;
    const ref = (node as Record<string, unknown>)['$ref'];
    let size: number;
    if (typeof ref === 'string' && ref.startsWith('#')) {
      size = byPointer.get(ref) ?? (resolving.has(ref) ? 1 : sizeOfTarget(ref));
    } else {
      size = 1;
      for (const child of Array.isArray(node) ? node : Object.values(node)) {
        size += sizeOf(child);
        if (size > limit) throw new OverLimit();
      }
    }
    byObject.set(node, size);
    return size;
  };

  const sizeOfTarget = (ref: string): number => {
    const target = resolvePointer(doc, ref);
    if (target === undefined) return 1;
    resolving.add(ref);
    const size = sizeOf(target);
    resolving.delete(ref);
    byPointer.set(ref, size);
    return size;
  };

  try {
    total = sizeOf(doc);
  } catch (err) {
    if (err instanceof OverLimit) return undefined;
    if (err instanceof RangeError) return undefined; // a chain of references too long to follow: too large as well
    throw err;
  }
  return total > limit ? undefined : total;
}

/** The value a local JSON pointer (`#/components/schemas/Pet`) names in `doc`, or undefined. */
function resolvePointer(doc: unknown, ref: string): unknown {
  let node = doc;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
