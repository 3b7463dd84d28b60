// Catalog router: the run-scoped catalog (tools by source, MCP servers, declarations for the editor).
import { publicProcedure, router } from '../init.ts';
import { turnRequestSchema } from '../schemas.ts';

export const catalogRouter = router({
  /** Every tool with its projected name and declaration; the page searches it client-side. */
  list: publicProcedure.input(turnRequestSchema).query(async ({ ctx, input }) => {
    await ctx.gateway.mcpReady();
    return ctx.gateway.catalog(input);
  }),
  /** Only the ambient `.d.ts` the editor feeds to the TypeScript language service. */
  declarations: publicProcedure
    .input(turnRequestSchema)
    .query(async ({ ctx, input }) => {
      await ctx.gateway.mcpReady();
      return { declarations: ctx.gateway.catalog(input).declarations };
    }),
});
