// The token meter: what one cell cost a model in code mode against what direct tool calling would have
// cost for the same work. Pure arithmetic over token counts the run recorded as it went (runs/tokens.ts).
//
// Code mode: the surface's tool definitions (exec with its quick index, wait, direct-only tools), what the
// model wrote (the cell source, each wait's input) and each exec/wait result as the model read it; one model
// turn per exec/wait call. Direct: every effective tool's definition on the surface, then one model turn per
// nested tool call (tool, MCP or client call): the call the model writes and the full result it reads.
// Catalog search, describe, timers, store and yield have no direct-calling counterpart and count nothing there.
//
// Context re-sending: a model call re-sends the whole context so far, so model turn k of n costs
//   turn_k = definitions + sum over j <= k of (written_j + read_j)
// and the approach's total is sum_k turn_k = n * definitions + sum_k (n - k + 1) * (written_k + read_k).
// Direct calling's n grows with every tool call, so its total grows quadratically in the calls; code mode
// pays per exec/wait call. Left out, alike in both: the user's prompt, earlier cells, the model's final
// answer. An estimate of the tokens the model processes, not a provider's bill (no caching, no pricing).
import type { NestedCallKind } from '../bridge/describe.ts';
import { TOKEN_ENCODING } from './tokens.ts';
import type { TokenMeter } from './types.ts';

/** Nested calls a model would make itself under direct tool calling. */
const DIRECT_CALL_KINDS: ReadonlySet<NestedCallKind> = new Set(['tool', 'mcp', 'client']);

export interface MeterInput {
  /** Tokens of the tool definitions: the code-mode surface, and every effective tool as a direct surface. */
  definitions: { codeMode: number; direct: number };
  /** The run's exec/wait calls in order; a call that has not ended has no resultTokens yet. */
  calls: ReadonlyArray<{ tool: 'exec' | 'wait'; inputTokens?: number; resultTokens?: number }>;
  /** The run's nested calls in dispatch order. */
  nested: ReadonlyArray<{ kind: NestedCallKind; inputTokens?: number; outputTokens?: number }>;
}

/** One model turn's new tokens: what the model wrote and the result it read back. */
export interface TurnTokens {
  written: number;
  read: number;
}

/**
 * Tokens per model turn when each turn re-sends the whole context so far: turn k carries the definitions and
 * every turn's written and read tokens up to and including its own. No turns: one turn of definitions alone
 * (the model still reads them to answer).
 */
export function resentTurns(definitions: number, turns: readonly TurnTokens[]): number[] {
  if (turns.length === 0) return [definitions];
  let context = definitions;
  return turns.map((t) => (context += t.written + t.read));
}

/** The meter of one run, or undefined before its first exec/wait call ended. */
export function tokenMeter(input: MeterInput): TokenMeter | undefined {
  const ended = input.calls.filter((c) => c.resultTokens !== undefined);
  if (ended.length === 0) return undefined;
  const codeModeSteps = ended.map((c) => ({ written: c.inputTokens ?? 0, read: c.resultTokens ?? 0 }));
  const toolCalls = input.nested.filter((n) => DIRECT_CALL_KINDS.has(n.kind) && n.outputTokens !== undefined);
  const directSteps = toolCalls.map((n) => ({ written: n.inputTokens ?? 0, read: n.outputTokens ?? 0 }));
  const written = sum(codeModeSteps.map((s) => s.written));
  const read = sum(codeModeSteps.map((s) => s.read));
  const callInputs = sum(directSteps.map((s) => s.written));
  const callResults = sum(directSteps.map((s) => s.read));
  const codeModeTurns = resentTurns(input.definitions.codeMode, codeModeSteps);
  const directTurns = resentTurns(input.definitions.direct, directSteps);
  const codeModeTotal = sum(codeModeTurns);
  const directTotal = sum(directTurns);
  return {
    encoding: TOKEN_ENCODING,
    codeMode: { definitions: input.definitions.codeMode, written, read, resent: codeModeTotal - (input.definitions.codeMode + written + read), total: codeModeTotal },
    direct: {
      definitions: input.definitions.direct,
      calls: toolCalls.length,
      callInputs,
      callResults,
      resent: directTotal - (input.definitions.direct + callInputs + callResults),
      total: directTotal,
    },
    ratio: codeModeTotal === 0 ? 0 : directTotal / codeModeTotal,
    saved: directTotal - codeModeTotal,
    breakEvenCalls: breakEvenCalls(codeModeTotal, input.definitions.direct, toolCalls.length, callInputs + callResults),
    codeModeTurns,
    directTurns,
  };
}

/** Direct calling's total for `calls` tool calls of `callSize` tokens each, every turn re-sending the context. */
export function directTotalFor(directDefinitions: number, calls: number, callSize: number): number {
  if (calls <= 0) return directDefinitions;
  return calls * directDefinitions + (callSize * calls * (calls + 1)) / 2;
}

/**
 * How many tool calls of this cell's average size direct calling needs (each turn re-sending its context) to
 * cost as much as this cell did in code mode: 0 when the direct definitions alone already cost more; null when
 * the cell made no tool calls (no size to scale) or its calls cost nothing.
 */
export function breakEvenCalls(codeModeTotal: number, directDefinitions: number, calls: number, callTokens: number): number | null {
  if (directDefinitions >= codeModeTotal) return 0;
  if (calls === 0 || callTokens === 0) return null;
  const size = callTokens / calls;
  // the positive root of size/2 m^2 + (definitions + size/2) m - codeModeTotal = 0, then made exact on integers
  const b = directDefinitions + size / 2;
  let m = Math.max(1, Math.ceil((-b + Math.sqrt(b * b + 2 * size * codeModeTotal)) / size));
  while (directTotalFor(directDefinitions, m, size) < codeModeTotal) m++;
  while (m > 1 && directTotalFor(directDefinitions, m - 1, size) >= codeModeTotal) m--;
  return m;
}

function sum(xs: readonly number[]): number {
  let total = 0;
  for (const x of xs) total += x;
  return total;
}
