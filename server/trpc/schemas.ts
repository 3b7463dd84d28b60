// Zod input schemas of the API: shapes only; the Gateway owns the spec's rules (aliases, language, typecheck).
import { z } from 'zod';

/** Ids are opaque strings; a bound keeps a pasted blob from reaching the Gateway's maps. */
export const MAX_ID_LENGTH = 200;
/** Names of agents, models and client tools: generous, but not a document. */
export const MAX_NAME_LENGTH = 200;

const id = (what: string) =>
  z.string().min(1, `${what} must be a non-empty string`).max(MAX_ID_LENGTH, `${what} is longer than ${MAX_ID_LENGTH} characters`);

const jsonSchema = z.record(z.string(), z.unknown());

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
});

export const execInputSchema = z.strictObject({
  code: z.string().optional(),
  command: z.string().optional(),
  language: z.enum(['javascript', 'typescript']).optional(),
  restartSafe: z.boolean().optional(),
  typecheck: z.boolean().optional(),
});

export const execRequestSchema = z.strictObject({
  agentRunId: id('agentRunId'),
  input: execInputSchema,
  executor: z.enum(['node', 'quickjs']).optional(),
  toolCallId: z.string().max(MAX_ID_LENGTH).optional(),
});

export const waitRequestSchema = z.strictObject({
  agentRunId: id('agentRunId'),
  runId: id('runId'),
});

export const runIdSchema = z.strictObject({ runId: id('runId') });

export const sessionIdSchema = z.strictObject({ sessionId: id('sessionId') });

export const branchSessionSchema = z.strictObject({
  sessionId: id('sessionId'),
  entryId: id('entryId').nullable(),
});

/** A compaction summary stands in for a stretch of conversation; longer than this is a paste, not a summary. */
export const MAX_SUMMARY_LENGTH = 20_000;

export const compactSessionSchema = z.strictObject({
  sessionId: id('sessionId'),
  summary: z.string().max(MAX_SUMMARY_LENGTH, `summary is longer than ${MAX_SUMMARY_LENGTH} characters; summarize it`).optional(),
});

export const answerClientCallSchema = z
  .strictObject({
    runId: id('runId'),
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
  approve: z.boolean(),
  reason: z.string().max(2000).optional(),
});

export const eventsInputSchema = z.strictObject({ runId: id('runId').optional() }).optional();
