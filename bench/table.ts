// The benchmark's one printed table: rows of "A vs B" (and C, the third executor) measurements with their A/B ratio, under a machine header.
import { availableParallelism, cpus, loadavg, platform, arch, totalmem } from 'node:os';
import { formatBytes } from './stats.ts';

/** One line of the table: a measure of A, optionally beside its baseline B. */
export interface BenchRow {
  /** Section letter plus index (`a`, `c3`), so README explanations can point at it. */
  id: string;
  /** What A and B are, in the spec's words. */
  measure: string;
  a: string;
  b?: string;
  /** A third measure beside A and B (the executor rows: quickjs-emscripten). */
  c?: string;
  /** A/B, already formatted (see ratio()). */
  ratio?: string;
  /** The issue-14 target for this row ("≤ 1.5x floor", "≤ 32 KiB"), printed beside the figure. */
  target?: string;
  /** Whether the figure meets `target`: printed as "met" or "short". */
  met?: boolean;
}

/**
 * Attach a target to a row: `actual` (the number the target is about: a ratio, bytes or ms) must be at
 * most `max`. A missing actual (a skipped side) leaves the verdict blank.
 */
export function withTarget(row: BenchRow, target: string, actual: number | undefined, max: number): BenchRow {
  if (actual === undefined || !Number.isFinite(actual)) return { ...row, target };
  return { ...row, target, met: actual <= max };
}

export interface Machine {
  cpuModel: string;
  cores: number;
  node: string;
  os: string;
  memoryBytes: number;
  /** 1-minute load average when the run started: other work on the machine skews every time row. */
  loadAverage1m: number;
}

export function machineInfo(): Machine {
  return {
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown cpu',
    cores: availableParallelism(),
    node: process.version,
    os: `${platform()} ${arch()}`,
    memoryBytes: totalmem(),
    loadAverage1m: loadavg()[0] ?? 0,
  };
}

export function machineLine(m: Machine): string {
  return `${m.cpuModel}, ${m.cores} cores, ${formatBytes(m.memoryBytes)} RAM, Node ${m.node}, ${m.os}, load average ${m.loadAverage1m.toFixed(2)} at start`;
}

const COLUMNS = ['id', 'measure (A vs B vs C)', 'A', 'B', 'C', 'A/B', 'target', 'met?'] as const;

/** A Markdown pipe table, padded so it also reads well in a terminal. */
export function renderTable(header: readonly string[], rows: readonly BenchRow[], notes: readonly string[] = []): string {
  const cells = rows.map((r) => [r.id, r.measure, r.a, r.b ?? '', r.c ?? '', r.ratio ?? '', r.target ?? '', r.met === undefined ? '' : r.met ? 'met' : 'short']);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] ?? '').length)));
  // numbers right-aligned, text left-aligned
  const right = [false, false, true, true, true, true, false, false];
  const line = (row: readonly string[]) =>
    `| ${row.map((v, i) => (right[i] ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  const out = [...header, ...(header.length > 0 ? [''] : []), line(COLUMNS), rule, ...cells.map(line)];
  if (notes.length > 0) out.push('', ...notes.map((n) => `- ${n}`));
  return out.join('\n');
}
