// Sessions router: a session's transcript branch and committed session store, and branching and compacting it (its sessionToken or a turnToken of it opens it).
import { publicProcedure, router } from '../init.ts';
import { requireSession } from '../guards.ts';
import { branchSessionSchema, compactSessionSchema, sessionIdSchema } from '../schemas.ts';

export const sessionsRouter = router({
  /** The branch from the root to the current leaf, in display form (redacted sources, nested activity, compactions). */
  transcript: publicProcedure.input(sessionIdSchema).query(async ({ ctx, input }) => {
    await requireSession(ctx, input.sessionId, input, 'sessions.transcript');
    return ctx.gateway.transcript(input.sessionId);
  }),
  /** The session store replayed along the current branch: what a later cell's load() sees. */
  store: publicProcedure.input(sessionIdSchema).query(async ({ ctx, input }) => {
    await requireSession(ctx, input.sessionId, input, 'sessions.store');
    return ctx.gateway.sessionStore(input.sessionId);
  }),
  /** Moves the leaf to an entry of the session (null: before the first); returns the new branch. */
  branch: publicProcedure.input(branchSessionSchema).mutation(async ({ ctx, input }) => {
    await requireSession(ctx, input.sessionId, input, 'sessions.branch');
    return ctx.gateway.branchSession({ sessionId: input.sessionId, entryId: input.entryId });
  }),
  /** Appends a compaction at the leaf (a summary is generated when none is given); returns the entry. */
  compact: publicProcedure.input(compactSessionSchema).mutation(async ({ ctx, input }) => {
    await requireSession(ctx, input.sessionId, input, 'sessions.compact');
    return ctx.gateway.compactSession({ sessionId: input.sessionId, ...(input.summary !== undefined ? { summary: input.summary } : {}) });
  }),
});
