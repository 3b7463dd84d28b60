// An OpenAPI document's schemas as named JSON Schemas: every `$ref` to a schema stays a name, never a copy.
// long: one normalizer (schema -> JSON Schema, per request or response view) sharing its naming, its bounds and its variants.
//
// A referenced schema (`#/components/schemas/simple-user`, or any other pointer to a schema) becomes a
// named type (`SimpleUser`) and every use of it is `{ $ref: "#/$defs/SimpleUser" }`. The catalog renders
// each name once (the source's declaration file) and the validator follows the names through `get()`,
// so a document with shared or recursive schemas is never expanded. OpenAPI's own keywords become plain
// JSON Schema here, once, so declarations and validation read the same schema:
// - 3.0 `nullable: true` -> a `"null"` type (and `null` in an `enum`), or `anyOf [schema, null]` around a
//   reference or a combination; 3.1 type arrays pass as they are;
// - `readOnly` properties are absent from the request view, `writeOnly` ones from the response view: a
//   schema that has either (itself or through the names it uses) gets a second name for its request view
//   (`PetInput`);
// - `oneOf` is read as `anyOf` (a TypeScript union cannot say "exactly one", and real documents' branches
//   overlap), and a `discriminator` pins each branch's property to its mapped values;
// - 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` become 3.1's numbers; `format` stays an annotation.
// Bounds for a hostile document: nesting per schema (a name starts again at zero), the schema nodes read in
// all, and the time spent; past them the load fails naming the limit.
import type { JsonSchema, SchemaDefs } from '../types.ts';
import { DEFS_REF_PREFIX } from '../types.ts';
import { isRecord } from '../../util/is-record.mjs';
import { jsonShapeProblem } from '../../util/json-shape.ts';

/** Nesting kept inside one schema (names start again at zero); deeper parts become "any value". Real documents nest under 20. */
export const MAX_OPENAPI_SCHEMA_DEPTH = 48;
/** Schema nodes read in one document (each use of a name counts once): GitHub's 13 MB description reads about 50,000. */
export const MAX_OPENAPI_SCHEMA_NODES = 2_000_000;
/** Time one document's schemas may take to read: GitHub's takes well under a second here. */
export const MAX_OPENAPI_SCHEMA_MS = 20_000;
/** `$ref` hops followed for one parameter, body or response (a reference to a reference ...). */
const MAX_REF_HOPS = 32;

export type SchemaView = 'request' | 'response';

/** A document's schemas could not be read within the bounds (the whole source fails with this). */
export class SchemaBoundsError extends Error {
  override name = 'SchemaBoundsError';
}

/** One operation's schema refers outside the document or to nothing (that operation is left out with this). */
export class SchemaRefError extends Error {
  override name = 'SchemaRefError';
}

export interface SchemaBounds {
  maxDepth: number;
  maxNodes: number;
  maxMs: number;
}

export const DEFAULT_SCHEMA_BOUNDS: SchemaBounds = { maxDepth: MAX_OPENAPI_SCHEMA_DEPTH, maxNodes: MAX_OPENAPI_SCHEMA_NODES, maxMs: MAX_OPENAPI_SCHEMA_MS };

/** `simple-user` -> `SimpleUser`; `2fa` -> `T2fa`; empty -> `Type`. */
export function typeNameOf(raw: string): string {
  const words = raw.split(/[^\p{L}\p{N}_$]+/u).filter(Boolean);
  const joined = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  if (joined === '') return 'Type';
  return /^[\p{L}_$]/u.test(joined) ? joined : `T${joined}`;
}

/** The value a local JSON pointer (`#/components/schemas/Pet`) names in `doc`, or undefined. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (ref === '#') return doc;
  if (!ref.startsWith('#/')) return undefined;
  let node = doc;
  for (const raw of ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

interface NamedEntry {
  /** Pointer of the schema in the document. */
  pointer: string;
  view: SchemaView;
  schema?: JsonSchema;
}

