// Live turns per owner (server.shares.<class>.liveTurns): one owner cannot make the Gateway hold unbounded turns, nor take another owner's room.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, clientAccess, clientOwner, OPERATOR, openRouterHarness, rejection, TEST_OWNERS, type RouterHarness } from './testing.ts';
import { createEdgeState } from './context.ts';
import { DEFAULT_SERVER_OPTIONS } from '../config/schema.ts';

let h: RouterHarness;

beforeAll(async () => {
  h = await openRouterHarness();
});

afterAll(async () => {
  await h.gateway.close();
});

const freshEdge = () => createEdgeState(DEFAULT_SERVER_OPTIONS);

describe('live turns per owner', () => {
  it('at its share: one more turns.prepare is TOO_MANY_REQUESTS naming the share and what to do; other owners and the operator still prepare; ending one frees a place', async () => {
    const edge = freshEdge();
    const greedy = callerFor(h.gateway, clientAccess(clientOwner('greedy', { liveTurns: 3 })), edge);
    const turns = [await greedy.turns.prepare({}), await greedy.turns.prepare({}), await greedy.turns.prepare({})];
    const err = await rejection(greedy.turns.prepare({}));
    expect(err.code).toBe('TOO_MANY_REQUESTS');
    expect(err.message).toBe(
      'this owner (API client "greedy") already holds 3 live turns, the limit (server.shares.client.liveTurns); end the turns you no longer use (turns.end) and prepare again, ' +
        'or reuse a turn for several exec calls; each key is its own owner: the operator can mint another key (`codemode keys add NAME`) for another client',
    );
    await callerFor(h.gateway, clientAccess(clientOwner('modest')), edge).turns.prepare({});
    await callerFor(h.gateway, clientAccess(TEST_OWNERS.anonymous), edge).turns.prepare({});
    await callerFor(h.gateway, OPERATOR, edge).turns.prepare({});
    // the held turns keep working
    const first = turns[0] as { agentRunId: string; turnToken: string };
    expect(await greedy.exec({ agentRunId: first.agentRunId, turnToken: first.turnToken, input: { code: 'return 2' } })).toMatchObject({ status: 'completed', value: 2 });
    await greedy.turns.end({ agentRunId: first.agentRunId, turnToken: first.turnToken });
    await greedy.turns.prepare({});
    // the freed place is taken again: the owner is back at its share
    expect((await rejection(greedy.turns.prepare({}))).code).toBe('TOO_MANY_REQUESTS');
  });

  it('keyless clients are one owner: their turns count together, against the anonymous share, and the message says how to get a key', async () => {
    const edge = freshEdge();
    const anonymous = { ...TEST_OWNERS.anonymous, shares: { ...TEST_OWNERS.anonymous.shares, liveTurns: 2 } };
    // two scripts without a key: one owner
    await callerFor(h.gateway, clientAccess(anonymous), edge).turns.prepare({});
    await callerFor(h.gateway, clientAccess(anonymous), edge).turns.prepare({});
    const err = await rejection(callerFor(h.gateway, clientAccess(anonymous), edge).turns.prepare({}));
    expect(err.message).toContain('this owner (the clients without a key) already holds 2 live turns, the limit (server.shares.anonymous.liveTurns)');
    expect(err.message).toContain('ask the operator for a key (`codemode keys add NAME`) and send it as "Authorization: Bearer <key>"');
    // a client with a key is not held back by them
    await callerFor(h.gateway, clientAccess(clientOwner('keyed')), edge).turns.prepare({});
  });

  it('a turn ended by the Gateway itself (idle sweep, endTurn) frees its place too', async () => {
    const client = callerFor(h.gateway, clientAccess(clientOwner('swept', { liveTurns: 1 })), freshEdge());
    const turn = await client.turns.prepare({});
    expect((await rejection(client.turns.prepare({}))).code).toBe('TOO_MANY_REQUESTS');
    h.gateway.endTurn(turn.agentRunId);
    await client.turns.prepare({});
  });

  it('the operator counts against its own share, server.shares.operator.liveTurns', async () => {
    const edge = freshEdge();
    const operator = callerFor(h.gateway, { ...OPERATOR, owner: { ...OPERATOR.owner, shares: { ...OPERATOR.owner.shares, liveTurns: 2 } } }, edge);
    await operator.turns.prepare({});
    await operator.turns.prepare({});
    const err = await rejection(operator.turns.prepare({}));
    expect(err.code).toBe('TOO_MANY_REQUESTS');
    expect(err.message).toContain('the limit (server.shares.operator.liveTurns)');
  });
});
