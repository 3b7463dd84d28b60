// Config router: the agents the config declares and the model surface a turn would get.
import { publicProcedure, router } from '../init.ts';
import { turnRequestSchema } from '../schemas.ts';

export const configRouter = router({
  agents: publicProcedure.query(({ ctx }) => ctx.gateway.agents()),
  surface: publicProcedure.input(turnRequestSchema).query(async ({ ctx, input }) => {
    await ctx.gateway.mcpReady();
    return ctx.gateway.surface(input);
  }),
});
