// The meter's drawing: both approaches' turns on one scale, the headline and break-even words.
import { describe, expect, it } from 'vitest';
import { breakEvenText, estimateNote, meterSegments, ratioText, totalsText } from './meterView.ts';

describe('meterSegments', () => {
  it('puts both approaches on the larger total: segments stack left to right', () => {
    const s = meterSegments({ codeModeTurns: [100, 50], directTurns: [200, 100, 100] });
    expect(s.direct.map((x) => [x.leftPct, x.widthPct])).toEqual([
      [0, 50],
      [50, 25],
      [75, 25],
    ]);
    expect(s.codeMode.map((x) => [x.turn, x.leftPct, x.widthPct])).toEqual([
      [1, 0, 25],
      [2, 25, 12.5],
    ]);
  });

  it('on zero tokens: no division by zero', () => {
    expect(meterSegments({ codeModeTurns: [0], directTurns: [0] }).codeMode[0]?.widthPct).toBe(0);
  });
});

describe('meter words', () => {
  const base = { codeMode: { definitions: 0, written: 0, read: 0, resent: 0, total: 100 }, direct: { definitions: 0, calls: 3, callInputs: 0, callResults: 0, resent: 0, total: 420 } };
  it('says which way the ratio goes', () => {
    expect(ratioText({ ...base, ratio: 4.2 })).toBe('direct calling 4.20x the tokens of code mode');
    expect(ratioText({ ...base, direct: { ...base.direct, total: 50 }, ratio: 0.5 })).toBe('code mode 2.00x the tokens of direct calling');
  });
  it('says where break-even lies against the calls made', () => {
    expect(breakEvenText({ ...base, breakEvenCalls: 2 })).toBe('2 calls of this size (this cell made 3: past break-even)');
    expect(breakEvenText({ ...base, breakEvenCalls: 5 })).toBe('5 calls of this size (this cell made 3: below break-even)');
    expect(breakEvenText({ ...base, breakEvenCalls: null })).toMatch(/no tool calls/);
  });
});

describe('meter totals and note', () => {
  it('prints each total with its turns and the tokens later turns re-sent', () => {
    const text = totalsText({
      codeMode: { definitions: 300, written: 40, read: 20, resent: 0, total: 360 },
      direct: { definitions: 120, calls: 2, callInputs: 20, callResults: 1000, resent: 630, total: 1770 },
      codeModeTurns: [360],
      directTurns: [630, 1140],
    });
    expect(text.codeMode).toBe('360 tokens over 1 turn (definitions 300, written 40, read 20, re-sent 0)');
    expect(text.direct).toBe('1,770 tokens over 2 turns (definitions 120, 2 calls: inputs 20, results 1,000, re-sent 630)');
  });

  it('says it is an estimate, gives the re-sending formula and names the encoding', () => {
    const note = estimateNote('o200k_base');
    expect(note).toMatch(/^An estimate/);
    expect(note).toContain('re-sends the whole context so far');
    expect(note).toContain('n × definitions + Σ (n − k + 1) × (call_k + result_k)');
    expect(note).toContain('o200k_base');
  });
});
