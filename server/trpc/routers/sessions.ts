// Sessions router: a session's transcript branch and committed session store, and branching and compacting it (its sessionToken or a turnToken of it opens it).
import { publicProcedure, router } from '../init.ts';
import { requireSession } from '../guards.ts';
import { branchSessionSchema, compactSessionSchema, sessionIdSchema, transcriptPageSchema } from '../schemas.ts';

export const sessionsRouter = router({
  /**
   * The branch from the root to the current leaf, in display form (redacted sources, nested activity, compactions),
   * a page at a time: `{ entries, nextCursor, total }`; pass nextCursor as `after` until it is null.
   */
  transcript: publicProcedure.input(transcriptPageSchema).query(async ({ ctx, input }) => {
    await requireSession(ctx, input.sessionId, input, 'sessions.transcript');
    return ctx.gateway.transcriptPage(input.sessionId, { ...(input.after !== undefined ? { after: input.after } : {}), ...(input.limit !== undefined ? { limit: input.limit } : {}) });
  }),
  /** The session store replayed along the current branch: what a later cell's load() sees. */
  store: publicProcedure.input(sessionIdSchema).query(async ({ ctx, input }) => {
    await requireSession(ctx, input.sessionId, input, 'sessions.store');
    return ctx.gateway.sessionStore(input.sessionId);
  }),
  /** Moves the leaf to an entry of the session (null: before the first); returns the new leaf and the branch's length (read it with transcript). */
  branch: publicProcedure.input(branchSessionSchema).mutation(async ({ ctx, input }) => {
    await requireSession(ctx, input.sessionId, input, 'sessions.branch');
    const branch = await ctx.gateway.branchSession({ sessionId: input.sessionId, entryId: input.entryId });
    return { leafId: branch.at(-1)?.id ?? null, total: branch.length };
  }),
  /** Appends a compaction at the leaf (a summary is generated when none is given); returns the entry. */
  compact: publicProcedure.input(compactSessionSchema).mutation(async ({ ctx, input }) => {
    await requireSession(ctx, input.sessionId, input, 'sessions.compact');
    return ctx.gateway.compactSession({ sessionId: input.sessionId, ...(input.summary !== undefined ? { summary: input.summary } : {}) });
  }),
});
