// Test plan router: runs the spec's 16-step E2E plan against the loaded config (operator only: it runs cells and starts sibling Gateways).
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { Gateway } from '../../gateway.ts';
import { publicProcedure, router } from '../init.ts';
import { requireOperator } from '../guards.ts';
import { runTestPlan } from '../../testplan/run.ts';

/** One plan at a time per server: two would race on the same catalog and double the load. */
let running = false;

export const testPlanRouter = router({
  run: publicProcedure.input(z.strictObject({ agentId: z.string().min(1).max(200).optional() })).mutation(async ({ ctx, input }) => {
    requireOperator(ctx, 'testPlan.run');
    if (!(ctx.gateway instanceof Gateway)) throw new TRPCError({ code: 'NOT_IMPLEMENTED', message: 'this API is not served by a Gateway that can run the test plan' });
    if (running) throw new TRPCError({ code: 'CONFLICT', message: 'a test plan is already running; wait for its verdicts' });
    running = true;
    try {
      return await runTestPlan(ctx.gateway, input.agentId ? { agentId: input.agentId } : {});
    } catch (err) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: err instanceof Error ? err.message : String(err) });
    } finally {
      running = false;
    }
  }),
});
