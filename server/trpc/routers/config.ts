// Config router: the agents the config declares and the model surface a turn would get.
import { publicProcedure, router, turnStartProcedure } from '../init.ts';
import { turnRequestSchema } from '../schemas.ts';

export const configRouter = router({
  agents: publicProcedure.query(({ ctx }) => ctx.gateway.agents()),
  surface: turnStartProcedure.input(turnRequestSchema).query(({ ctx, input }) => ctx.gateway.surface(input)),
});
