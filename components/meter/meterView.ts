// The token meter as the result panel draws it: the headline (totals, ratio, break-even) and the per-turn bars.
import type { Meter } from '../api.ts';

/** One model turn's bar segment: its offset and width as percentages of the larger total. */
export interface MeterSegment {
  turn: number;
  tokens: number;
  leftPct: number;
  widthPct: number;
}

/** Per-turn segments of both approaches on one scale (the larger total fills the width). */
export function meterSegments(meter: Pick<Meter, 'codeModeTurns' | 'directTurns'>): { codeMode: MeterSegment[]; direct: MeterSegment[] } {
  const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const scale = Math.max(total(meter.codeModeTurns), total(meter.directTurns), 1);
  const segments = (turns: number[]): MeterSegment[] => {
    let at = 0;
    return turns.map((tokens, i) => {
      const seg = { turn: i + 1, tokens, leftPct: (at / scale) * 100, widthPct: (tokens / scale) * 100 };
      at += tokens;
      return seg;
    });
  };
  return { codeMode: segments(meter.codeModeTurns), direct: segments(meter.directTurns) };
}

/**
 * The meter's "estimate" note: what is counted and how (the formula of server/runs/meter.ts, also
 * in docs/playground.md and docs/decisions.md, "The token meter").
 */
export function estimateNote(encoding: string): string {
  return (
    'An estimate, not a bill. Every model turn re-sends the whole context so far: turn k counts the definitions plus every call and result up to k, ' +
    'so n turns cost n × definitions + Σ (n − k + 1) × (call_k + result_k). Code mode has one turn per exec/wait call, direct calling one per tool call. ' +
    `The user's prompt and the final answer are left out (alike in both). Counted in the ${encoding} encoding (OpenAI's current models; ` +
    'other model families tokenize differently, typically within 10–20 %). Each bar segment is one model turn.'
  );
}

/** The two totals with what they are made of, as the meter's rows print them. */
export function totalsText(meter: Pick<Meter, 'codeMode' | 'direct' | 'codeModeTurns' | 'directTurns'>): { codeMode: string; direct: string } {
  const turns = (n: number) => `${n} turn${n === 1 ? '' : 's'}`;
  const { codeMode: c, direct: d } = meter;
  return {
    codeMode: `${formatTokens(c.total)} tokens over ${turns(meter.codeModeTurns.length)} (definitions ${formatTokens(c.definitions)}, written ${formatTokens(c.written)}, read ${formatTokens(c.read)}, re-sent ${formatTokens(c.resent)})`,
    direct: `${formatTokens(d.total)} tokens over ${turns(meter.directTurns.length)} (definitions ${formatTokens(d.definitions)}, ${d.calls} calls: inputs ${formatTokens(d.callInputs)}, results ${formatTokens(d.callResults)}, re-sent ${formatTokens(d.resent)})`,
  };
}

/** `12,345` with thin grouping, as the meter prints token counts. */
export function formatTokens(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** The headline: "direct would cost 4.2x" / "code mode cost 1.3x more". */
export function ratioText(meter: Pick<Meter, 'ratio' | 'codeMode' | 'direct'>): string {
  if (meter.codeMode.total === 0) return 'no tokens counted';
  if (meter.ratio >= 1) return `direct calling ${meter.ratio.toFixed(meter.ratio < 10 ? 2 : 1)}x the tokens of code mode`;
  return `code mode ${(meter.codeMode.total / Math.max(meter.direct.total, 1)).toFixed(2)}x the tokens of direct calling`;
}

/** Break-even in words: at how many tool calls of this cell's size direct calling costs as much. */
export function breakEvenText(meter: Pick<Meter, 'breakEvenCalls' | 'direct'>): string {
  if (meter.breakEvenCalls === null) return 'no tool calls in this cell: code mode only adds its definitions, source and result';
  if (meter.breakEvenCalls === 0) return 'from the first call: the direct tool definitions alone cost more than this cell';
  const made = meter.direct.calls;
  const n = meter.breakEvenCalls;
  return `${n} call${n === 1 ? '' : 's'} of this size (this cell made ${made}: ${made >= n ? 'past break-even' : 'below break-even'})`;
}
