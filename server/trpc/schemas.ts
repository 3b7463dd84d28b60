// Zod input schemas of the API: shapes only; the Gateway owns the spec's rules (aliases, language, typecheck).
import { z } from 'zod';
import { EXECUTOR_KINDS } from '../config/schema.ts';
import { jsonShapeProblem } from '../util/json-shape.ts';

/** Ids are opaque strings; a bound keeps a pasted blob from reaching the Gateway's maps. */
export const MAX_ID_LENGTH = 200;
/** Names of agents, models and client tools: generous, but not a document. */
export const MAX_NAME_LENGTH = 200;

const id = (what: string) =>
  z.string().min(1, `${what} must be a non-empty string`).max(MAX_ID_LENGTH, `${what} is longer than ${MAX_ID_LENGTH} characters`);

/** A client tool's JSON Schema: any object within the Gateway's shape limits (util/json-shape.ts). */
const jsonSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  const problem = jsonShapeProblem(schema);
  if (problem) ctx.addIssue({ code: 'custom', message: `the schema ${problem}` });
});

/** Tokens are ~46 characters; the bound only keeps a pasted blob out. */
export const MAX_TOKEN_LENGTH = 200;
/** One stream or list call may speak for this many turns; more is a client that forgot to end its turns. */
export const MAX_TURN_TOKENS = 64;

const token = (what: string) =>
  z.string().min(1, `${what} must be a non-empty string`).max(MAX_TOKEN_LENGTH, `${what} is longer than ${MAX_TOKEN_LENGTH} characters; pass the token as returned`);

/** The turn's token from turns.prepare; optional in the shape because the operator needs none (the edge checks it). */
export const turnTokenField = token('turnToken').optional();
export const turnTokensField = z
  .array(token('turnTokens[]'))
  .max(MAX_TURN_TOKENS, `pass at most ${MAX_TURN_TOKENS} turnTokens; end turns you no longer use`)
  .optional();

export const clientToolSpecSchema = z.strictObject({
  name: z.string().min(1, 'give the client tool a name').max(MAX_NAME_LENGTH),
  description: z.string(),
  inputSchema: jsonSchema,
  outputSchema: jsonSchema.optional(),
});

export const turnRequestSchema = z.strictObject({
  agentId: z.string().max(MAX_NAME_LENGTH).optional(),
  model: z.string().max(MAX_NAME_LENGTH).optional(),
  sessionId: z.string().max(MAX_ID_LENGTH).optional(),
  clientTools: z.array(clientToolSpecSchema).optional(),
  disableTools: z.boolean().optional(),
  headless: z.boolean().optional(),
});

/** turns.prepare: joining an existing session id needs that session's token. */
export const prepareTurnSchema = turnRequestSchema.extend({ sessionToken: token('sessionToken').optional() });

export const turnRefSchema = z.strictObject({ agentRunId: id('agentRunId'), turnToken: turnTokenField });

export const execInputSchema = z.strictObject({
  code: z.string().optional(),
  command: z.string().optional(),
  language: z.enum(['javascript', 'typescript']).optional(),
  restartSafe: z.boolean().optional(),
  typecheck: z.boolean().optional(),
});

/** A run's seed (uint32): Math.random's, and with it the seed's logical clock. */
const seedField = z.number().int('seed must be an integer').min(0, 'seed must be 0 or more').max(0xffff_ffff, 'seed must be at most 4294967295').optional();

export const execRequestSchema = z.strictObject({
  agentRunId: id('agentRunId'),
  turnToken: turnTokenField,
  input: execInputSchema,
  executor: z.enum(EXECUTOR_KINDS).optional(),
  toolCallId: z.string().max(MAX_ID_LENGTH).optional(),
  /** A cassette (runs.cassette's JSON) to replay the cell against; the Gateway checks it field by field. */
  replay: z.unknown().optional(),
  seed: seedField,
  /** With input.typecheck: check the cell against this turn's inferred output types too (the user opted in). */
  typecheckInferred: z.boolean().optional(),
});

/** One cell on every executor (or the ones named), each in its own run of the turn. */
export const compareRequestSchema = z.strictObject({
  agentRunId: id('agentRunId'),
  turnToken: turnTokenField,
  input: execInputSchema,
  executors: z.array(z.enum(EXECUTOR_KINDS)).min(1, 'name at least one executor, or leave executors out for all').max(EXECUTOR_KINDS.length).optional(),
  /** As exec's: with input.typecheck, every row's typecheck uses this turn's inferred output types too. */
  typecheckInferred: z.boolean().optional(),
  /** One seed for every row (as exec's: it also gives them its logical clock); drawn once for the comparison when absent. */
  seed: seedField,
});

export const waitRequestSchema = z.strictObject({
  agentRunId: id('agentRunId'),
  turnToken: turnTokenField,
  runId: id('runId'),
});

export const runIdSchema = z.strictObject({ runId: id('runId'), turnToken: turnTokenField });

/** runs.fork: edited answers for some pending calls (the Gateway checks them against the run: runs/fork.ts). */
export const forkRunSchema = z.strictObject({
  runId: id('runId'),
  turnToken: turnTokenField,
  replies: z
    .array(
      z.strictObject({
        id: id('id'),
        result: z.unknown().optional(),
        error: z.string().min(1, 'error must say what went wrong').max(2000).optional(),
        code: z.string().max(64).optional(),
      }),
    )
    .max(256, 'at most 256 replies: one per pending call')
    .optional(),
});

/** List calls: the caller's turns (the operator sees every run and may leave it out). */
export const turnTokensSchema = z.strictObject({ turnTokens: turnTokensField }).optional();

const sessionTokens = { sessionToken: token('sessionToken').optional(), turnToken: turnTokenField };

export const sessionIdSchema = z.strictObject({ sessionId: id('sessionId'), ...sessionTokens });

/** A page of a transcript: after the previous page's nextCursor, at most `limit` entries (the Gateway caps it at 1000). */
export const transcriptPageSchema = z.strictObject({
  sessionId: id('sessionId'),
  ...sessionTokens,
  after: id('after').optional(),
  limit: z.number().int('limit must be a whole number of entries').positive('limit must be at least 1').optional(),
});

export const branchSessionSchema = z.strictObject({
  sessionId: id('sessionId'),
  ...sessionTokens,
  entryId: id('entryId').nullable(),
});

/** A compaction summary stands in for a stretch of conversation; longer than this is a paste, not a summary. */
export const MAX_SUMMARY_LENGTH = 20_000;

export const compactSessionSchema = z.strictObject({
  sessionId: id('sessionId'),
  ...sessionTokens,
  summary: z.string().max(MAX_SUMMARY_LENGTH, `summary is longer than ${MAX_SUMMARY_LENGTH} characters; summarize it`).optional(),
});

export const answerClientCallSchema = z
  .strictObject({
    runId: id('runId'),
    turnToken: turnTokenField,
    callId: id('callId'),
    result: z.unknown().optional(),
    error: z.string().min(1, 'error must say what went wrong').optional(),
  })
  .refine((v) => v.error === undefined || v.result === undefined, {
    message: 'send either result or error, not both',
    path: ['error'],
  });

export const decideApprovalSchema = z.strictObject({
  approvalId: id('approvalId'),
  turnToken: turnTokenField,
  approve: z.boolean(),
  reason: z.string().max(2000).optional(),
});

export const eventsInputSchema = z.strictObject({ runId: id('runId').optional(), turnTokens: turnTokensField }).optional();
