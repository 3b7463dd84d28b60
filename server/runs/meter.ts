// The token meter: what one cell cost a model in code mode against what direct tool calling would have
// cost for the same work. Pure arithmetic over token counts the run recorded as it went (runs/tokens.ts).
//
// Code mode: the surface's tool definitions (exec with its quick index, wait, direct-only tools), what the
// model wrote (the cell source, each wait's input) and each exec/wait result as the model read it.
// Direct: every effective tool's definition on the surface, then one model turn per nested tool call
// (tool, MCP or client call): the call the model writes and the full result it reads. Catalog search,
// describe, timers, store and yield have no direct-calling counterpart and count for nothing there.
// Tokens are counted once as they enter the context, not re-billed per turn: an estimate of context
// consumed, not a provider's bill.
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

/** The meter of one run, or undefined before its first exec/wait call ended. */
export function tokenMeter(input: MeterInput): TokenMeter | undefined {
  const ended = input.calls.filter((c) => c.resultTokens !== undefined);
  if (ended.length === 0) return undefined;
  const written = sum(ended.map((c) => c.inputTokens ?? 0));
  const read = sum(ended.map((c) => c.resultTokens ?? 0));
  const codeModeTurns = ended.map((c, i) => (i === 0 ? input.definitions.codeMode : 0) + (c.inputTokens ?? 0) + (c.resultTokens ?? 0));
  const toolCalls = input.nested.filter((n) => DIRECT_CALL_KINDS.has(n.kind) && n.outputTokens !== undefined);
  const callInputs = sum(toolCalls.map((n) => n.inputTokens ?? 0));
  const callResults = sum(toolCalls.map((n) => n.outputTokens ?? 0));
  const directTurns = toolCalls.map((n, i) => (i === 0 ? input.definitions.direct : 0) + (n.inputTokens ?? 0) + (n.outputTokens ?? 0));
  if (directTurns.length === 0) directTurns.push(input.definitions.direct);
  const codeModeTotal = input.definitions.codeMode + written + read;
  const directTotal = input.definitions.direct + callInputs + callResults;
  return {
    encoding: TOKEN_ENCODING,
    codeMode: { definitions: input.definitions.codeMode, written, read, total: codeModeTotal },
    direct: { definitions: input.definitions.direct, calls: toolCalls.length, callInputs, callResults, total: directTotal },
    ratio: codeModeTotal === 0 ? 0 : directTotal / codeModeTotal,
    saved: directTotal - codeModeTotal,
    breakEvenCalls: breakEvenCalls(codeModeTotal, input.definitions.direct, toolCalls.length, callInputs + callResults),
    codeModeTurns,
    directTurns,
  };
}

/**
 * How many tool calls of this cell's average size direct calling needs to cost as much as this cell did in
 * code mode: 0 when the direct definitions alone already cost more; null when the cell made no tool calls
 * (no size to scale) or its calls cost nothing.
 */
export function breakEvenCalls(codeModeTotal: number, directDefinitions: number, calls: number, callTokens: number): number | null {
  if (directDefinitions >= codeModeTotal) return 0;
  if (calls === 0 || callTokens === 0) return null;
  return Math.ceil((codeModeTotal - directDefinitions) / (callTokens / calls));
}

function sum(xs: readonly number[]): number {
  let total = 0;
  for (const x of xs) total += x;
  return total;
}
