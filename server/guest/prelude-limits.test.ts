// The guest controller's own limits, on every executor: timer delays are clamped to the sleep cap, names and
// queries past the bridge's length limits reject catchably, and inputs JSON would misreport are refused as such.
import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY_MS } from '../bridge/dispatcher.ts';
import { MAX_NAME_CHARS, MAX_QUERY_CHARS } from '../bridge/protocol-check.mjs';
import type { ExecutorKind } from '../config/types.ts';
import { expectCompleted, expectFailed } from '../testing.ts';
import { EXECUTOR_KINDS, useRecordedGateway } from './testing.ts';

describe.each(EXECUTOR_KINDS)('guest controller limits: %s', (kind: ExecutorKind) => {
  const h = useRecordedGateway(kind, 'limits');
  const run = (code: string) => h.run(code);

  it('on setTimeout with a delay past the sleep cap (2 ** 31, 1e300): the host is asked for the cap, not days', async () => {
    const r = expectCompleted(
      await run('const a = setTimeout(() => {}, 2 ** 31);\nconst b = setTimeout(() => {}, 1e300);\nconst c = setTimeout(() => {}, 5);\nclearTimeout(a);\nclearTimeout(b);\nclearTimeout(c);\nreturn "cleared"'),
    );
    expect(r.value).toBe('cleared');
    const delays = h.log.requests.flatMap((q) => (q.op === 'timer' ? [q.ms] : []));
    expect(delays).toEqual([MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS, 5]);
  });

  it('on a store key, result ref or search query past its length limit: a catchable invalid_input naming the limit, nothing sent', async () => {
    const attempt = (call: string, field: string) => `try { await ${call}; out.${field} = "sent"; } catch (e) { out.${field} = e.code + ": " + e.message; }`;
    const r = expectCompleted(
      await run(
        [
          'const out = {};',
          attempt(`store("k".repeat(${MAX_NAME_CHARS + 1}), 1)`, 'store'),
          attempt(`load("k".repeat(${MAX_NAME_CHARS + 1}))`, 'load'),
          attempt(`results.load("r".repeat(${MAX_NAME_CHARS + 1}))`, 'resultsLoad'),
          attempt(`results.delete("r".repeat(${MAX_NAME_CHARS + 1}))`, 'resultsDelete'),
          attempt(`catalog.search("w".repeat(${MAX_QUERY_CHARS + 1}))`, 'search'),
          'return out;',
        ].join('\n'),
      ),
    );
    const over = (what: string, n: number, max: number, todo: string) => `invalid_input: ${what} is ${n} characters, over the ${max}-character limit; ${todo}`;
    const shorterKey = 'use a shorter key (a short name, or a hash of the long one)';
    const savedRef = 'pass the ref that results.save returned';
    expect(r.value).toEqual({
      store: over('store(key, value): key', MAX_NAME_CHARS + 1, MAX_NAME_CHARS, shorterKey),
      load: over('load(key): key', MAX_NAME_CHARS + 1, MAX_NAME_CHARS, shorterKey),
      resultsLoad: over('results.load(ref): ref', MAX_NAME_CHARS + 1, MAX_NAME_CHARS, savedRef),
      resultsDelete: over('results.delete(ref): ref', MAX_NAME_CHARS + 1, MAX_NAME_CHARS, savedRef),
      search: over('catalog.search(query): the query', MAX_QUERY_CHARS + 1, MAX_QUERY_CHARS, 'search with a few keywords'),
    });
    expect(h.log.requests).toEqual([]);
  });

  it('on a bigint tool input: a catchable invalid_input that names a bigint (it would cross as a string), nothing sent', async () => {
    const r = expectCompleted(await run('try { await echo(10n); return "sent"; } catch (e) { return [e.code, e.message]; }'));
    expect(r.value).toEqual(['invalid_input', 'echo: "input" must be one object, got a bigint; call it as echo({ ...input })']);
    expect(h.log.requests).toEqual([]);
  });

  // V8 refuses the string at once; QuickJS fills its memory first (memory_limit_exceeded, the corpus's cell 31)
  it.runIf(kind === 'node')('on a value past the engine\'s string length (2^32-1 holes): invalid_input that says what to do, catchable for an input', async () => {
    const r = expectFailed(await run('const a = [];\na.length = 2 ** 32 - 1;\nreturn a'));
    expect(r.code).toBe('invalid_input');
    expect(r.error).toContain('the final value is too large to serialize (Invalid string length); pass a smaller value, or results.save it in parts');
    const caught = expectCompleted(
      await run('const a = [];\na.length = 2 ** 32 - 1;\ntry { await echo({ list: a }); return "sent"; } catch (e) { return [e.code, e.message]; }'),
    );
    expect(caught.value).toEqual(['invalid_input', 'the input of echo() is too large to serialize (Invalid string length); pass a smaller value, or results.save it in parts']);
  });

  it('on a store key and a search query at their length limits: they cross', async () => {
    const r = expectCompleted(
      await run(
        `const key = "k".repeat(${MAX_NAME_CHARS});\nawait store(key, 7);\nconst found = await catalog.search("echo" + " ".repeat(${MAX_QUERY_CHARS - 4}));\nreturn { loaded: await load(key), found: found.length > 0 }`,
      ),
    );
    expect(r.value).toEqual({ loaded: 7, found: true });
  });
});
