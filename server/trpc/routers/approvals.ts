// Approvals router: pending nested calls that wait for a decision (the operator sees all, other Gateways' too, a client those of its turns), and the decision.
import { publicProcedure, router } from '../init.ts';
import { requireApproval, visibleTurns } from '../guards.ts';
import { decideApprovalSchema, turnTokensSchema } from '../schemas.ts';

export const approvalsRouter = router({
  list: publicProcedure.input(turnTokensSchema).query(async ({ ctx, input }) => {
    const visible = visibleTurns(ctx, input?.turnTokens);
    const all = ctx.gateway.approvals();
    // the operator also sees those of runs other Gateways hold (heldBy set: decided on the holder's page)
    if (visible === 'all') return [...all, ...(await ctx.gateway.heldElsewhere()).approvals];
    return all.filter((a) => {
      const agentRunId = ctx.gateway.ownership.runTurn(a.runId);
      return agentRunId !== undefined && visible.has(agentRunId);
    });
  }),
  /**
   * Decides a pending approval. The operator's decision on an approval another Gateway's run asked for is forwarded to
   * that Gateway and answers once it applied it (forwardedTo names it), or fails with its refusal.
   */
  decide: publicProcedure.input(decideApprovalSchema).mutation(async ({ ctx, input }): Promise<{ decided: true; forwardedTo?: string }> => {
    requireApproval(ctx, input.approvalId, input.turnToken);
    const decision: { approvalId: string; approve: boolean; reason?: string } = {
      approvalId: input.approvalId,
      approve: input.approve,
    };
    if (input.reason !== undefined) decision.reason = input.reason;
    if (ctx.access.operator && !ctx.gateway.approvals().some((a) => a.approvalId === input.approvalId)) {
      const forwarded = await ctx.gateway.actElsewhere({ kind: 'approval', ...decision });
      if (forwarded) return { decided: true, forwardedTo: forwarded.forwardedTo };
    }
    ctx.gateway.decideApproval(decision);
    return { decided: true };
  }),
});
