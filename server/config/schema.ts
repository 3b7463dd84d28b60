// The tools.codeMode contract: zod schema, defaults, clamp bounds and the true/false/"auto" shorthands (DESIGN.md 4.2).
import { z } from 'zod';
import type { CodeModeOptions, ExecutorKind, ExecutorOverridePolicy, McpServerOptions, ServerOptions } from './types.ts';
import { clientsSchema, DEFAULT_SHARES, MOVED_SERVER_FIELDS, resolveClients, resolveShares, sharesSchema } from './shares.ts';
import { boundedInt, describeValue, expectedReason, parseOrThrow, pathSegments, strictObject, zodProblemSegments } from './issues.ts';

export const EXECUTOR_KINDS = ['node', 'quickjs', 'quickjs-emscripten'] as const satisfies readonly ExecutorKind[];
export const EXECUTOR_OVERRIDE_POLICIES = ['never', 'operator', 'always'] as const satisfies readonly ExecutorOverridePolicy[];

/** The integer limits of CodeModeOptions: the fields that are clamped rather than rejected. */
export type CodeModeLimitField = Exclude<keyof CodeModeOptions, 'enabled' | 'executor' | 'allowExecutorOverride'>;

/** Options a config starts from. Every other module reads resolved values, never these literals. */
export const DEFAULT_CODE_MODE_OPTIONS: Readonly<CodeModeOptions> = Object.freeze({
  // The spec's default state is disabled: an object config without `enabled` must not switch tool exposure.
  enabled: false,
  // The spec's default executor (trusted host execution); the shipped playground config picks quickjs for hostile input.
  executor: 'node',
  // Long enough for a handful of awaited tool calls; past it a pending call returns `waiting` instead of holding the turn.
  timeoutMs: 10_000,
  // Roomy for JSON joins over tool results, small enough that many parked cells cannot exhaust the Gateway.
  memoryLimitBytes: 64 * 1024 * 1024,
  // About 16k tokens of output: beyond that a cell should save data with results.save and return a summary.
  maxOutputBytes: 64 * 1024,
  // A trivial QuickJS snapshot stores ~120 KB; 10 MiB leaves room for real heaps while 64 parked runs stay bounded.
  maxSnapshotBytes: 10 * 1024 * 1024,
  // Enough parallelism for a Promise.all fan-out without letting one cell flood the tool backends.
  maxPendingToolCalls: 16,
  // 15 minutes: a model (or a person in the playground) answers a waiting run well within it; stale snapshots go.
  snapshotTtlSeconds: 900,
  // A search result a model can read at a glance.
  searchDefaultLimit: 8,
  // Beyond 50 handles a cell should use catalog.all() or a narrower query.
  maxSearchLimit: 50,
  // 256 KiB is thousands of lines, far past any cell a model writes; data belongs in tool calls, not in source
  // (a 10 MB cell grew the session database by 20 MiB: the transcript keeps every source).
  maxSourceBytes: 256 * 1024,
  // A headless turn has no model or person reading between its calls (a script, a scheduled job): 1000 tool calls is
  // far past a job that does what it was written for, and stops one that loops over tools before it runs for hours.
  maxHeadlessToolCalls: 1000,
  // The node executor is trusted execution, not a boundary: nobody picks it per cell unless the config says so.
  allowExecutorOverride: 'never',
});

export interface IntBounds {
  min: number;
  max: number;
  /** Unit the field counts in, for error messages. */
  unit: string;
}

