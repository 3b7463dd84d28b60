// Schema validation for tool calls: a small JSON Schema subset checked on a call's input before any execute
// runs, and on its output (when the tool declares one) before the caller receives it.
//
// Supported keywords: type (string or array of types), properties, required,
// additionalProperties (false or a schema), enum, const, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, items,
// minItems, maxItems, allOf, anyOf, oneOf, and local $refs: `#/$defs/<Name>` into the
// tool's SchemaDefs (an OpenAPI source's named schemas, looked up when a value reaches
// them, never expanded), else a JSON pointer into the schema itself. Other keywords
// (description, default, title, format, ...) are annotations and are ignored. Tools in
// this repo declare only this subset; a richer schema still validates what it can.
// A check is bounded in steps (a schema whose unions nest through names can multiply).
//
// Input is hostile: every key is looked up as an own property (of the input and of the schema's
// `properties`), so `__proto__`, `constructor` or `prototype` are fields like any other and never
// resolve to something inherited from Object.prototype.
import { ToolError } from '../errors.ts';
import type { JsonSchema, SchemaDefs, ToolContext, ToolDefinition } from './types.ts';
import { DEFS_REF_PREFIX } from './types.ts';
import { isRecord } from '../util/is-record.mjs';

/** Error code a schema mismatch carries into the guest (same word as the exec error code, for one vocabulary). */
export const INVALID_TOOL_INPUT_CODE = 'invalid_input';

/**
 * Error code of a result that contradicts the tool's declared output schema. The spec's exec codes have no
 * word for it (`invalid_input` would blame the caller's input, `internal_error` the runtime), so it is a
 * nested-call code like `not_found` or `mcp_error`, named as the mirror of `invalid_input`.
 */
export const INVALID_TOOL_OUTPUT_CODE = 'invalid_output';

export interface SchemaIssue {
  /** Dotted / indexed field path (`limit`, `args[2]`, `filter.city`); empty for the input itself. */
  field: string;
  message: string;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    default:
      // An unknown type word is a schema bug, not the caller's: do not block the call on it.
      return true;
  }
}

/** Short, bounded rendering of a bad value for error text (inputs are hostile and may be huge). */
function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function join(field: string, key: string): string {
  return field ? `${field}.${key}` : key;
}

function childSchema(value: unknown): JsonSchema | undefined {
  return isRecord(value) ? value : undefined;
}

