// Sessions router: a session's transcript branch and committed session store, and branching and compacting it.
import { publicProcedure, router } from '../init.ts';
import { branchSessionSchema, compactSessionSchema, sessionIdSchema } from '../schemas.ts';

export const sessionsRouter = router({
  /** The branch from the root to the current leaf, in display form (redacted sources, nested activity, compactions). */
  transcript: publicProcedure.input(sessionIdSchema).query(({ ctx, input }) => ctx.gateway.transcript(input.sessionId)),
  /** The session store replayed along the current branch: what a later cell's load() sees. */
  store: publicProcedure.input(sessionIdSchema).query(({ ctx, input }) => ctx.gateway.sessionStore(input.sessionId)),
  /** Moves the leaf to an entry of the session (null: before the first); returns the new branch. */
  branch: publicProcedure.input(branchSessionSchema).mutation(({ ctx, input }) => ctx.gateway.branchSession(input)),
  /** Appends a compaction at the leaf (a summary is generated when none is given); returns the entry. */
  compact: publicProcedure
    .input(compactSessionSchema)
    .mutation(({ ctx, input }) => ctx.gateway.compactSession({ sessionId: input.sessionId, ...(input.summary !== undefined ? { summary: input.summary } : {}) })),
});
