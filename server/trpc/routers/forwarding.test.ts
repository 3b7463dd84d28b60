// The operator's routers on Gateway B for a run Gateway A holds (two Gateways, one SQLite file, runs.durable): listed with heldBy, and an approval decided (or a run aborted) through B's routers is forwarded to A.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../executors/types.ts';
import type { Gateway } from '../../gateway.ts';
import type { RunEvent } from '../../runs/types.ts';
import { durableGateway, newSnapshotKey } from '../../gateway/durable-runs.testing.ts';
import { createExecutor } from '../../guest/testing.ts';
import { expectCompleted, expectWaiting, until } from '../../testing.ts';
import type { ToolDefinition } from '../../tools/types.ts';
import { createEdgeState } from '../context.ts';
import { callerFor, clientAccess, clientOwner, OPERATOR } from '../testing.ts';

const PAY: ToolDefinition = {
  name: 'pay',
  description: 'pays (needs the operator approval)',
  source: 'core',
  approval: 'required',
  inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
  execute: async (input) => ({ paid: (input as { amount: number }).amount }),
};

describe("the operator's routers on another Gateway (forwarding)", () => {
  let dir: string;
  let execs: Executor[];
  let a: Gateway;
  let b: Gateway;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'codemode-forward-'));
    const key = newSnapshotKey();
    execs = await Promise.all([createExecutor('quickjs'), createExecutor('quickjs')]);
    a = await durableGateway({ path: join(dir, 'sessions.db') }, key, [PAY], { executor: execs[0]! });
    b = await durableGateway({ path: join(dir, 'sessions.db') }, key, [PAY], { executor: execs[1]! });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all((execs ?? []).map((e) => e.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs.list and approvals.list on B give the operator A's run and approval (heldBy), a client neither; approvals.decide on B is forwarded and A's run completes", async () => {
    const operator = callerFor(b, OPERATOR, createEdgeState(b.config.server));
    const client = callerFor(b, clientAccess(clientOwner('ci')), createEdgeState(b.config.server));
    const heard: RunEvent[] = [];
    const stop = b.subscribe((e) => heard.push(e));
    const turn = a.prepareTurn({ sessionId: 'forward-1' });
    const paying = a.exec(turn.agentRunId, { code: 'return await pay({ amount: 5 })' });
    await until(() => a.approvals().length === 1, { what: 'A to ask for the approval' });
    const { approvalId, runId } = a.approvals()[0]!;
    // once B heard A published the run's view with its approval, B's page reads its lists
    await until(() => heard.some((e) => e.type === 'remote.run' && e.approvals.some((x) => x.approvalId === approvalId)), { what: "B to hear of A's approval" });
    const listed = await operator.approvals.list();
    expect(listed.find((x) => x.approvalId === approvalId)).toMatchObject({ runId, tool: 'pay', input: { amount: 5 }, heldBy: a.instanceId });
    expect((await operator.runs.list()).find((r) => r.runId === runId)).toMatchObject({ state: 'running', heldBy: { gatewayId: a.instanceId, approvals: 1 } });
    expect(await client.approvals.list({ turnTokens: [turn.turnToken] })).toEqual([]);
    expect(await operator.approvals.decide({ approvalId, approve: true })).toEqual({ decided: true, forwardedTo: a.instanceId });
    expect(expectCompleted(await paying).value).toEqual({ paid: 5 });
    stop();
  });

  it("abort on B: the operator's abort of A's waiting run is forwarded and A aborts it; a client's abort of it on B is not", async () => {
    const operator = callerFor(b, OPERATOR, createEdgeState(b.config.server));
    const client = callerFor(b, clientAccess(clientOwner('ci')), createEdgeState(b.config.server));
    const heard: RunEvent[] = [];
    const stop = b.subscribe((e) => heard.push(e));
    const turn = a.prepareTurn({ sessionId: 'forward-abort' });
    const w = expectWaiting(await a.exec(turn.agentRunId, { code: 'await yield_control("park"); return 1' }));
    await until(() => heard.some((e) => e.type === 'remote.run' && e.runId === w.runId), { what: "B to hear of A's waiting run" });
    expect(await client.abort({ runId: w.runId, turnToken: turn.turnToken })).toEqual({ aborted: false });
    expect(a.run(w.runId)?.state).toBe('waiting');
    expect(await operator.abort({ runId: w.runId })).toEqual({ aborted: true, forwardedTo: a.instanceId });
    expect(a.run(w.runId)?.state).toBe('aborted');
    stop();
  });
});
