// The one JSON Schema -> TypeScript generator: quick index, declarations, API.read files, typecheck and Monaco all use it.
// long: one recursive renderer (render -> object, array, union, $ref -> render) sharing one context, its limits and its alias registry.
//
// It renders a schema as a TypeScript type expression, bounded in depth and width so a huge or hostile
// schema still yields a short, readable type. Local `$ref`s are inlined by name; a recursive `$ref`
// becomes a named type alias when the caller collects aliases (declarations), else `unknown`. A
// `#/$defs/<Name>` reference into a source's named schemas (SchemaDefs) always renders as its name
// (`github.Issue`), and namedTypesDeclaration renders those names once, in the source's namespace.
import type { JsonSchema, SchemaDefs } from '../tools/types.ts';
import { DEFS_REF_PREFIX } from '../tools/types.ts';
import { isRecord } from '../util/is-record.mjs';

/** Nesting of objects/arrays rendered before falling back to `{ [key: string]: unknown }` / `unknown[]`: deep enough for real tool schemas, short enough to read. */
export const DEFAULT_SCHEMA_MAX_DEPTH = 6;
/** Properties rendered per object; the rest collapse into an index signature with a count, so one huge object cannot flood a declaration. */
export const DEFAULT_SCHEMA_MAX_PROPERTIES = 40;
/** Members rendered per union (enum, oneOf, anyOf); beyond it a union says how many members it had instead of listing them. */
export const DEFAULT_SCHEMA_MAX_UNION_MEMBERS = 20;
/** Longest `@default` JSON a doc comment shows: longer defaults are noise in a declaration, and describe() still has the schema. */
export const MAX_DEFAULT_DOC_CHARS = 60;

/** A source's named schemas and how a reference to one is written where the type is rendered. */
export interface NamedTypes {
  defs: SchemaDefs;
  /** `Issue` -> `github.Issue` (a tool's declaration) or `Issue` (inside the namespace). */
  qualify(name: string): string;
}

/** Limits for a named type's body: it is read once per source, so it may be wider than a tool's inline types. */
export const NAMED_TYPE_LIMITS = { maxDepth: 8, maxProperties: 200, maxUnionMembers: 64 } as const;

export interface SchemaToTsOptions {
  /** Where `#/$defs/<Name>` references resolve; each renders as its (qualified) name. */
  named?: NamedTypes;
  maxDepth?: number;
  maxProperties?: number;
  maxUnionMembers?: number;
  /** One line, no doc comments (quick index). */
  compact?: boolean;
  /** Indentation of the line the type starts on (multi-line output). */
  indent?: string;
}

/** A named type a recursive `$ref` renders as; `text` is the alias body. */
export interface TypeAlias {
  name: string;
  text: string;
  description?: string;
}

/**
 * Collects the aliases recursive `$ref`s need while rendering one declaration. Names are
 * `<prefix><DefName>`, unique within the registry; share one registry between a tool's input and
 * output so their aliases never clash.
 */
export class TypeAliasRegistry {
  /** alias key (see `aliasKey`) -> name */
  private readonly names = new Map<string, string>();
  private readonly bodies = new Map<string, TypeAlias>();
  private readonly recursive = new Map<object, Set<string>>();

  constructor(readonly prefix: string) {}

  /** Aliases in first-use order. */
  get aliases(): TypeAlias[] {
    return [...this.bodies.values()];
  }

  /** `type X = ...;` lines for every alias, one after another. */
  render(): string {
    return this.aliases.map((a) => `${docComment(a.description ?? '', '')}type ${a.name} = ${a.text};`).join('\n');
  }

  nameFor(root: object, pointer: string): string {
    const key = aliasKey(root, pointer);
    const known = this.names.get(key);
    if (known) return known;
    const base = `${this.prefix}${aliasBaseName(pointer)}`;
    const taken = new Set(this.names.values());
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
    this.names.set(key, name);
    return name;
  }

  recursiveKeys(root: object): Set<string> {
    let keys = this.recursive.get(root);
    if (!keys) {
      keys = new Set();
      this.recursive.set(root, keys);
    }
    return keys;
  }

  setBody(alias: TypeAlias): void {
    this.bodies.set(alias.name, alias);
  }
}

/**
 * Two schemas with the same definitions share an alias for the same pointer, so a tool whose input
 * and output both use `#/$defs/Node` declares `Node` once.
 */
