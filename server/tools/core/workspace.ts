// Core `read` and `grep`: read-only access to the demo workspace folder (ctx.workspaceDir), confined to it.
//
// grep reads and confines files on the Gateway (asynchronous I/O) and matches in a worker thread under a hard
// deadline (grep-worker.mjs): a JavaScript regex may backtrack exponentially, and on the event loop one such
// pattern stalls every other client.
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolError } from '../../errors.ts';
import { DeadlineWorker } from '../../offload/deadline-worker.ts';
import type { Owner } from '../../access/owners.ts';
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
/**
 * Matching a bounded workspace (MAX_GREP_SCAN_BYTES) with a sane pattern takes milliseconds; a pattern that needs
 * seconds is pathological (nested quantifiers). Generous enough for a loaded machine, short enough that a cell
 * gets its answer well inside its own budget. The matching thread is terminated when it is exceeded.
 */
export const GREP_MATCH_DEADLINE_MS = 2000;
/** The matching thread starts in tens of milliseconds; this bounds a machine too loaded to start it at all. */
export const GREP_WORKER_START_TIMEOUT_MS = 10_000;
/** One thread serves every run's grep, one pattern at a time; more waiting than this is refused, not queued without end. */
export const MAX_QUEUED_GREPS = 32;
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

/** One grep match job, as grep-worker.mjs reads it. */
export interface MatchJob {
  source: string;
  files: Array<{ path: string; text: string }>;
  maxMatches: number;
  maxLineChars: number;
}

export interface MatchResult {
  matches: GrepMatch[];
  truncated: boolean;
}

export interface GrepMatcherOptions {
  deadlineMs?: number;
}

/** Line-by-line regex matching in the shared warm grep thread. Never blocks the event loop. */
export class GrepMatcher {
  readonly worker: DeadlineWorker<MatchJob, MatchResult>;
  readonly deadlineMs: number;

  constructor(opts: GrepMatcherOptions = {}) {
    this.deadlineMs = opts.deadlineMs ?? GREP_MATCH_DEADLINE_MS;
    this.worker = new DeadlineWorker({
      entry: new URL('./grep-worker.mjs', import.meta.url),
      name: 'grep',
      deadlineMs: this.deadlineMs,
      startTimeoutMs: GREP_WORKER_START_TIMEOUT_MS,
      maxQueued: MAX_QUEUED_GREPS,
    });
  }

  /** Matches `source` (a compiled grep pattern) in `files`; throws a ToolError that says what to do on any failure. */
  /** `runKey`: the agent run the grep belongs to; a run's greps take one place in the thread's queue, out of `owner`'s share. */
  async match(source: string, files: Array<{ path: string; text: string }>, signal?: AbortSignal, runKey?: string, owner?: Owner): Promise<MatchResult> {
    const outcome = await this.worker.run({ source, files, maxMatches: DEFAULT_GREP_MAX_MATCHES, maxLineChars: MAX_GREP_LINE_CHARS }, signal, runKey, owner);
    if (outcome.ok) return outcome.value;
    switch (outcome.reason) {
      case 'timeout':
        throw new ToolError(
          `grep: the pattern took longer than ${this.deadlineMs} ms to match and was stopped; simplify the pattern (avoid nested quantifiers such as (a+)+) or pass a narrower path.`,
          'timeout',
        );
      case 'aborted':
        throw new ToolError('grep: canceled because the run was aborted.', 'aborted');
      case 'busy':
        throw new ToolError(`grep: ${outcome.message}.`, 'busy');
      default:
        throw new ToolError(`grep: ${outcome.message}.`);
    }
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}

let sharedMatcher: GrepMatcher | undefined;
/** The process's grep thread, started at the first grep (or by warmGrepThread) and kept warm. */
function defaultMatcher(): GrepMatcher {
  sharedMatcher ??= new GrepMatcher();
  return sharedMatcher;
}

/** Whether the process's grep thread has been made (tests: a tool-source load must not start it). */
export function sharedGrepThreadStarted(): boolean {
  return sharedMatcher !== undefined;
}

/** Starts the process's grep thread now, so a server's first grep does not pay for it. */
export function warmGrepThread(): void {
  defaultMatcher().worker.warm();
}

/** `matcher`: where matching runs (tests pass their own deadline); the process's shared warm thread by default. */
export function createGrepTool(matcher?: GrepMatcher): ToolDefinition {
  // no thread here: a tool-source load (`codemode surface`, `catalog`) never greps; the first grep starts it
  // (tens of milliseconds, off the event loop), and a server warms it at start (warmGrepThread)
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
      const result = await (matcher ?? defaultMatcher()).match(compiled.source, files, ctx.signal, ctx.agentRunId, ctx.owner);
      // rebuilt field by field: what crosses back from the thread is data, kept to the declared shape
      const matches = result.matches.map((m) => ({ path: String(m.path), line: Number(m.line), text: String(m.text) }));
      return { pattern, mode: compiled.mode, matches, truncated: Boolean(result.truncated), filesScanned: files.length };
    },
  };
}
