// Spec 02: nested invocation ids include the cell's replay identity, so a reused tool-call id never collides; wait keeps them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../executors/types.ts';
import type { Gateway } from '../gateway.ts';
import { createExecutor, gatewayWith } from '../guest/testing.ts';
import { expectCompleted, expectWaiting } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';

describe('spec "Nested invocation ids include the cell\'s replay identity, so a provider can reuse a tool-call id in a later assistant response without colliding with earlier activity"', () => {
  let executor: Executor;
  let gw: Gateway;
  /** The invocation id each call of `probe` ran with, as the tool itself sees it (ToolContext). */
  const seen: string[] = [];
  const probe: ToolDefinition = {
    name: 'probe',
    description: 'records the invocation id it runs with',
    source: 'core',
    inputSchema: { type: 'object', properties: {} },
    execute: async (_input, ctx) => {
      seen.push(ctx.invocationId);
      return { invocationId: ctx.invocationId };
    },
  };

  beforeAll(async () => {
    executor = await createExecutor('quickjs');
    gw = await gatewayWith(executor, [probe]);
  });

  afterAll(async () => {
    await gw.close();
    await executor.close();
  });

  it('on two execs with the same toolCallId in one agent run: their nested invocation ids differ', async () => {
    const t = gw.prepareTurn({ sessionId: 'invocation-ids-reuse' });
    const code = 'return [(await probe({})).invocationId, (await probe({})).invocationId]';
    const first = expectCompleted(await gw.exec(t.agentRunId, { code }, { toolCallId: 'call_reused' }));
    const second = expectCompleted(await gw.exec(t.agentRunId, { code }, { toolCallId: 'call_reused' }));
    const a = first.value as string[];
    const b = second.value as string[];
    expect(a).toHaveLength(2);
    expect(new Set([...a, ...b]).size).toBe(4);
    // the trajectories (what history and the board show) carry the same, distinct ids
    const recorded = gw.runs()
      .filter((r) => r.agentRunId === t.agentRunId)
      .flatMap((r) => gw.trajectory(r.runId)?.calls.flatMap((c) => c.nested.map((n) => n.invocationId)) ?? []);
    expect(recorded.sort()).toEqual([...a, ...b].sort());
    gw.endTurn(t.agentRunId);
  });

  it('on a waiting run: wait keeps the ids of the calls made before it, and later calls share their prefix', async () => {
    const t = gw.prepareTurn({ sessionId: 'invocation-ids-wait' });
    seen.length = 0;
    const first = expectWaiting(
      await gw.exec(t.agentRunId, { code: 'const a = (await probe({})).invocationId;\nawait yield_control("checkpoint");\nconst b = (await probe({})).invocationId;\nreturn [a, b]' }, { toolCallId: 'call_wait' }),
    );
    const before = gw.trajectory(first.runId)?.calls[0]?.nested.map((n) => n.invocationId) ?? [];
    expect(before[0]).toBe(seen[0]);
    const done = expectCompleted(await gw.wait(t.agentRunId, { runId: first.runId }));
    const [a, b] = done.value as [string, string];
    expect(a).toBe(seen[0]);
    expect(gw.trajectory(first.runId)?.calls[0]?.nested.map((n) => n.invocationId)).toEqual(before);
    const prefix = (id: string) => id.slice(0, id.lastIndexOf(':'));
    expect(prefix(b)).toBe(prefix(a));
    expect(b).not.toBe(a);
    gw.endTurn(t.agentRunId);
  });
});
