// Output types inferred from observed results, for tools that declare none (many MCP tools have no
// outputSchema): a structural summary merged value by value, rendered as a TypeScript type.
//
// Merging: the kinds seen form a union (null | number | string | ...); all objects seen merge into one
// object type whose keys are optional unless every object had them; all arrays merge into one element
// type. Bounded: depth, keys per object and the rendered length are capped, past which the part is
// `unknown`, so a hostile or huge result costs a bounded amount of work and text.

/** Nesting levels followed; deeper values are `unknown`. */
export const MAX_INFER_DEPTH = 6;
/** Keys kept per object type (the first seen); the rest are folded into an index signature of `unknown`. */
export const MAX_INFER_KEYS = 32;
/** Array elements sampled per value (the first ones): a 100 000-row result is not walked row by row. */
export const MAX_INFER_ELEMENTS = 50;
/** A rendered type longer than this is replaced by `unknown` (an editor overlay, not a schema dump). */
export const MAX_INFERRED_TYPE_CHARS = 4_000;

type Primitive = 'null' | 'boolean' | 'number' | 'string';

export interface Shape {
  primitives: Set<Primitive>;
  /** Element shape of every array seen here (an empty array adds no element: `never[]` until one is). */
  array?: { element?: Shape };
  object?: { seen: number; keys: Map<string, { shape: Shape; seen: number }>; overflow: boolean };
  /** Deeper than MAX_INFER_DEPTH, or a value JSON cannot hold. */
  unknown?: boolean;
}

function emptyShape(): Shape {
  return { primitives: new Set() };
}

/** Merges one observed value into `shape` (a new shape when undefined) and returns it. */
export function observe(shape: Shape | undefined, value: unknown, depth = 0): Shape {
  const s = shape ?? emptyShape();
  if (depth > MAX_INFER_DEPTH) {
    s.unknown = true;
    return s;
  }
  if (value === null || value === undefined) s.primitives.add('null');
  else if (typeof value === 'boolean') s.primitives.add('boolean');
  else if (typeof value === 'number' || typeof value === 'bigint') s.primitives.add('number');
  else if (typeof value === 'string') s.primitives.add('string');
  else if (Array.isArray(value)) {
    s.array ??= {};
    for (const item of value.slice(0, MAX_INFER_ELEMENTS)) s.array.element = observe(s.array.element, item, depth + 1);
  } else if (typeof value === 'object') {
    s.object ??= { seen: 0, keys: new Map(), overflow: false };
    const obj = s.object;
    obj.seen++;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      let slot = obj.keys.get(key);
      if (!slot) {
        if (obj.keys.size >= MAX_INFER_KEYS) {
          obj.overflow = true;
          continue;
        }
        slot = { shape: emptyShape(), seen: 0 };
        obj.keys.set(key, slot);
      }
      slot.seen++;
      observe(slot.shape, v, depth + 1);
    }
  } else s.unknown = true;
  return s;
}

/** The shape as a TypeScript type (`unknown` when nothing was observed or it would be too long). */
export function renderShape(shape: Shape | undefined): string {
  if (!shape) return 'unknown';
  const text = render(shape, '');
  return text.length > MAX_INFERRED_TYPE_CHARS ? 'unknown' : text;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function render(s: Shape, indent: string): string {
  if (s.unknown) return 'unknown';
  const members: string[] = [];
  if (s.object) members.push(renderObject(s.object, indent));
  if (s.array) {
    const el = s.array.element ? render(s.array.element, indent) : 'never';
    members.push(/^[\w.$<>"]+$/.test(el) ? `${el}[]` : `Array<${el}>`);
  }
  for (const p of ['string', 'number', 'boolean', 'null'] as const) if (s.primitives.has(p)) members.push(p);
  if (members.length === 0) return 'unknown';
  return members.join(' | ');
}

function renderObject(obj: NonNullable<Shape['object']>, indent: string): string {
  if (obj.keys.size === 0 && !obj.overflow) return 'Record<string, never>';
  const inner = `${indent}  `;
  const lines = [...obj.keys].map(([key, slot]) => {
    const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
    return `${inner}${name}${slot.seen < obj.seen ? '?' : ''}: ${render(slot.shape, inner)};`;
  });
  if (obj.overflow) lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}
