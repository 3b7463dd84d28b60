// Catalog router: the run-scoped catalog (tools by source, MCP servers, declarations for the editor).
import { router, turnStartProcedure } from '../init.ts';
import { turnRequestSchema } from '../schemas.ts';

export const catalogRouter = router({
  /** Every tool with its projected name and declaration; the page searches it client-side. */
  list: turnStartProcedure.input(turnRequestSchema).query(({ ctx, input }) => ctx.gateway.catalog(input)),
  /** Only the ambient `.d.ts` the editor feeds to the TypeScript language service. */
  declarations: turnStartProcedure.input(turnRequestSchema).query(({ ctx, input }) => ({ declarations: ctx.gateway.catalog(input).declarations })),
});
