// Core `read` and `grep`: read-only access to the demo workspace folder (ctx.workspaceDir), confined to it.
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import vm from 'node:vm';
import { ToolError } from '../../errors.ts';
import type { ToolDefinition } from '../types.ts';
import { resolveWorkspacePath } from './workspace-path.ts';

/** A read result is copied into guest memory and across the JSON bridge; bigger files are for grep. */
export const MAX_READ_BYTES = 1024 * 1024;
/** Enough matches to answer a question; beyond that the pattern is too broad to be useful to a model. */
export const DEFAULT_GREP_MAX_MATCHES = 100;
/** Minified or data lines can be huge; a match line is context, not content. */
export const MAX_GREP_LINE_CHARS = 400;
/** Files above this are skipped (logs, dumps): grep is for source and notes. */
export const MAX_GREP_FILE_BYTES = 1024 * 1024;
/** Caps one grep's work over a large workspace. */
export const MAX_GREP_SCAN_BYTES = 16 * 1024 * 1024;
/** Matching runs on the Gateway's event loop: a pattern that needs longer is pathological (nested quantifiers). */
export const GREP_MATCH_BUDGET_MS = 250;
/** Long patterns buy nothing but backtracking risk. */
export const MAX_GREP_PATTERN_CHARS = 500;

export interface ReadOutput {
  path: string;
  content: string;
  bytes: number;
  truncated: boolean;
}

export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

export interface GrepOutput {
  pattern: string;
  /** `regex` when the pattern compiles as a JavaScript regular expression, else `literal`. */
  mode: 'regex' | 'literal';
  matches: GrepMatch[];
  /** More matches existed than were returned. */
  truncated: boolean;
  filesScanned: number;
}

function inputRecord(input: unknown): Record<string, unknown> {
  return input as Record<string, unknown>;
}

export function createReadTool(): ToolDefinition {
  return {
    name: 'read',
    description:
      'Read a text file from the workspace folder. `path` is relative to the workspace (e.g. "README.md", "notes/todo.md"); ' +
      `absolute paths, ".." and links that leave the workspace are refused. Returns at most ${MAX_READ_BYTES} bytes.`,
    source: 'core',
    replaySafe: true,
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1, description: 'File path relative to the workspace folder.' } },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        content: { type: 'string' },
        bytes: { type: 'integer', description: 'Size of the whole file.' },
        truncated: { type: 'boolean' },
      },
      required: ['path', 'content', 'bytes', 'truncated'],
      additionalProperties: false,
    },
    async execute(input, ctx): Promise<ReadOutput> {
      const path = String(inputRecord(input)['path']);
      const resolved = resolveWorkspacePath('read', ctx.workspaceDir, path);
      const info = await stat(resolved.real);
      if (info.isDirectory()) {
        const names = (await readdir(resolved.real)).sort();
        throw new ToolError(
          `read: ${JSON.stringify(path)} is a folder (it holds: ${names.slice(0, 20).join(', ') || 'nothing'}); read a file inside it.`,
          'is_folder',
        );
      }
      const buffer = await readFile(resolved.real);
      const truncated = buffer.length > MAX_READ_BYTES;
      return {
        path: resolved.relative,
        content: buffer.subarray(0, MAX_READ_BYTES).toString('utf8'),
        bytes: buffer.length,
        truncated,
      };
    },
  };
}

