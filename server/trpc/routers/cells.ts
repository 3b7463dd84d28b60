// Cell procedures: exec, wait, abort and answering a client-tool call (mounted at the root of the API); each needs its turn's token.
import { publicProcedure } from '../init.ts';
import { requireExecutorOverride, requireRun, requireTurn } from '../guards.ts';
import { answerClientCallSchema, compareRequestSchema, execRequestSchema, runIdSchema, waitRequestSchema } from '../schemas.ts';
import { EXECUTOR_KINDS } from '../../config/schema.ts';
import { InvalidInputError } from '../../errors.ts';
import type { ExecOptions } from '../../gateway-types.ts';
import type { CodeModeResult } from '../../runs/types.ts';
import type { InnerContext } from '../context.ts';

/** A result plus its text exactly as a model receives it (compact JSON, untrusted content wrapped). */
function withModelText(ctx: InnerContext, result: CodeModeResult): CodeModeResult & { modelText: string } {
  return { ...result, modelText: ctx.gateway.modelText(result) };
}

export const execProcedure = publicProcedure.input(execRequestSchema).mutation(({ ctx, input }) => {
  requireTurn(ctx, input.agentRunId, input.turnToken, 'exec');
  requireExecutorOverride(ctx, input.agentRunId, input.executor);
  const opts: ExecOptions = {};
  if (input.executor !== undefined) opts.executor = input.executor;
  if (input.toolCallId !== undefined) opts.toolCallId = input.toolCallId;
  if (input.seed !== undefined) opts.seed = input.seed;
  if (input.replay !== undefined) opts.replay = input.replay;
  if (input.typecheckInferred === true) opts.typecheckInferred = true;
  return ctx.gateway.exec(input.agentRunId, input.input, opts).then((result) => withModelText(ctx, result));
});

/** The cell on every executor, each in its own run; every executor other than the turn's is an override the config must allow. */
export const compareProcedure = publicProcedure.input(compareRequestSchema).mutation(({ ctx, input }) => {
  requireTurn(ctx, input.agentRunId, input.turnToken, 'exec');
  const kinds = [...new Set(input.executors ?? EXECUTOR_KINDS)];
  for (const kind of kinds) requireExecutorOverride(ctx, input.agentRunId, kind);
  return ctx.gateway.compareExecutors(input.agentRunId, input.input, kinds, {
    ...(input.typecheckInferred === true ? { typecheckInferred: true } : {}),
    ...(input.seed !== undefined ? { seed: input.seed } : {}),
  });
});

export const waitProcedure = publicProcedure.input(waitRequestSchema).mutation(({ ctx, input }) => {
  requireTurn(ctx, input.agentRunId, input.turnToken, 'wait');
  // the token goes along: a turn from before a restart is opened again for its durable runs by the token its client holds
  const turnToken = input.turnToken ?? ctx.presented.turnTokens[0];
  // the operator (the page) holds no turn token: it may open such a turn without one
  const opts = { ...(turnToken !== undefined ? { turnToken } : {}), ...(ctx.access.operator ? { operator: true } : {}) };
  return ctx.gateway.wait(input.agentRunId, { runId: input.runId }, opts).then((result) => withModelText(ctx, result));
});

/**
 * Aborts a run this Gateway holds. For the operator also one it does not: a run another Gateway holds live is aborted
 * there (forwarded, forwardedTo), and a durable run no Gateway holds is aborted from its row (its row deleted).
 */
export const abortProcedure = publicProcedure.input(runIdSchema).mutation(async ({ ctx, input }): Promise<{ aborted: boolean; forwardedTo?: string }> => {
  requireRun(ctx, input.runId, input.turnToken, 'abort');
  if (ctx.gateway.abortRun(input.runId)) return { aborted: true };
  if (!ctx.access.operator) return { aborted: false };
  const forwarded = await ctx.gateway.actElsewhere({ kind: 'abort', runId: input.runId });
  if (forwarded) return { aborted: true, forwardedTo: forwarded.forwardedTo };
  const stored = await ctx.gateway.abortStored(input.runId);
  if (stored && !stored.aborted) throw new InvalidInputError(stored.why);
  return { aborted: stored?.aborted ?? false };
});

/** Answers a pending client-tool call; the operator's answer to a call of a run another Gateway holds is forwarded there (forwardedTo). */
export const answerClientCallProcedure = publicProcedure.input(answerClientCallSchema).mutation(async ({ ctx, input }): Promise<{ answered: true; forwardedTo?: string }> => {
  requireRun(ctx, input.runId, input.turnToken, 'answerClientCall');
  const answer: { runId: string; callId: string; result?: unknown; error?: string } = {
    runId: input.runId,
    callId: input.callId,
  };
  if (input.error !== undefined) answer.error = input.error;
  else answer.result = input.result ?? null;
  if (ctx.access.operator && ctx.gateway.run(input.runId) === undefined) {
    const forwarded = await ctx.gateway.actElsewhere({ kind: 'client-call', ...answer });
    if (forwarded) return { answered: true, forwardedTo: forwarded.forwardedTo };
  }
  ctx.gateway.answerClientCall(answer);
  return { answered: true };
});