function aliasKey(root: object, pointer: string): string {
  const r = root as { [key: string]: unknown };
  const scope = pointer.startsWith('#/$defs/') || pointer.startsWith('#/definitions/') ? [r.$defs, r.definitions] : root;
  try {
    return `${pointer}\u0000${JSON.stringify(scope)}`;
  } catch {
    return `${pointer}\u0000${identityOf(root)}`; // not JSON (a cycle in the object graph): fall back to identity
  }
}

const identities = new WeakMap<object, number>();
let nextIdentity = 1;
function identityOf(value: object): number {
  let id = identities.get(value);
  if (id === undefined) {
    id = nextIdentity++;
    identities.set(value, id);
  }
  return id;
}

interface Limits {
  maxDepth: number;
  maxProperties: number;
  maxUnionMembers: number;
  compact: boolean;
}

interface Ctx {
  limits: Limits;
  named?: NamedTypes;
  root: unknown;
  /** `$ref` pointers being expanded right now (cycle detection). */
  stack: string[];
  aliases?: TypeAliasRegistry;
  /** Set when a new recursive `$ref` was found: the render must run again with it aliased. */
  discovered: boolean;
}

/** How a rendered type binds: unions and intersections need parentheses inside `[]` and `&`. */
type Kind = 'primary' | 'union' | 'intersection';
interface Rendered {
  text: string;
  kind: Kind;
}

const UNKNOWN: Rendered = { text: 'unknown', kind: 'primary' };
const INDENT_STEP = '  ';

function limitsOf(opts: SchemaToTsOptions | undefined): Limits {
  return {
    maxDepth: positiveInt(opts?.maxDepth, DEFAULT_SCHEMA_MAX_DEPTH, 'maxDepth'),
    maxProperties: positiveInt(opts?.maxProperties, DEFAULT_SCHEMA_MAX_PROPERTIES, 'maxProperties'),
    maxUnionMembers: positiveInt(opts?.maxUnionMembers, DEFAULT_SCHEMA_MAX_UNION_MEMBERS, 'maxUnionMembers'),
    compact: opts?.compact === true,
  };
}

function positiveInt(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`schemaToTypeScript: options.${field} must be a positive integer, got ${String(value)}; omit it for the default ${fallback}.`);
  }
  return value;
}

/** Render a JSON Schema as a TypeScript type expression. Recursive `$ref`s render as `unknown`. */
export function schemaToTypeScript(schema: unknown, opts?: SchemaToTsOptions): string {
  return renderSchemaType(schema, opts);
}

/**
 * Render a JSON Schema as a TypeScript type expression; with `aliases`, recursive `$ref`s become
 * named aliases collected in the registry (the caller prints them with `aliases.render()`).
 */
export function renderSchemaType(schema: unknown, opts?: SchemaToTsOptions & { aliases?: TypeAliasRegistry }): string {
  const limits = limitsOf(opts);
  const indent = opts?.indent ?? '';
  const aliases = opts?.aliases;
  const named = opts?.named ? { named: opts.named } : {};
  if (!aliases || !isRecord(schema)) {
    // The root is being expanded already: a `#` reference inside it is a cycle.
    return render(schema, { limits, ...named, root: schema, stack: ['#'], discovered: false }, 0, indent).text;
  }
  const recursive = aliases.recursiveKeys(schema);
  // Each pass may discover another recursive $ref; it is then aliased everywhere, so re-render until stable.
  for (;;) {
    const ctx: Ctx = { limits, ...named, root: schema, stack: ['#'], aliases, discovered: false };
    const text = render(schema, ctx, 0, indent).text;
    const bodies: TypeAlias[] = [];
    let discovered = ctx.discovered;
    for (const pointer of [...recursive]) {
      if (discovered) break;
      const bodyCtx: Ctx = { limits, ...named, root: schema, stack: [pointer], aliases, discovered: false };
      const target = resolvePointer(schema, pointer);
      const body = render(target, bodyCtx, 0, '');
      const description = isRecord(target) && typeof target.description === 'string' ? target.description : undefined;
      bodies.push({ name: aliases.nameFor(schema, pointer), text: body.text, ...(description === undefined ? {} : { description }) });
      discovered = bodyCtx.discovered;
    }
    // Each discovering pass adds a new pointer to a set bounded by the schema's distinct $refs, so this ends.
    if (discovered) continue;
    for (const alias of bodies) aliases.setBody(alias);
    return text;
  }
}

