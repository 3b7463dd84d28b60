// Tests for the exec input rules: aliases, blank/non-string handling, language, typecheck, unknown keys.
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { normalizeExecInput } from './exec-input.ts';

function rejection(raw: unknown, callerInput?: unknown): InvalidInputError {
  try {
    normalizeExecInput(raw, { callerInput });
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be rejected`);
}

describe('normalizeExecInput', () => {
  it('on code only: defaults to javascript, restartSafe false, typecheck false', () => {
    expect(normalizeExecInput({ code: 'return 1' })).toEqual({ code: 'return 1', language: 'javascript', restartSafe: false, typecheck: false });
  });

  it('on command only: uses the alias as the source', () => {
    expect(normalizeExecInput({ command: 'return 2' }).code).toBe('return 2');
  });

  it('on both aliases equal: accepts them', () => {
    expect(normalizeExecInput({ code: 'x', command: 'x' }).code).toBe('x');
  });

  it('on both aliases non-empty and different: fails with invalid_input naming both', () => {
    const error = rejection({ code: 'a', command: 'b' });
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/"code" and "command"/);
  });

  it('on a blank caller alias: treats it as absent', () => {
    expect(normalizeExecInput({ code: '   \n\t', command: 'return 3' }).code).toBe('return 3');
    expect(normalizeExecInput({ code: 'return 4', command: '' }).code).toBe('return 4');
  });

  it('on both aliases blank or missing: asks for code', () => {
    expect(rejection({}).message).toMatch(/"code" is empty/);
    expect(rejection({ code: ' ', command: '' }).message).toMatch(/"code" is empty/);
  });

  it('on a non-string alias: invalidates both even when the other is valid', () => {
    for (const bad of [42, null, { src: 'x' }, ['x'], true]) {
      const error = rejection({ code: 'return 1', command: bad });
      expect(error.message).toMatch(/"command" must be a string/);
      expect(error.message).toMatch(/both "code" and "command" are rejected/);
    }
    expect(rejection({ code: 7, command: 'return 1' }).message).toMatch(/"code" must be a string, got a number/);
  });

  it('on a hook that blanks a populated alias: fails closed even though the other alias is set', () => {
    const caller = { code: 'return 1', command: 'return 1' };
    const error = rejection({ code: '', command: 'return 1' }, caller);
    expect(error.message).toMatch(/invalidated "code"/);
  });

  it('on a hook that makes a populated alias non-string: fails closed', () => {
    const error = rejection({ code: 'return 1', command: 0 }, { code: 'return 1', command: 'return 1' });
    expect(error.message).toMatch(/invalidated "command"/);
  });

  it('on a trusted rewrite that keeps aliases populated: accepts the rewritten source', () => {
    expect(normalizeExecInput({ code: 'return 9' }, { callerInput: { code: 'return 1' } }).code).toBe('return 9');
  });

  it('on language typescript: keeps it', () => {
    expect(normalizeExecInput({ code: 'x', language: 'typescript' }).language).toBe('typescript');
  });

  it('on an unknown language: names the field and the allowed values', () => {
    const error = rejection({ code: 'x', language: 'TypeScript' });
    expect(error.message).toMatch(/"language" must be "javascript" or "typescript", got "TypeScript"/);
    expect(rejection({ code: 'x', language: 3 }).message).toMatch(/got a number/);
  });

  it('on typecheck true without typescript: fails and says to set the language', () => {
    expect(rejection({ code: 'x', typecheck: true }).message).toMatch(/"typecheck": true needs "language": "typescript"/);
    expect(rejection({ code: 'x', language: 'javascript', typecheck: true }).code).toBe('invalid_input');
  });

  it('on typecheck true with typescript: enables it', () => {
    expect(normalizeExecInput({ code: 'x', language: 'typescript', typecheck: true }).typecheck).toBe(true);
  });

  it('on typecheck false with javascript: accepts it', () => {
    expect(normalizeExecInput({ code: 'x', typecheck: false }).typecheck).toBe(false);
  });

  it('on non-boolean restartSafe or typecheck: names the field', () => {
    expect(rejection({ code: 'x', restartSafe: 'yes' }).message).toMatch(/"restartSafe" must be a boolean, got a string/);
    expect(rejection({ code: 'x', language: 'typescript', typecheck: 1 }).message).toMatch(/"typecheck" must be a boolean/);
  });

  it('on restartSafe true: passes it through', () => {
    expect(normalizeExecInput({ code: 'x', restartSafe: true }).restartSafe).toBe(true);
  });

  it('on an unknown key: rejects it and lists the allowed fields', () => {
    const error = rejection({ code: 'x', source: 'y' });
    expect(error.message).toMatch(/unknown field "source"/);
    expect(error.message).toMatch(/code, command, language, restartSafe, typecheck/);
  });

  it('on a non-object input: says an object is expected', () => {
    for (const raw of [null, 'return 1', ['x'], 5]) expect(rejection(raw).message).toMatch(/must be an object/);
  });

  it('on a source with surrounding whitespace: keeps it untouched so line numbers hold', () => {
    expect(normalizeExecInput({ code: '\n\nreturn 1\n' }).code).toBe('\n\nreturn 1\n');
  });
});
