// A JSON value built from a normalized schema (schemas.ts) that its own validation accepts: the corpus test's
// inputs and responses come from it, never from hand-picked values (test and bench support).
//
// Deterministic: the same schema gives the same value. Optional properties are filled to a few levels (so
// validation has something to read), required ones always; a union takes the first branch whose value the
// whole schema accepts; a recursive name stops at the depth where its optional parts can be left out.
import { createRequire } from 'node:module';
import type { JsonSchema, SchemaDefs } from '../types.ts';
import { DEFS_REF_PREFIX } from '../types.ts';
import { checkSchema } from '../validate.ts';
import { isRecord } from '../../util/is-record.mjs';

/** Levels down to which optional properties and array items are filled; below it only what is required. */
export const SAMPLE_FULL_DEPTH = 3;
/** Levels after which a value gives up (an unsatisfiable chain of required references): `null`. */
const SAMPLE_MAX_DEPTH = 24;

/** Strings a format asks for, each valid for that format. */
const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2024-05-06T07:08:09Z',
  date: '2024-05-06',
  time: '07:08:09',
  email: 'octocat@example.com',
  uri: 'https://example.com/a',
  url: 'https://example.com/a',
  'uri-reference': '/a',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  int64: '42',
  int32: '42',
  byte: 'QQ==',
  binary: 'bytes',
  password: 'secret',
};

/** randexp (devDependency, no types of its own): strings matching a regular expression; randInt pinned to its low end, so the shortest match, every time. */
const RandExp = createRequire(import.meta.url)('randexp') as new (pattern: RegExp) => { randInt: (low: number, high: number) => number; max: number; gen(): string };

function patternSample(pattern: string): string | undefined {
  try {
    const gen = new RandExp(new RegExp(pattern));
    gen.randInt = (low) => low;
    gen.max = 1;
    return gen.gen();
  } catch {
    return undefined;
  }
}

/** Strings tried, in order, against a pattern no format sample matches. */
const PATTERN_CANDIDATES = ['a', 'A', '1', 'abc', 'ABC', '123', 'a1', 'A1', 'abc-123', 'a_b', 'abc.def', '2024-05-06', '+15551234567', 'aB3$defgh', 'ab12', 'AB12', '1.0.0', 'x'];

interface SampleContext {
  defs: SchemaDefs | undefined;
  root: JsonSchema;
}

/** A value `schema` accepts (as checkSchema reads it with `defs`); the caller checks it, as the corpus test does. */
export function sampleValue(schema: JsonSchema, defs?: SchemaDefs): unknown {
  return sample(schema, { defs, root: schema }, 0);
}

function resolve(schema: JsonSchema, ctx: SampleContext): JsonSchema | undefined {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return undefined;
  if (ctx.defs && ref.startsWith(DEFS_REF_PREFIX)) return ctx.defs.get(ref.slice(DEFS_REF_PREFIX.length));
  return undefined;
}

function accepts(schema: JsonSchema, value: unknown, ctx: SampleContext): boolean {
  return checkSchema(schema, value, '', 'value', ctx.defs ? { defs: ctx.defs } : {}).length === 0;
}

/** Merges `allOf` members (references followed) into one schema: properties united, a property's schemas combined. */
function merged(schema: JsonSchema, ctx: SampleContext, depth: number): JsonSchema {
  const parts: JsonSchema[] = [];
  const collect = (s: JsonSchema, d: number) => {
    if (d > SAMPLE_MAX_DEPTH) return;
    const target = resolve(s, ctx);
    if (target) return collect(target, d + 1);
    const { allOf, ...rest } = s;
    parts.push(rest);
    if (Array.isArray(allOf)) for (const member of allOf) if (isRecord(member)) collect(member, d + 1);
  };
  collect(schema, depth);
  const out: JsonSchema = {};
  const properties: Record<string, JsonSchema[]> = {};
  const required = new Set<string>();
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties' && isRecord(value)) {
        for (const [name, child] of Object.entries(value)) if (isRecord(child)) (properties[name] ??= []).push(child);
      } else if (key === 'required' && Array.isArray(value)) {
        for (const r of value) if (typeof r === 'string') required.add(r);
      } else if (key === 'additionalProperties' && out['additionalProperties'] === false) {
        // keep the closed one
      } else if (!(key in out)) out[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) {
    out['properties'] = Object.fromEntries(Object.entries(properties).map(([name, list]) => [name, list.length === 1 ? list[0] : { allOf: list }]));
    if (out['type'] === undefined && out['anyOf'] === undefined) out['type'] = 'object';
  }
  if (required.size > 0) out['required'] = [...required];
  return out;
}

