// Turns router: prepare an agent turn (the scope exec and wait run in), update its client tools, end it.
import { z } from 'zod';
import { publicProcedure, router } from '../init.ts';
import { clientToolSpecSchema, MAX_ID_LENGTH, turnRequestSchema } from '../schemas.ts';

export const turnsRouter = router({
  // waits for MCP servers still in their first connection attempt, so the first turn after a start sees their tools
  prepare: publicProcedure.input(turnRequestSchema).mutation(async ({ ctx, input }) => {
    await ctx.gateway.mcpReady();
    return ctx.gateway.prepareTurn(input);
  }),
  updateClientTools: publicProcedure
    .input(
      z.strictObject({
        agentRunId: z.string().min(1, 'agentRunId must be a non-empty string').max(MAX_ID_LENGTH),
        clientTools: z.array(clientToolSpecSchema),
      }),
    )
    .mutation(({ ctx, input }) => ctx.gateway.updateClientTools(input.agentRunId, input.clientTools)),
  end: publicProcedure
    .input(z.strictObject({ agentRunId: z.string().min(1, 'agentRunId must be a non-empty string').max(MAX_ID_LENGTH) }))
    .mutation(({ ctx, input }) => {
      ctx.gateway.endTurn(input.agentRunId);
      return { ended: true as const };
    }),
});
