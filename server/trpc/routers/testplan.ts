// Test plan router: runs the spec's 16-step E2E plan against the loaded config (operator only: it runs cells and starts sibling Gateways).
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { publicProcedure, router } from '../init.ts';
import { requireOperator } from '../guards.ts';
import { TestPlanBusyError } from '../../testplan/service.ts';

/** The plan's failures as the API answers them: a plan already running is a conflict, anything else (an unknown agent) the caller's to fix. */
function testPlanError(err: unknown): TRPCError {
  if (err instanceof TestPlanBusyError) return new TRPCError({ code: 'CONFLICT', message: err.message, cause: err });
  return new TRPCError({ code: 'BAD_REQUEST', message: err instanceof Error ? err.message : String(err) });
}

export const testPlanRouter = router({
  run: publicProcedure.input(z.strictObject({ agentId: z.string().min(1).max(200).optional() })).mutation(({ ctx, input }) => {
    requireOperator(ctx, 'testPlan.run');
    if (!ctx.testPlan) throw new TRPCError({ code: 'NOT_IMPLEMENTED', message: 'this API is not served with a test plan runner (the playground server starts one over its Gateway)' });
    return ctx.testPlan.run(input).catch((err: unknown) => {
      throw testPlanError(err);
    });
  }),
});