function sample(schema: JsonSchema, ctx: SampleContext, depth: number): unknown {
  if (depth > SAMPLE_MAX_DEPTH) return null;
  const target = resolve(schema, ctx);
  if (target) return sample(target, ctx, depth + 1);
  if (Array.isArray(schema['allOf'])) return sample(merged(schema, ctx, depth), ctx, depth + 1);
  if ('const' in schema) return schema['const'];
  if (Array.isArray(schema['enum'])) {
    const values = schema['enum'];
    return values.find((v) => v !== null && accepts(schema, v, ctx)) ?? values[0] ?? null;
  }
  const branches = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(branches) && branches.length > 0) {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    let first: unknown;
    for (const branch of branches) {
      if (!isRecord(branch)) continue;
      const value = sample(Object.keys(rest).length > 0 ? { allOf: [rest, branch] } : branch, ctx, depth + 1);
      if (first === undefined) first = value;
      if (accepts(schema, value, ctx)) return value;
    }
    return first ?? null;
  }
  const type = schema['type'];
  const types = (Array.isArray(type) ? type : typeof type === 'string' ? [type] : []).filter((t): t is string => typeof t === 'string');
  const pick = types.find((t) => t !== 'null') ?? types[0];
  if (pick === undefined) {
    if (isRecord(schema['properties'])) return sampleObject(schema, ctx, depth);
    if (schema['items'] !== undefined) return sampleArray(schema, ctx, depth);
    return 'any';
  }
  // deep in a recursive type, null ends it where null is allowed
  if (types.includes('null') && depth > SAMPLE_FULL_DEPTH * 2) return null;
  switch (pick) {
    case 'object':
      return sampleObject(schema, ctx, depth);
    case 'array':
      return sampleArray(schema, ctx, depth);
    case 'string':
      return sampleString(schema, ctx);
    case 'integer':
    case 'number':
      return sampleNumber(schema, pick === 'integer');
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'any';
  }
}

function sampleObject(schema: JsonSchema, ctx: SampleContext, depth: number): Record<string, unknown> {
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : []);
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(properties)) {
    if (!required.has(name) && depth >= SAMPLE_FULL_DEPTH) continue;
    out[name] = sample(isRecord(child) ? child : {}, ctx, depth + 1);
  }
  for (const name of required) if (!(name in out)) out[name] = isRecord(schema['additionalProperties']) ? sample(schema['additionalProperties'], ctx, depth + 1) : 'any';
  const extra = schema['additionalProperties'];
  if (isRecord(extra) && Object.keys(properties).length === 0 && depth < SAMPLE_FULL_DEPTH) out['key1'] = sample(extra, ctx, depth + 1);
  return out;
}

function sampleArray(schema: JsonSchema, ctx: SampleContext, depth: number): unknown[] {
  const items = isRecord(schema['items']) ? schema['items'] : {};
  const min = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0;
  const max = typeof schema['maxItems'] === 'number' ? schema['maxItems'] : Infinity;
  const count = Math.min(max, Math.max(min, depth < SAMPLE_FULL_DEPTH ? 1 : 0));
  return Array.from({ length: count }, () => sample(items, ctx, depth + 1));
}

function sampleString(schema: JsonSchema, ctx: SampleContext): string {
  const format = typeof schema['format'] === 'string' ? schema['format'] : undefined;
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity;
  const fit = (s: string) => {
    let out = s;
    while (out.length < min) out += 'x';
    return out.length > max ? out.slice(0, Math.max(min, max)) : out;
  };
  const base = fit((format && FORMAT_SAMPLES[format]) || 'string');
  const pattern = schema['pattern'];
  if (typeof pattern !== 'string') return base;
  const generated = patternSample(pattern);
  for (const candidate of [base, ...(generated === undefined ? [] : [generated, fit(generated)]), ...PATTERN_CANDIDATES.map(fit)]) if (accepts(schema, candidate, ctx)) return candidate;
  return base;
}

function sampleNumber(schema: JsonSchema, integer: boolean): number {
  const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : undefined;
  const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : undefined;
  const exMin = typeof schema['exclusiveMinimum'] === 'number' ? schema['exclusiveMinimum'] : undefined;
  const exMax = typeof schema['exclusiveMaximum'] === 'number' ? schema['exclusiveMaximum'] : undefined;
  let value = min ?? (exMin !== undefined ? exMin + 1 : max !== undefined ? Math.min(1, max) : exMax !== undefined ? exMax - 1 : 1);
  if (integer) value = Math.ceil(value);
  return value;
}
