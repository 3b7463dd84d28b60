// Test plan router through createCaller: operator only, one plan at a time per runner (the service in the context, not module state), the plan's failures mapped at the edge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../gateway.ts';
import { testGateway, until } from '../../testing.ts';
import { TestPlanRunner } from '../../testplan/service.ts';
import type { TestPlanReport } from '../../testplan/types.ts';
import { createEdgeState, createInnerContext, type Access } from '../context.ts';
import { createCallerFactory } from '../init.ts';
import { clientAccess, clientOwner, OPERATOR, rejection } from '../testing.ts';
import { appRouter } from './_app.ts';

let gw: Gateway;

beforeAll(async () => {
  gw = await testGateway();
});
afterAll(async () => {
  await gw.close();
});

const createCaller = createCallerFactory(appRouter);

function callerWith(testPlan: TestPlanRunner | undefined, access: Access = OPERATOR) {
  return createCaller(createInnerContext({ gateway: gw, access, edge: createEdgeState(gw.config.server), ...(testPlan ? { testPlan } : {}) }));
}

const REPORT: TestPlanReport = { agentId: 'main', startedAt: '2025-01-01T00:00:00.000Z', steps: [], summary: { pass: 0, fail: 0, notApplicable: 0 } };

/** A runner whose plan stays open until the test lets it finish. */
function heldRunner() {
  let finish: () => void = () => {};
  const asked: Array<{ agentId?: string }> = [];
  const runner = new TestPlanRunner((opts) => {
    asked.push(opts);
    return new Promise((resolve) => {
      finish = () => resolve(REPORT);
    });
  });
  return { runner, asked, finish: () => finish() };
}

describe('testPlan.run', () => {
  it('on a second run while one runs: CONFLICT; once the first settles, the next runs (the guard belongs to the runner)', async () => {
    const held = heldRunner();
    const caller = callerWith(held.runner);
    const first = caller.testPlan.run({ agentId: 'main' });
    await until(() => held.asked.length === 1, { what: 'the first plan to start' });
    const second = await rejection(caller.testPlan.run({}));
    expect(second.code).toBe('CONFLICT');
    expect(second.message).toBe('a test plan is already running; wait for its verdicts');
    // another server's runner is its own: a plan running here does not hold it
    const other = heldRunner();
    const elsewhere = callerWith(other.runner).testPlan.run({});
    await until(() => other.asked.length === 1, { what: 'the other runner to start its plan' });
    other.finish();
    expect(await elsewhere).toEqual(REPORT);
    held.finish();
    expect(await first).toEqual(REPORT);
    const third = caller.testPlan.run({});
    await until(() => held.asked.length === 2, { what: 'the next plan to start' });
    held.finish();
    expect(await third).toEqual(REPORT);
    expect(held.asked).toEqual([{ agentId: 'main' }, {}]);
  });

  it('on an unknown agent (the plan over a real Gateway): BAD_REQUEST naming the agents, and the runner is free again', async () => {
    const caller = callerWith(TestPlanRunner.over(gw));
    for (let i = 0; i < 2; i++) {
      const err = await rejection(caller.testPlan.run({ agentId: 'ghost' }));
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.message).toBe('unknown agent "ghost"; the config lists main');
    }
  });

  it('on a client that is not the operator: FORBIDDEN, and the plan does not start', async () => {
    const held = heldRunner();
    const err = await rejection(callerWith(held.runner, clientAccess(clientOwner('plan'))).testPlan.run({}));
    expect(err.code).toBe('FORBIDDEN');
    expect(held.asked).toEqual([]);
  });

  it('on a server that serves no runner: NOT_IMPLEMENTED', async () => {
    expect((await rejection(callerWith(undefined).testPlan.run({}))).code).toBe('NOT_IMPLEMENTED');
  });
});
