// Tests for core read and grep: workspace confinement (.., absolute, symlinks), bounded results, regex/literal grep.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../errors.ts';
import { callTool, copyOfDemoWorkspace, REPO_ROOT, testContext } from '../testing.ts';
import { withInputValidation } from '../validate.ts';
import { DEFAULT_GREP_MAX_MATCHES, GrepMatcher, MAX_READ_BYTES, type GrepOutput, type ReadOutput, createGrepTool, createReadTool } from './workspace.ts';

const read = withInputValidation(createReadTool());
const grep = withInputValidation(createGrepTool());
// its own thread with a short deadline, so the timeout test does not wait out the default
const slowMatcher = new GrepMatcher({ deadlineMs: 1000 });
const slowGrep = withInputValidation(createGrepTool(slowMatcher));
const workspace = copyOfDemoWorkspace();
const outside = mkdtempSync(join(tmpdir(), 'codemode-outside-'));
writeFileSync(join(outside, 'private.txt'), 'outside secret line\n');
symlinkSync(join(outside, 'private.txt'), join(workspace, 'escape-link.txt'));
symlinkSync(outside, join(workspace, 'escape-dir'));
const ctx = testContext({ workspaceDir: workspace });

afterAll(async () => {
  await slowMatcher.close();
  rmSync(workspace, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

describe('read', () => {
  it('on a workspace file: returns its content and size', async () => {
    const result = (await callTool(read, { path: 'data/sales.csv' }, ctx)) as ReadOutput;
    expect(result.path).toBe('data/sales.csv');
    expect(result.content.split('\n')[0]).toBe('order_id,date,region,city,sku,units,unit_price_eur');
    expect(result.bytes).toBe(Buffer.byteLength(result.content));
    expect(result.truncated).toBe(false);
  });

  it('on a "./"-prefixed path: normalises it', async () => {
    expect(((await callTool(read, { path: './notes/todo.md' }, ctx)) as ReadOutput).path).toBe('notes/todo.md');
  });

  it('on "..": refuses and says which paths are allowed', async () => {
    const error = await failure(callTool(read, { path: '../etc/passwd' }, ctx));
    expect(error.code).toBe('outside_workspace');
    expect(error.message).toContain('relative to the workspace folder');
    expect((await failure(callTool(read, { path: 'notes/../../x' }, ctx))).code).toBe('outside_workspace');
  });

  it('on an absolute path: refuses', async () => {
    expect((await failure(callTool(read, { path: '/etc/passwd' }, ctx))).code).toBe('outside_workspace');
    expect((await failure(callTool(read, { path: join(workspace, 'README.md') }, ctx))).code).toBe('outside_workspace');
  });

  it('on a symlink that leaves the workspace: refuses', async () => {
    expect((await failure(callTool(read, { path: 'escape-link.txt' }, ctx))).code).toBe('outside_workspace');
    expect((await failure(callTool(read, { path: 'escape-dir/private.txt' }, ctx))).code).toBe('outside_workspace');
  });

  it('on a missing file: says how to find files', async () => {
    const error = await failure(callTool(read, { path: 'nope.md' }, ctx));
    expect(error.code).toBe('not_found');
    expect(error.message).toMatch(/grep|ls/);
  });

  it('on a folder: lists what it holds', async () => {
    const error = await failure(callTool(read, { path: 'notes' }, ctx));
    expect(error.message).toContain('todo.md');
  });

  it('on a file over the byte bound: truncates and says so', async () => {
    writeFileSync(join(workspace, 'big.txt'), 'x'.repeat(MAX_READ_BYTES + 10));
    const result = (await callTool(read, { path: 'big.txt' }, ctx)) as ReadOutput;
    expect(result.truncated).toBe(true);
    expect(result.content.length).toBe(MAX_READ_BYTES);
    expect(result.bytes).toBe(MAX_READ_BYTES + 10);
    rmSync(join(workspace, 'big.txt'));
  });

  it('on a missing path field: names the field', async () => {
    expect((await failure(callTool(read, {}, ctx))).message).toContain('"path" is required');
  });
});

describe('grep', () => {
  it('on a regex: returns { path, line, text } matches across the workspace', async () => {
    const result = (await callTool(grep, { pattern: 'BT-\\d+' }, ctx)) as GrepOutput;
    expect(result.mode).toBe('regex');
    expect(result.matches.length).toBeGreaterThan(2);
    for (const match of result.matches) {
      expect(match.text).toMatch(/BT-\d+/);
      expect(match.line).toBeGreaterThan(0);
    }
    const csv = result.matches.find((m) => m.path === 'data/sales.csv');
    expect(csv?.text).toContain('1003');
    expect(csv?.line).toBe(4);
  });

  it('on a pattern that is not a valid regex: matches it literally', async () => {
    const result = (await callTool(grep, { pattern: 'itemsToReorder(' }, ctx)) as GrepOutput;
    expect(result.mode).toBe('literal');
    const lines = readFileSync(join(workspace, 'src/inventory.ts'), 'utf8').split('\n');
    const line = lines.findIndex((text) => text.includes('itemsToReorder(')) + 1;
    expect(result.matches).toEqual([{ path: 'src/inventory.ts', line, text: lines[line - 1] }]);
  });

  it('on a path: searches only that file or folder', async () => {
    const result = (await callTool(grep, { pattern: 'reorder', path: 'notes' }, ctx)) as GrepOutput;
    expect(result.matches.length).toBeGreaterThan(0);
    expect(result.matches.every((m) => m.path.startsWith('notes/'))).toBe(true);
  });

  it('on a whole-workspace search: does not follow links out of the workspace', async () => {
    const result = (await callTool(grep, { pattern: 'outside secret' }, ctx)) as GrepOutput;
    expect(result.matches).toEqual([]);
  });

  it('on a path outside the workspace: refuses', async () => {
    expect((await failure(callTool(grep, { pattern: 'x', path: '..' }, ctx))).code).toBe('outside_workspace');
    expect((await failure(callTool(grep, { pattern: 'x', path: 'escape-dir' }, ctx))).code).toBe('outside_workspace');
  });

  it('on many matches: bounds the count and flags truncation', async () => {
    mkdirSync(join(workspace, 'many'));
    writeFileSync(join(workspace, 'many/lines.txt'), Array.from({ length: DEFAULT_GREP_MAX_MATCHES + 50 }, (_, i) => `hit ${i}`).join('\n'));
    const result = (await callTool(grep, { pattern: '^hit', path: 'many' }, ctx)) as GrepOutput;
    expect(result.matches).toHaveLength(DEFAULT_GREP_MAX_MATCHES);
    expect(result.truncated).toBe(true);
    rmSync(join(workspace, 'many'), { recursive: true });
  });

  it('on a catastrophic pattern: stops it with a timeout error that says to simplify the pattern', async () => {
    writeFileSync(join(workspace, 'redos.txt'), `${'a'.repeat(40)}b\n`);
    const error = await failure(callTool(slowGrep, { pattern: '(a+)+$', path: 'redos.txt' }, ctx));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('simplify the pattern');
    // the thread was replaced: the next grep works
    expect(((await callTool(slowGrep, { pattern: 'BT-\\d+', path: 'data' }, ctx)) as GrepOutput).matches.length).toBeGreaterThan(0);
    rmSync(join(workspace, 'redos.txt'));
  });
});

describe('GrepMatcher', () => {
  const catastrophic = [{ path: 'redos.txt', text: `${'a'.repeat(40)}b` }];

  it('on a catastrophic pattern: the event loop keeps turning while it matches, then the thread is replaced', async () => {
    const matcher = new GrepMatcher({ deadlineMs: 1000 });
    try {
      await matcher.match('x', [{ path: 'warm.txt', text: 'x' }]); // the thread is warm: what follows is matching only
      let settled = false;
      const matching = matcher.match('(a+)+$', catastrophic).finally(() => {
        settled = true;
      });
      // on the event loop, a synchronous match would settle (or throw) before any callback could run
      const ranWhileMatching = await new Promise<boolean>((resolve) => setImmediate(() => resolve(!settled)));
      expect(ranWhileMatching).toBe(true);
      const error = await matching.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).code).toBe('timeout');
      expect(matcher.worker.started).toBe(2);
      expect(await matcher.match('^b', [{ path: 'f', text: 'a\nb' }])).toEqual({ matches: [{ path: 'f', line: 2, text: 'b' }], truncated: false });
      expect(matcher.worker.started).toBe(2);
    } finally {
      await matcher.close();
    }
  });

  it('on an abort while matching: rejects with code aborted and replaces the thread', async () => {
    const matcher = new GrepMatcher({ deadlineMs: 60_000 });
    try {
      const controller = new AbortController();
      const matching = matcher.match('(a+)+$', catastrophic, controller.signal);
      setImmediate(() => controller.abort());
      expect(((await matching.catch((e: unknown) => e)) as ToolError).code).toBe('aborted');
      expect((await matcher.match('a', [{ path: 'f', text: 'a' }])).matches).toHaveLength(1);
    } finally {
      await matcher.close();
    }
  });
});

describe('grep thread start', () => {
  it('on making the grep tool (a tool-source load, as `codemode surface` does): no thread starts; the first grep starts it', async () => {
    // a child process: in this one, other test files may have made the shared thread already
    const probe = fileURLToPath(new URL('./fixtures/grep-thread-probe.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', probe], { cwd: REPO_ROOT });
    expect(JSON.parse(stdout)).toEqual({ afterLoad: false, afterGrep: true });
  });
});