/**
 * The named schemas of one document (SchemaDefs for the catalog and the validator) and the normalizer that
 * turns an operation's parameter, body and response schemas into JSON Schema referring to them.
 */
export class OpenApiSchemas implements SchemaDefs {
  private readonly byName = new Map<string, NamedEntry>();
  /** `view\0pointer` -> name */
  private readonly nameOf = new Map<string, string>();
  /** pointer -> whether its request and response views differ (readOnly / writeOnly somewhere in reach) */
  private readonly twoViews = new Map<string, boolean>();
  private readonly pending: string[] = [];
  private nodes = 0;
  private readonly deadline: number;
  /** Named schemas too large to hold, rendered as any value (reported with the source). */
  readonly notes: string[] = [];

  constructor(
    private doc: Record<string, unknown>,
    readonly owner: string,
    private readonly bounds: SchemaBounds = DEFAULT_SCHEMA_BOUNDS,
  ) {
    this.deadline = Date.now() + bounds.maxMs;
  }

  /** Every component schema, named in document order (the declaration file lists them all, used or not). */
  nameComponents(): void {
    const components = isRecord(this.doc['components']) ? this.doc['components'] : {};
    const schemas = isRecord(components['schemas']) ? components['schemas'] : {};
    for (const key of Object.keys(schemas)) this.refName(`#/components/schemas/${escapePointer(key)}`, 'response');
    this.drain();
  }

  get(name: string): JsonSchema | undefined {
    return this.byName.get(name)?.schema;
  }

  /**
   * Drops the document once every operation is mapped: the named schemas hold all that is left to read, and the
   * rest (GitHub's examples, descriptions of unused parts) is most of a big document's memory. Nothing can be
   * normalized after this.
   */
  release(): void {
    this.drain();
    this.doc = {};
  }

  names(): readonly string[] {
    return [...this.byName.keys()];
  }

  /** Every named schema, in name order, once the document is released (read.ts carries them out of the thread that read the document). */
  namedSchemas(): Array<[string, JsonSchema]> {
    return [...this.byName].map(([name, entry]) => [name, entry.schema ?? {}]);
  }

  /** The released schemas of a document read elsewhere (read.ts): `get` and `names` answer as the reader's did. */
  static released(owner: string, named: ReadonlyArray<readonly [string, JsonSchema]>, notes: readonly string[]): OpenApiSchemas {
    const schemas = new OpenApiSchemas({}, owner);
    for (const [name, schema] of named) schemas.byName.set(name, { pointer: '', view: 'response', schema });
    schemas.notes.push(...notes);
    return schemas;
  }

  /** Schema nodes read so far (the bench and the bounds test read it). */
  get nodesRead(): number {
    return this.nodes;
  }

  /**
   * `schema` (an operation's parameter, body or response schema) as JSON Schema in `view`, its references
   * named. Throws SchemaRefError for a reference outside the document or to nothing, SchemaBoundsError past
   * the bounds.
   */
  normalize(schema: unknown, view: SchemaView): JsonSchema {
    const out = this.norm(schema, view, 0);
    this.drain();
    return out;
  }

  /** Follows `$ref`s (parameters, bodies, responses) to the object they name; throws SchemaRefError when one points nowhere. */
  deref(value: unknown): unknown {
    let node = value;
    for (let hop = 0; hop <= MAX_REF_HOPS; hop++) {
      if (!isRecord(node) || typeof node['$ref'] !== 'string') return node;
      node = this.target(node['$ref']);
    }
    throw new SchemaRefError(`more than ${MAX_REF_HOPS} $refs in a row (a reference loop?)`);
  }

  private target(ref: string): unknown {
    if (!ref.startsWith('#')) throw new SchemaRefError(`$ref "${ref.slice(0, 120)}" points outside the document; only references inside it (#/...) are followed`);
    const target = resolvePointer(this.doc, ref);
    if (target === undefined) throw new SchemaRefError(`$ref "${ref.slice(0, 120)}" points to nothing in the document`);
    return target;
  }