/** Out-of-range limits are clamped to these bounds (not rejected): a generous config still starts. */
export const CODE_MODE_LIMIT_BOUNDS: Readonly<Record<CodeModeLimitField, IntBounds>> = Object.freeze({
  // Below 100 ms even one bridge round trip may not fit; above 60 s a turn should yield and use wait.
  timeoutMs: { min: 100, max: 60_000, unit: 'milliseconds' },
  // QuickJS needs about 1 MiB to start; 1 GiB is the most one guest may take from a shared process.
  memoryLimitBytes: { min: 1024 * 1024, max: 1024 * 1024 * 1024, unit: 'bytes' },
  // 1 KiB still fits an error and a short value; 10 MiB is far past any model context.
  maxOutputBytes: { min: 1024, max: 10 * 1024 * 1024, unit: 'bytes' },
  // 1 KiB forces every suspension to fail (useful in tests); 256 MiB times 64 parked runs is the memory ceiling.
  maxSnapshotBytes: { min: 1024, max: 256 * 1024 * 1024, unit: 'bytes' },
  // At least one call must be able to run; 128 matches the bridge's fixed guest-side queue.
  maxPendingToolCalls: { min: 1, max: 128, unit: 'calls' },
  // One day: snapshots are process-local runtime state, not something to keep.
  snapshotTtlSeconds: { min: 1, max: 86_400, unit: 'seconds' },
  // Search limits are not bounded by the spec; 500 handles is already more than any catalog here holds.
  searchDefaultLimit: { min: 1, max: 500, unit: 'results' },
  maxSearchLimit: { min: 1, max: 500, unit: 'results' },
  // 1 KiB still fits a small cell (tests); 16 MiB is past what any transcript should hold per call.
  maxSourceBytes: { min: 1024, max: 16 * 1024 * 1024, unit: 'bytes' },
  // One call still lets a script do something; a million is past any job a turn should be.
  maxHeadlessToolCalls: { min: 1, max: 1_000_000, unit: 'calls' },
});

export const CODE_MODE_LIMIT_FIELDS = Object.keys(CODE_MODE_LIMIT_BOUNDS) as CodeModeLimitField[];

function limitField(field: CodeModeLimitField) {
  const { min, max, unit } = CODE_MODE_LIMIT_BOUNDS[field];
  const hint = `write a whole number of ${unit} from ${min} to ${max}, e.g. ${DEFAULT_CODE_MODE_OPTIONS[field]}`;
  const reason = (input: unknown) => expectedReason('an integer', hint, input);
  return z
    .number({ error: (issue) => reason(issue.input) })
    .refine(Number.isInteger, { error: (issue) => reason(issue.input) })
    .transform((value) => Math.min(max, Math.max(min, value)));
}

const enabledSchema = z.union([z.boolean(), z.literal('auto')], {
  error: (issue) =>
    expectedReason(
      'true, false or "auto"',
      '"auto" engages only for models marked prefersCodeMode',
      issue.input,
    ),
});

const executorSchema = z.enum(EXECUTOR_KINDS, {
  error: (issue) =>
    issue.input === undefined
      ? `required; use "node", "quickjs" or "quickjs-emscripten"`
      : `unknown executor ${describeValue(issue.input)}; use "node" (trusted, default), "quickjs" (isolated, snapshots) or "quickjs-emscripten" (isolated, live continuation)`,
});

const executorOverrideSchema = z.enum(EXECUTOR_OVERRIDE_POLICIES, {
  error: (issue) =>
    expectedReason(
      '"never", "operator" or "always"',
      '"operator" lets only the playground page (the operator) run a cell on another executor',
      issue.input,
    ),
});

/** The object form of `tools.codeMode`, every field optional: what an agent may override. */
export const codeModeFieldsSchema = strictObject(
  {
    enabled: enabledSchema.optional(),
    executor: executorSchema.optional(),
    timeoutMs: limitField('timeoutMs').optional(),
    memoryLimitBytes: limitField('memoryLimitBytes').optional(),
    maxOutputBytes: limitField('maxOutputBytes').optional(),
    maxSnapshotBytes: limitField('maxSnapshotBytes').optional(),
    maxPendingToolCalls: limitField('maxPendingToolCalls').optional(),
    snapshotTtlSeconds: limitField('snapshotTtlSeconds').optional(),
    searchDefaultLimit: limitField('searchDefaultLimit').optional(),
    maxSearchLimit: limitField('maxSearchLimit').optional(),
    maxSourceBytes: limitField('maxSourceBytes').optional(),
    maxHeadlessToolCalls: limitField('maxHeadlessToolCalls').optional(),
    allowExecutorOverride: executorOverrideSchema.optional(),
  },
  'code-mode options',
);

/** Clamped overrides: unset fields mean "no opinion" (an agent's `enabled` left out falls through to lower levels). */
export type CodeModeOverrides = z.output<typeof codeModeFieldsSchema>;

/**
 * Any accepted `tools.codeMode` value, as overrides: `true` / `false` / `"auto"` set only `enabled`,
 * an object keeps what it sets. Used as is for agents; the global level adds defaults on top.
 */
