// Values crossing the bridge, on both executors: repeated references are not cycles, cycles and depth fail
// with clear guest errors, large flat values cross in linear time, and __proto__ is a field like any other.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutorKind } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import type { Gateway } from '../gateway.ts';
import { MAX_VALUE_DEPTH } from '../runs/bound.ts';
import { expectCompleted, expectFailed } from '../testing.ts';
import { EXECUTOR_KINDS, createExecutor, echoTool, gatewayWith } from './testing.ts';

/** Guest source for `depth` nested arrays around 0 (the prelude's MAX_VALUE_DEPTH equals the host's, see bound.test.ts). */
const nestedArrays = (depth: number) => `(() => { let v = 0; for (let i = 0; i < ${depth}; i++) v = [v]; return v; })()`;

describe.each(EXECUTOR_KINDS)('values across the bridge: %s', (kind: ExecutorKind) => {
  let executor: Executor;
  let gw: Gateway;
  let echo: ReturnType<typeof echoTool>;
  const turns: string[] = [];

  beforeAll(async () => {
    executor = await createExecutor(kind);
    echo = echoTool();
    // generous budget: the 30k-row cell must finish on a loaded machine; only a quadratic check would not
    gw = await gatewayWith(executor, [echo.tool], { timeoutMs: 10_000 });
  });

  afterEach(() => {
    for (const id of turns.splice(0)) gw.endTurn(id);
    echo.inputs.length = 0;
    expect(gw.diagnostics.suspendedSlots()).toBe(0);
  });

  afterAll(async () => {
    await gw.close();
    await executor.close();
  });

  async function run(code: string) {
    const t = gw.prepareTurn({ sessionId: `values-${kind}-${turns.length}` });
    turns.push(t.agentRunId);
    return gw.exec(t.agentRunId, { code });
  }

  it('on repeated references ([a, a], { x: a, y: a }): the final value, a tool input and a stored value all cross', async () => {
    const r = expectCompleted(
      await run(
        'const a = { n: 1 };\nconst list = [a, a];\nawait store("twice", { x: a, y: a });\nconst e = await echo({ list: [list, list] });\nreturn { list, both: { x: a, y: a }, echoed: e.got, stored: await load("twice") }',
      ),
    );
    expect(r.value).toEqual({
      list: [{ n: 1 }, { n: 1 }],
      both: { x: { n: 1 }, y: { n: 1 } },
      echoed: { list: [[{ n: 1 }, { n: 1 }], [{ n: 1 }, { n: 1 }]] },
      stored: { x: { n: 1 }, y: { n: 1 } },
    });
  });

  it('on a cycle in the final value: fails with invalid_input naming the circular reference', async () => {
    const r = expectFailed(await run('const a = { n: 1 };\na.self = { back: a };\nreturn a'));
    expect(r.code).toBe('invalid_input');
    expect(r.error).toMatch(/the final value contains a circular reference/);
  });

  it('on a cycle and a repeated reference deeper than the path scan (40 levels): the cycle is caught, the repeat crosses', async () => {
    const deep = 'let top = {};\nlet v = top;\nconst chain = [];\nfor (let i = 0; i < 40; i++) { v.next = {}; v = v.next; chain.push(v); }\n';
    const repeated = expectCompleted(await run(`${deep}const shared = { s: 1 };\nv.a = shared;\nv.b = [shared, shared];\nreturn JSON.stringify(top).length`));
    expect(repeated.value).toBeGreaterThan(0);
    const cyclic = expectFailed(await run(`${deep}v.back = chain[35];\nreturn top`));
    expect(cyclic.error).toMatch(/the final value contains a circular reference/);
  });

  it('on a cycle in a tool input, a store() value or a results.save value: the guest catches invalid_input naming which', async () => {
    const r = expectCompleted(
      await run(
        'const a = [];\na.push(a);\nconst out = [];\nfor (const f of [() => echo({ list: a }), () => store("k", a), () => results.save(a)]) {\n  try { await f(); out.push("sent"); } catch (e) { out.push([e.code, e.message]); }\n}\nreturn out',
      ),
    );
    expect(r.value).toEqual([
      ['invalid_input', expect.stringMatching(/^the input of echo\(\) contains a circular reference/)],
      ['invalid_input', expect.stringMatching(/^the value passed to store\("k"\) contains a circular reference/)],
      ['invalid_input', expect.stringMatching(/^the value passed to results.save contains a circular reference/)],
    ]);
    expect(echo.inputs).toEqual([]);
  });

  it('on 30k small rows (about 0.4 MB): the final value and results.save complete within the budget', async () => {
    const r = expectCompleted(
      await run(
        'const rows = [];\nfor (let i = 0; i < 30000; i++) rows.push({ id: i });\nconst saved = await results.save(rows);\nconst back = await results.load(saved.ref);\nreturn { count: back.length, last: back[29999], rows }',
      ),
    );
    // the value is over maxOutputBytes: a preview is returned, the whole value was serialized and retained
    expect(r.warnings?.join(' ')).toMatch(/over maxOutputBytes/);
    const value = r.value as { bytes: number; preview: string };
    expect(value.bytes).toBeGreaterThan(350_000);
    expect(value.preview).toMatch(/^\{"count":30000,"last":\{"id":29999\},"rows":\[\{"id":0\},/);
  });

  it(`on a final value nested exactly MAX_VALUE_DEPTH (${MAX_VALUE_DEPTH}) levels: completes with it`, async () => {
    const r = expectCompleted(await run(`return ${nestedArrays(MAX_VALUE_DEPTH)}`));
    let depth = 0;
    for (let v: unknown = r.value; Array.isArray(v); v = v[0]) depth++;
    expect(depth).toBe(MAX_VALUE_DEPTH);
  });

  it('on values nested deeper than MAX_VALUE_DEPTH: the final value fails, a tool input is refused, both saying how deep', async () => {
    const r = expectFailed(await run(`return ${nestedArrays(MAX_VALUE_DEPTH + 1)}`));
    expect(r.code).toBe('invalid_input');
    expect(r.error).toMatch(/the final value is nested more than 1000 levels deep; flatten it/);
    const caught = expectCompleted(await run(`try { await echo({ list: ${nestedArrays(MAX_VALUE_DEPTH + 5)} }); return "sent" } catch (e) { return [e.code, e.message] }`));
    expect(caught.value).toEqual(['invalid_input', expect.stringMatching(/^the input of echo\(\) is nested more than 1000 levels deep/)]);
  });

  it('on an extra __proto__, constructor or prototype field in a tool input: refused by additionalProperties: false', async () => {
    const r = expectCompleted(
      await run(
        'const out = [];\nfor (const input of [JSON.parse(\'{"a":1,"__proto__":{"x":1}}\'), { a: 1, constructor: 1 }, { a: 1, prototype: {} }]) {\n  try { await echo(input); out.push("passed"); } catch (e) { out.push(e.message); }\n}\nreturn out',
      ),
    );
    expect(r.value).toEqual([
      expect.stringContaining('"__proto__" is not a known field'),
      expect.stringContaining('"constructor" is not a known field'),
      expect.stringContaining('"prototype" is not a known field'),
    ]);
    expect(echo.inputs).toEqual([]);
  });

  it('on a store() value or a results.save value with no JSON form (a function): refused instead of deleting or saving nothing', async () => {
    const r = expectCompleted(
      await run(
        'await store("kept", 1);\nconst out = [];\nfor (const f of [() => store("kept", () => 1), () => results.save(() => 1)]) {\n  try { await f(); out.push("sent"); } catch (e) { out.push([e.code, e.message]); }\n}\nout.push(await load("kept"));\nreturn out',
      ),
    );
    expect(r.value).toEqual([
      ['invalid_input', expect.stringMatching(/^the value passed to store\("kept"\) is not JSON data/)],
      ['invalid_input', expect.stringMatching(/^the value passed to results.save is not JSON data/)],
      1,
    ]);
  });

  it('on BigInt values: cross as strings, as before', async () => {
    expect(expectCompleted(await run('return { big: 12345678901234567890n, list: [1n] }')).value).toEqual({ big: '12345678901234567890', list: ['1'] });
  });
});
