// Shares of the Gateway's shared resources per owner (`server.shares`) and the API clients that hold keys (`server.clients`): defaults, bounds, schema.
//
// Every resource clients share (live turns, event streams, suspended-run slots, /mcp sessions, places in the
// grep and typecheck queues) is held per owner (server/access/owners.ts), and an owner of each class may hold
// at most its class's share. Where the resource has a process-wide total (64 suspended runs, mcpServer.maxSessions,
// the queues), a share is less than the total, so one owner at its share always leaves room for the others.
import { z } from 'zod';
import type { ApiClientEntry, OwnerClass, ShareResource, ShareSizes } from './types.ts';
import { boundedInt, expectedReason, strictObject } from './issues.ts';

/** Spec 01: "OpenClaw caps the number of concurrently suspended runs per process (64)". */
export const MAX_SUSPENDED_RUNS = 64;

/** The classes and resources in the order messages and docs list them. */
export const OWNER_CLASSES: readonly OwnerClass[] = Object.freeze(['operator', 'client', 'anonymous']);
export const SHARE_RESOURCES: readonly ShareResource[] = Object.freeze(['liveTurns', 'eventStreams', 'suspendedRuns', 'mcpSessions', 'queuedJobs']);

export const DEFAULT_SHARES: Readonly<Record<OwnerClass, ShareSizes>> = Object.freeze({
  // The operator is one trusted party, but every playground tab at once: generous, and still short of every slot.
  operator: Object.freeze({
    // each tab prepares a turn per agent, session or catalog change
    liveTurns: 1024,
    // each tab holds one or two streams; a developer with many tabs open must not find the next one stuck
    eventStreams: 64,
    // three quarters of the 64 slots: a demo can park many runs, and API clients keep 16
    suspendedRuns: 48,
    // the page does not speak MCP; a trusted tool with the cookie might
    mcpSessions: 16,
    // a tab runs one cell at a time; eight leaves most of either queue to the clients
    queuedJobs: 8,
  }),
  // One API key: one agent, harness or script, which a key's holder can split further by minting more keys.
  client: Object.freeze({
    // a turn holds its catalog, declarations and result store (~60 KB): an agent uses one at a time, a test harness a few dozen
    liveTurns: 256,
    // one or two streams per agent, a few agents behind one key
    eventStreams: 8,
    // half of the 64 slots: two clients at their share fill the process, one leaves 32
    suspendedRuns: 32,
    // a few agents behind one key, each session one turn
    mcpSessions: 8,
    // one place per run ahead of others' jobs; eight runs of one key at once is a busy agent
    queuedJobs: 8,
  }),
  // Everyone on loopback without a key, together: one owner with a small share, so keyless clients cannot lock
  // out keyed ones or the page. A client that needs more mints a key (`codemode keys add NAME`).
  anonymous: Object.freeze({
    // a script or two preparing turns as it goes
    liveTurns: 64,
    // a keyless tool that follows its runs needs one or two
    eventStreams: 4,
    // a quarter of the slots: a keyless burst of parked cells leaves 48
    suspendedRuns: 16,
    // a couple of local MCP clients (an IDE, a desktop assistant) without a key
    mcpSessions: 8,
    // half the client's places: keyless jobs wait behind keyed ones sooner
    queuedJobs: 4,
  }),
});

/** A share is rejected (not clamped) outside these, as the other server limits are. */
export const SHARE_BOUNDS: Readonly<Record<ShareResource, { min: number; max: number; unit: string }>> = Object.freeze({
  liveTurns: { min: 1, max: 65_536, unit: 'turns' },
  eventStreams: { min: 1, max: 1024, unit: 'subscriptions' },
  // below the process's 64 slots: a share of all of them would let one owner lock the others out
  suspendedRuns: { min: 1, max: MAX_SUSPENDED_RUNS - 1, unit: 'suspended runs' },
  // checked against mcpServer.maxSessions as well (sharesFitProblems)
  mcpSessions: { min: 1, max: 1023, unit: 'sessions' },
  // below the smaller offload queue (typecheck: 16 waiting and one running)
  queuedJobs: { min: 1, max: 15, unit: 'queue places' },
});

