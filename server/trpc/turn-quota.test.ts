// Live turns per client (server.maxTurnsPerClient, server.maxTurnsOperator): one client cannot make the Gateway hold unbounded turns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_OPTIONS } from '../config/schema.ts';
import { callerFor, OPERATOR, openRouterHarness, rejection, type RouterHarness } from './testing.ts';
import { createEdgeState } from './context.ts';

let h: RouterHarness;

beforeAll(async () => {
  h = await openRouterHarness();
});

afterAll(async () => {
  await h.gateway.close();
});

describe('live turns per client', () => {
  it(`defaults: ${DEFAULT_SERVER_OPTIONS.maxTurnsPerClient} per API client, ${DEFAULT_SERVER_OPTIONS.maxTurnsOperator} for the operator`, () => {
    expect(h.edge.limits.maxTurnsPerClient).toBe(DEFAULT_SERVER_OPTIONS.maxTurnsPerClient);
    expect(h.edge.limits.maxTurnsOperator).toBe(DEFAULT_SERVER_OPTIONS.maxTurnsOperator);
    expect(DEFAULT_SERVER_OPTIONS.maxTurnsOperator).toBeGreaterThan(DEFAULT_SERVER_OPTIONS.maxTurnsPerClient);
  });

  it('at the cap: one more turns.prepare is TOO_MANY_REQUESTS naming the limit and what to do; other clients and the operator still prepare; ending one frees a place', async () => {
    const edge = createEdgeState({ ...DEFAULT_SERVER_OPTIONS, maxTurnsPerClient: 3 });
    const greedy = callerFor(h.gateway, { operator: false, clientId: 'greedy' }, edge);
    const turns = [await greedy.turns.prepare({}), await greedy.turns.prepare({}), await greedy.turns.prepare({})];
    const err = await rejection(greedy.turns.prepare({}));
    expect(err.code).toBe('TOO_MANY_REQUESTS');
    expect(err.message).toBe(
      'this client already holds 3 live turns, the limit (server.maxTurnsPerClient); end the turns you no longer use (turns.end) and prepare again, or reuse a turn for several exec calls',
    );
    await callerFor(h.gateway, { operator: false, clientId: 'modest' }, edge).turns.prepare({});
    await callerFor(h.gateway, OPERATOR, edge).turns.prepare({});
    // the held turns keep working
    const first = turns[0] as { agentRunId: string; turnToken: string };
    expect(await greedy.exec({ agentRunId: first.agentRunId, turnToken: first.turnToken, input: { code: 'return 2' } })).toMatchObject({ status: 'completed', value: 2 });
    await greedy.turns.end({ agentRunId: first.agentRunId, turnToken: first.turnToken });
    await greedy.turns.prepare({});
    // the freed place is taken again: the client is back at its cap
    expect((await rejection(greedy.turns.prepare({}))).code).toBe('TOO_MANY_REQUESTS');
  });

  it('a turn ended by the Gateway itself (idle sweep, endTurn) frees its place too', async () => {
    const edge = createEdgeState({ ...DEFAULT_SERVER_OPTIONS, maxTurnsPerClient: 1 });
    const client = callerFor(h.gateway, { operator: false, clientId: 'swept' }, edge);
    const turn = await client.turns.prepare({});
    expect((await rejection(client.turns.prepare({}))).code).toBe('TOO_MANY_REQUESTS');
    h.gateway.endTurn(turn.agentRunId);
    await client.turns.prepare({});
  });

  it('the operator counts against server.maxTurnsOperator, not the per-client cap', async () => {
    const edge = createEdgeState({ ...DEFAULT_SERVER_OPTIONS, maxTurnsPerClient: 1, maxTurnsOperator: 2 });
    const operator = callerFor(h.gateway, OPERATOR, edge);
    await operator.turns.prepare({});
    await operator.turns.prepare({});
    const err = await rejection(operator.turns.prepare({}));
    expect(err.code).toBe('TOO_MANY_REQUESTS');
    expect(err.message).toContain('the limit (server.maxTurnsOperator)');
  });
});