  /** Normalizes named schemas found meanwhile, until none is left (each name once). */
  private drain(): void {
    for (let name = this.pending.pop(); name !== undefined; name = this.pending.pop()) {
      const entry = this.byName.get(name);
      if (!entry || entry.schema) continue;
      let schema: JsonSchema;
      try {
        schema = this.norm(resolvePointer(this.doc, entry.pointer), entry.view, 0);
      } catch (err) {
        if (!(err instanceof SchemaRefError)) throw err;
        this.notes.push(`type ${name}: ${err.message}; it reads as any value`);
        schema = {};
      }
      const problem = jsonShapeProblem(schema);
      if (problem) {
        this.notes.push(`type ${name}: its schema ${problem}; it reads as any value`);
        schema = {};
      }
      entry.schema = schema;
    }
  }

  /** The name a reference to `pointer` renders as in `view`, registered (and queued) on first use. */
  private refName(pointer: string, view: SchemaView): string {
    const effective: SchemaView = view === 'request' && this.differs(pointer) ? 'request' : 'response';
    const key = `${effective}\u0000${pointer}`;
    const known = this.nameOf.get(key);
    if (known) return known;
    const last = pointer.split('/').pop() ?? '';
    let raw = last;
    try {
      raw = decodeURIComponent(last).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      // keep the raw segment
    }
    const base = `${typeNameOf(raw)}${effective === 'request' ? 'Input' : ''}`;
    let name = base;
    for (let i = 2; this.byName.has(name); i++) name = `${base}${i}`;
    this.nameOf.set(key, name);
    this.byName.set(name, { pointer, view: effective });
    this.pending.push(name);
    return name;
  }

  /** Whether the schema at `pointer` reads differently as request and response: a readOnly or writeOnly property in its reach. */
  private differs(pointer: string): boolean {
    const known = this.twoViews.get(pointer);
    if (known !== undefined) return known;
    const seen = new Set<string>([pointer]);
    const queue = [pointer];
    let found = false;
    while (queue.length > 0 && !found) {
      const next = queue.pop() as string;
      const refs: string[] = [];
      if (this.scanOwn(resolvePointer(this.doc, next), refs, 0)) found = true;
      for (const ref of refs) {
        const cached = this.twoViews.get(ref);
        if (cached === true) found = true;
        if (cached === undefined && !seen.has(ref)) {
          seen.add(ref);
          queue.push(ref);
        }
      }
    }
    // everything reached says the same when nothing in reach has either keyword
    if (!found) for (const p of seen) this.twoViews.set(p, false);
    this.twoViews.set(pointer, found);
    return found;
  }