function render(schema: unknown, ctx: Ctx, depth: number, indent: string): Rendered {
  if (schema === true || schema === undefined) return UNKNOWN;
  if (schema === false) return { text: 'never', kind: 'primary' };
  if (!isRecord(schema)) return UNKNOWN;
  const core = renderCore(schema, ctx, depth, indent);
  if (schema.nullable === true && core.text !== 'unknown' && core.text !== 'null') {
    return union([core, { text: 'null', kind: 'primary' }], ctx);
  }
  return core;
}

function renderCore(schema: JsonSchema, ctx: Ctx, depth: number, indent: string): Rendered {
  if (typeof schema.$ref === 'string') return renderRef(schema.$ref, ctx, depth, indent);
  if ('const' in schema) return { text: literal(schema.const), kind: 'primary' };
  if (Array.isArray(schema.enum)) return renderEnum(schema.enum, ctx);

  const parts: Rendered[] = [];
  if (hasStructure(schema)) parts.push(renderByType(schema, ctx, depth, indent));
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) parts.push(render(member, ctx, depth, indent));
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members)) parts.push(renderUnionOf(members, ctx, depth, indent));
  }
  if (parts.length === 0) return UNKNOWN;
  return intersection(parts);
}

/** Keywords that say what shape the value has (as opposed to only combining other schemas). */
function hasStructure(schema: JsonSchema): boolean {
  return (
    schema.type !== undefined ||
    isRecord(schema.properties) ||
    schema.additionalProperties !== undefined ||
    isRecord(schema.patternProperties) ||
    schema.items !== undefined ||
    Array.isArray(schema.prefixItems)
  );
}

function renderByType(schema: JsonSchema, ctx: Ctx, depth: number, indent: string): Rendered {
  const type = schema.type;
  if (Array.isArray(type)) {
    const members = type.filter((t): t is string => typeof t === 'string').map((t) => renderType(t, schema, ctx, depth, indent));
    return members.length === 0 ? UNKNOWN : union(members, ctx);
  }
  if (typeof type === 'string') return renderType(type, schema, ctx, depth, indent);
  if (isRecord(schema.properties) || schema.additionalProperties !== undefined || isRecord(schema.patternProperties)) {
    return renderObject(schema, ctx, depth, indent);
  }
  if (schema.items !== undefined || Array.isArray(schema.prefixItems)) return renderArray(schema, ctx, depth, indent);
  return UNKNOWN;
}

function renderType(type: string, schema: JsonSchema, ctx: Ctx, depth: number, indent: string): Rendered {
  switch (type) {
    case 'string':
      return { text: 'string', kind: 'primary' };
    case 'number':
    case 'integer':
      return { text: 'number', kind: 'primary' };
    case 'boolean':
      return { text: 'boolean', kind: 'primary' };
    case 'null':
      return { text: 'null', kind: 'primary' };
    case 'object':
      return renderObject(schema, ctx, depth, indent);
    case 'array':
      return renderArray(schema, ctx, depth, indent);
    default:
      return UNKNOWN;
  }
}

function renderRef(ref: string, ctx: Ctx, depth: number, indent: string): Rendered {
  if (ctx.named && ref.startsWith(DEFS_REF_PREFIX)) {
    const name = ref.slice(DEFS_REF_PREFIX.length);
    return ctx.named.defs.get(name) === undefined ? UNKNOWN : { text: ctx.named.qualify(name), kind: 'primary' };
  }
  if (!ref.startsWith('#')) return UNKNOWN; // remote refs are never fetched: no I/O in the generator
  const target = resolvePointer(ctx.root, ref);
  if (target === undefined) return UNKNOWN;
  const aliases = ctx.aliases;
  if (aliases && isRecord(ctx.root)) {
    const recursive = aliases.recursiveKeys(ctx.root);
    if (recursive.has(ref)) return { text: aliases.nameFor(ctx.root, ref), kind: 'primary' };
    if (ctx.stack.includes(ref)) {
      recursive.add(ref);
      ctx.discovered = true;
      return { text: aliases.nameFor(ctx.root, ref), kind: 'primary' };
    }
  } else if (ctx.stack.includes(ref)) {
    return UNKNOWN;
  }
  ctx.stack.push(ref);
  try {
    return render(target, ctx, depth, indent);
  } finally {
    ctx.stack.pop();
  }
}

