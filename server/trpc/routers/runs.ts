// Runs router: every run the process knows, one run, and its exported trajectory.
import { TRPCError } from '@trpc/server';
import { publicProcedure, router } from '../init.ts';
import { runIdSchema } from '../schemas.ts';

function unknownRun(runId: string): TRPCError {
  return new TRPCError({
    code: 'NOT_FOUND',
    message: `unknown run ${runId}: it never existed in this Gateway process or was released; pick one from runs.list`,
  });
}

export const runsRouter = router({
  list: publicProcedure.query(({ ctx }) => ctx.gateway.runs()),
  get: publicProcedure.input(runIdSchema).query(({ ctx, input }) => {
    const view = ctx.gateway.run(input.runId);
    if (!view) throw unknownRun(input.runId);
    return view;
  }),
  trajectory: publicProcedure.input(runIdSchema).query(({ ctx, input }) => {
    const trajectory = ctx.gateway.trajectory(input.runId);
    if (!trajectory) throw unknownRun(input.runId);
    return trajectory;
  }),
});
