// Runs router: the runs a caller may see (source previews), one run with its full source, and its exported trajectory (JSON or OTLP spans).
import { TRPCError } from '@trpc/server';
import { publicProcedure, router } from '../init.ts';
import { requireRun, visibleTurns } from '../guards.ts';
import { forkRunSchema, runIdSchema, turnTokensSchema } from '../schemas.ts';
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
  /**
   * The operator sees every run; a client the runs of the turns whose tokens it passes. With durable runs, the runs
   * parked in the session database that this process does not hold (before a restart, or on another Gateway) follow,
   * from their rows' metadata (durableRow set): a wait resumes one. The operator also sees the live runs other Gateways on
   * the session database hold (heldBy set, as their holders published them: acted on through their holders: actElsewhere).
   */
  list: publicProcedure.input(turnTokensSchema).query(async ({ ctx, input }): Promise<ListedRun[]> => {
    const visible = visibleTurns(ctx, input?.turnTokens);
    const held = ctx.gateway.runs();
    const heldIds = new Set(held.map((r) => r.runId));
    // the runs other Gateways hold (heldBy): the operator's board shows them; a client sees only its turns' runs, all held here
    const elsewhere = visible === 'all' ? (await ctx.gateway.heldElsewhere()).runs.filter((r) => !heldIds.has(r.runId)) : [];
    const elsewhereById = new Map(elsewhere.map((r) => [r.runId, r]));
    // a row may be resumed between the reads: the run this process holds wins, then the holder's view (keeping the row's facts)
    const stored = (await ctx.gateway.storedRuns()).filter((r) => !heldIds.has(r.runId));
    const merged = stored.map((r) => {
      const view = elsewhereById.get(r.runId);
      if (!view) return r;
      elsewhereById.delete(r.runId);
      return r.durableRow ? { ...view, durableRow: r.durableRow } : view;
    });
    const others = [...merged, ...elsewhereById.values()];
    const runs = others.length === 0 ? held : [...held, ...others].sort((a, b) => b.createdAt - a.createdAt);
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
  /** The run's tool calls as a cassette to replay it against (exec's `replay`, `codemode run --replay`). */
  cassette: publicProcedure.input(runIdSchema).query(({ ctx, input }) => {
    requireRun(ctx, input.runId, input.turnToken, 'runs.cassette');
    const cassette = ctx.gateway.cassette(input.runId);
    if (!cassette) throw unknownRun(input.runId);
    return cassette;
  }),
  /** A completed run as a cassette plus a Vitest file that replays it and asserts its value (the files go in replays/). */
  saveAsTest: publicProcedure.input(runIdSchema).query(({ ctx, input }) => {
    requireRun(ctx, input.runId, input.turnToken, 'runs.saveAsTest');
    const saved = ctx.gateway.saveAsTest(input.runId);
    if (!saved) throw unknownRun(input.runId);
    return saved;
  }),
  /** Fork a waiting QuickJS run into a new waiting run of the same turn (replay lab); the fork is waited on like any run. */
  fork: publicProcedure.input(forkRunSchema).mutation(({ ctx, input }) => {
    requireRun(ctx, input.runId, input.turnToken, 'runs.fork');
    return ctx.gateway.forkRun({ runId: input.runId, ...(input.replies ? { replies: input.replies } : {}) });
  }),
  /** The trajectory as OTLP/JSON (an ExportTraceServiceRequest body): import it into any OpenTelemetry backend. */
  otlp: publicProcedure.input(runIdSchema).query(async ({ ctx, input }): Promise<{ fileName: string; json: string }> => {
    requireRun(ctx, input.runId, input.turnToken, 'runs.otlp');
    const json = await ctx.gateway.trajectoryOtlp(input.runId);
    if (json === undefined) throw unknownRun(input.runId);
    return { fileName: `trace-${input.runId}.otlp.json`, json };
  }),
});
