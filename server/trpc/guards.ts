// Ownership at the API edge: which turn, run, session or stream a caller may touch, checked before the Gateway acts.
/*
 * The operator (the playground page) passes every check. Any other caller proves ownership with the
 * turnToken turns.prepare returned (a run, its client calls and approvals belong to the turn that started
 * it) or with a session's sessionToken: in the input or, where the input leaves it out, in the request
 * headers (x-codemode-turn-token, x-codemode-session-token), since a query's input travels in its URL and
 * URLs get logged. A missing token is UNAUTHORIZED, a token for something else is FORBIDDEN; both messages
 * say which token to send. Ids this process does not know pass through, so the Gateway gives its usual
 * "unknown ..." answer; a run the Gateway has without an owner record is refused.
 */
import { TRPCError } from '@trpc/server';
import type { ExecutorKind } from '../config/types.ts';
import type { RunEvent } from '../runs/types.ts';
import type { SessionLookup, TokenCheck } from '../access/ownership.ts';
import { SESSION_TOKEN_HEADER, TURN_TOKEN_HEADER, type InnerContext } from './context.ts';

const OPERATOR_HINT = 'the playground page acts as operator and needs no token';
const TURN_TOKEN_HINT = `pass it as turnToken or in the ${TURN_TOKEN_HEADER} header (${OPERATOR_HINT})`;
const SESSION_TOKEN_HINT = `pass it as sessionToken or in the ${SESSION_TOKEN_HEADER} header (${OPERATOR_HINT})`;

/** The turn tokens a call presents: the input's when it has one, else those of the request headers. */
function turnTokensOf(ctx: InnerContext, fromInput: string | undefined): readonly string[] {
  return fromInput !== undefined ? [fromInput] : ctx.presented.turnTokens;
}

/** held when any presented token opens the turn; otherwise what the first says (missing when none is presented). */
function checkTurnTokens(ctx: InnerContext, agentRunId: string, tokens: readonly string[]): TokenCheck {
  const { ownership } = ctx.gateway;
  if (tokens.length === 0) return ownership.checkTurn(agentRunId, undefined);
  const checks = tokens.map((token) => ownership.checkTurn(agentRunId, token));
  return checks.includes('held') ? 'held' : (checks[0] ?? 'missing');
}

function missing(message: string): TRPCError {
  return new TRPCError({ code: 'UNAUTHORIZED', message });
}

function forbidden(message: string): TRPCError {
  return new TRPCError({ code: 'FORBIDDEN', message });
}

/** `action` (exec, wait, turns.end, ...) on agent run `agentRunId` needs that turn's token. */
export function requireTurn(ctx: InnerContext, agentRunId: string, turnToken: string | undefined, action: string): void {
  if (ctx.access.operator) return;
  const check = checkTurnTokens(ctx, agentRunId, turnTokensOf(ctx, turnToken));
  if (check === 'missing') {
    throw missing(`${action} needs the turnToken that turns.prepare returned for agent run ${agentRunId}; ${TURN_TOKEN_HINT}`);
  }
  if (check === 'wrong') {
    throw forbidden(`the turnToken given does not open agent run ${agentRunId}; ${action} needs the turnToken turns.prepare returned for that agent run`);
  }
}

/** `action` on run `runId` (abort, answer a client call, read it) needs the token of the turn that started it. */
export function requireRun(ctx: InnerContext, runId: string, turnToken: string | undefined, action: string): void {
  if (ctx.access.operator) return;
  const agentRunId = ctx.gateway.ownership.runTurn(runId);
  if (agentRunId === undefined) {
    // an unknown id gets the Gateway's own answer; a run the Gateway has but nobody owns is no client's to touch
    if (ctx.gateway.run(runId) === undefined) return;
    throw forbidden(`run ${runId} has no owning turn in this process; only the operator (the playground page) may ${action} it`);
  }
  const check = checkTurnTokens(ctx, agentRunId, turnTokensOf(ctx, turnToken));
  if (check === 'missing') {
    throw missing(`${action} of run ${runId} needs the turnToken of the turn that started it; ${TURN_TOKEN_HINT}`);
  }
  if (check !== 'held') {
    throw forbidden(`run ${runId} belongs to another turn; ${action} needs the turnToken of the turn that started it`);
  }
}

/** An approval belongs to the run that asked for it. */
export function requireApproval(ctx: InnerContext, approvalId: string, turnToken: string | undefined): void {
  if (ctx.access.operator) return;
  const approval = ctx.gateway.approvals().find((a) => a.approvalId === approvalId);
  if (approval) requireRun(ctx, approval.runId, turnToken, 'approvals.decide');
}

