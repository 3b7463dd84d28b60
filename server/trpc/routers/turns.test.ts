// Turns router through createCaller against a real Gateway: what turns.prepare and turns.updateClientTools decide about a turn's saved results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { expectCompleted } from '../../testing.ts';
import { openRouterHarness, type RouterCaller } from '../testing.ts';
import type { GatewayApi } from '../../gateway-types.ts';
import { describeZodError } from '../init.ts';

let gateway: GatewayApi;
let client: RouterCaller;

beforeAll(async () => {
  const h = await openRouterHarness();
  gateway = h.gateway;
  client = h.client('client-turns');
});

afterAll(async () => {
  await gateway.close();
});

const ask = { name: 'ask_user', description: 'ask the user', inputSchema: { type: 'object' } };
const pick = { name: 'pick_color', description: 'pick a color', inputSchema: { type: 'object' } };

/** The value of a completed cell of the turn (fails the test with the whole result otherwise). */
async function value(turn: { agentRunId: string; turnToken: string }, code: string): Promise<unknown> {
  return expectCompleted(await client.exec({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code } })).value;
}

const tryLoad = (ref: string) => `try { return await results.load(${JSON.stringify(ref)}) } catch (e) { return e.code }`;

describe('turns.updateClientTools and saved results (spec 02: "Appended client tools preserve the same result-store lifetime"; restriction clears saved data)', () => {
  it('on adding a tool: the reference stays loadable; on then removing one: it is gone (expired by the restriction)', async () => {
    const turn = await client.turns.prepare({ clientTools: [ask] });
    const ref = (await value(turn, 'return (await results.save({ kept: true })).ref')) as string;
    await client.turns.updateClientTools({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, clientTools: [ask, pick] });
    expect(await value(turn, tryLoad(ref))).toEqual({ kept: true });
    await client.turns.updateClientTools({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, clientTools: [pick] });
    expect(await value(turn, tryLoad(ref))).toBe('expired');
  });
});

describe('turns.prepare with headless: true', () => {
  it('on a cell of a headless turn: results.save is refused with invalid_input naming headless', async () => {
    const turn = await client.turns.prepare({ headless: true });
    expect(await value(turn, 'try { await results.save(1); return "saved" } catch (e) { return e.code + ": " + e.message }')).toMatch(
      /^invalid_input: results.save\/load\/delete are unavailable in headless execution/,
    );
  });
});

describe('client tool schemas from outside: bounded at the edge (a schema nested thousands deep overflowed every later listing)', () => {
  let deep: Record<string, unknown> = { type: 'object' };
  for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { a: deep } };
  const deepTool = { name: 'deep', description: 'd', inputSchema: deep };

  /** The message the API answers for a refused input (init.ts formats the zod issues so). */
  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => 'accepted',
      (err: { code?: string; cause?: unknown }) => `${err.code}: ${err.cause instanceof ZodError ? describeZodError(err.cause) : String(err.cause)}`,
    );

  it('on turns.prepare and turns.updateClientTools with a 5000-level schema: BAD_REQUEST naming the field and the limit; the turn and runs.list still work', async () => {
    expect(await refusal(client.turns.prepare({ clientTools: [ask, deepTool] }))).toMatch(
      /^BAD_REQUEST: clientTools\.1\.inputSchema: the schema nests deeper than 128 levels \(or contains itself\); flatten it/,
    );
    const turn = await client.turns.prepare({ clientTools: [ask] });
    const update = client.turns.updateClientTools({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, clientTools: [ask, { ...pick, outputSchema: deep }] });
    expect(await refusal(update)).toMatch(/^BAD_REQUEST: clientTools\.1\.outputSchema: the schema nests deeper than 128 levels/);
    expect(await value(turn, 'return 1')).toBe(1);
    expect(await client.runs.list({ turnTokens: [turn.turnToken] })).toHaveLength(1);
  });
});