function renderEnum(values: unknown[], ctx: Ctx): Rendered {
  if (values.length === 0) return { text: 'never', kind: 'primary' };
  if (values.length > ctx.limits.maxUnionMembers) {
    const kinds = [...new Set(values.map(jsonKind))];
    return { text: `${kinds.join(' | ')} /* one of ${values.length} values */`, kind: 'union' };
  }
  return union(
    values.map((v) => ({ text: literal(v), kind: 'primary' as const })),
    ctx,
  );
}

function renderUnionOf(members: unknown[], ctx: Ctx, depth: number, indent: string): Rendered {
  if (members.length === 0) return { text: 'never', kind: 'primary' };
  if (members.length > ctx.limits.maxUnionMembers) {
    return { text: `unknown /* one of ${members.length} shapes */`, kind: 'union' };
  }
  return union(
    members.map((m) => render(m, ctx, depth, indent)),
    ctx,
  );
}

function renderObject(schema: JsonSchema, ctx: Ctx, depth: number, indent: string): Rendered {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const names = Object.keys(properties);
  for (const r of required) if (!(r in properties)) names.push(r);

  const extra = schema.additionalProperties;
  const patterns = isRecord(schema.patternProperties) ? Object.values(schema.patternProperties) : [];
  // An object schema that says nothing about its keys admits any; `properties: {}` alone means "no fields".
  const unspecified = !isRecord(schema.properties) && names.length === 0 && extra === undefined;
  const open = extra === true || isRecord(extra) || patterns.length > 0 || unspecified;
  if (names.length === 0 && !open) return { text: '{}', kind: 'primary' };
  // One-line renderings say `object`: the same meaning for a reader, a fraction of the width.
  if (depth >= ctx.limits.maxDepth) return { text: ctx.limits.compact ? 'object' : '{ [key: string]: unknown }', kind: 'primary' };

  // Keep required properties first when the object is too wide: a call must be able to name them.
  let shown = names;
  if (names.length > ctx.limits.maxProperties) {
    const keep = new Set([...names.filter((n) => required.has(n)), ...names.filter((n) => !required.has(n))].slice(0, ctx.limits.maxProperties));
    shown = names.filter((n) => keep.has(n));
  }
  const hidden = names.length - shown.length;

  const inner = indent + INDENT_STEP;
  const members: string[] = [];
  for (const name of shown) {
    const propSchema = properties[name];
    const type = render(propSchema, ctx, depth + 1, inner).text;
    const optional = required.has(name) ? '' : '?';
    const doc = ctx.limits.compact ? '' : docComment(propertyDoc(propSchema), inner);
    members.push(`${doc}${propertyKey(name)}${optional}: ${type};`);
  }
  if (hidden > 0 || open) {
    let valueType = 'unknown';
    // An index signature must admit every declared property's type, so it is only precise without declared properties.
    if (names.length === 0 && (isRecord(extra) || patterns.length > 0)) {
      const sources = [...(isRecord(extra) ? [extra] : []), ...patterns];
      valueType = union(
        sources.map((s) => render(s, ctx, depth + 1, inner)),
        ctx,
      ).text;
    }
    const note = hidden > 0 ? `/* ${hidden} more ${hidden === 1 ? 'property' : 'properties'} */ ` : '';
    members.push(`${note}[key: string]: ${valueType};`);
  }

  if (ctx.limits.compact) {
    const body = members.map((m, i) => (i === members.length - 1 ? m.slice(0, -1) : m)).join(' ');
    return { text: `{ ${body} }`, kind: 'primary' };
  }
  return { text: `{\n${members.map((m) => `${inner}${m}`).join('\n')}\n${indent}}`, kind: 'primary' };
}

function renderArray(schema: JsonSchema, ctx: Ctx, depth: number, indent: string): Rendered {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  const rest: unknown = Array.isArray(schema.prefixItems) ? schema.items : Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  if (depth >= ctx.limits.maxDepth) return { text: 'unknown[]', kind: 'primary' };
  if (prefix) {
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : prefix.length;
    const shown = prefix.slice(0, ctx.limits.maxProperties);
    const elements = shown.map((item, i) => `${render(item, ctx, depth + 1, indent).text}${i >= minItems ? '?' : ''}`);
    if (shown.length < prefix.length) elements.push('...unknown[]');
    else if (rest !== undefined && rest !== false) elements.push(`...${arrayOf(render(rest, ctx, depth + 1, indent))}`);
    return { text: `[${elements.join(', ')}]`, kind: 'primary' };
  }
  return { text: arrayOf(render(rest, ctx, depth + 1, indent)), kind: 'primary' };
}

