// Interactive, headless and restartSafe cells through the Gateway: automatic references, results.* and store/load, replay-safe waiting results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { Gateway } from '../gateway.ts';
import { expectCompleted, expectFailed, expectWaiting, testGateway } from '../testing.ts';

let executor: QuickJsExecutor;
let gw: Gateway;

/** Over the 1 KiB output cap: its completed value is cut to a preview. */
const OVERSIZED = 'return "x".repeat(5000)';

beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 1 });
  await executor.ready();
  gw = await testGateway({ executor, codeMode: { maxOutputBytes: 1024 } });
});

afterAll(async () => {
  await gw.close();
  await executor.close();
});

/** The three kinds of cell: an exec of a model turn, a restartSafe exec of one, an exec of a headless turn. */
function cells() {
  const model = gw.prepareTurn({});
  const headless = gw.prepareTurn({ headless: true });
  return {
    interactive: (code: string) => gw.exec(model.agentRunId, { code }),
    restartSafe: (code: string) => gw.exec(model.agentRunId, { code, restartSafe: true }),
    headless: (code: string) => gw.exec(headless.agentRunId, { code }),
  };
}

describe('spec 02: "Interactive cells also retain final structured JSON automatically ... only eligible interactive cells request this capture"', () => {
  it('on an oversized value of an exec from a model turn: a preview with a ref that results.load returns whole in the next cell', async () => {
    const c = cells();
    const big = expectCompleted(await c.interactive(OVERSIZED));
    const ref = (big.value as { ref?: string }).ref;
    expect(ref).toMatch(/^res_/);
    expect(big.warnings?.join('\n')).toContain(`results.load("${ref}")`);
    const loaded = expectCompleted(await c.interactive(`return (await results.load(${JSON.stringify(ref)})).length`));
    expect(loaded.value).toBe(5000);
  });
});

describe('spec 02: "Headless and restart-safe execution do not allocate automatic references"', () => {
  for (const kind of ['restartSafe', 'headless'] as const) {
    it(`on an oversized value of a ${kind} cell: still completed, a preview without a ref, and a warning that says why`, async () => {
      const big = expectCompleted(await cells()[kind](OVERSIZED));
      expect(big.value).toMatchObject({ truncated: true, bytes: 5002 });
      expect(big.value).not.toHaveProperty('ref');
      expect(big.telemetry.truncated).toBe(true);
      expect(big.warnings).toContainEqual(expect.stringContaining(`the full value was not retained: ${kind} cells get no automatic references`));
      expect(big.warnings?.join('\n')).not.toContain('results.load');
    });
  }
});

describe('spec 02: "Store operations are unavailable in headless or restartSafe execution" (results.* too: docs/decisions.md)', () => {
  for (const kind of ['restartSafe', 'headless'] as const) {
    it(`on a ${kind} cell: results.save/load/delete and store/load each fail with invalid_input naming ${kind}, catchable by the cell`, async () => {
      const c = cells();
      const ref = (expectCompleted(await c.interactive('return (await results.save({ keep: 1 })).ref')).value as string);
      const probe = `
        const out = {};
        for (const [name, op] of [
          ['save', () => results.save({ a: 1 })],
          ['load', () => results.load(${JSON.stringify(ref)})],
          ['delete', () => results.delete(${JSON.stringify(ref)})],
          ['store', () => store('k', 1)],
          ['loadKey', () => load('k')],
        ]) {
          try { await op(); out[name] = 'allowed'; } catch (e) { out[name] = e.code + ': ' + e.message; }
        }
        return out`;
      const out = expectCompleted(await c[kind](probe)).value as Record<string, string>;
      for (const name of ['save', 'load', 'delete']) expect(out[name]).toMatch(new RegExp(`^invalid_input: results.save/load/delete are unavailable in ${kind} execution; return the value itself`));
      for (const name of ['store', 'loadKey']) expect(out[name]).toMatch(new RegExp(`^invalid_input: store/load are unavailable in ${kind} execution`));
      // the refused delete removed nothing: the interactive cell still loads the reference
      expect(expectCompleted(await c.interactive(`return await results.load(${JSON.stringify(ref)})`)).value).toEqual({ keep: 1 });
    });
  }

  it('on an interactive cell of the same turn: results and store work (the refusal is the cell kind, not the turn)', async () => {
    const out = expectCompleted(await cells().interactive('const { ref } = await results.save([1]);\nawait store("k", 2);\nreturn [await results.load(ref), await load("k")]'));
    expect(out.value).toEqual([[1], 2]);
  });
});

describe('spec 01: "Suspended results are marked replay-safe so restart recovery can reconstruct an interrupted turn from its transcript"', () => {
  for (const kind of ['interactive', 'restartSafe', 'headless'] as const) {
    it(`on ${kind === "interactive" ? "an" : "a"} ${kind} cell that parks, and again when a wait parks it: the waiting result carries replaySafe: true`, async () => {
      const c = cells();
      const parked = expectWaiting(await c[kind]('await yield_control("one");\nawait yield_control("two");\nreturn 3'));
      expect(parked.replaySafe).toBe(true);
      const turn = gw.run(parked.runId)!.agentRunId;
      const again = expectWaiting(await gw.wait(turn, { runId: parked.runId }));
      expect(again.replaySafe).toBe(true);
      expect(expectCompleted(await gw.wait(turn, { runId: parked.runId })).value).toBe(3);
    });
  }

  it('on a completed or failed result: no replaySafe mark (only suspended results carry it)', async () => {
    const c = cells();
    expect(expectCompleted(await c.interactive('return 1'))).not.toHaveProperty('replaySafe');
    expect(expectFailed(await c.interactive('throw new Error("no")'))).not.toHaveProperty('replaySafe');
  });
});
