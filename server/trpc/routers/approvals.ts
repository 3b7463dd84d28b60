// Approvals router: pending nested calls that wait for an operator, and the operator's decision.
import { publicProcedure, router } from '../init.ts';
import { decideApprovalSchema } from '../schemas.ts';

export const approvalsRouter = router({
  list: publicProcedure.query(({ ctx }) => ctx.gateway.approvals()),
  decide: publicProcedure.input(decideApprovalSchema).mutation(({ ctx, input }) => {
    const decision: { approvalId: string; approve: boolean; reason?: string } = {
      approvalId: input.approvalId,
      approve: input.approve,
    };
    if (input.reason !== undefined) decision.reason = input.reason;
    ctx.gateway.decideApproval(decision);
    return { decided: true as const };
  }),
});
