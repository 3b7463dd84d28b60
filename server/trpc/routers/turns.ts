// Turns router: prepare an agent turn (the scope exec and wait run in, with its tokens), update its client tools, end it.
import { z } from 'zod';
import { publicProcedure, router, turnStartProcedure } from '../init.ts';
import { requireSessionToken, requireTurn, sessionTokenOf } from '../guards.ts';
import { clientToolSpecSchema, MAX_ID_LENGTH, prepareTurnSchema, turnRefSchema } from '../schemas.ts';
import type { TurnRequest } from '../../gateway-types.ts';

export const turnsRouter = router({
  /** Returns the turn with its turnToken and its session's sessionToken; joining an existing session needs the latter. */
  prepare: turnStartProcedure.input(prepareTurnSchema).mutation(async ({ ctx, input }) => {
    const { sessionToken, ...request } = input;
    const joining = request.sessionId !== undefined && request.sessionId.trim() !== '' && !ctx.access.operator ? request.sessionId : undefined;
    // the history (and, with runs.durable, the stored session token) is looked up first; the check and the prepare then
    // run with no await between: the session's token is minted by the same synchronous step (two clients claiming one
    // new session id cannot both pass)
    if (joining !== undefined) {
      const lookup = await ctx.gateway.ownership.lookupSession(joining, sessionTokenOf(ctx, sessionToken));
      requireSessionToken(ctx, joining, sessionToken, 'turns.prepare', lookup);
    }
    const { owner } = ctx.access;
    ctx.edge.turns.admit(owner, (id) => ctx.gateway.turnOptions(id) !== undefined);
    // the turn carries its owner: its runs' suspended slots and queued jobs count against the same owner's shares
    const turn = ctx.gateway.prepareTurn({ ...(request as TurnRequest), owner });
    ctx.edge.turns.record(owner, turn.agentRunId);
    return turn;
  }),
  updateClientTools: publicProcedure
    .input(
      z.strictObject({
        agentRunId: z.string().min(1, 'agentRunId must be a non-empty string').max(MAX_ID_LENGTH),
        turnToken: turnRefSchema.shape.turnToken,
        clientTools: z.array(clientToolSpecSchema),
      }),
    )
    .mutation(({ ctx, input }) => {
      requireTurn(ctx, input.agentRunId, input.turnToken, 'turns.updateClientTools');
      return ctx.gateway.updateClientTools(input.agentRunId, input.clientTools);
    }),
  /** The output types this turn's results suggest for tools that declare none: an editor overlay (never sent to the model). */
  inferredTypes: publicProcedure.input(turnRefSchema).query(({ ctx, input }) => {
    requireTurn(ctx, input.agentRunId, input.turnToken, 'turns.inferredTypes');
    return ctx.gateway.inferredTypes(input.agentRunId) ?? { tools: [], leading: '', trailing: '' };
  }),
  end: publicProcedure.input(turnRefSchema).mutation(({ ctx, input }) => {
    requireTurn(ctx, input.agentRunId, input.turnToken, 'turns.end');
    ctx.gateway.endTurn(input.agentRunId);
    return { ended: true as const };
  }),
});