  /** Whether `schema`'s own tree (not crossing references) marks a property readOnly or writeOnly; collects the references it holds. */
  private scanOwn(schema: unknown, refs: string[], depth: number): boolean {
    if (!isRecord(schema) || depth > this.bounds.maxDepth) return false;
    this.count();
    if (typeof schema['$ref'] === 'string') {
      if (schema['$ref'].startsWith('#/')) refs.push(schema['$ref']);
      return false;
    }
    let found = false;
    const props = schema['properties'];
    if (isRecord(props)) {
      for (const child of Object.values(props)) {
        if (isRecord(child) && (child['readOnly'] === true || child['writeOnly'] === true)) found = true;
        if (this.scanOwn(child, refs, depth + 1)) found = true;
      }
    }
    for (const key of ['items', 'additionalProperties', 'not'] as const) if (this.scanOwn(schema[key], refs, depth + 1)) found = true;
    for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const) {
      const list = schema[key];
      if (Array.isArray(list)) for (const child of list) if (this.scanOwn(child, refs, depth + 1)) found = true;
    }
    return found;
  }

  private count(): void {
    this.nodes += 1;
    if (this.nodes > this.bounds.maxNodes) {
      throw new SchemaBoundsError(`its schemas hold more than ${this.bounds.maxNodes} parts to read; trim it to the operations you need`);
    }
    if ((this.nodes & 4095) === 0 && Date.now() > this.deadline) {
      throw new SchemaBoundsError(`reading its schemas took longer than ${this.bounds.maxMs} ms; trim it to the operations you need`);
    }
  }

  private norm(schema: unknown, view: SchemaView, depth: number): JsonSchema {
    if (schema === true || schema === undefined) return {};
    if (schema === false) return { enum: [] };
    if (!isRecord(schema) || depth > this.bounds.maxDepth) return {};
    this.count();
    const ref = schema['$ref'];
    if (typeof ref === 'string') {
      this.target(ref); // refuses external and dangling references
      const named: JsonSchema = { $ref: `${DEFS_REF_PREFIX}${this.refName(ref, view)}` };
      if (typeof schema['description'] === 'string') named['description'] = schema['description'];
      // 3.0 ignores a reference's siblings, but documents write `nullable` beside one and mean it
      return schema['nullable'] === true ? nullableOf(named) : named;
    }
    const out: JsonSchema = {};
    const type = schema['type'];
    if (typeof type === 'string') out['type'] = type === 'file' ? 'string' : type;
    else if (Array.isArray(type)) out['type'] = type.filter((t): t is string => typeof t === 'string');

    for (const key of ['description', 'format', 'pattern'] as const) if (typeof schema[key] === 'string') out[key] = schema[key];
    for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum'] as const) if (typeof schema[key] === 'number') out[key] = schema[key];
    for (const [key, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      const value = schema[key];
      if (typeof value === 'number') out[key] = value;
      else if (value === true && typeof schema[bound] === 'number') {
        out[key] = schema[bound];
        delete out[bound];
      }
    }
    if (schema['deprecated'] === true) out['deprecated'] = true;
    if ('default' in schema) out['default'] = schema['default'];
    if ('const' in schema) out['const'] = schema['const'];
    if (Array.isArray(schema['enum'])) {
      const { values, typeFits } = enumOfType(schema['enum'], out['type']);
      out['enum'] = values;
      if (!typeFits) delete out['type'];
    }

    const props = schema['properties'];
    if (isRecord(props)) {
      const dropped = new Set<string>();
      const properties: Record<string, JsonSchema> = {};
      for (const [name, child] of Object.entries(props)) {
        if (this.absentIn(child, view)) {
          dropped.add(name);
          continue;
        }
        properties[name] = this.norm(child, view, depth + 1);
      }
      out['properties'] = properties;
      if (Array.isArray(schema['required'])) {
        const required = schema['required'].filter((r): r is string => typeof r === 'string' && !dropped.has(r));
        if (required.length > 0) out['required'] = [...new Set(required)];
      }
    } else if (Array.isArray(schema['required'])) {
      const required = schema['required'].filter((r): r is string => typeof r === 'string');
      if (required.length > 0) out['required'] = [...new Set(required)];
    }
    const extra = schema['additionalProperties'];
    if (typeof extra === 'boolean') out['additionalProperties'] = extra;
    else if (isRecord(extra)) out['additionalProperties'] = this.norm(extra, view, depth + 1);
    if (Array.isArray(schema['prefixItems'])) out['prefixItems'] = schema['prefixItems'].map((s) => this.norm(s, view, depth + 1));
    if (schema['items'] !== undefined && !Array.isArray(schema['items'])) out['items'] = this.norm(schema['items'], view, depth + 1);

    if (Array.isArray(schema['allOf'])) out['allOf'] = schema['allOf'].map((s) => this.norm(s, view, depth + 1));
    const branches = [...(Array.isArray(schema['oneOf']) ? schema['oneOf'] : []), ...(Array.isArray(schema['anyOf']) ? schema['anyOf'] : [])];
    if (branches.length > 0) {
      const normalized = branches.map((s) => this.norm(s, view, depth + 1));
      out['anyOf'] = isRecord(schema['discriminator']) ? this.discriminated(schema['discriminator'], branches, normalized) : normalized;
    }
    if (out['type'] === undefined && !out['allOf'] && !out['anyOf'] && (out['properties'] || out['additionalProperties'] !== undefined)) out['type'] = 'object';
    if (out['type'] === undefined && !out['allOf'] && !out['anyOf'] && out['items']) out['type'] = 'array';
    return schema['nullable'] === true ? nullableOf(out) : out;
  }

  /** A property that the view leaves out: readOnly in a request, writeOnly in a response (also when its reference target says so). */
  private absentIn(child: unknown, view: SchemaView): boolean {
    const flag = view === 'request' ? 'readOnly' : 'writeOnly';
    if (!isRecord(child)) return false;
    if (child[flag] === true) return true;
    if (typeof child['$ref'] === 'string' && child['$ref'].startsWith('#/')) {
      const target = resolvePointer(this.doc, child['$ref']);
      return isRecord(target) && target[flag] === true;
    }
    return false;
  }

  /**
   * Branches pinned by the discriminator: each branch that is a reference becomes `allOf [branch, { prop: its
   * values }]`, the values from `mapping` (by reference or by name), else the schema's name as the spec says.
   */
  private discriminated(discriminator: Record<string, unknown>, raw: unknown[], branches: JsonSchema[]): JsonSchema[] {
    const prop = discriminator['propertyName'];
    if (typeof prop !== 'string' || prop === '') return branches;
    const mapping = isRecord(discriminator['mapping']) ? discriminator['mapping'] : {};
    const pointerOf = (target: string) => (target.startsWith('#') ? target : `#/components/schemas/${escapePointer(target)}`);
    return branches.map((branch, i) => {
      const source = raw[i];
      const ref = isRecord(source) && typeof source['$ref'] === 'string' ? source['$ref'] : undefined;
      if (!ref) return branch;
      const mapped = Object.entries(mapping)
        .filter(([, target]) => typeof target === 'string' && pointerOf(target) === ref)
        .map(([value]) => value);
      // without a mapping entry the branch's own schema says its value: documents rarely mean the spec's implicit
      // "the schema's name" (a TrackObject whose type is "track"), and pinning it would make the branch impossible
      if (mapped.length === 0) return branch;
      const pin: JsonSchema = mapped.length === 1 ? { const: mapped[0] } : { enum: mapped };
      return { allOf: [branch, { type: 'object', properties: { [prop]: pin }, required: [prop] }] };
    });
  }
}

