// Tests for the shell exec tool: allow list, no shell, workspace-confined arguments, bounded output, approval metadata.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, ToolError } from '../../errors.ts';
import { callTool, copyOfDemoWorkspace, testConfig, testContext } from '../testing.ts';
import { withInputValidation } from '../validate.ts';
import { type ShellOutput, createShellTool } from './shell.ts';

const workspace = copyOfDemoWorkspace();
const outside = mkdtempSync(join(tmpdir(), 'codemode-outside-'));
writeFileSync(join(outside, 'private.txt'), 'outside\n');
symlinkSync(join(outside, 'private.txt'), join(workspace, 'link.txt'));
symlinkSync(outside, join(workspace, 'escape-dir'));
writeFileSync(join(workspace, 'dates.txt'), '2024-01-02\n');
const ctx = testContext({ workspaceDir: workspace });
const config = testConfig();
const shell = withInputValidation(createShellTool(config));

afterAll(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.catch((e: unknown) => e);
  if (error instanceof ToolError) return error;
  throw new Error(`expected a ToolError, got ${String(error)}`);
}

describe('shell exec', () => {
  it('needs approval and runs sequentially', () => {
    expect(shell.name).toBe('exec');
    expect(shell.approval).toBe('required');
    expect(shell.executionMode).toBe('sequential');
  });

  it('on an allowed command: runs it in the workspace folder', async () => {
    const result = (await callTool(shell, { command: 'ls' }, ctx)) as ShellOutput;
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n')).toEqual(expect.arrayContaining(['README.md', 'data', 'notes']));
    const wc = (await callTool(shell, { command: 'wc', args: ['-l', 'data/sales.csv'] }, ctx)) as ShellOutput;
    expect(wc.stdout.trim()).toBe('13 data/sales.csv');
  });

  it('on shell syntax: passes it as plain text, without a shell', async () => {
    const result = (await callTool(shell, { command: 'echo', args: ['$HOME', '*', '|', 'x;', 'rm'] }, ctx)) as ShellOutput;
    expect(result.stdout).toBe('$HOME * | x; rm\n');
  });

  it('on a command not on the list: names the allowed commands', async () => {
    const error = await failure(callTool(shell, { command: 'rm', args: ['-rf', 'notes'] }, ctx));
    expect(error.code).toBe('command_not_allowed');
    expect(error.message).toContain(`allowed commands: ${config.shellAllow.join(', ')}`);
    await failure(callTool(shell, { command: '/bin/ls' }, ctx));
  });

  it('on arguments that leave the workspace: refuses them', async () => {
    for (const args of [['/etc/passwd'], ['../x'], ['link.txt'], ['escape-dir/private.txt'], ['escape-dir/missing.txt']]) {
      expect((await failure(callTool(shell, { command: 'cat', args }, ctx))).code).toBe('outside_workspace');
    }
  });

  it('on a flag the command grammar does not know: names the argument and the allowed flags', async () => {
    const error = await failure(callTool(shell, { command: 'cat', args: ['-f/etc/passwd'] }, ctx));
    expect(error.code).toBe('argument_not_allowed');
    expect(error.message).toContain('"-f/etc/passwd"');
    expect(error.message).toContain('cat allows: --help, --version, -A/--show-all');
  });

  it('on an allow-list naming a command without a grammar: the tool is never made (ConfigError naming the commands it knows)', () => {
    expect(() => createShellTool(testConfig({ shellAllow: ['ls', 'pwd'] }))).toThrow(ConfigError);
    expect(() => createShellTool(testConfig({ shellAllow: ['ls', 'pwd'] }))).toThrow(/^shellAllow\[1\]: command "pwd" has no argument grammar.*commands it knows: ls, cat/);
  });

  it('on a non-zero exit: returns the exit code and stderr as a normal result', async () => {
    const result = (await callTool(shell, { command: 'cat', args: ['missing.txt'] }, ctx)) as ShellOutput;
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('missing.txt');
  });

  it('on output over maxOutputBytes: truncates and flags it', async () => {
    const small = withInputValidation(createShellTool(testConfig({ tools: { codeMode: { ...config.tools.codeMode, maxOutputBytes: 64 } } })));
    const result = (await callTool(small, { command: 'cat', args: ['data/sales.csv'] }, ctx)) as ShellOutput;
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBeLessThanOrEqual(64);
  });

  it('on a child that ignores the deadline: stops it after timeoutMs', async () => {
    const slow = withInputValidation(
      createShellTool(testConfig({ shellAllow: ['sleep'], tools: { codeMode: { ...config.tools.codeMode, timeoutMs: 100 } } })),
    );
    const error = await failure(callTool(slow, { command: 'sleep', args: ['5'] }, ctx));
    expect(error.code).toBe('timeout');
  });

  it('on abort: kills the child and rejects with code aborted', async () => {
    const tool = withInputValidation(createShellTool(testConfig({ shellAllow: ['sleep'] })));
    const controller = new AbortController();
    const pending = callTool(tool, { command: 'sleep', args: ['5'] }, testContext({ workspaceDir: workspace, signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).code).toBe('aborted');
  });

  it('on bad input: names the field', async () => {
    expect((await failure(callTool(shell, { command: 'ls', args: 'notes' }, ctx))).message).toContain('"args" must be an array');
  });
});

// GNU option spellings per allow-listed command: `runs` means the grammar let it through and the command ran
// (its exit code may be non-zero, like cat of a missing file); otherwise the refusal code. Spellings that would
// change the machine if a regression let them run (date -s sets the clock when the tests run as root) are
// checked in shell-grammar.test.ts, which never spawns.
type Expect = 'runs' | 'outside_workspace' | 'argument_not_allowed';
const SPELLINGS: Array<[command: string, args: string[], expected: Expect]> = [
  ['ls', [], 'runs'],
  ['ls', ['-la'], 'runs'],
  ['ls', ['-l', '-a', 'notes'], 'runs'],
  ['ls', ['notes', '-l'], 'runs'],
  ['ls', ['--all', '--', 'notes'], 'runs'],
  ['ls', ['--color=never', '--sort', 'size', 'data'], 'runs'],
  ['ls', ['-w80', '-T', '4', '-I', '*.md', '--hide=*.csv'], 'runs'],
  ['ls', ['/etc'], 'outside_workspace'],
  ['ls', ['..'], 'outside_workspace'],
  ['ls', ['-la', '/etc'], 'outside_workspace'],
  ['ls', ['--', '/etc'], 'outside_workspace'],
  ['ls', ['escape-dir'], 'outside_workspace'],
  ['ls', ['-L', 'notes'], 'argument_not_allowed'],
  ['ls', ['--dereference'], 'argument_not_allowed'],
  ['ls', ['--hyperlink'], 'argument_not_allowed'],
  ['ls', ['--al'], 'argument_not_allowed'],
  ['ls', ['--sort=bogus'], 'argument_not_allowed'],
  ['ls', ['--sort'], 'argument_not_allowed'],
  ['ls', ['-'], 'argument_not_allowed'],
  ['cat', ['README.md'], 'runs'],
  ['cat', ['-An', 'README.md'], 'runs'],
  ['cat', ['--number', '--', 'notes/todo.md'], 'runs'],
  ['cat', ['missing.txt'], 'runs'],
  ['cat', ['/etc/passwd'], 'outside_workspace'],
  ['cat', ['README.md', '/etc/passwd'], 'outside_workspace'],
  ['cat', ['--', '/etc/passwd'], 'outside_workspace'],
  ['cat', ['link.txt'], 'outside_workspace'],
  ['cat', ['-'], 'argument_not_allowed'],
  ['cat', ['--', '-'], 'argument_not_allowed'],
  ['cat', ['-f/etc/passwd'], 'argument_not_allowed'],
  ['cat', ['-n/etc/passwd'], 'argument_not_allowed'],
  ['cat', ['--files0-from=/etc/passwd'], 'argument_not_allowed'],
  ['wc', ['-l', 'data/sales.csv'], 'runs'],
  ['wc', ['-lw', 'README.md'], 'runs'],
  ['wc', ['--lines', '--total=never', 'README.md', 'notes/todo.md'], 'runs'],
  ['wc', ['/etc/passwd'], 'outside_workspace'],
  ['wc', ['-l', '--', '/etc/passwd'], 'outside_workspace'],
  ['wc', ['--files0-from=/etc/passwd'], 'argument_not_allowed'],
  ['wc', ['--files0-from', 'notes/todo.md'], 'argument_not_allowed'],
  ['wc', ['--files0=/etc/passwd'], 'argument_not_allowed'],
  ['wc', ['-'], 'argument_not_allowed'],
  ['head', ['-n', '2', 'README.md'], 'runs'],
  ['head', ['-n2', 'README.md'], 'runs'],
  ['head', ['--lines=2', 'README.md'], 'runs'],
  ['head', ['--lines', '-1', 'README.md'], 'runs'],
  ['head', ['-5', 'README.md'], 'runs'],
  ['head', ['-c', '1K', '-qv', 'README.md', 'notes/todo.md'], 'runs'],
  ['head', ['/etc/passwd'], 'outside_workspace'],
  ['head', ['-n', '1', '/etc/passwd'], 'outside_workspace'],
  ['head', ['-n', '/etc/passwd'], 'argument_not_allowed'],
  ['head', ['-n/etc/passwd'], 'argument_not_allowed'],
  ['head', ['--lines=x', 'README.md'], 'argument_not_allowed'],
  ['head', ['README.md', '-5'], 'argument_not_allowed'],
  ['head', ['-n'], 'argument_not_allowed'],
  ['head', ['-'], 'argument_not_allowed'],
  ['date', [], 'runs'],
  ['date', ['-u', '+%Y-%m-%d'], 'runs'],
  ['date', ['-d', '@0', '+%s'], 'runs'],
  ['date', ['--date=@0'], 'runs'],
  ['date', ['-ud@0'], 'runs'],
  ['date', ['-I'], 'runs'],
  ['date', ['-Iseconds'], 'runs'],
  ['date', ['--iso-8601=date', '--rfc-3339=seconds'], 'runs'],
  ['date', ['-R'], 'runs'],
  ['date', ['-f', 'dates.txt'], 'runs'],
  ['date', ['-ufdates.txt'], 'runs'],
  ['date', ['--file=dates.txt'], 'runs'],
  ['date', ['-r', 'README.md'], 'runs'],
  ['date', ['--reference=README.md'], 'runs'],
  ['date', ['-uf/etc/passwd'], 'outside_workspace'],
  ['date', ['-f/etc/passwd'], 'outside_workspace'],
  ['date', ['-f', '/etc/passwd'], 'outside_workspace'],
  ['date', ['--file=/etc/passwd'], 'outside_workspace'],
  ['date', ['--file', '/etc/passwd'], 'outside_workspace'],
  ['date', ['--reference=/etc/passwd'], 'outside_workspace'],
  ['date', ['--reference', '../README.md'], 'outside_workspace'],
  ['date', ['-r/etc/passwd'], 'outside_workspace'],
  ['date', ['-ur', 'link.txt'], 'outside_workspace'],
  ['date', ['-f', 'escape-dir/private.txt'], 'outside_workspace'],
  ['date', ['-f', '-'], 'argument_not_allowed'],
  ['date', ['-f-'], 'argument_not_allowed'],
  ['date', ['--fi=/etc/passwd'], 'argument_not_allowed'],
  ['date', ['-d', 'TZ="/etc/passwd" now'], 'argument_not_allowed'],
  ['date', ['-Ibogus'], 'argument_not_allowed'],
  ['date', ['-f'], 'argument_not_allowed'],
  ['echo', ['hi'], 'runs'],
  ['echo', ['-n', 'x'], 'runs'],
  ['echo', ['/etc/passwd', '--files0-from=/etc/passwd'], 'runs'],
];

describe('shell exec argument grammar (GNU option spellings)', () => {
  it.each(SPELLINGS)('%s %j: %s', async (command, args, expected) => {
    const outcome = await callTool(shell, { command, args }, ctx).then(
      (result) => result as ShellOutput,
      (error: unknown) => error,
    );
    if (expected === 'runs') {
      expect(outcome).toMatchObject({ command, args, exitCode: expect.any(Number) });
      expect(JSON.stringify(outcome)).not.toContain('root:');
    } else {
      expect(outcome).toBeInstanceOf(ToolError);
      expect((outcome as ToolError).code).toBe(expected);
      expect((outcome as ToolError).message).toContain(JSON.stringify(args.find((a) => (outcome as ToolError).message.includes(JSON.stringify(a))) ?? '?'));
    }
  });

  it('on echo: words are printed as text, never opened', async () => {
    const result = (await callTool(shell, { command: 'echo', args: ['/etc/passwd'] }, ctx)) as ShellOutput;
    expect(result.stdout).toBe('/etc/passwd\n');
  });

  it('on date -f with a workspace file: reads that file (the value is confined, not refused)', async () => {
    const result = (await callTool(shell, { command: 'date', args: ['-u', '-f', 'dates.txt', '+%Y-%m-%d'] }, ctx)) as ShellOutput;
    expect(result.stdout.trim()).toBe('2024-01-02');
  });

  it('on sleep (an allow-list entry of tests): durations only', async () => {
    const tool = withInputValidation(createShellTool(testConfig({ shellAllow: ['sleep'] })));
    expect(await callTool(tool, { command: 'sleep', args: ['0'] }, ctx)).toMatchObject({ exitCode: 0 });
    expect((await failure(callTool(tool, { command: 'sleep', args: ['/etc/passwd'] }, ctx))).code).toBe('argument_not_allowed');
  });
});