/** The config path of one share, for messages: `server.shares.client.liveTurns`. */
export function sharePath(ownerClass: OwnerClass, resource: ShareResource): string {
  return `server.shares.${ownerClass}.${resource}`;
}

const shareSizesSchema = (ownerClass: OwnerClass) =>
  strictObject(
    Object.fromEntries(SHARE_RESOURCES.map((r) => [r, boundedInt(SHARE_BOUNDS[r], DEFAULT_SHARES[ownerClass][r]).optional()])) as Record<
      ShareResource,
      z.ZodOptional<ReturnType<typeof boundedInt>>
    >,
    `server.shares.${ownerClass}: ${SHARE_RESOURCES.join(', ')}`,
  );

export const sharesSchema = strictObject(
  { operator: shareSizesSchema('operator').optional(), client: shareSizesSchema('client').optional(), anonymous: shareSizesSchema('anonymous').optional() },
  `server.shares: ${OWNER_CLASSES.join(', ')}`,
);

/** An API client's name: what its owner is called on boards and in messages. */
const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const clientsSchema = z.record(
  z.string().refine((name) => CLIENT_NAME.test(name), {
    error: (issue) => `${JSON.stringify(issue.input)} is not a client name; use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
  }),
  strictObject(
    {
      keySha256: z
        .string({ error: (issue) => expectedReason('a string', 'the SHA-256 of the key in hex; `codemode keys add NAME` writes it', issue.input) })
        .regex(/^[0-9a-f]{64}$/, { error: 'must be 64 lowercase hex digits (the SHA-256 of the key); `codemode keys add NAME` writes it' }),
    },
    'an API client: keySha256',
  ),
  { error: (issue) => expectedReason('an object', 'map client names to { "keySha256": "..." } (`codemode keys add NAME` writes them)', issue.input) },
);

/**
 * The shares a config asks for, over the defaults, class by class and field by field. `mcpSessionsTotal`
 * (mcpServer.maxSessions) bounds the default /mcp share: a server with few sessions gives each owner fewer.
 */
export function resolveShares(file: z.output<typeof sharesSchema> | undefined, mcpSessionsTotal?: number): Readonly<Record<OwnerClass, ShareSizes>> {
  const out = {} as Record<OwnerClass, ShareSizes>;
  for (const ownerClass of OWNER_CLASSES) {
    const given = file?.[ownerClass] ?? {};
    const sizes = { ...DEFAULT_SHARES[ownerClass] } as Record<ShareResource, number>;
    if (mcpSessionsTotal !== undefined) sizes.mcpSessions = Math.max(1, Math.min(sizes.mcpSessions, mcpSessionsTotal - 1));
    for (const r of SHARE_RESOURCES) if (given[r] !== undefined) sizes[r] = given[r];
    out[ownerClass] = Object.freeze(sizes);
  }
  return Object.freeze(out);
}

export function resolveClients(file: z.output<typeof clientsSchema> | undefined): Readonly<Record<string, ApiClientEntry>> {
  return Object.freeze(Object.fromEntries(Object.entries(file ?? {}).map(([name, entry]) => [name, Object.freeze({ keySha256: entry.keySha256 })])));
}

/** Shares the file sets for a resource whose total is set elsewhere in the config: each must leave room under it. */
export function sharesFitProblems(file: z.output<typeof sharesSchema> | undefined, maxMcpSessions: number): Array<{ path: string; reason: string }> {
  const problems: Array<{ path: string; reason: string }> = [];
  for (const ownerClass of OWNER_CLASSES) {
    const share = file?.[ownerClass]?.mcpSessions;
    if (share !== undefined && share >= maxMcpSessions) {
      problems.push({
        path: sharePath(ownerClass, 'mcpSessions'),
        reason: `${share} is not below mcpServer.maxSessions (${maxMcpSessions}): one owner could hold every session; lower the share or raise mcpServer.maxSessions`,
      });
    }
  }
  return problems;
}

/** Old flat fields and where their value lives now (a config that still names one gets this in its error). */
export const MOVED_SERVER_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  maxTurnsPerClient: sharePath('client', 'liveTurns'),
  maxTurnsOperator: sharePath('operator', 'liveTurns'),
  maxEventSubscribersPerClient: sharePath('client', 'eventStreams'),
  maxEventSubscribersOperator: sharePath('operator', 'eventStreams'),
});