/** The agent runs whose runs, approvals and events a caller sees: all for the operator, else those its tokens open. */
export function visibleTurns(ctx: InnerContext, turnTokens: readonly string[] | undefined): 'all' | Set<string> {
  if (ctx.access.operator) return 'all';
  return ctx.gateway.ownership.turnsOf(turnTokens ?? ctx.presented.turnTokens);
}

/** The agent run an event is about (run events carry it; nested and approval events name the run). */
export function eventTurn(ctx: InnerContext, event: Exclude<RunEvent, { type: 'session.appended' }>): string | undefined {
  if (event.type === 'run.started' || event.type === 'run.updated') return event.view.agentRunId;
  // A session entry appended outside a run (branch, compaction) names no turn: only the operator sees it.
  return event.runId === undefined ? undefined : ctx.gateway.ownership.runTurn(event.runId);
}

/**
 * Whether a caller that sees `visible` turns may hear an event: a run's events go to its turn; a transcript
 * append goes to every turn prepared in that session (its entries are the session's, whichever turn wrote them).
 */
export function eventVisible(ctx: InnerContext, event: RunEvent, visible: 'all' | ReadonlySet<string>): boolean {
  if (visible === 'all') return true;
  if (event.type === 'session.appended') {
    for (const agentRunId of visible) if (ctx.gateway.ownership.turnSession(agentRunId) === event.sessionId) return true;
    return false;
  }
  const agentRunId = eventTurn(ctx, event);
  return agentRunId !== undefined && visible.has(agentRunId);
}

/** Reading or changing a session needs its sessionToken, or the turnToken of a turn prepared in it. */
export async function requireSession(
  ctx: InnerContext,
  sessionId: string,
  tokens: { sessionToken?: string | undefined; turnToken?: string | undefined },
  action: string,
): Promise<void> {
  if (ctx.access.operator) return;
  const { ownership } = ctx.gateway;
  if (await ownership.turnOpensSession(sessionId, turnTokensOf(ctx, tokens.turnToken))) return;
  requireSessionToken(ctx, sessionId, tokens.sessionToken, action, await ownership.lookupSession(sessionId, sessionTokenOf(ctx, tokens.sessionToken)));
}

/** The session token a call presents: the input's when it has one, else the request header's. */
export function sessionTokenOf(ctx: InnerContext, fromInput: string | undefined): string | undefined {
  return fromInput ?? ctx.presented.sessionToken;
}

/**
 * Joining (turns.prepare with a sessionId) or reading a session by its own token; a session nobody holds is free.
 * `lookup`: ownership.lookupSession(sessionId, the token presented), looked up before (this check does not wait): with
 * runs.durable a token stored before a restart, or by another Gateway, opens its session here as before.
 */
export function requireSessionToken(ctx: InnerContext, sessionId: string, sessionToken: string | undefined, action: string, lookup: SessionLookup): void {
  if (ctx.access.operator) return;
  const join = ctx.gateway.ownership.sessionJoin(sessionId, sessionTokenOf(ctx, sessionToken), lookup);
  if (join === 'missing') {
    throw missing(`${action} on session ${sessionId} needs its sessionToken (the turns.prepare that created the session returned it); ${SESSION_TOKEN_HINT}`);
  }
  if (join === 'wrong') throw forbidden(`the sessionToken given does not open session ${sessionId}; pass the one returned when it was created`);
  if (join === 'orphaned') {
    throw forbidden(
      `session ${sessionId} has history from before this server started and no live token (session tokens outlive a restart only with runs.durable, until they expire); only the operator (the playground page) can open it, or start a new session`,
    );
  }
}

/** A per-cell executor other than the turn's is the config's call (tools.codeMode.allowExecutorOverride). */
export function requireExecutorOverride(ctx: InnerContext, agentRunId: string, executor: ExecutorKind | undefined): void {
  if (executor === undefined) return;
  const options = ctx.gateway.turnOptions(agentRunId);
  if (!options || executor === options.executor) return;
  const policy = options.allowExecutorOverride;
  if (policy === 'always' || (policy === 'operator' && ctx.access.operator)) return;
  const who = policy === 'operator' ? 'only the operator (the playground page) may' : 'nobody may';
  throw forbidden(
    `executor "${executor}" was asked for, but this agent runs cells on "${options.executor}" and ${who} override it (tools.codeMode.allowExecutorOverride is "${policy}"); leave executor out`,
  );
}

/** Operator-only actions (adding and removing tool sources, writing the config file): no token opens them. */
export function requireOperator(ctx: InnerContext, action: string): void {
  if (ctx.access.operator) return;
  throw forbidden(`${action} is an operator action: only the playground page (the operator cookie) may do it; API tokens never open it`);
}
