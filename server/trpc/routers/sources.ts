// Sources router: live tool sources (MCP servers by stdio or Streamable HTTP, OpenAPI documents). Every procedure is operator-only.
import { z } from 'zod';
import { publicProcedure, router } from '../init.ts';
import { requireOperator } from '../guards.ts';
import type { AddSourceRequest } from '../../gateway-types.ts';

/** An uploaded OpenAPI document: the request is bounded first by server.maxRequestBodyBytes (1 MiB by default), the source then by sources.maxDocumentBytes; a bigger document is added by path or URL. */
const MAX_DOCUMENT_CHARS = 8 * 1024 * 1024;
const MAX_TEXT = 4096;
const name = z.string().min(1, 'give the source a name').max(64, 'a source name is at most 64 characters');
const text = (what: string) => z.string().min(1, `${what} must not be empty`).max(MAX_TEXT, `${what} is longer than ${MAX_TEXT} characters`);
const stringMap = (what: string) =>
  z
    .record(z.string().min(1).max(256), z.string().max(MAX_TEXT))
    .refine((m) => Object.keys(m).length <= 64, { message: `${what}: at most 64 entries` });

const stdioShape = {
  command: text('command'),
  args: z.array(z.string().max(MAX_TEXT)).max(64, 'at most 64 arguments').optional(),
  env: stringMap('env').optional(),
};

const httpUrl = text('url').refine((u) => /^https?:\/\//i.test(u), { message: 'must be an http(s) URL' });

export const addSourceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('mcp-stdio'), name, ...stdioShape, confirmCommandLine: z.string().max(64 * MAX_TEXT) }),
  z.strictObject({ kind: z.literal('mcp-http'), name, url: httpUrl, headers: stringMap('headers').optional() }),
  z.strictObject({
    kind: z.literal('openapi'),
    name,
    /** An http(s) URL, or a path on the Gateway's machine (relative to the config file's folder). */
    document: text('document').optional(),
    documentText: z.string().min(1, 'the uploaded document is empty').max(MAX_DOCUMENT_CHARS, 'the uploaded document is larger than 8 MB').optional(),
    baseUrl: httpUrl.optional(),
    auth: z.strictObject({ header: text('auth.header').optional(), value: z.string().max(MAX_TEXT).optional(), env: text('auth.env').optional() }).optional(),
    allowedHosts: z.array(text('allowedHosts[]')).max(64).optional(),
  }),
]);

export const sourcesRouter = router({
  list: publicProcedure.query(({ ctx }) => {
    requireOperator(ctx, 'sources.list');
    return ctx.gateway.sources();
  }),
  /** The exact command line a stdio source would run, for the operator to confirm; also whether adding one is allowed here. */
  commandLine: publicProcedure.input(z.strictObject(stdioShape)).query(({ ctx, input }) => {
    requireOperator(ctx, 'sources.commandLine');
    return { commandLine: ctx.gateway.sourceCommandLine(input) };
  }),
  add: publicProcedure.input(addSourceSchema).mutation(({ ctx, input }) => {
    requireOperator(ctx, 'sources.add');
    return ctx.gateway.addSource(input as AddSourceRequest, { exposed: ctx.access.exposed === true });
  }),
  /** Waits (bounded by the MCP connect timeout or the document fetch) for the source's first connection or load. */
  settled: publicProcedure.input(z.strictObject({ name })).query(async ({ ctx, input }) => {
    requireOperator(ctx, 'sources.settled');
    return (await ctx.gateway.sourceSettled(input.name)) ?? null;
  }),
  remove: publicProcedure.input(z.strictObject({ name })).mutation(async ({ ctx, input }) => {
    requireOperator(ctx, 'sources.remove');
    return { removed: await ctx.gateway.removeSource(input.name) };
  }),
  save: publicProcedure.input(z.strictObject({ name })).mutation(({ ctx, input }) => {
    requireOperator(ctx, 'sources.save');
    return ctx.gateway.saveSource(input.name);
  }),
});