/** `record[key]` when it is an own property; never an inherited member such as `__proto__` or `constructor`. */
function ownValue(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Schema steps one check may take (about a second here, on the event loop): 100 GitHub issues or repositories (up to 1 MB of JSON) take a fraction of it. */
export const MAX_SCHEMA_CHECK_STEPS = 1_000_000;
/** References followed in a row without reaching into the value (`A = allOf [B]`, `B = allOf [A]`): past it the reference admits the value. */
const MAX_REF_CHAIN = 64;

export interface CheckOptions {
  /** Where `#/$defs/<Name>` references resolve (the tool's named schemas). */
  defs?: SchemaDefs;
}

interface CheckContext {
  defs: SchemaDefs | undefined;
  /** The schema a `#/...` pointer resolves against. */
  rootSchema: JsonSchema;
  steps: number;
  /** The path's label in messages ("input", "output"). */
  root: string;
}

class CheckTooLong extends Error {}

/**
 * Collects every mismatch between `value` and `schema` (first issue per field is enough for a message).
 * `root` names the value itself in messages ("input", or "output" for a tool's result).
 */
export function checkSchema(schema: JsonSchema, value: unknown, field = '', root = 'input', opts: CheckOptions = {}): SchemaIssue[] {
  const ctx: CheckContext = { defs: opts.defs, rootSchema: schema, steps: 0, root };
  try {
    return check(schema, value, field, ctx, 0);
  } catch (err) {
    if (!(err instanceof CheckTooLong)) throw err;
    return [{ field, message: `"${field || root}" could not be checked: its schema needs more than ${MAX_SCHEMA_CHECK_STEPS} steps for this value` }];
  }
}

/** The schema a local `$ref` names: a SchemaDefs name, else a JSON pointer into the root schema; undefined when it names nothing. */
function resolveRef(ref: string, ctx: CheckContext): JsonSchema | undefined {
  if (ctx.defs && ref.startsWith(DEFS_REF_PREFIX)) return ctx.defs.get(ref.slice(DEFS_REF_PREFIX.length));
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  let node: unknown = ctx.rootSchema;
  for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return isRecord(node) ? node : undefined;
}

function check(schema: JsonSchema, value: unknown, field: string, ctx: CheckContext, refChain: number): SchemaIssue[] {
  ctx.steps += 1;
  if (ctx.steps > MAX_SCHEMA_CHECK_STEPS) throw new CheckTooLong();
  const root = ctx.root;
  const issues: SchemaIssue[] = [];
  const where = field || root;

  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    const target = refChain < MAX_REF_CHAIN ? resolveRef(ref, ctx) : undefined;
    // an unknown or remote reference constrains nothing a declaration could show (it renders as unknown)
    if (target) issues.push(...check(target, value, field, ctx, refChain + 1));
  }

  const type = schema['type'];
  if (typeof type === 'string' || Array.isArray(type)) {
    const types = (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string');
    if (types.length > 0 && !types.some((t) => matchesType(value, t))) {
      const expected = types.join(' or ');
      const got = value === undefined ? 'nothing' : `${typeOf(value)} ${show(value)}`;
      issues.push({ field, message: `"${where}" must be ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}; got ${got}` });
      // Further keyword checks on a value of the wrong type only add noise.
      return issues;
    }
  }

  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && !enumValues.some((candidate) => candidate === value)) {
    issues.push({ field, message: `"${where}" must be one of ${enumValues.map((v) => show(v)).join(', ')}; got ${show(value)}` });
  }
  if ('const' in schema && schema['const'] !== value) {
    issues.push({ field, message: `"${where}" must be ${show(schema['const'])}; got ${show(value)}` });
  }

  if (typeof value === 'number') {
    const min = schema['minimum'];
    const max = schema['maximum'];
    const exMin = schema['exclusiveMinimum'];
    const exMax = schema['exclusiveMaximum'];
    if (typeof min === 'number' && value < min) issues.push({ field, message: `"${where}" must be >= ${min}; got ${value}` });
    if (typeof max === 'number' && value > max) issues.push({ field, message: `"${where}" must be <= ${max}; got ${value}` });
    if (typeof exMin === 'number' && value <= exMin) issues.push({ field, message: `"${where}" must be > ${exMin}; got ${value}` });
    if (typeof exMax === 'number' && value >= exMax) issues.push({ field, message: `"${where}" must be < ${exMax}; got ${value}` });
  }

  if (typeof value === 'string') {
    const minLength = schema['minLength'];
    const maxLength = schema['maxLength'];
    const pattern = schema['pattern'];
    if (typeof minLength === 'number' && value.length < minLength) {
      issues.push({ field, message: `"${where}" must have at least ${minLength} character(s); got ${value.length}` });
    }
    if (typeof maxLength === 'number' && value.length > maxLength) {
      issues.push({ field, message: `"${where}" must have at most ${maxLength} characters; got ${value.length}` });
    }
    if (typeof pattern === 'string') {
      let re: RegExp | undefined;
      try {
        re = new RegExp(pattern, 'u');
      } catch {
        re = undefined;
      }
      if (re && !re.test(value)) issues.push({ field, message: `"${where}" must match /${pattern}/; got ${show(value)}` });
    }
  }

  if (Array.isArray(value)) {
    const minItems = schema['minItems'];
    const maxItems = schema['maxItems'];
    if (typeof minItems === 'number' && value.length < minItems) {
      issues.push({ field, message: `"${where}" must have at least ${minItems} item(s); got ${value.length}` });
    }
    if (typeof maxItems === 'number' && value.length > maxItems) {
      issues.push({ field, message: `"${where}" must have at most ${maxItems} items; got ${value.length}` });
    }
    const items = childSchema(schema['items']);
    if (items) value.forEach((item, index) => issues.push(...check(items, item, `${field || root}[${index}]`, ctx, 0)));
  }

  if (isRecord(value)) {
    const properties = childSchema(schema['properties']) ?? {};
    const required = schema['required'];
    if (Array.isArray(required)) {
      for (const key of required) {
        if (typeof key === 'string' && ownValue(value, key) === undefined) {
          issues.push({ field: join(field, key), message: `"${join(field, key)}" is required` });
        }
      }
    }
    const additional = schema['additionalProperties'];
    for (const [key, child] of Object.entries(value)) {
      const propertySchema = childSchema(ownValue(properties, key));
      if (propertySchema) {
        if (child !== undefined) issues.push(...check(propertySchema, child, join(field, key), ctx, 0));
      } else if (additional === false) {
        const allowed = Object.keys(properties);
        issues.push({
          field: join(field, key),
          message: `"${join(field, key)}" is not a known field${allowed.length ? `; allowed: ${allowed.join(', ')}` : '; this object takes no fields'}`,
        });
      } else {
        const extra = childSchema(additional);
        if (extra && child !== undefined) issues.push(...check(extra, child, join(field, key), ctx, 0));
      }
    }
  }

  const all = schema['allOf'];
  if (Array.isArray(all)) for (const member of all) if (isRecord(member)) issues.push(...check(member, value, field, ctx, refChain + 1));

  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const passing = branches.filter((branch) => isRecord(branch) && check(branch, value, field, ctx, refChain + 1).length === 0).length;
    if (passing === 0) issues.push({ field, message: `"${where}" matches none of the allowed shapes; got ${show(value)}` });
    else if (keyword === 'oneOf' && passing > 1) issues.push({ field, message: `"${where}" matches more than one allowed shape` });
  }

  return issues;
}

