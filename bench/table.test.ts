// Tests for the printed table: column alignment, optional baselines, notes and the machine header.
import { describe, expect, it } from 'vitest';
import { machineInfo, machineLine, renderTable, withTarget, type BenchRow } from './table.ts';

const rows: BenchRow[] = [
  { id: 'a1', measure: 'trivial cell: Gateway vs bare', a: '4.50 ms', b: '1.20 ms', ratio: '3.75x' },
  { id: 'd4', measure: 'heap delta', a: '380 KiB' },
];

describe('renderTable', () => {
  it('on rows of different widths: pads every table line to the same width', () => {
    const lines = renderTable(['title'], rows).split('\n').filter((l) => l.startsWith('|'));
    expect(lines).toHaveLength(4);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
  });

  it('on a row without a baseline: leaves B, C and the ratio blank', () => {
    const line = renderTable([], rows).split('\n').find((l) => l.includes('heap delta'));
    const cells = line?.split('|').map((c) => c.trim());
    expect(cells?.slice(1, 9)).toEqual(['d4', 'heap delta', '380 KiB', '', '', '', '', '']);
  });

  it('on a row with a third measure: prints it in C, between B and the ratio', () => {
    const line = renderTable([], [{ id: 'e1', measure: 'warm', a: '1 ms', b: '2 ms', c: '3 ms', ratio: '0.50x' }]).split('\n').find((l) => l.includes('warm'));
    expect(line?.split('|').map((c) => c.trim()).slice(1, 7)).toEqual(['e1', 'warm', '1 ms', '2 ms', '3 ms', '0.50x']);
  });

  it('on numbers: right-aligns them and marks it in the Markdown rule', () => {
    const table = renderTable([], [{ id: 'x', measure: 'm', a: '4.5 ms', b: 'n/a' }, ...rows]);
    expect(table).toContain('|  4.5 ms |     n/a |');
    expect(table.split('\n')[1]).toMatch(/^\|-+\|-+\|-+:\|-+:\|-+:\|-+:\|-+\|-+\|$/);
  });

  it('on notes: lists them after the table, header lines before it', () => {
    const out = renderTable(['Code Mode benchmark: box'], rows, ['(e) skipped: no executor']).split('\n');
    expect(out[0]).toBe('Code Mode benchmark: box');
    expect(out.at(-1)).toBe('- (e) skipped: no executor');
  });
});

describe('withTarget', () => {
  it('on a figure at or under the target: prints the target and "met"', () => {
    const row = withTarget({ id: 'b1', measure: 'per call vs floor', a: '40 µs', b: '35 µs', ratio: '1.14x' }, '≤ 1.5x', 40 / 35, 1.5);
    const cells = renderTable([], [row]).split('\n').at(-1)?.split('|').map((c) => c.trim());
    expect(cells?.slice(7, 9)).toEqual(['≤ 1.5x', 'met']);
  });

  it('on a figure over the target: prints "short"', () => {
    const row = withTarget({ id: 'c1', measure: 'stored', a: '40 KiB' }, '≤ 32 KiB', 40 * 1024, 32 * 1024);
    expect(row.met).toBe(false);
    expect(renderTable([], [row])).toContain('| short |');
  });

  it('on a skipped side: prints the target with no verdict', () => {
    const row = withTarget({ id: 'p1', measure: 'page', a: 'skipped' }, '≤ 100 ms', undefined, 100);
    expect(row.met).toBeUndefined();
    expect(renderTable([], [row]).split('\n').at(-1)).toMatch(/≤ 100 ms \|\s+\|$/);
  });
});

describe('machineLine', () => {
  it('on this machine: names the cpu, the core count and the Node version', () => {
    const m = machineInfo();
    const line = machineLine(m);
    expect(m.cores).toBeGreaterThan(0);
    expect(line).toContain(`${m.cores} cores`);
    expect(line).toContain(process.version);
    expect(line).toContain(m.cpuModel);
  });
});
