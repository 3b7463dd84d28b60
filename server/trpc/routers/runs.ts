// Runs router: the runs a caller may see (source previews), one run with its full source, and its exported trajectory (JSON or OTLP spans).
import { TRPCError } from '@trpc/server';
import { publicProcedure, router } from '../init.ts';
import { requireRun, visibleTurns } from '../guards.ts';
import { runIdSchema, turnTokensSchema } from '../schemas.ts';
import type { RunView } from '../../runs/types.ts';

/**
 * runs.list shows this much of each cell's source: enough to recognise a cell in a list, while a list of many
 * large cells stays small (runs.get has the whole source).
 */
export const MAX_SOURCE_PREVIEW_CHARS = 1_000;

/** A run as runs.list shows it: `code` cut to a preview, with its full length and whether it was cut. */
export type ListedRun = RunView & { codeChars?: number; codeTruncated?: boolean };

export function listedRun(view: RunView): ListedRun {
  const truncated = view.code.length > MAX_SOURCE_PREVIEW_CHARS;
  return {
    ...view,
    code: truncated ? view.code.slice(0, MAX_SOURCE_PREVIEW_CHARS) : view.code,
    codeChars: view.code.length,
    codeTruncated: truncated,
  };
}

function unknownRun(runId: string): TRPCError {
  return new TRPCError({
    code: 'NOT_FOUND',
    message: `unknown run ${runId}: it never existed in this Gateway process or was released; pick one from runs.list`,
  });
}

export const runsRouter = router({
  /** The operator sees every run; a client the runs of the turns whose tokens it passes. */
  list: publicProcedure.input(turnTokensSchema).query(({ ctx, input }): ListedRun[] => {
    const visible = visibleTurns(ctx, input?.turnTokens);
    const runs = ctx.gateway.runs();
    return (visible === 'all' ? runs : runs.filter((r) => visible.has(r.agentRunId))).map(listedRun);
  }),
  get: publicProcedure.input(runIdSchema).query(({ ctx, input }) => {
    requireRun(ctx, input.runId, input.turnToken, 'runs.get');
    const view = ctx.gateway.run(input.runId);
    if (!view) throw unknownRun(input.runId);
    return view;
  }),
  trajectory: publicProcedure.input(runIdSchema).query(({ ctx, input }) => {
    requireRun(ctx, input.runId, input.turnToken, 'runs.trajectory');
    const trajectory = ctx.gateway.trajectory(input.runId);
    if (!trajectory) throw unknownRun(input.runId);
    return trajectory;
  }),
  /** The trajectory as OTLP/JSON (an ExportTraceServiceRequest body): import it into any OpenTelemetry backend. */
  otlp: publicProcedure.input(runIdSchema).query(async ({ ctx, input }): Promise<{ fileName: string; json: string }> => {
    requireRun(ctx, input.runId, input.turnToken, 'runs.otlp');
    const json = await ctx.gateway.trajectoryOtlp(input.runId);
    if (json === undefined) throw unknownRun(input.runId);
    return { fileName: `trace-${input.runId}.otlp.json`, json };
  }),
});