/** `schema` admitting null too: a `"null"` type (and null in an enum) where it has a type, else `anyOf [schema, null]`. */
function nullableOf(schema: JsonSchema): JsonSchema {
  const combined = schema['$ref'] !== undefined || schema['allOf'] !== undefined || schema['anyOf'] !== undefined;
  const type = schema['type'];
  if (!combined && (typeof type === 'string' || Array.isArray(type))) {
    const types = Array.isArray(type) ? type : [type];
    const out: JsonSchema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
    if (Array.isArray(schema['enum']) && !schema['enum'].includes(null)) out['enum'] = [...schema['enum'], null];
    return out;
  }
  if (!combined && type === undefined && Object.keys(schema).every((k) => k === 'description' || k === 'default' || k === 'deprecated' || k === 'format')) return schema; // any value already
  const { description, ...rest } = schema;
  return { ...(typeof description === 'string' ? { description } : {}), anyOf: [rest, { type: 'null' }] };
}

/**
 * An enum's values that its `type` admits: documents write `type: number, enum: ["0", "1"]`, which no value
 * satisfies. When none matches, the enum wins and the type goes (the declaration shows the enum's literals).
 */
function enumOfType(values: unknown[], type: unknown): { values: unknown[]; typeFits: boolean } {
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : [];
  if (types.length === 0) return { values: [...values], typeFits: true };
  const fits = (v: unknown) =>
    types.some((t) =>
      t === 'null' ? v === null : t === 'integer' ? Number.isInteger(v) : t === 'number' ? typeof v === 'number' : t === 'array' ? Array.isArray(v) : t === 'object' ? isRecord(v) : typeof v === t,
    );
  const kept = values.filter(fits);
  return kept.length > 0 ? { values: kept, typeFits: true } : { values: [...values], typeFits: false };
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
