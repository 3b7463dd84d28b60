// Core shell `exec`: runs one allow-listed command (config.shellAllow) in the workspace folder, without a shell.
//
// Why it is safe enough for a demo: execFile with `shell: false` means no pipes, globs,
// variables or substitutions; the command must be an exact allow-list entry with an
// argument grammar (config/shell-grammar.ts) that reads argv as the command's getopt_long would,
// so every file it opens (an operand, `-fFILE`, `-uf FILE` clusters, `--file=FILE`, the
// word after `--reference`) is found and must be a workspace-relative spelling that stays
// inside the workspace (no absolute paths, no "..", no links leading out); any flag the
// grammar does not know is refused. The child gets no stdin, a minimal environment, the
// cell's timeout, the run's abort signal and a bounded output. It still needs an operator
// approval for every call.
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, ToolError } from '../../errors.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { ToolDefinition } from '../types.ts';
import { classifyArgs, hasShellGrammar, missingGrammarReason } from '../../config/shell-grammar.ts';
import { isConfinedSpelling, isInside, outsideWorkspace } from './workspace-path.ts';

/** More arguments than this is a script, not a command. */
export const MAX_SHELL_ARGS = 64;

export interface ShellOutput {
  command: string;
  args: string[];
  /** Exit status; non-zero is a normal result (e.g. `cat` of a missing file), not a tool failure. */
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Output went over the byte bound and was cut. */
  truncated: boolean;
}

/**
 * Confines one path the command will open: a workspace-relative spelling whose real location (or, for a path
 * that does not exist yet, its deepest existing folder's) is inside the workspace. Checking a missing path's
 * folder keeps `escape-dir/anything` from probing what exists outside.
 */
function assertPathConfined(workspaceReal: string, arg: string, path: string): void {
  if (!isConfinedSpelling(path)) throw outsideWorkspace('exec', arg);
  let candidate = join(workspaceReal, path);
  for (;;) {
    try {
      if (!isInside(workspaceReal, realpathSync(candidate))) throw outsideWorkspace('exec', arg);
      return;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      const parent = dirname(candidate);
      // the workspace itself resolved above; reaching the root means the spelling was not under it
      if (parent === candidate || !isInside(workspaceReal, parent)) throw outsideWorkspace('exec', arg);
      candidate = parent;
    }
  }
}

/** Throws ConfigError when `shellAllow` names a command without a grammar (config/load.ts refuses such a file first). */
export function createShellTool(config: GatewayConfig): ToolDefinition {
  const allowed = [...config.shellAllow];
  allowed.forEach((command, i) => {
    if (!hasShellGrammar(command)) throw new ConfigError(`shellAllow[${i}]`, missingGrammarReason(command));
  });
  const { timeoutMs, maxOutputBytes } = config.tools.codeMode;
  const allowedText = allowed.length ? allowed.join(', ') : '(none: the operator allowed no commands)';
  return {
    name: 'exec',
    description:
      `Run one allow-listed command in the workspace folder, without a shell (no pipes, globs or variables). Allowed commands: ${allowedText}. ` +
      'Arguments go in `args`; paths must be relative to the workspace; each command accepts only its common read-only flags (an unknown flag is refused with the list of allowed ones). ' +
      'Each call needs operator approval. Returns { exitCode, stdout, stderr }.',
    source: 'core',
    approval: 'required',
    executionMode: 'sequential',
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, description: `Command name, one of: ${allowedText}.` },
        args: { type: 'array', items: { type: 'string' }, maxItems: MAX_SHELL_ARGS, description: 'Arguments, one per item.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string' },
        args: { type: 'array', items: { type: 'string' } },
        exitCode: { type: 'integer' },
        stdout: { type: 'string' },
        stderr: { type: 'string' },
        truncated: { type: 'boolean' },
      },
      required: ['command', 'args', 'exitCode', 'stdout', 'stderr', 'truncated'],
      additionalProperties: false,
    },
    async execute(input, ctx): Promise<ShellOutput> {
      const record = input as { command: string; args?: string[] };
      const command = record.command;
      const args = record.args ?? [];
      if (!allowed.includes(command)) {
        throw new ToolError(
          `exec: command ${JSON.stringify(command)} is not allowed; allowed commands: ${allowedText}. Pass the bare command name and put arguments in "args".`,
          'command_not_allowed',
        );
      }
      let workspaceReal: string;
      try {
        workspaceReal = realpathSync(ctx.workspaceDir);
      } catch {
        throw new ToolError('exec: the workspace folder is missing on the host; ask the operator to check the "workspace" config field.');
      }
      const classified = classifyArgs(command, args);
      if (!classified.ok) {
        const { arg, reason, code } = classified.refusal;
        throw new ToolError(`exec: argument ${JSON.stringify(arg)} refused: ${reason}.`, code);
      }
      for (const { arg, path } of classified.paths) assertPathConfined(workspaceReal, arg, path);

      return new Promise((resolve, reject) => {
        const child = execFile(
          command,
          args,
          {
            cwd: workspaceReal,
            shell: false,
            timeout: timeoutMs,
            maxBuffer: maxOutputBytes,
            signal: ctx.signal,
            encoding: 'utf8',
            windowsHide: true,
            // The child sees no Gateway secrets: only what it needs to find the binary and print text.
            env: {
              PATH: process.env['PATH'] ?? '/usr/bin:/bin',
              LANG: 'C.UTF-8',
              LC_ALL: 'C.UTF-8',
              TZ: process.env['TZ'] ?? 'UTC',
              NODE_ENV: process.env.NODE_ENV,
            },
          },
          (error, stdout, stderr) => {
            if (!error) {
              resolve({ command, args, exitCode: 0, stdout, stderr, truncated: false });
              return;
            }
            const failure = error as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null; code?: string | number };
            if (failure.name === 'AbortError' || ctx.signal.aborted) {
              reject(new ToolError(`exec: ${command} was canceled because the run was aborted.`, 'aborted'));
            } else if (failure.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
              resolve({ command, args, exitCode: -1, stdout, stderr, truncated: true });
            } else if (failure.killed && failure.signal) {
              reject(new ToolError(`exec: ${command} did not finish within ${timeoutMs} ms and was stopped; pass narrower arguments.`, 'timeout'));
            } else if (typeof failure.code === 'number') {
              resolve({ command, args, exitCode: failure.code, stdout, stderr, truncated: false });
            } else if (failure.code === 'ENOENT') {
              reject(new ToolError(`exec: command ${JSON.stringify(command)} is allowed but not installed on this host; try another allowed command: ${allowedText}.`));
            } else {
              reject(new ToolError(`exec: ${command} failed to start (${failure.code ?? failure.message}).`));
            }
          },
        );
        // no standard input: a command that reads it (an operand the grammar missed) sees end of file, not a hang
        child.stdin?.end();
      });
    },
  };
}
