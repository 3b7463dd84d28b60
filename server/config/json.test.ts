// Tests for the strict JSON reader: same values as JSON.parse, located syntax errors, duplicate keys refused.
import { describe, expect, it } from 'vitest';
import { configError } from './testing.ts';
import { ConfigError } from '../errors.ts';
import { lineAndColumn, MAX_JSON_DEPTH, parseJsonText } from './json.ts';


describe('parseJsonText', () => {
  const samples = [
    '{}',
    '[]',
    '0',
    '-0.5e-3',
    '1E+2',
    'true',
    'null',
    '"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"',
    '{ "a": [1, 2, { "b": null }], "c": "x", "d": { "e": false } }',
    ' \n\t { "nested": [[[]]], "empty": "" } \r\n',
    '{"a/b": {"codeMode": true}, "": 1}',
  ];

  it.each(samples)('on valid JSON %s: returns what JSON.parse returns', (text) => {
    expect(parseJsonText(text, 'sample.json')).toEqual(JSON.parse(text));
  });

  it('on a byte-order mark: ignores it', () => {
    expect(parseJsonText('\ufeff{"a":1}', 'bom.json')).toEqual({ a: 1 });
  });

  it('on a trailing comma: names the file, line and column', () => {
    const text = '{\n  "tools": {\n    "codeMode": true,\n  }\n}';
    const error = configError(() => parseJsonText(text, '/cfg/codemode.config.json'));
    expect(error.message).toContain('/cfg/codemode.config.json');
    expect(error.message).toContain('line 4, column 3');
    expect(error.message).toContain('trailing comma');
  });

  it('on a missing comma: points at the token after the value', () => {
    const text = '{\n  "a": 1\n  "b": 2\n}';
    const error = configError(() => parseJsonText(text, 'x.json'));
    expect(error.message).toContain('line 3, column 3');
    expect(error.message).toContain('expected "," or "}"');
  });

  it('on a comment: says comments are not JSON', () => {
    const error = configError(() => parseJsonText('{\n  // note\n  "a": 1\n}', 'x.json'));
    expect(error.message).toContain('line 2, column 3');
    expect(error.message).toContain('a comment');
  });

  it('on a truncated file: reports the end of the file', () => {
    const text = '{\n  "a": [1, 2';
    const error = configError(() => parseJsonText(text, 'x.json'));
    const end = lineAndColumn(text, text.length);
    expect(error.message).toContain(`line ${end.line}, column ${end.column}`);
  });

  it('on an empty file: asks for a value', () => {
    expect(configError(() => parseJsonText('', 'empty.json')).message).toContain('expected a value, found the end of the file');
  });

  it('on an unclosed string: points at its opening quote', () => {
    const error = configError(() => parseJsonText('{"a": "oops}', 'x.json'));
    expect(error.message).toContain('line 1, column 7');
  });

  it('on text after the value: is an error', () => {
    expect(configError(() => parseJsonText('{} {}', 'x.json')).message).toContain('line 1, column 4');
  });

  it('on invalid numbers and escapes: is an error', () => {
    for (const text of ['01', '1.', '.5', '+1', '"\\x"', '"\\u12"', 'tru', "{'a': 1}", 'NaN']) {
      expect(() => parseJsonText(text, 'x.json'), text).toThrow(ConfigError);
      expect(() => JSON.parse(text), text).toThrow();
    }
  });

  it('on a duplicate key: names its dotted path and both lines', () => {
    const text = '{\n  "tools": {\n    "codeMode": true,\n    "codeMode": false\n  }\n}';
    const error = configError(() => parseJsonText(text, 'x.json'));
    expect(error.path).toBe('tools.codeMode');
    expect(error.reason).toContain('line 3');
    expect(error.reason).toContain('line 4');
  });

  it('on a duplicate key inside a list item: the path includes the index', () => {
    const error = configError(() => parseJsonText('{"agents": {"list": [{"id": "a"}, {"id": "b", "id": "c"}]}}', 'x.json'));
    expect(error.path).toBe('agents.list[1].id');
  });

  it('on a "__proto__" key anywhere (a server or source name would silently vanish): an error naming its path; the prototype is untouched', () => {
    const error = configError(() => parseJsonText('{"mcp": {"servers": {"__proto__": {"command": "node"}}}}', 'x.json'));
    expect(error.path).toBe('mcp.servers.__proto__');
    expect(error.message).toContain('"__proto__" is not a name a config may use (it would be dropped, not read); rename it');
    expect(configError(() => parseJsonText('{"__proto__": {"polluted": true}}', 'x.json')).path).toBe('__proto__');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('on nesting deeper than the limit: is an error instead of a stack overflow', () => {
    const deep = '['.repeat(MAX_JSON_DEPTH + 2) + ']'.repeat(MAX_JSON_DEPTH + 2);
    expect(configError(() => parseJsonText(deep, 'x.json')).message).toContain('nested more than');
  });
});