/** Throws a ToolError naming the first bad field and saying how to fix it. */
export function validateToolInput(tool: Pick<ToolDefinition, 'name' | 'inputSchema' | 'schemaDefs'>, input: unknown): void {
  const issues = checkSchema(tool.inputSchema, input, '', 'input', tool.schemaDefs ? { defs: tool.schemaDefs } : {});
  const first = issues[0];
  if (!first) return;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  throw new ToolError(
    `${tool.name}: invalid input: ${first.message}${more}. Fix the input to match the tool's input schema (describe() shows it) and call again.`,
    INVALID_TOOL_INPUT_CODE,
  );
}

/**
 * Throws an `invalid_output` ToolError when a tool's result contradicts its declared output schema, naming
 * the first bad field and what was expected. `label` is how the caller named the tool. A tool without an
 * output schema is not checked (its result is `unknown` to the caller anyway). For an MCP tool the schema
 * describes `structuredContent`, as MCP clients check it: an `isError` result is a value and is not checked,
 * and a successful result must carry `structuredContent`.
 */
export function validateToolOutput(label: string, tool: Pick<ToolDefinition, 'outputSchema' | 'source' | 'schemaDefs'>, output: unknown): void {
  const schema = tool.outputSchema;
  if (schema === undefined) return;
  let issues: SchemaIssue[];
  if (tool.source === 'mcp') {
    if (!isRecord(output) || output['isError'] === true) return;
    const structured = ownValue(output, 'structuredContent');
    issues =
      structured === undefined
        ? [{ field: 'structuredContent', message: 'the tool declares an output schema but its result has no "structuredContent"' }]
        : checkSchema(schema, structured, 'structuredContent');
  } else {
    issues = checkSchema(schema, output, '', 'output', tool.schemaDefs ? { defs: tool.schemaDefs } : {});
  }
  const first = issues[0];
  if (!first) return;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  throw new ToolError(
    `${label}: invalid output: ${first.message}${more}. The tool's result contradicts its declared output schema, so it was not delivered; ` +
      'this is a fault of the tool, not of your input. Check whether the call already had its effect before calling it again, or use another tool.',
    INVALID_TOOL_OUTPUT_CODE,
  );
}

/** The same tool, whose execute validates its input first. Idempotent: a validated tool is returned as is. */
export function withInputValidation(tool: ToolDefinition): ToolDefinition {
  const execute = tool.execute;
  if (!execute || validatedExecutes.has(execute)) return tool;
  const validated = async (input: unknown, ctx: ToolContext): Promise<unknown> => {
    validateToolInput(tool, input);
    return execute(input, ctx);
  };
  validatedExecutes.add(validated);
  return { ...tool, execute: validated };
}

const validatedExecutes = new WeakSet<NonNullable<ToolDefinition['execute']>>();
