// Tests for the cell body rewrite: top-level await/return, REPL-style last value, stable line numbers.
import { runInThisContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { prepareCell } from './cell.ts';
import { transformTypeScript } from './transform.ts';

type Globals = Record<string, unknown>;

// Run a body the way an executor does: inside an async function, with globals passed in as parameters.
async function run(body: string, globals: Globals = {}): Promise<unknown> {
  const names = Object.keys(globals);
  const fn = runInThisContext(`(async function (${names.join(', ')}) {\n${body}\n})`, { filename: 'cell.js' }) as (
    ...args: unknown[]
  ) => Promise<unknown>;
  return fn(...names.map((name) => globals[name]));
}

async function value(code: string, globals: Globals = {}): Promise<unknown> {
  return run(prepareCell({ code, language: 'javascript' }).body, globals);
}

describe('prepareCell', () => {
  it('on a last expression statement: returns its value (1 + 2 -> 3)', async () => {
    expect(await value('1 + 2')).toBe(3);
  });

  it('on an awaited last expression: returns the awaited value', async () => {
    const read = async (input: { path: string }) => ({ path: input.path, text: `contents of ${input.path}` });
    expect(await value('await read({ path: "a" })', { read })).toEqual({ path: 'a', text: 'contents of a' });
  });

  it('on statements before the last expression: returns only the last value', async () => {
    expect(await value('const a = 2;\nconst b = await Promise.resolve(5);\na * b;')).toBe(10);
  });

  it('on a top-level return: returns that value and leaves the last expression alone', async () => {
    expect(await value('if (true) { return "early"; }\n"late"')).toBe('early');
    expect(await value('for (const x of [1, 2]) { if (x === 2) return x * 10; }\n0')).toBe(20);
  });

  it('on a cell with a top-level return that is not taken: completes with undefined, not the last expression', async () => {
    expect(await value('if (false) { return "never"; }\n"last"')).toBeUndefined();
  });

  it('on a return only inside a nested function: still uses the last expression', async () => {
    expect(await value('const f = () => { return 1; };\nfunction g() { return 2; }\nf() + g()')).toBe(3);
  });

  it('on a last statement that is a declaration: completes with undefined', async () => {
    expect(await value('const a = 1;')).toBeUndefined();
  });

  it('on trailing empty statements and comments: still returns the last expression', async () => {
    expect(await value('40 + 2;;\n// done\n')).toBe(42);
  });

  it('on a multi-line last expression with comments: returns it whole', async () => {
    expect(await value('[\n  1, // one\n  2,\n].map((x) => x * 3)')).toEqual([3, 6]);
  });

  it('on a sequence expression: returns its last value', async () => {
    expect(await value('let a = 0;\na++, a++, a')).toBe(2);
  });

  it('on an object literal in parentheses: returns the object', async () => {
    expect(await value('({ ok: true })')).toEqual({ ok: true });
  });

  it('on a rewrite: keeps every line where the user wrote it', () => {
    const code = 'const a = 1;\n\n// note\na +\n  1';
    const { body, lineOffset } = prepareCell({ code, language: 'javascript' });
    expect(body.split('\n')).toHaveLength(code.split('\n').length);
    expect(body.split('\n')[3]).toBe('return (a +');
    expect(lineOffset).toBe(0);
  });

  it('on a thrown error: the stack points at the user line (plus the wrapper line)', async () => {
    const body = prepareCell({ code: 'const a = 1;\nconst b = 2;\nthrow new Error("boom");', language: 'javascript' }).body;
    const error = await run(body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // The test wrapper adds one line before the body, so user line 3 is cell.js line 4.
    expect((error as Error).stack).toMatch(/cell\.js:4:\d+/);
  });

  it('on a TypeScript cell after transform: the stack still points at the user line', async () => {
    const ts = 'interface Row {\n  id: number;\n}\nconst rows: Row[] = [{ id: 1 }];\nif (rows.length > 0) throw new Error("at line 5");';
    const body = prepareCell({ code: transformTypeScript(ts), language: 'typescript' }).body;
    const error = await run(body).catch((e: unknown) => e);
    expect((error as Error).stack).toMatch(/cell\.js:6:\d+/);
  });

  it('on rejected source: throws the checks error', () => {
    expect(() => prepareCell({ code: 'require("fs")', language: 'javascript' })).toThrow(InvalidInputError);
  });

  it('on source that tries to close the function wrapper: fails to parse', () => {
    expect(() => prepareCell({ code: '}); evil(); (async function () {', language: 'javascript' })).toThrow(/syntax error/);
  });

  it('on a string that looks like the rewrite: leaves string contents alone', async () => {
    expect(await value('"return (1);"')).toBe('return (1);');
  });
});
