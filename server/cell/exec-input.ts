// exec input validation: the code/command alias rules, language, typecheck and restartSafe (spec: tool surface, exec Rules).
import { InvalidInputError } from '../errors.ts';
import { isRecord } from '../util/is-record.mjs';

export type CellLanguage = 'javascript' | 'typescript';

/** An exec input after the spec's rules: one source string, every option resolved. */
export interface NormalizedExecInput {
  code: string;
  language: CellLanguage;
  restartSafe: boolean;
  typecheck: boolean;
}

export interface NormalizeExecOptions {
  /**
   * The input as the caller sent it, when a hook or trusted policy rewrote it into `raw`.
   * An alias the caller populated that the rewrite left blank or non-string invalidates both aliases
   * (spec: "invalidates both so execution fails closed"); a caller's own blank alias only counts as absent.
   */
  callerInput?: unknown;
}

const EXEC_FIELDS = ['code', 'command', 'language', 'restartSafe', 'typecheck'] as const;
const LANGUAGES: readonly CellLanguage[] = ['javascript', 'typescript'];
const ALIASES = ['code', 'command'] as const;
type Alias = (typeof ALIASES)[number];

type AliasState = { kind: 'absent' } | { kind: 'blank' } | { kind: 'text'; text: string } | { kind: 'invalid'; got: string };

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

// `undefined` is the only absence: null is a populated non-string and fails closed like any other.
function aliasState(record: Record<string, unknown>, alias: Alias): AliasState {
  const value = record[alias];
  if (value === undefined) return { kind: 'absent' };
  if (typeof value !== 'string') return { kind: 'invalid', got: describeType(value) };
  if (value.trim() === '') return { kind: 'blank' };
  return { kind: 'text', text: value };
}

function optionalBoolean(record: Record<string, unknown>, field: 'restartSafe' | 'typecheck'): boolean {
  const value = record[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') {
    throw new InvalidInputError(`exec input: "${field}" must be a boolean, got ${describeType(value)}; pass true or false, or omit it.`);
  }
  return value;
}

function language(record: Record<string, unknown>): CellLanguage {
  const value = record.language;
  if (value === undefined) return 'javascript';
  const found = LANGUAGES.find((lang) => lang === value);
  if (found === undefined) {
    const got = typeof value === 'string' ? JSON.stringify(value) : describeType(value);
    throw new InvalidInputError(`exec input: "language" must be "javascript" or "typescript", got ${got}; omit it for JavaScript.`);
  }
  return found;
}

function rejectRewrittenAliases(raw: Record<string, unknown>, callerInput: unknown): void {
  if (!isRecord(callerInput)) return;
  for (const alias of ALIASES) {
    const before = aliasState(callerInput, alias);
    const after = aliasState(raw, alias);
    if (before.kind === 'text' && (after.kind === 'blank' || after.kind === 'invalid')) {
      throw new InvalidInputError(
        `exec input: a hook or policy invalidated "${alias}", so both "code" and "command" are rejected and the cell does not run; send the cell again in "code" if the policy allows it.`,
      );
    }
  }
}

/** Apply the exec Rules to untrusted input. Throws InvalidInputError naming the field and the fix. */
export function normalizeExecInput(raw: unknown, options: NormalizeExecOptions = {}): NormalizedExecInput {
  if (!isRecord(raw)) {
    throw new InvalidInputError(`exec input must be an object like { "code": "return 1 + 1" }, got ${describeType(raw)}.`);
  }
  const unknown = Object.keys(raw).filter((key) => !(EXEC_FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    const names = unknown.map((key) => JSON.stringify(key)).join(', ');
    throw new InvalidInputError(`exec input: unknown field ${names}; allowed fields are ${EXEC_FIELDS.join(', ')}. Put the cell source in "code".`);
  }

  rejectRewrittenAliases(raw, options.callerInput);
  const code = aliasState(raw, 'code');
  const command = aliasState(raw, 'command');
  for (const [alias, state] of [['code', code], ['command', command]] as const) {
    if (state.kind === 'invalid') {
      throw new InvalidInputError(
        `exec input: "${alias}" must be a string, got ${state.got}; both "code" and "command" are rejected. Send the cell source as a string in "code".`,
      );
    }
  }
  if (code.kind === 'text' && command.kind === 'text' && code.text !== command.text) {
    throw new InvalidInputError('exec input: "code" and "command" are both set and differ; send the cell source in "code" only.');
  }
  const source = code.kind === 'text' ? code.text : command.kind === 'text' ? command.text : undefined;
  if (source === undefined) {
    throw new InvalidInputError('exec input: "code" is empty; put the JavaScript or TypeScript cell source in "code".');
  }

  const lang = language(raw);
  const typecheck = optionalBoolean(raw, 'typecheck');
  if (typecheck && lang !== 'typescript') {
    throw new InvalidInputError('exec input: "typecheck": true needs "language": "typescript"; set the language or drop typecheck.');
  }
  return { code: source, language: lang, restartSafe: optionalBoolean(raw, 'restartSafe'), typecheck };
}
