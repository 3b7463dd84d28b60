// Tests for the TypeScript transform: type stripping, line numbers, errors, and that the compiler is never loaded.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { toJavaScript, transformTypeScript } from './transform.ts';

const execFileAsync = promisify(execFile);
const PROBE = fileURLToPath(new URL('./fixtures/typescript-load-probe.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function probe(mode: 'javascript' | 'typescript' | 'typecheck'): Promise<{ body: string; typescriptFiles: string[]; typecheckThreads: number }> {
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', PROBE, mode], { cwd: REPO_ROOT });
  return JSON.parse(stdout) as { body: string; typescriptFiles: string[]; typecheckThreads: number };
}

describe('transformTypeScript', () => {
  it('on annotations, interfaces, generics and casts: strips them', () => {
    const out = transformTypeScript('interface A { x: number }\nconst f = <T,>(v: T): T => v;\nconst a: A = { x: 1 };\nf(a.x) as number');
    expect(out).not.toMatch(/interface|: A|<T,>|as number/);
    expect(out).toContain('const f = (v) => v;');
  });

  it('on any TypeScript cell: keeps the line count and each statement on its line', () => {
    const ts = 'type Row = {\n  id: number;\n};\nenum Color { Red, Green }\nconst rows: Row[] = [];\nreturn Color.Green;';
    const out = transformTypeScript(ts);
    expect(out.split('\n')).toHaveLength(ts.split('\n').length);
    expect(out.split('\n')[4]).toBe('const rows = [];');
    expect(out.split('\n')[5]).toBe('return Color.Green;');
  });

  it('on top-level await and return: leaves them in place', () => {
    expect(transformTypeScript('const r: unknown = await read({ path: "a" });\nreturn r;')).toBe('const r = await read({ path: "a" });\nreturn r;');
  });

  it('on modern JavaScript: leaves it as written', () => {
    const js = 'const v = a?.b ?? 1;\nclass C { #p = 1; static s = 2; }';
    expect(transformTypeScript(js)).toBe(js);
  });

  it('on an unused import: keeps it so the source checks reject it', () => {
    expect(transformTypeScript('import fs from "node:fs";\nreturn 1;')).toContain('import fs from "node:fs"');
  });

  it('on a TypeScript syntax error: fails with invalid_input at line:column', () => {
    let error: unknown;
    try {
      transformTypeScript('const a = 1;\nconst b: = 2;');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/TypeScript syntax error at line 2:10: Unexpected token/);
  });

  it('on a shell line: fails with shell guidance instead of a syntax error', () => {
    expect(() => transformTypeScript('git status')).toThrow(/not a shell/);
  });

  it('on javascript: passes the source through unchanged', () => {
    const js = 'const x = 1; // x: number\nx';
    expect(toJavaScript(js, 'javascript')).toBe(js);
  });
});

/** Each probe is a fresh node process loading tsx (and, for typecheck, the compiler): seconds when the machine is busy. */
const PROBE_TEST_TIMEOUT_MS = 120_000;

describe('TypeScript compiler loading', { timeout: PROBE_TEST_TIMEOUT_MS }, () => {
  it('on a JavaScript cell: prepares it without loading the typescript package', async () => {
    const result = await probe('javascript');
    expect(result.body).toContain('return (rows.length);');
    expect(result.typescriptFiles).toEqual([]);
    expect(result.typecheckThreads).toBe(0);
  });

  it('on a TypeScript cell without typecheck: transforms it without loading the typescript package', async () => {
    const result = await probe('typescript');
    expect(result.body).toContain('return (rows.length');
    expect(result.body).not.toMatch(/interface|Row\[\]/);
    expect(result.typescriptFiles).toEqual([]);
    expect(result.typecheckThreads).toBe(0);
  });

  it('on typecheck: true (control for the probe): the compiler runs in the typecheck thread, never on the Gateway thread', async () => {
    const result = await probe('typecheck');
    expect(result.typecheckThreads).toBe(1);
    expect(result.typescriptFiles).toEqual([]);
  });
});
