// Tests for the shell exec tool: allow list, no shell, workspace-confined arguments, bounded output, approval metadata.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../errors.ts';
import { callTool, copyOfDemoWorkspace, testConfig, testContext } from '../testing.ts';
import { withInputValidation } from '../validate.ts';
import { type ShellOutput, createShellTool } from './shell.ts';

const workspace = copyOfDemoWorkspace();
const outside = mkdtempSync(join(tmpdir(), 'codemode-outside-'));
writeFileSync(join(outside, 'private.txt'), 'outside\n');
symlinkSync(join(outside, 'private.txt'), join(workspace, 'link.txt'));
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
    for (const args of [['/etc/passwd'], ['../x'], ['--files0-from=/etc/passwd'], ['-f/etc/passwd'], ['link.txt']]) {
      expect((await failure(callTool(shell, { command: 'cat', args }, ctx))).code).toBe('outside_workspace');
    }
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
