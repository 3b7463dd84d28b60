// How deep and how large a JSON value from outside (a client's tool schema, an MCP server's, an OpenAPI
// document's) may be before the Gateway holds it. Everything downstream walks schemas recursively
// (JSON.stringify for the token meter, the declaration printer, input checks): a schema nested thousands
// deep overflows the stack there, long after the request that brought it was answered. A leaf: imports nothing.

/** Nesting (objects and arrays) a tool schema may have: ~60 property levels, far past any real schema. */
export const MAX_SCHEMA_DEPTH = 128;
/** Values in one schema, counting each repeat of a shared part (a dereferenced document repeats them). */
export const MAX_SCHEMA_NODES = 200_000;

export interface JsonShapeLimits {
  maxDepth: number;
  maxNodes: number;
}

/**
 * Why `value` is too deep or too large to hold, as a phrase ("nests deeper than 128 levels ..."), or
 * undefined when it is within the limits. Iterative, so a hostile value cannot overflow the stack here;
 * a value that contains itself reads as too deep.
 */
export function jsonShapeProblem(value: unknown, limits: JsonShapeLimits = { maxDepth: MAX_SCHEMA_DEPTH, maxNodes: MAX_SCHEMA_NODES }): string | undefined {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let nodes = 1;
  while (pending.length > 0) {
    const next = pending.pop() as { value: unknown; depth: number };
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth >= limits.maxDepth) return `nests deeper than ${limits.maxDepth} levels (or contains itself); flatten it`;
    const children = Array.isArray(next.value) ? next.value : Object.values(next.value);
    nodes += children.length;
    if (nodes > limits.maxNodes) {
      return `holds more than ${limits.maxNodes} values (counting each repeat of a shared part); split it or describe the repeated parts once`;
    }
    for (const child of children) pending.push({ value: child, depth: next.depth + 1 });
  }
  return undefined;
}
