// Config error wording: dotted field paths, value descriptions, zod issues turned into ConfigErrors that say what to do.
import { z } from 'zod';
import { ConfigError } from '../errors.ts';

/** One thing wrong with a config, before it becomes a ConfigError. */
export interface ConfigProblem {
  /** Dotted path (`tools.codeMode.timeoutMs`, `agents.defaults.models["demo/coder"].codeMode`); empty for the whole file. */
  path: string;
  reason: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `['agents', 'list', 0, 'models', 'a/b']` -> `agents.list[0].models["a/b"]`. */
export function formatConfigPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && IDENTIFIER.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** A short, quoted rendering of a bad value for an error message. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    // Long strings are cut so one bad field cannot flood the message.
    const shown = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

/** Error text for a field of `expected` type: "required" when absent, "expected X, got Y" otherwise, then the hint. */
export function expectedReason(expected: string, hint: string, input: unknown): string {
  if (input === undefined) return `required; ${hint}`;
  return `expected ${expected}, got ${describeValue(input)}; ${hint}`;
}

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] ?? 0;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] ?? 0;
      const left = previous[j - 1] ?? 0;
      previous[j] = Math.min(above + 1, left + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length] ?? 0;
}

/** The known key a typo most likely meant, if one is close enough to be a typo rather than a different word. */
export function suggestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const caseOnly = known.find((k) => k.toLowerCase() === lower);
  if (caseOnly) return caseOnly;
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= Math.max(1, Math.floor(candidate.length / 4)) && (!best || distance < best.distance)) {
      best = { key: candidate, distance };
    }
  }
  return best?.key;
}

/** Message for keys a strict object does not know. Typos must not be silently ignored. */
export function unknownKeysReason(keys: readonly string[], known: readonly string[]): string {
  const knownList = known.join(', ');
  if (keys.length === 1) {
    const key = keys[0] ?? '';
    const suggestion = suggestKey(key, known);
    return suggestion
      ? `unknown field; did you mean "${suggestion}"? Known fields: ${knownList}`
      : `unknown field; remove it or use one of: ${knownList}`;
  }
  return `unknown fields ${keys.map((k) => JSON.stringify(k)).join(', ')}; remove them or use one of: ${knownList}`;
}

/** An integer field's bounds (config/schema.ts IntBounds): the unit names what it counts in messages. */
interface Bounds {
  min: number;
  max: number;
  unit: string;
}

/** A whole number within `bounds`, rejected (not clamped) outside them, the error naming the range and an example. */
export function boundedInt({ min, max, unit }: Bounds, example: number) {
  const hint = `write a whole number of ${unit} from ${min} to ${max}, e.g. ${example}`;
  return z
    .number({ error: (issue) => expectedReason('an integer', hint, issue.input) })
    .refine((v) => Number.isInteger(v) && v >= min && v <= max, { error: (issue) => expectedReason('an integer in range', hint, issue.input) });
}

/**
 * A zod object that rejects unknown keys with a message listing the known ones.
 * `what` names the object in "expected an object (...)" errors.
 */
export function strictObject<Shape extends z.ZodRawShape>(shape: Shape, what: string) {
  const known = Object.keys(shape).filter((k) => k !== '$schema');
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return unknownKeysReason(issue.keys, known);
      return expectedReason(`an object (${what})`, `write it as { ${known.join(', ')} }`, issue.input);
    },
  });
}

/** Zod issues as (segments, reason) pairs: the one place zod's issue shapes are read. */
export function zodProblemSegments(error: z.ZodError): Array<{ segments: PropertyKey[]; reason: string }> {
  return error.issues.map((issue) => {
    const segments: PropertyKey[] = [...issue.path];
    if (issue.code === 'unrecognized_keys' && issue.keys.length === 1 && issue.keys[0] !== undefined) {
      // One unknown key: point at the key itself so the path is what the user must fix.
      segments.push(issue.keys[0]);
    }
    let reason = issue.message;
    if (issue.code === 'invalid_key') {
      // Record keys: the key schema's own message is the useful one, zod's wrapper only says "Invalid key".
      reason = issue.issues[0]?.message ?? reason;
    }
    return { segments, reason };
  });
}

/** Flattens zod issues into problems with dotted paths, prefixed by where the parsed value sits in the file. */
export function problemsFromZod(error: z.ZodError, prefix: readonly PropertyKey[] = []): ConfigProblem[] {
  return zodProblemSegments(error).map(({ segments, reason }) => ({ path: formatConfigPath([...prefix, ...segments]), reason }));
}

/** One ConfigError for a list of problems: the first names the field, the rest follow so one run shows them all. */
export function configErrorFrom(problems: readonly ConfigProblem[]): ConfigError {
  const [first, ...rest] = problems;
  if (!first) return new ConfigError('', 'invalid config');
  const more = rest.map((p) => `\n  also ${p.path ? `${p.path}: ` : ''}${p.reason}`).join('');
  return new ConfigError(first.path, `${first.reason}${more}`);
}

/** Runs a schema and throws one ConfigError naming every bad field; never returns a partial value. */
export function parseOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  prefix: readonly PropertyKey[] = [],
): z.output<Schema> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw configErrorFrom(problemsFromZod(result.error, prefix));
  return result.data;
}

/** Splits a dotted path the same way formatConfigPath writes it, for prefixes given as text. */
export function pathSegments(path: string): PropertyKey[] {
  if (!path) return [];
  const segments: PropertyKey[] = [];
  const pattern = /([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const match of path.matchAll(pattern)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(match[3]) as string);
  }
  return segments;
}
