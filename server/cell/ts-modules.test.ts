// TypeScript module syntax a cell cannot run is refused before it runs, saying what to write instead; the rest passes.
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { transformTypeScript } from './transform.ts';

const refusal = (source: string): string => {
  try {
    transformTypeScript(source);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as Error).message;
  }
  throw new Error(`expected a refusal of ${JSON.stringify(source)}`);
};

describe('TypeScript namespaces and export = in a cell', () => {
  it.each([
    ['namespace N { export const y = 1 }\nreturn N.y', '`namespace N` at line 1:1'],
    ['const a = 1;\n  module M { export const y = 1 }\nreturn M.y', '`module M` at line 2:3'],
    ['export namespace Q { export function f() { return 1 } }', '`namespace Q` at line 1:8'],
    ['namespace A.B { export const c = 2 }', '`namespace A` at line 1:1'],
    // an ambient block before it does not hide it
    ['declare module "lib" { namespace Inner {} }\ndeclare global { }\nnamespace After { export const v = 1 }', '`namespace After` at line 3:1'],
  ])('on %j: invalid_input naming the construct, where it is and the object to use instead', (source, where) => {
    const message = refusal(source);
    expect(message).toContain(where);
    expect(message).toMatch(/is not supported in a cell: its code would be dropped, not run\. Use an object instead \(`const \w+ = \{ \.\.\. \};`\)/);
  });

  it('on export = x: invalid_input saying a cell is not a module and to return the value', () => {
    expect(refusal('const x = 1;\nexport = x;')).toBe(
      'exec: `export =` at line 2:1 is not allowed: a cell is not a module. Return the value instead (`return value;`).',
    );
  });

  it.each([
    ['declare namespace D { namespace E { const z: number } }\nreturn 1', '\nreturn 1'],
    ['export declare namespace W { }\ndeclare module "x";\nreturn 2', '\n\nreturn 2'],
    ['let namespace = 1;\nconst module = { exports: namespace };\nreturn module.exports', 'let namespace = 1;\nconst module = { exports: namespace };\nreturn module.exports'],
    ['// namespace X { }\nreturn "namespace N { } export = x"', '// namespace X { }\nreturn "namespace N { } export = x"'],
    ['declare namespace T { const s: `${string}` }\nconst t = `${ { a: 1 }.a }`;\nreturn t', '\nconst t = `${ { a: 1 }.a }`;\nreturn t'],
  ])('on %j (ambient declarations, the words as names, in comments or strings): runs as before', (source, out) => {
    expect(transformTypeScript(source)).toBe(out);
  });
});
