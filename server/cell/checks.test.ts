// Tests for rejected source patterns and shell-shaped input.
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { checkCellSource, looksLikeShellCommand } from './checks.ts';

function rejection(source: string): InvalidInputError {
  try {
    checkCellSource(source);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error(`expected ${JSON.stringify(source)} to be rejected`);
}

describe('checkCellSource: module and loader patterns', () => {
  it('on an import declaration: rejects it with its position and points to tools and API.read', () => {
    const error = rejection('const a = 1;\nimport fs from "node:fs";');
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/`import` declarations are not allowed \(line 2:1\)/);
    expect(error.message).toMatch(/API\.read/);
  });

  it('on an export declaration: says a cell is not a module and to return instead', () => {
    expect(rejection('export const a = 1;').message).toMatch(/`export`.*return the value instead/i);
  });

  it('on dynamic import(): rejects it', () => {
    expect(rejection('const m = await import("node:fs");').message).toMatch(/dynamic `import\(\)` is not allowed \(line 1:17\)/);
  });

  it('on import.meta: rejects it', () => {
    expect(rejection('return import.meta.url').message).toMatch(/`import\.meta` is not allowed/);
  });

  it('on require(...): rejects it', () => {
    expect(rejection('const fs = require("fs");').message).toMatch(/`require` is not allowed \(line 1:12\)/);
  });

  it('on a bare reference to require: rejects it', () => {
    expect(rejection('const r = require; r("fs")').message).toMatch(/`require`/);
    expect(rejection('return { require }').message).toMatch(/`require`/);
  });

  it('on module.require and global-object require: rejects them', () => {
    expect(rejection('module.require("fs")').message).toMatch(/`module\.require`/);
    expect(rejection('globalThis.require("fs")').message).toMatch(/`globalThis\.require`/);
    expect(rejection('this["require"]("fs")').message).toMatch(/`this\.require`/);
  });

  it('on a computed key spelled as a concatenation: rejects globalThis["req" + "uire"]', () => {
    expect(rejection('globalThis["req" + "uire"]("fs")').message).toMatch(/`globalThis\.require`/);
    expect(rejection('self[`req${""}uire`]').code).toBe('invalid_input');
    expect(rejection('global[`require`]').message).toMatch(/`global\.require`/);
  });

  it('on createRequire in any position: rejects it', () => {
    expect(rejection('const { createRequire } = Module;').message).toMatch(/`createRequire`/);
    expect(rejection('Module.createRequire("/")').message).toMatch(/`createRequire`/);
  });

  it('on process loader hooks: rejects binding, dlopen, mainModule, getBuiltinModule', () => {
    expect(rejection('process.binding("fs")').message).toMatch(/`process\.binding`/);
    expect(rejection('process.dlopen(m, "x.node")').message).toMatch(/`process\.dlopen`/);
    expect(rejection('globalThis.process["mainModule"].require("fs")').message).toMatch(/process\.mainModule|require/);
    expect(rejection('process.getBuiltinModule("fs")').message).toMatch(/`process\.getBuiltinModule`/);
  });

  it('on importScripts: rejects it', () => {
    expect(rejection('importScripts("x.js")').message).toMatch(/`importScripts`/);
  });

  it('on loader code inside an eval or Function string: rejects it', () => {
    expect(rejection('eval("require(\'fs\')")').message).toMatch(/`require`.*string evaluated at line 1:6/);
    expect(rejection('new Function("return import(\'x\')")').message).toMatch(/dynamic `import\(\)`/);
  });

  it('on the words in strings, comments and property names: accepts them', () => {
    const source = [
      'const s = "import x from y";',
      '// a comment mentioning require("fs") and import("x")',
      '/* module.require */',
      'const o = { imports: 1, require: 2, createRequire: 3 };',
      'o.require; o.imports; thing.require("x");',
      'const t = `import.meta`;',
      'return o;',
    ].join('\n');
    expect(() => checkCellSource(source)).not.toThrow();
  });

  it('on a runtime-computed key: accepts it (the guest has no loader to reach)', () => {
    expect(() => checkCellSource('const k = pick(); return globalThis[k];')).not.toThrow();
  });

  it('on ordinary cells with top-level await and return: accepts them', () => {
    expect(() => checkCellSource('const r = await read({ path: "a" });\nreturn r.text;')).not.toThrow();
  });
});

describe('checkCellSource: syntax errors', () => {
  it('on a syntax error: reports line:column and the parser message', () => {
    const error = rejection('const a = 1;\nconst b = ;');
    expect(error.message).toMatch(/syntax error at line 2:11: Unexpected token/);
  });

  it('on an unterminated string: reports it', () => {
    expect(rejection('const a = "abc').message).toMatch(/syntax error at line 1:11: Unterminated string constant/);
  });
});

describe('checkCellSource: shell-shaped input', () => {
  const shellLines = ['ls -la', 'cat x | grep y', 'npm install foo', 'git status', 'cd src && make', 'pwd', 'ls -la /tmp', '$ git log --oneline', './build.sh --fast', 'sudo apt-get install jq'];
  for (const line of shellLines) {
    it(`on "${line}": rejects it with guidance to call a tool`, () => {
      const error = rejection(line);
      expect(error.message).toMatch(/^exec runs JavaScript\/TypeScript, not a shell: call a tool, e\.g\. `await exec\(\{ command: /);
    });
  }

  it('on a shell line: replays its command and arguments in the example', () => {
    expect(rejection('git status').message).toContain("`await exec({ command: 'git', args: ['status'] })`");
    expect(rejection('ls -la').message).toContain("`await exec({ command: 'ls', args: ['-la'] })`");
  });

  it('on JavaScript that merely starts with a command-like name: keeps the syntax error', () => {
    expect(rejection('date = new Date(;').message).toMatch(/syntax error/);
    expect(rejection('find({ pattern: "x" ').message).toMatch(/syntax error/);
  });

  it('on JavaScript using command-like names: accepts it', () => {
    expect(() => checkCellSource('const ls = 1, la = 2; ls - la')).not.toThrow();
    expect(() => checkCellSource('await grep({ pattern: "x" })')).not.toThrow();
  });
});

describe('looksLikeShellCommand', () => {
  it('on shell lines: true; on JavaScript: false', () => {
    expect(looksLikeShellCommand('# list files\nls -la')).toBe(true);
    expect(looksLikeShellCommand('npm test')).toBe(true);
    expect(looksLikeShellCommand('const x = 1')).toBe(false);
    expect(looksLikeShellCommand('return read({ path: "x" })')).toBe(false);
    expect(looksLikeShellCommand('')).toBe(false);
  });
});
