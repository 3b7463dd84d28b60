// Sessions router: a session's transcript branch and its committed session store (unknown session: empty lists).
import { publicProcedure, router } from '../init.ts';
import { sessionIdSchema } from '../schemas.ts';

export const sessionsRouter = router({
  /** The branch from the root to the current leaf, in display form (redacted sources, nested activity, compactions). */
  transcript: publicProcedure.input(sessionIdSchema).query(({ ctx, input }) => ctx.gateway.transcript(input.sessionId)),
  /** The session store replayed along the current branch: what a later cell's load() sees. */
  store: publicProcedure.input(sessionIdSchema).query(({ ctx, input }) => ctx.gateway.sessionStore(input.sessionId)),
});
