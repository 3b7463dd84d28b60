// The meter's drawing: both approaches' turns on one scale, the headline and break-even words.
import { describe, expect, it } from 'vitest';
import { breakEvenText, meterSegments, ratioText } from './meterView.ts';

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
  const base = { codeMode: { definitions: 0, written: 0, read: 0, total: 100 }, direct: { definitions: 0, calls: 3, callInputs: 0, callResults: 0, total: 420 } };
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