/** Files under `dir` (relative to `rootReal`), sorted, not following links: a link could lead out or loop. */
async function listFiles(dirReal: string, relativeDir: string): Promise<Array<{ real: string; relative: string }>> {
  const out: Array<{ real: string; relative: string }> = [];
  const names = (await readdir(dirReal)).sort();
  for (const name of names) {
    const real = join(dirReal, name);
    const rel = relativeDir ? `${relativeDir}/${name}` : name;
    const info = await lstat(real);
    if (info.isSymbolicLink()) continue;
    if (info.isDirectory()) out.push(...(await listFiles(real, rel)));
    else if (info.isFile()) out.push({ real, relative: rel });
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Compiles the pattern as a regex when it is one, else as a literal string. */
export function compileGrepPattern(pattern: string): { source: string; mode: 'regex' | 'literal' } {
  try {
    new RegExp(pattern);
    return { source: pattern, mode: 'regex' };
  } catch {
    return { source: escapeRegExp(pattern), mode: 'literal' };
  }
}

// Runs inside a fresh vm context with a timeout, so a catastrophic pattern is interrupted instead of hanging the Gateway.
const MATCH_SCRIPT = `
(() => {
  const re = new RegExp(source);
  const out = [];
  let truncated = false;
  outer: for (const file of files) {
    const lines = file.text.split(/\\r?\\n/);
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i];
      const line = raw.length > maxLineChars ? raw.slice(0, maxLineChars) : raw;
      if (re.test(line)) {
        if (out.length >= maxMatches) { truncated = true; break outer; }
        out.push(file.path + '\\u0000' + (i + 1) + '\\u0000' + line);
      }
    }
  }
  return { out, truncated };
})()`;

export function createGrepTool(): ToolDefinition {
  return {
    name: 'grep',
    description:
      'Search workspace files line by line. `pattern` is a case-sensitive JavaScript regular expression or, ' +
      'if it does not compile, a literal string. `path` limits the search to one file or folder ' +
      `(relative to the workspace). Returns up to ${DEFAULT_GREP_MAX_MATCHES} matches as { path, line, text }.`,
    source: 'core',
    replaySafe: true,
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, maxLength: MAX_GREP_PATTERN_CHARS, description: 'Regular expression or literal text.' },
        path: { type: 'string', minLength: 1, description: 'File or folder relative to the workspace; default: the whole workspace.' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        mode: { type: 'string', enum: ['regex', 'literal'] },
        matches: {
          type: 'array',
          items: {
            type: 'object',
            properties: { path: { type: 'string' }, line: { type: 'integer' }, text: { type: 'string' } },
            required: ['path', 'line', 'text'],
            additionalProperties: false,
          },
        },
        truncated: { type: 'boolean' },
        filesScanned: { type: 'integer' },
      },
      required: ['pattern', 'mode', 'matches', 'truncated', 'filesScanned'],
      additionalProperties: false,
    },
    async execute(input, ctx): Promise<GrepOutput> {
      const record = inputRecord(input);
      const pattern = String(record['pattern']);
      const path = typeof record['path'] === 'string' ? record['path'] : '.';
      const target = resolveWorkspacePath('grep', ctx.workspaceDir, path);
      const info = await stat(target.real);
      const candidates = info.isDirectory()
        ? await listFiles(target.real, target.relative)
        : [{ real: target.real, relative: target.relative }];

      const files: Array<{ path: string; text: string }> = [];
      let scannedBytes = 0;
      for (const file of candidates) {
        ctx.signal.throwIfAborted();
        const fileInfo = await stat(file.real);
        if (fileInfo.size > MAX_GREP_FILE_BYTES || scannedBytes + fileInfo.size > MAX_GREP_SCAN_BYTES) continue;
        const buffer = await readFile(file.real);
        if (buffer.includes(0)) continue; // binary
        scannedBytes += buffer.length;
        files.push({ path: file.relative, text: buffer.toString('utf8') });
      }

      const compiled = compileGrepPattern(pattern);
      let result: { out: string[]; truncated: boolean };
      try {
        const sandbox = vm.createContext({
          files,
          source: compiled.source,
          maxMatches: DEFAULT_GREP_MAX_MATCHES,
          maxLineChars: MAX_GREP_LINE_CHARS,
        });
        result = vm.runInContext(MATCH_SCRIPT, sandbox, { timeout: GREP_MATCH_BUDGET_MS }) as typeof result;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
          throw new ToolError(
            `grep: the pattern took longer than ${GREP_MATCH_BUDGET_MS} ms to match; simplify it (avoid nested quantifiers such as (a+)+) or pass a narrower path.`,
            'timeout',
          );
        }
        throw error;
      }
      // Rebuild plain host objects: values made inside the vm context carry that context's prototypes.
      const matches = Array.from(result.out, (row) => {
        const [matchPath = '', line = '0', ...text] = String(row).split('\u0000');
        return { path: matchPath, line: Number(line), text: text.join('\u0000') };
      });
      return { pattern, mode: compiled.mode, matches, truncated: Boolean(result.truncated), filesScanned: files.length };
    },
  };
}
