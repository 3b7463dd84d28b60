// Tests for the opt-in cell typecheck against ambient tool declarations, and its thread and deadline.
import { describe, expect, it } from 'vitest';
import { CodeModeError, InvalidInputError } from '../errors.ts';
import { TypeChecker, typecheckCell } from './typecheck.ts';

const DECLARATIONS = [
  'declare function read(input: { path: string }): Promise<{ path: string; text: string }>;',
  'declare function sleep(input: { ms: number }): Promise<unknown>;',
].join('\n');

describe('typecheckCell', () => {
  it('on a correct cell with top-level await and return: no diagnostics', async () => {
    const cell = 'const file = await read({ path: "notes.txt" });\nconst words = file.text.split(" ").map((w) => w.length);\nreturn { path: file.path, words };';
    expect(await typecheckCell(cell, DECLARATIONS)).toEqual([]);
  });

  it('on a wrong field name: reports it on the user line', async () => {
    const diagnostics = await typecheckCell('const a = 1;\nawait read({ pth: "notes.txt" });', DECLARATIONS);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ line: 2, column: 14 });
    expect(diagnostics[0]?.message).toMatch(/'pth' does not exist/);
  });

  it('on a wrong argument type: reports it', async () => {
    const diagnostics = await typecheckCell('await sleep({ ms: "soon" });', DECLARATIONS);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.line).toBe(1);
    expect(diagnostics[0]?.message).toMatch(/Type 'string' is not assignable to type 'number'/);
  });

  it('on use of an unknown output property: reports it because the output is unknown', async () => {
    const diagnostics = await typecheckCell('\n\nconst r = (await sleep({ ms: 1 })).foo;', DECLARATIONS);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.line).toBe(3);
    expect(diagnostics[0]?.message).toMatch(/unknown/);
  });

  it('on an unknown tool: reports the missing name', async () => {
    const diagnostics = await typecheckCell('await write({ path: "x" });', DECLARATIONS);
    expect(diagnostics[0]?.message).toMatch(/Cannot find name 'write'/);
  });

  it('on strict mode: reports implicit any parameters', async () => {
    const diagnostics = await typecheckCell('function f(x) { return x; }\nreturn f(1);', DECLARATIONS);
    expect(diagnostics[0]?.message).toMatch(/implicitly has an 'any' type/);
  });

  it('on lib es2022 only: knows Array.prototype.at but not DOM globals', async () => {
    expect(await typecheckCell('return [1, 2].at(-1);', DECLARATIONS)).toEqual([]);
    const diagnostics = await typecheckCell('return document.title;', DECLARATIONS);
    expect(diagnostics[0]?.message).toMatch(/Cannot find name 'document'/);
  });

  it('on several errors: returns all of them in source order', async () => {
    const diagnostics = await typecheckCell('await read({ path: 1 });\nawait sleep({});\nconst n: number = "x";', DECLARATIONS);
    expect(diagnostics.map((d) => d.line)).toEqual([1, 2, 3]);
  });

  it('on a syntax error: reports it as a diagnostic', async () => {
    const diagnostics = await typecheckCell('const a = ;', DECLARATIONS);
    expect(diagnostics[0]).toMatchObject({ line: 1, message: 'Expression expected.' });
  });

  it('on an error at the end of the cell: stays on the last user line', async () => {
    const diagnostics = await typecheckCell('const o = {', DECLARATIONS);
    expect(diagnostics.length).toBeGreaterThan(0);
    for (const d of diagnostics) expect(d.line).toBe(1);
  });

  it('on different declarations between calls: checks against the current ones', async () => {
    expect(await typecheckCell('await write({ path: "x" });', `${DECLARATIONS}\ndeclare function write(input: { path: string }): Promise<void>;`)).toEqual([]);
    expect((await typecheckCell('await write({ path: "x" });', DECLARATIONS)).length).toBe(1);
  });
});

// 1000 object types compared pairwise with 1001: the checker works for tens of seconds before it gives up.
const PATHOLOGICAL = [
  'type D = 0|1|2|3|4|5|6|7|8|9;',
  'type U = `${D}${D}${D}`;',
  'type A = { [K in U]: { x: 1 } & { [P in `p${K}`]: string } }[U];',
  'type B = { [K in U]: { x: 1 } & { [P in `q${K}`]: number } }[U] | { x: 1 };',
  'declare const a: A;',
  'const b: B = a;',
].join('\n');

/** Each test starts the TypeScript thread twice (a stop replaces it): seconds each alone, tens of seconds on a loaded 2-core machine. */
const THREAD_TEST_TIMEOUT_MS = 120_000;

describe('TypeChecker thread', () => {
  it('on a pathological type: the event loop keeps turning, the check stops at the deadline with what to do, and the next check works', async () => {
    const checker = new TypeChecker({ deadlineMs: 2000 });
    try {
      expect(await checker.check('return 1;', DECLARATIONS)).toEqual([]); // warm: what follows is the check only
      let settled = false;
      const checking = checker.check(PATHOLOGICAL, DECLARATIONS).finally(() => {
        settled = true;
      });
      const ranWhileChecking = await new Promise<boolean>((resolve) => setImmediate(() => resolve(!settled)));
      expect(ranWhileChecking).toBe(true);
      const error = await checking.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(/took longer than 2000 ms.*Simplify the cell's types.*or drop "typecheck"/);
      expect(checker.worker.started).toBe(2);
      const diagnostics = await checker.check('await sleep({ ms: "soon" });', DECLARATIONS);
      expect(diagnostics[0]?.message).toMatch(/not assignable to type 'number'/);
    } finally {
      await checker.close();
    }
  }, THREAD_TEST_TIMEOUT_MS);

  it('on an aborted signal during a check: the check ends as aborted at once, not at the deadline, and the thread is replaced', async () => {
    // a deadline no test waits out: only the abort can end the check
    const checker = new TypeChecker({ deadlineMs: 600_000 });
    try {
      expect(await checker.check('return 1;', DECLARATIONS)).toEqual([]);
      const controller = new AbortController();
      const checking = checker.check(PATHOLOGICAL, DECLARATIONS, { signal: controller.signal, runKey: 'turn-1' });
      controller.abort();
      const error = await checking.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CodeModeError);
      expect(error).toMatchObject({ code: 'aborted', message: expect.stringContaining('canceled because the agent run was aborted') });
      expect(checker.worker.started).toBe(2);
    } finally {
      await checker.close();
    }
  }, THREAD_TEST_TIMEOUT_MS);
});