function arrayOf(element: Rendered): string {
  return element.kind === 'primary' ? `${element.text}[]` : `(${element.text})[]`;
}

function union(members: Rendered[], ctx: Ctx): Rendered {
  const unique: Rendered[] = [];
  const seen = new Set<string>();
  for (const m of members) {
    if (m.text === 'unknown') return UNKNOWN;
    if (m.text === 'never' || seen.has(m.text)) continue;
    seen.add(m.text);
    unique.push(m);
  }
  if (unique.length === 0) return { text: 'never', kind: 'primary' };
  const first = unique[0];
  if (unique.length === 1 && first) return first;
  if (unique.length > ctx.limits.maxUnionMembers) return { text: `unknown /* one of ${unique.length} shapes */`, kind: 'union' };
  return { text: unique.map((m) => m.text).join(' | '), kind: 'union' };
}

function intersection(members: Rendered[]): Rendered {
  // `unknown` is the identity of `&`: members that only constrain values (e.g. `{ required: [...] }`) add no type.
  const useful = members.filter((m) => m.text !== 'unknown');
  if (useful.some((m) => m.text === 'never')) return { text: 'never', kind: 'primary' };
  const unique = [...new Map(useful.map((m) => [m.text, m])).values()];
  const first = unique[0];
  if (!first) return UNKNOWN;
  if (unique.length === 1) return first;
  return { text: unique.map((m) => (m.kind === 'union' ? `(${m.text})` : m.text)).join(' & '), kind: 'intersection' };
}

/** A JSON value as a TypeScript literal type. */
function literal(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'number';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (isRecord(value)) {
    const entries = Object.entries(value).map(([k, v]) => `${propertyKey(k)}: ${literal(v)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join('; ')} }`;
  }
  return 'unknown';
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'unknown[]';
  if (typeof value === 'object') return '{ [key: string]: unknown }';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return typeof value;
  return 'unknown';
}

const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;

/** A property name as TypeScript accepts it: bare when it is an identifier name (reserved words are fine there), else quoted. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function propertyDoc(schema: unknown): string {
  if (!isRecord(schema)) return '';
  const lines: string[] = [];
  if (typeof schema.description === 'string' && schema.description.trim() !== '') lines.push(schema.description.trim());
  if ('default' in schema) {
    const json = JSON.stringify(schema.default);
    if (json !== undefined && json.length <= MAX_DEFAULT_DOC_CHARS) lines.push(`@default ${json}`);
  }
  if (schema.deprecated === true) lines.push('@deprecated');
  return lines.join('\n');
}

/** `/** text *\/` (one line) or a multi-line block, each line at `indent`; ends with a newline plus `indent`. Empty text -> ''. */
export function docComment(text: string, indent: string): string {
  const safe = text.replace(/\*\//g, '*\\/').trim();
  if (safe === '') return '';
  const lines = safe.split(/\r?\n/);
  if (lines.length === 1) return `/** ${safe} */\n${indent}`;
  return `/**\n${lines.map((l) => `${indent} *${l.trim() === '' ? '' : ` ${l.trimEnd()}`}`).join('\n')}\n${indent} */\n${indent}`;
}

/** Resolve a local JSON pointer (`#`, `#/$defs/Node`, `#/definitions/a~1b`) against the root schema. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#' || ref === '#/') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isRecord(node)) node = Object.prototype.hasOwnProperty.call(node, segment) ? node[segment] : undefined;
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

function aliasBaseName(pointer: string): string {
  const last = pointer === '#' || pointer === '#/' ? 'Root' : (pointer.split('/').pop() ?? 'Type');
  let decoded = last;
  try {
    decoded = decodeURIComponent(last).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    // keep the raw segment
  }
  const cleaned = decoded.replace(/[^\p{ID_Continue}$]/gu, '_');
  return cleaned === '' ? 'Type' : cleaned;
}

/**
 * Whether `{}` validates against the schema as far as a declaration can tell: an object (or
 * untyped) schema without required properties. Decides `input?:` over `input:`.
 */
export function acceptsEmptyObject(schema: unknown, root: unknown = schema, seen: Set<string> = new Set(), defs?: SchemaDefs): boolean {
  if (schema === undefined || schema === true) return true;
  if (!isRecord(schema)) return false;
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return true;
    seen.add(schema.$ref);
    const target = defs && schema.$ref.startsWith(DEFS_REF_PREFIX) ? defs.get(schema.$ref.slice(DEFS_REF_PREFIX.length)) : resolvePointer(root, schema.$ref);
    return target === undefined ? true : acceptsEmptyObject(target, root, seen, defs);
  }
  const type = schema.type;
  if (typeof type === 'string' && type !== 'object') return false;
  if (Array.isArray(type) && !type.includes('object')) return false;
  if ('const' in schema) return isRecord(schema.const) && Object.keys(schema.const).length === 0;
  if (Array.isArray(schema.enum)) return schema.enum.some((v) => isRecord(v) && Object.keys(v).length === 0);
  if (Array.isArray(schema.required) && schema.required.length > 0) return false;
  if (typeof schema.minProperties === 'number' && schema.minProperties > 0) return false;
  if (Array.isArray(schema.allOf) && !schema.allOf.every((s) => acceptsEmptyObject(s, root, seen, defs))) return false;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members) && !members.some((s) => acceptsEmptyObject(s, root, seen, defs))) return false;
  }
  return true;
}

