// Tests for the side columns' collapsed state and the grid it picks.
import { describe, expect, it } from 'vitest';
import { approvalsPlacement, gridColumns, parseCollapsed } from './layout.ts';

describe('parseCollapsed', () => {
  it('reads a stored state and falls back to both open on nothing or damage', () => {
    expect(parseCollapsed('{"tools":true,"runs":false}')).toEqual({ tools: true, runs: false });
    expect(parseCollapsed(null)).toEqual({ tools: false, runs: false });
    expect(parseCollapsed('{oops')).toEqual({ tools: false, runs: false });
    expect(parseCollapsed('{"tools":"yes","runs":1}')).toEqual({ tools: false, runs: false });
  });
});

describe('gridColumns', () => {
  it('gives a collapsed column a narrow strip and the editor the rest', () => {
    expect(gridColumns({ tools: false, runs: false })).toContain('minmax(260px,22%)_minmax(0,1fr)_minmax(360px,32%)');
    expect(gridColumns({ tools: true, runs: false })).toMatch(/^xl:grid-cols-\[2\.25rem_minmax\(0,1fr\)_minmax\(360px,32%\)\]$/);
    expect(gridColumns({ tools: true, runs: true })).toBe('xl:grid-cols-[2.25rem_minmax(0,1fr)_2.25rem]');
  });
});

describe('approvalsPlacement', () => {
  it('puts the prompt atop the runs column only when that column is beside the cell and open; else above the result', () => {
    expect(approvalsPlacement(true, { tools: false, runs: false })).toBe('runs');
    expect(approvalsPlacement(true, { tools: true, runs: false })).toBe('runs');
    expect(approvalsPlacement(true, { tools: false, runs: true })).toBe('cell');
    expect(approvalsPlacement(false, { tools: false, runs: false })).toBe('cell');
  });
});
