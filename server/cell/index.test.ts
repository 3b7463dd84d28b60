// Tests for prepareExec: the whole preparation pipeline in spec order.
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { MAX_LISTED_DIAGNOSTICS, prepareExec } from './index.ts';

const DECLARATIONS =
  'declare function read(input: { path: string }): Promise<{ path: string; text: string }>;\ndeclare function sleep(input: { ms: number }): Promise<unknown>;';

function declarationsSpy(): { read: () => string; calls: () => number } {
  let calls = 0;
  return {
    read: () => {
      calls++;
      return DECLARATIONS;
    },
    calls: () => calls,
  };
}

async function rejection(raw: unknown): Promise<InvalidInputError> {
  const error = await prepareExec(raw, { ambientDeclarations: () => DECLARATIONS }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidInputError);
  return error as InvalidInputError;
}

describe('prepareExec', () => {
  it('on a JavaScript cell: returns the normalized input and a body returning the last value', async () => {
    const prepared = await prepareExec({ command: 'const a = 1;\na + 1' }, { ambientDeclarations: () => DECLARATIONS });
    expect(prepared.input).toEqual({ code: 'const a = 1;\na + 1', language: 'javascript', restartSafe: false, typecheck: false });
    expect(prepared.body).toBe('const a = 1;\nreturn (a + 1);');
    expect(prepared.lineOffset).toBe(0);
  });

  it('on a TypeScript cell without typecheck: transforms it and never reads the declarations', async () => {
    const spy = declarationsSpy();
    const prepared = await prepareExec({ code: 'const n: number = 2;\nn * 2', language: 'typescript' }, { ambientDeclarations: spy.read });
    expect(prepared.body).toBe('const n = 2;\nreturn (n * 2);');
    expect(prepared.language).toBe('typescript');
    expect(spy.calls()).toBe(0);
  });

  it('on typecheck with a correct cell: prepares it', async () => {
    const spy = declarationsSpy();
    const prepared = await prepareExec(
      { code: 'const r = await read({ path: "a" });\nr.text.length', language: 'typescript', typecheck: true },
      { ambientDeclarations: spy.read },
    );
    expect(prepared.body).toBe('const r = await read({ path: "a" });\nreturn (r.text.length);');
    expect(spy.calls()).toBe(1);
  });

  it('on typecheck diagnostics: fails with invalid_input listing "line N: message"', async () => {
    const error = await rejection({ code: 'const x = 1;\nawait read({ pth: "a" });\n(await sleep({ ms: 1 })).foo', language: 'typescript', typecheck: true });
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^exec typecheck failed \(2 errors\)/);
    expect(error.message).toMatch(/\nline 2: .*'pth'/);
    expect(error.message).toMatch(/\nline 3: .*unknown/);
  });

  it(`on more than ${MAX_LISTED_DIAGNOSTICS} diagnostics: lists ${MAX_LISTED_DIAGNOSTICS} and counts the rest`, async () => {
    const code = Array.from({ length: 13 }, (_, i) => `await sleep({ ms: "${i}" });`).join('\n');
    const error = await rejection({ code, language: 'typescript', typecheck: true });
    const listed = error.message.split('\n').filter((line) => /^line \d+: /.test(line));
    expect(listed).toHaveLength(MAX_LISTED_DIAGNOSTICS);
    expect(error.message).toMatch(/\n\.\.\. and 3 more$/);
  });

  it('on invalid input fields: fails before anything else runs', async () => {
    const spy = declarationsSpy();
    const error = await prepareExec({ code: 'x', typecheck: true }, { ambientDeclarations: spy.read }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(spy.calls()).toBe(0);
  });

  it('on an import in a TypeScript cell: rejects it after the transform', async () => {
    expect((await rejection({ code: 'import fs from "node:fs";\nconst a: number = 1;', language: 'typescript' })).message).toMatch(/`import` declarations/);
  });

  it('on TypeScript import-equals require: rejects the require', async () => {
    expect((await rejection({ code: 'import fs = require("fs");\nfs', language: 'typescript' })).message).toMatch(/`require`/);
  });

  it('on shell input in either language: gives the shell guidance', async () => {
    expect((await rejection({ code: 'ls -la' })).message).toMatch(/not a shell/);
    expect((await rejection({ code: 'npm install foo', language: 'typescript' })).message).toMatch(/not a shell/);
  });

  it('on a hook-blanked alias: fails closed', async () => {
    const error = await prepareExec(
      { code: '', command: 'return 1' },
      { ambientDeclarations: () => DECLARATIONS, callerInput: { code: 'return 1', command: 'return 1' } },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
  });
});
