// What a tool schema that names its source's schemas (`#/$defs/<Name>`, SchemaDefs) reaches, and the same schema made self-contained.
import type { JsonSchema, SchemaDefs } from './types.ts';
import { DEFS_REF_PREFIX } from './types.ts';
import { isRecord } from '../util/is-record.mjs';

/** Named schemas a self-contained copy carries at most: GitHub's widest operation reaches about 60. */
export const MAX_SELF_CONTAINED_DEFS = 256;

/** The names `schemas` reach through `#/$defs/<Name>` references (transitively), in first-reached order, at most `max`. */
export function referencedNames(schemas: readonly unknown[], defs: SchemaDefs, max = Infinity): { names: string[]; complete: boolean } {
  const names: string[] = [];
  const seen = new Set<string>();
  const queue: unknown[] = [...schemas];
  let complete = true;
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    if (Array.isArray(node)) {
      queue.push(...node);
      continue;
    }
    if (!isRecord(node)) continue;
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith(DEFS_REF_PREFIX)) {
      const name = ref.slice(DEFS_REF_PREFIX.length);
      const target = defs.get(name);
      if (target !== undefined && !seen.has(name)) {
        if (names.length >= max) {
          complete = false;
          continue;
        }
        seen.add(name);
        names.push(name);
        queue.push(target);
      }
      continue;
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'enum' && key !== 'const' && key !== 'default' && typeof value === 'object') queue.push(value);
  }
  return { names, complete };
}

/**
 * `schema` with the named schemas it reaches under `$defs`, so its `#/$defs/<Name>` references resolve as plain
 * JSON pointers (what a model provider, a client or describe() reads). Unchanged when it reaches none.
 */
export function selfContainedSchema(schema: JsonSchema, defs: SchemaDefs | undefined): JsonSchema {
  if (!defs) return schema;
  const known = selfContained.get(schema);
  if (known) return known;
  const { names } = referencedNames([schema], defs, MAX_SELF_CONTAINED_DEFS);
  const out = names.length === 0 ? schema : { ...schema, $defs: Object.fromEntries(names.map((n) => [n, defs.get(n) ?? {}])) };
  selfContained.set(schema, out);
  return out;
}

// A source's schemas never change once loaded, and every turn's surface and describe() ask again.
const selfContained = new WeakMap<JsonSchema, JsonSchema>();