export const codeModeOverridesSchema = z.unknown().transform((value, ctx): CodeModeOverrides => {
  // Told apart by type rather than by a zod union: a union reports "no branch matched" instead of the bad field.
  if (typeof value === 'boolean' || value === 'auto') return { enabled: value };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const result = codeModeFieldsSchema.safeParse(value, { reportInput: true });
    if (result.success) return result.data;
    for (const { segments, reason } of zodProblemSegments(result.error)) {
      ctx.addIssue({ code: 'custom', message: reason, path: segments });
    }
    return z.NEVER;
  }
  ctx.addIssue({
    code: 'custom',
    message: expectedReason(
      'true, false, "auto" or an object of code-mode options',
      'e.g. { "enabled": true, "executor": "quickjs" }',
      value,
    ),
  });
  return z.NEVER;
});

/**
 * The global `tools.codeMode`: overrides over the defaults. An absent value or an object without `enabled`
 * stays disabled (spec: default state disabled).
 */
export const codeModeSchema = codeModeOverridesSchema
  .optional()
  .transform((overrides): CodeModeOptions => mergeCodeModeOptions(DEFAULT_CODE_MODE_OPTIONS, overrides ?? {}));

/**
 * Applies overrides to resolved options. searchDefaultLimit never exceeds maxSearchLimit, whichever level set them.
 */
export function mergeCodeModeOptions(base: Readonly<CodeModeOptions>, overrides: CodeModeOverrides): CodeModeOptions {
  const merged: CodeModeOptions = { ...base };
  for (const [key, value] of Object.entries(overrides) as Array<[keyof CodeModeOverrides, CodeModeOverrides[keyof CodeModeOverrides]]>) {
    if (value !== undefined) Object.assign(merged, { [key]: value });
  }
  merged.searchDefaultLimit = Math.min(merged.searchDefaultLimit, merged.maxSearchLimit);
  return merged;
}

/**
 * Notes for values that were changed rather than taken as written: clamped limits and a default search
 * limit lowered to the maximum. `raw` is the value as the file had it, `options` what it became.
 */
export function clampNotes(raw: unknown, options: Partial<CodeModeOptions>, path: string): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
  const notes: string[] = [];
  const record = raw as Record<string, unknown>;
  for (const field of CODE_MODE_LIMIT_FIELDS) {
    const written = record[field];
    const used = options[field];
    if (typeof written === 'number' && used !== undefined && written !== used) {
      const { min, max } = CODE_MODE_LIMIT_BOUNDS[field];
      const why =
        field === 'searchDefaultLimit' && written >= min && written <= max
          ? 'lowered to maxSearchLimit'
          : `out of range ${min} to ${max}`;
      notes.push(`${path}.${field}: ${written} is ${why}; using ${used}`);
    }
  }
  return notes;
}

/**
 * Resolves a global `tools.codeMode` value (`true`, `false`, `"auto"`, an object or undefined) to options.
 * `path` is where the value sits in the file, for error messages. Throws ConfigError naming the bad field.
 * Pass `warnings` to collect notes about clamped values.
 */
export function resolveCodeModeOptions(input: unknown, path: string, warnings?: string[]): CodeModeOptions {
  const options = parseOrThrow(codeModeSchema, input, pathSegments(path));
  warnings?.push(...clampNotes(input, options, path));
  return options;
}

/** Parses an agent-level `tools.codeMode` value to overrides (no defaults: unset means "inherit"). */
export function resolveCodeModeOverrides(input: unknown, path: string, warnings?: string[]): CodeModeOverrides {
  const overrides = parseOrThrow(codeModeOverridesSchema, input, pathSegments(path));
  warnings?.push(...clampNotes(input, overrides, path));
  return overrides;
}

// ---- the HTTP server (`server` in the config file) -----------------------------------------------

/** Request and subscriber limits of the HTTP server; the exposure fields have no default (see ServerOptions). */
export const DEFAULT_SERVER_OPTIONS: Readonly<ServerOptions> = Object.freeze({
  allowedHosts: [],
  allowedOrigins: [],
  // A cell is capped at 256 KiB and client tools' schemas are small; 1 MiB leaves room for both with JSON escaping
  // while a 60 MB body is refused before it is read.
  maxRequestBodyBytes: 1024 * 1024,
  // A burst of one busy run is a few hundred events; a reader this far behind has stopped reading, and each
  // queued event holds a run view in memory.
  maxQueuedEventsPerSubscriber: 512,
  // No API keys until the operator mints one: keyless clients share the anonymous owner's shares.
  clients: Object.freeze({}),
  // Each class's share of every shared resource, each value with its reason (config/shares.ts).
  shares: DEFAULT_SHARES,
});