export interface SignatureParts {
  /** `input: T` or `input?: T` */
  param: string;
  /** The output type (not wrapped in Promise). */
  output: string;
}

/**
 * The pieces of a tool's call signature: the parameter (optional when `{}` is valid input) and the
 * output type (`unknown` without an output schema). With `aliases`, recursive types are named there.
 */
export function signatureParts(
  inputSchema: JsonSchema,
  outputSchema: JsonSchema | undefined,
  opts?: SchemaToTsOptions & { aliases?: TypeAliasRegistry },
): SignatureParts {
  const input = renderSchemaType(inputSchema, opts);
  const output = outputSchema === undefined ? 'unknown' : renderSchemaType(outputSchema, opts);
  const optional = acceptsEmptyObject(inputSchema, inputSchema, new Set(), opts?.named?.defs);
  return { param: `input${optional ? '?' : ''}: ${input}`, output };
}

/**
 * `declare function name(input: {...}): Promise<Out>;` with the tool description as a doc comment,
 * preceded by `type` aliases for recursive schemas (named `<callableName>__<Def>`).
 */
export function declarationFor(callableName: string, inputSchema: JsonSchema, outputSchema?: JsonSchema, description?: string, named?: NamedTypes): string {
  const aliases = new TypeAliasRegistry(`${callableName}__`);
  const { param, output } = signatureParts(inputSchema, outputSchema, { aliases, ...(named ? { named } : {}) });
  const aliasText = aliases.render();
  const doc = docComment(description ?? '', '');
  return `${aliasText === '' ? '' : `${aliasText}\n`}${doc}declare function ${callableName}(${param}): Promise<${output}>;`;
}

/** `(input: T) -> Out` on one line, for the quick index. */
export function compactSignature(inputSchema: JsonSchema, outputSchema: JsonSchema | undefined, opts?: Omit<SchemaToTsOptions, 'compact' | 'indent'>): SignatureParts {
  return signatureParts(inputSchema, outputSchema, { ...opts, compact: true });
}

/**
 * `declare namespace <namespace> { type Issue = ...; ... }`: the named schemas `names` (all of them by default), each
 * rendered once by this generator, referring to each other by bare name. Refers to names outside `names` as well
 * (the caller passes a closed set, see referencedNames).
 */
export function namedTypesDeclaration(namespace: string, defs: SchemaDefs, names: readonly string[] = defs.names(), head = ''): string {
  const named: NamedTypes = { defs, qualify: (name) => name };
  const members: string[] = [];
  for (const name of names) {
    const schema = defs.get(name);
    if (schema === undefined) continue;
    const body = renderSchemaType(schema, { ...NAMED_TYPE_LIMITS, named, indent: '  ' });
    const doc = typeof schema['description'] === 'string' ? docComment(schema['description'], '  ') : '';
    members.push(`  ${doc}type ${name} = ${body};`);
  }
  return `${head}declare namespace ${namespace} {\n${members.join('\n')}\n}`;
}
