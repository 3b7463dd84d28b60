// The hostile corpus: one cell per attack in cells/, each with its expected outcome in a header; loading and checking.
/*
 * A cell file opens with comment lines:
 *   // attack:  what the cell does
 *   // finding: the issue finding it guards (e.g. 9.1) or "sandbox walls"
 *   // expect:  {"status": "completed" | "failed" | [...], "value"?: any, "code"?: string | [...], "notCode"?: [...], "error"?: text}
 *               `value` is compared when the cell completed, `code` and `error` (a substring) when it failed
 *   // options: {"approve"?: true, "typecheck"?: true}   (optional)
 *   // repeat:  N   run the cell N times in a row (optional; a lock-out needs many runs)
 *   // expect-<executor>: {...}   replaces `expect` on that executor, for a documented engine difference
 *               (docs/decisions.md, "Executor parity"); the line after it says which
 * Every cell is also held to what no attack may cause: an `internal_error`, a crashed process, or a
 * normal cell (probe.js) failing in the same session afterwards. Runners: corpus.test.ts (the CLI,
 * both executors) and e2e/hostile.spec.ts (the server over HTTP).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

export const CORPUS_DIR = fileURLToPath(new URL('./cells/', import.meta.url));
export const PROBE_FILE = fileURLToPath(new URL('./probe.js', import.meta.url));

export interface Expectation {
  status: string | string[];
  value?: unknown;
  code?: string | string[];
  notCode?: string[];
  /** A substring the error message must contain when the cell failed. */
  error?: string;
}

export interface HostileCase {
  /** File name, e.g. `01-tojson-null-before-tool-call.js`. */
  name: string;
  file: string;
  code: string;
  language: 'javascript' | 'typescript';
  attack: string;
  finding: string;
  expect: Expectation;
  /** Per-executor expectations (`// expect-quickjs-emscripten:`), where an engine differs. */
  expectFor: Record<string, Expectation>;
  approve: boolean;
  typecheck: boolean;
  repeat: number;
}

/** The parts of an exec/wait result a check reads. */
export interface ResultLike {
  status: string;
  value?: unknown;
  error?: string;
  code?: string;
}

function header(code: string, key: string): string | undefined {
  const m = code.match(new RegExp(`^// ${key}: (.*)$`, 'm'));
  return m?.[1]?.trim();
}

export function loadCorpus(dir = CORPUS_DIR): HostileCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js') || f.endsWith('.ts'))
    .sort()
    .map((name) => {
      const file = join(dir, name);
      const code = readFileSync(file, 'utf8');
      const attack = header(code, 'attack');
      const finding = header(code, 'finding');
      const expectText = header(code, 'expect');
      if (!attack || !finding || !expectText) throw new Error(`${name}: needs // attack:, // finding: and // expect: header lines`);
      const expect = JSON.parse(expectText) as Expectation;
      const expectFor: Record<string, Expectation> = {};
      for (const m of code.matchAll(/^\/\/ expect-([a-z-]+): (.*)$/gm)) expectFor[m[1]!] = JSON.parse(m[2]!) as Expectation;
      const options = JSON.parse(header(code, 'options') ?? '{}') as { approve?: boolean; typecheck?: boolean };
      return {
        name,
        file,
        code,
        language: name.endsWith('.ts') ? 'typescript' : 'javascript',
        attack,
        finding,
        expect,
        expectFor,
        approve: Boolean(options.approve),
        typecheck: Boolean(options.typecheck),
        repeat: Number(header(code, 'repeat') ?? '1'),
      };
    });
}

const list = (v: string | string[] | undefined): string[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

/** What is wrong with a cell's final result against its expectation (empty when it holds). */
export function checkOutcome(c: Pick<HostileCase, 'name' | 'expect'>, result: ResultLike): string[] {
  const problems: string[] = [];
  const said = `${result.status}${result.code ? ` (${result.code})` : ''}${result.error ? `: ${result.error.slice(0, 300)}` : ''}`;
  if (result.code === 'internal_error') problems.push(`${c.name}: internal_error is never an acceptable outcome; got ${said}`);
  const statuses = list(c.expect.status) ?? [];
  if (!statuses.includes(result.status)) problems.push(`${c.name}: expected status ${statuses.join(' or ')}, got ${said}`);
  if (result.status === 'completed' && 'value' in c.expect && !isDeepStrictEqual(result.value, c.expect.value)) {
    problems.push(`${c.name}: expected value ${JSON.stringify(c.expect.value)}, got ${JSON.stringify(result.value)?.slice(0, 300)}`);
  }
  const codes = list(c.expect.code);
  if (result.status === 'failed' && codes && !codes.includes(result.code ?? '')) problems.push(`${c.name}: expected code ${codes.join(' or ')}, got ${said}`);
  if (result.status === 'failed' && c.expect.error !== undefined && !(result.error ?? '').includes(c.expect.error)) {
    problems.push(`${c.name}: expected an error containing ${JSON.stringify(c.expect.error)}, got ${said}`);
  }
  if (result.code && c.expect.notCode?.includes(result.code)) problems.push(`${c.name}: must not end with ${result.code}; got ${said}`);
  return problems;
}

/** The probe's expected value: a normal cell still reads a file, runs a timer and uses the session store. */
export const PROBE_EXPECT: Expectation = { status: 'completed', value: { read: 'README.md', stored: { ok: true } } };