export type ServerLimitField = 'maxRequestBodyBytes' | 'maxQueuedEventsPerSubscriber';

/** Server limits are rejected (not clamped) outside these: a limit that silently changes hides an exposure mistake. */
export const SERVER_LIMIT_BOUNDS: Readonly<Record<ServerLimitField, IntBounds>> = Object.freeze({
  // Below 16 KiB a turn with a few client tools no longer fits; above 64 MiB is the attack the cap exists for.
  maxRequestBodyBytes: { min: 16 * 1024, max: 64 * 1024 * 1024, unit: 'bytes' },
  maxQueuedEventsPerSubscriber: { min: 16, max: 100_000, unit: 'events' },
});

/** An access token shorter than this is guessable over a network; `openssl rand -hex 32` gives 64 characters. */
export const MIN_ACCESS_TOKEN_LENGTH = 24;

function serverLimit(field: ServerLimitField) {
  return boundedInt(SERVER_LIMIT_BOUNDS[field], DEFAULT_SERVER_OPTIONS[field]);
}

const hostEntry = z
  .string({ error: (issue) => expectedReason('a string', 'a host name, optionally with a port, e.g. "playground.lan:3000"', issue.input) })
  .regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/, {
    error: (issue) => `${describeValue(issue.input)} is not a host; write "name" or "name:port" (no scheme or path), e.g. "playground.lan:3000"`,
  });

const originEntry = z
  .string({ error: (issue) => expectedReason('a string', 'an origin such as "https://app.example"', issue.input) })
  .refine(isOrigin, { error: (issue) => `${describeValue(issue.input)} is not an origin; write scheme://host[:port] with no path, e.g. "https://app.example"` });

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** The rule for an access token, wherever it comes from (server.accessToken, CODEMODE_ACCESS_TOKEN). */
export const accessTokenSchema = z
  .string({ error: (issue) => expectedReason('a string', 'a long random secret, e.g. the output of `openssl rand -hex 32`', issue.input) })
  .refine((t) => t.length >= MIN_ACCESS_TOKEN_LENGTH && !/\s/.test(t), {
    error: `must be at least ${MIN_ACCESS_TOKEN_LENGTH} characters without spaces; generate one with \`openssl rand -hex 32\``,
  });

const serverFieldsSchema = strictObject(
  {
    accessToken: accessTokenSchema.optional(),
    allowedHosts: z.array(hostEntry, { error: (issue) => expectedReason('a list', 'list host names', issue.input) }).optional(),
    allowedOrigins: z.array(originEntry, { error: (issue) => expectedReason('a list', 'list origins', issue.input) }).optional(),
    maxRequestBodyBytes: serverLimit('maxRequestBodyBytes').optional(),
    maxQueuedEventsPerSubscriber: serverLimit('maxQueuedEventsPerSubscriber').optional(),
    clients: clientsSchema.optional(),
    shares: sharesSchema.optional(),
  },
  'server: accessToken, allowedHosts, allowedOrigins, maxRequestBodyBytes, maxQueuedEventsPerSubscriber, clients, shares',
);

/** The `server` section; a field that moved into `shares` is named with where it lives now. */
export const serverOptionsSchema = z.preprocess((value, ctx) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const rest: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [old, now] of Object.entries(MOVED_SERVER_FIELDS)) {
    if (!(old in rest)) continue;
    delete rest[old];
    ctx.addIssue({ code: 'custom', path: [old], message: `moved: shares are per owner now; write it as ${now} (docs/security.md lists every share)` });
  }
  return rest;
}, serverFieldsSchema);

/** The server options a config asks for, over the defaults (a config built in code gets the defaults). */
/** `mcpSessionsTotal`: mcpServer.maxSessions, which bounds the default /mcp shares (config/shares.ts). */
export function resolveServerOptions(file: z.output<typeof serverFieldsSchema> | undefined, mcpSessionsTotal?: number): ServerOptions {
  const { clients, shares, ...limits } = file ?? {};
  const out: ServerOptions = { ...DEFAULT_SERVER_OPTIONS, allowedHosts: [], allowedOrigins: [], clients: resolveClients(clients), shares: resolveShares(shares, mcpSessionsTotal) };
  for (const [key, value] of Object.entries(limits)) if (value !== undefined) Object.assign(out, { [key]: value });
  return out;
}

