// The compare procedure: one cell on every executor for the operator, each its own run; an override policy that forbids it is refused before any run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../gateway.ts';
import { createEdgeState } from '../context.ts';
import { callerFor, clientAccess, clientOwner, demoConfig, OPERATOR, rejection } from '../testing.ts';

describe('compare', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    const config = demoConfig();
    config.tools.codeMode.allowExecutorOverride = 'operator';
    gateway = await createGateway({ config: { ...config, mcp: { servers: {} } } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('for the operator: one row per executor, each its own completed run of the turn, values compared', async () => {
    const edge = createEdgeState(gateway.config.server);
    const operator = callerFor(gateway, OPERATOR, edge);
    const turn = await operator.turns.prepare({});
    const rows = await operator.compare({ agentRunId: turn.agentRunId, input: { code: 'await yield_control("x");\nreturn [1, 2].map((n) => n * 2)' } });
    expect(rows.map((r) => r.executor)).toEqual(['node', 'quickjs', 'quickjs-emscripten']);
    for (const r of rows) expect(r).toMatchObject({ status: 'completed', valueJson: '[2,4]', valueDiffers: false, calls: 2 });
    expect(new Set(rows.map((r) => r.runId)).size).toBe(3);
    for (const r of rows) expect(gateway.run(r.runId!)?.executor).toBe(r.executor);
    // a subset, in the order asked
    const two = await operator.compare({ agentRunId: turn.agentRunId, input: { code: 'return 1' }, executors: ['quickjs-emscripten', 'quickjs'] });
    expect(two.map((r) => [r.executor, r.start])).toEqual([
      ['quickjs-emscripten', 'warm'],
      ['quickjs', 'warm'],
    ]);
  });

  it('for a client where only the operator may override: FORBIDDEN before any run starts', async () => {
    const edge = createEdgeState(gateway.config.server);
    const client = callerFor(gateway, clientAccess(clientOwner('c')), edge);
    const turn = await client.turns.prepare({});
    const before = gateway.runs().length;
    const err = await rejection(client.compare({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, input: { code: 'return 1' } }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain('allowExecutorOverride');
    expect(gateway.runs().length).toBe(before);
  });

  it('on an unknown executor name: BAD_REQUEST naming the accepted ones', async () => {
    const operator = callerFor(gateway, OPERATOR, createEdgeState(gateway.config.server));
    const turn = await operator.turns.prepare({});
    const err = await rejection(operator.compare({ agentRunId: turn.agentRunId, input: { code: 'return 1' }, executors: ['v8' as 'node'] }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('quickjs-emscripten');
  });
});
