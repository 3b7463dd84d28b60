// Tests for the printed table: column alignment, optional baselines, notes and the machine header.
import { describe, expect, it } from 'vitest';
import { machineInfo, machineLine, renderTable, type BenchRow } from './table.ts';

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

  it('on a row without a baseline: leaves B and the ratio blank', () => {
    const line = renderTable([], rows).split('\n').find((l) => l.includes('heap delta'));
    const cells = line?.split('|').map((c) => c.trim());
    expect(cells?.slice(1, 6)).toEqual(['d4', 'heap delta', '380 KiB', '', '']);
  });

  it('on numbers: right-aligns them and marks it in the Markdown rule', () => {
    const table = renderTable([], [{ id: 'x', measure: 'm', a: '4.5 ms', b: 'n/a' }, ...rows]);
    expect(table).toContain('|  4.5 ms |     n/a |');
    expect(table.split('\n')[1]).toMatch(/^\|-+\|-+\|-+:\|-+:\|-+:\|$/);
  });

  it('on notes: lists them after the table, header lines before it', () => {
    const out = renderTable(['Code Mode benchmark: box'], rows, ['(e) skipped: no executor']).split('\n');
    expect(out[0]).toBe('Code Mode benchmark: box');
    expect(out.at(-1)).toBe('- (e) skipped: no executor');
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