// ---- the MCP server face (`mcpServer` in the config file) ----------------------------------------

export const DEFAULT_MCP_SERVER_OPTIONS: Readonly<McpServerOptions> = Object.freeze({
  // On by default: it is served on the playground's own port behind the same checks (loopback, or the token).
  enabled: true,
  // The path MCP clients and their docs expect by convention.
  path: '/mcp',
  // Each session holds a turn (its catalog, saved results, parked runs): a few agents with a few sessions each fit,
  // and a client that opens sessions in a loop meets the cap instead of the memory limit.
  maxSessions: 32,
  // Longer than a parked run's default snapshot TTL (900 s), so a parked run expires with its own message first;
  // short enough that clients that never DELETE their session (many CLIs just exit) do not hold the cap for long.
  sessionIdleSeconds: 1800,
});

export type McpServerLimitField = 'maxSessions' | 'sessionIdleSeconds';

/** Rejected (not clamped) outside these, as the server limits are. */
export const MCP_SERVER_LIMIT_BOUNDS: Readonly<Record<McpServerLimitField, IntBounds>> = Object.freeze({
  maxSessions: { min: 1, max: 1024, unit: 'sessions' },
  // at most the Gateway's own idle limit for turns (TURN_IDLE_MS, 6 h): past it the turn would end under a session still open
  sessionIdleSeconds: { min: 1, max: 6 * 60 * 60, unit: 'seconds' },
});

/** Paths the playground itself owns: an MCP path on or under one of them would shadow it. */
export const RESERVED_PATH_PREFIXES: readonly string[] = Object.freeze(['/api', '/_next', '/__codemode']);

function isReservedPath(path: string): boolean {
  const lower = path.toLowerCase();
  return path === '/' || RESERVED_PATH_PREFIXES.some((prefix) => lower === prefix || lower.startsWith(`${prefix}/`));
}

const mcpPath = z
  .string({ error: (issue) => expectedReason('a string', `a URL path such as "${DEFAULT_MCP_SERVER_OPTIONS.path}"`, issue.input) })
  .refine((path) => /^\/[A-Za-z0-9._~\/-]*$/.test(path) && !path.includes('//'), {
    error: (issue) => `${describeValue(issue.input)} is not a URL path; write one that starts with "/" (no query, no spaces), e.g. "${DEFAULT_MCP_SERVER_OPTIONS.path}"`,
  })
  .refine((path) => !isReservedPath(path), {
    error: (issue) =>
      `${describeValue(issue.input)} collides with the playground's own paths (${RESERVED_PATH_PREFIXES.join(', ')} and "/"); pick another, e.g. "${DEFAULT_MCP_SERVER_OPTIONS.path}"`,
  });

export const mcpServerOptionsSchema = strictObject(
  {
    enabled: z.boolean({ error: (issue) => expectedReason('true or false', 'true serves MCP on the playground port, false turns it off', issue.input) }).optional(),
    path: mcpPath.optional(),
    token: accessTokenSchema.optional(),
    maxSessions: boundedInt(MCP_SERVER_LIMIT_BOUNDS.maxSessions, DEFAULT_MCP_SERVER_OPTIONS.maxSessions).optional(),
    sessionIdleSeconds: boundedInt(MCP_SERVER_LIMIT_BOUNDS.sessionIdleSeconds, DEFAULT_MCP_SERVER_OPTIONS.sessionIdleSeconds).optional(),
  },
  'mcpServer: enabled, path, token, maxSessions, sessionIdleSeconds',
);

/** The MCP server options a config asks for, over the defaults. */
export function resolveMcpServerOptions(file: z.output<typeof mcpServerOptionsSchema> | undefined): McpServerOptions {
  return {
    enabled: file?.enabled ?? DEFAULT_MCP_SERVER_OPTIONS.enabled,
    path: file?.path ?? DEFAULT_MCP_SERVER_OPTIONS.path,
    maxSessions: file?.maxSessions ?? DEFAULT_MCP_SERVER_OPTIONS.maxSessions,
    sessionIdleSeconds: file?.sessionIdleSeconds ?? DEFAULT_MCP_SERVER_OPTIONS.sessionIdleSeconds,
    ...(file?.token !== undefined ? { token: file.token } : {}),
  };
}
