// Strict JSON for config files: errors with file, line and column, and duplicate keys refused instead of silently overwritten.
import { ConfigError } from '../errors.ts';
import { formatConfigPath } from './issues.ts';

/** Config files are a few levels deep; this only stops a hostile file from overflowing the stack. */
export const MAX_JSON_DEPTH = 64;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Line and column (both 1-based) of an offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Parses JSON text exactly as JSON.parse would, but a syntax error names `source`, the line and the column,
 * and a key repeated in one object is an error (JSON.parse keeps the last one, hiding the first).
 */
export function parseJsonText(text: string, source: string): unknown {
  // Editors on some platforms write a byte-order mark; it is not part of the JSON.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let index = 0;

  const fail = (what: string, at = index): never => {
    const { line, column } = lineAndColumn(body, at);
    throw new ConfigError(
      '',
      `invalid JSON in ${source} at line ${line}, column ${column}: ${what}; fix the syntax (JSON allows no comments, trailing commas or single quotes)`,
    );
  };

  const skipWhitespace = () => {
    while (index < body.length) {
      const c = body[index];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') index++;
      else break;
    }
  };

  const found = (): string => {
    if (index >= body.length) return 'the end of the file';
    const c = body[index] ?? '';
    if (c === '/') return 'a comment';
    if (c === "'") return 'a single quote';
    return JSON.stringify(c);
  };

  const parseString = (): string => {
    const start = index;
    index++;
    while (index < body.length) {
      const c = body.charCodeAt(index);
      if (c === 34) {
        index++;
        // The scan above proved the literal well-formed; JSON.parse decodes escapes and surrogates exactly.
        return JSON.parse(body.slice(start, index)) as string;
      }
      if (c === 92) {
        const next = body[index + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(body.slice(index + 2, index + 6))) fail('invalid \\u escape in a string');
          index += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
          index += 2;
        } else {
          fail(`invalid escape \\${next ?? ''} in a string`);
        }
        continue;
      }
      if (c < 32) fail(c === 10 ? 'a string runs past the end of its line (missing closing quote?)' : 'a control character inside a string');
      index++;
    }
    return fail('a string is not closed (missing closing quote)', start);
  };

  const parseValue = (path: PropertyKey[], depth: number): unknown => {
    if (depth > MAX_JSON_DEPTH) fail(`nested more than ${MAX_JSON_DEPTH} levels deep`);
    skipWhitespace();
    const c = body[index];
    if (c === '{') return parseObject(path, depth);
    if (c === '[') return parseArray(path, depth);
    if (c === '"') return parseString();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = index;
      const match = NUMBER.exec(body);
      if (!match) return fail('invalid number');
      index += match[0].length;
      return Number(match[0]);
    }
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (body.startsWith(word, index)) {
        index += word.length;
        return value;
      }
    }
    return fail(`expected a value, found ${found()}`);
  };

  const parseObject = (path: PropertyKey[], depth: number): Record<string, unknown> => {
    const result: Record<string, unknown> = {};
    const keyOffsets = new Map<string, number>();
    index++;
    skipWhitespace();
    if (body[index] === '}') {
      index++;
      return result;
    }
    for (;;) {
      skipWhitespace();
      if (body[index] === '}') fail('trailing comma before "}"');
      if (body[index] !== '"') fail(`expected a property name in double quotes, found ${found()}`);
      const keyOffset = index;
      const key = parseString();
      const earlier = keyOffsets.get(key);
      if (earlier !== undefined) {
        const first = lineAndColumn(body, earlier);
        const again = lineAndColumn(body, keyOffset);
        throw new ConfigError(
          formatConfigPath([...path, key]),
          `duplicate key in ${source} (line ${first.line}, column ${first.column} and line ${again.line}, column ${again.column}); keep one, JSON would silently use the last`,
        );
      }
      keyOffsets.set(key, keyOffset);
      if (key === '__proto__') {
        // no field of the config has this name, and where names are free (servers, sources) it would vanish:
        // JavaScript objects and the schema library treat it as the prototype, not as an entry
        throw new ConfigError(formatConfigPath([...path, key]), `"__proto__" is not a name a config may use (it would be dropped, not read); rename it`);
      }
      skipWhitespace();
      if (body[index] !== ':') fail(`expected ":" after the property name, found ${found()}`);
      index++;
      const value = parseValue([...path, key], depth + 1);
      // defineProperty: a "__proto__" key must stay a plain (and therefore rejected-as-unknown) field, not a prototype.
      Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      skipWhitespace();
      if (body[index] === ',') {
        index++;
        continue;
      }
      if (body[index] === '}') {
        index++;
        return result;
      }
      fail(`expected "," or "}" after a property value, found ${found()}`);
    }
  };

  const parseArray = (path: PropertyKey[], depth: number): unknown[] => {
    const result: unknown[] = [];
    index++;
    skipWhitespace();
    if (body[index] === ']') {
      index++;
      return result;
    }
    for (;;) {
      skipWhitespace();
      if (body[index] === ']') fail('trailing comma before "]"');
      result.push(parseValue([...path, result.length], depth + 1));
      skipWhitespace();
      if (body[index] === ',') {
        index++;
        continue;
      }
      if (body[index] === ']') {
        index++;
        return result;
      }
      fail(`expected "," or "]" after a list item, found ${found()}`);
    }
  };

  const value = parseValue([], 0);
  skipWhitespace();
  if (index < body.length) fail(`unexpected ${found()} after the end of the JSON value`);
  return value;
}
