// Pure layout of a run's trajectory: the call tree and the timeline rows, axis and suspension gaps.
import type { ControlCall as ControlCallRecord, NestedCall as NestedCallRecord } from '../api.ts';

export interface TrajectoryNode {
  call: ControlCallRecord;
  nested: NestedCallRecord[];
}

/** Nested calls grouped under the exec/wait call that dispatched them, both in start order. */
export function buildTree(calls: ControlCallRecord[], nested: NestedCallRecord[]): TrajectoryNode[] {
  const ordered = [...calls].sort((a, b) => a.startedAt - b.startedAt);
  return ordered.map((call) => ({
    call,
    nested: nested.filter((n) => n.parentCallId === call.callId).sort((a, b) => a.startedAt - b.startedAt),
  }));
}

/** Nested calls whose parent is none of the run's control calls (shown apart, never dropped). */
export function orphanCalls(calls: ControlCallRecord[], nested: NestedCallRecord[]): NestedCallRecord[] {
  const ids = new Set(calls.map((c) => c.callId));
  return nested.filter((n) => !ids.has(n.parentCallId));
}

export interface TimelineRow {
  key: string;
  label: string;
  kind: 'control' | 'nested';
  status: string;
  start: number;
  /** Set when still open; the bar then runs to `now`. */
  open: boolean;
  end: number;
  /** Bar geometry in percent of the axis width. */
  leftPct: number;
  widthPct: number;
}

export interface TimelineGap {
  start: number;
  end: number;
  leftPct: number;
  widthPct: number;
}

export interface TimelineLayout {
  start: number;
  end: number;
  rows: TimelineRow[];
  /** Suspension gaps: from the end of one exec/wait call to the start of the next. */
  gaps: TimelineGap[];
}

/** A bar narrower than this would vanish; instant calls still show as a tick. */
export const MIN_BAR_WIDTH_PCT = 0.4;

export function layoutTimeline(calls: ControlCallRecord[], nested: NestedCallRecord[], now: number): TimelineLayout {
  const tree = buildTree(calls, nested);
  const flat: Array<{ key: string; label: string; kind: 'control' | 'nested'; status: string; start: number; end?: number }> = [];
  for (const node of tree) {
    flat.push({
      key: node.call.callId,
      label: node.call.tool,
      kind: 'control',
      status: node.call.status ?? 'running',
      start: node.call.startedAt,
      ...(node.call.endedAt !== undefined ? { end: node.call.endedAt } : {}),
    });
    for (const n of node.nested) {
      flat.push({
        key: n.invocationId,
        label: n.tool,
        kind: 'nested',
        status: n.status,
        start: n.startedAt,
        ...(n.endedAt !== undefined ? { end: n.endedAt } : {}),
      });
    }
  }
  for (const n of orphanCalls(calls, nested)) {
    flat.push({ key: n.invocationId, label: n.tool, kind: 'nested', status: n.status, start: n.startedAt, ...(n.endedAt !== undefined ? { end: n.endedAt } : {}) });
  }
  if (flat.length === 0) return { start: now, end: now, rows: [], gaps: [] };

  const start = Math.min(...flat.map((r) => r.start));
  const end = Math.max(start + 1, ...flat.map((r) => r.end ?? now));
  const span = end - start;
  const pct = (t: number) => ((t - start) / span) * 100;

  const rows: TimelineRow[] = flat.map((r) => {
    const rowEnd = r.end ?? Math.max(now, r.start);
    const leftPct = pct(r.start);
    return {
      key: r.key,
      label: r.label,
      kind: r.kind,
      status: r.status,
      start: r.start,
      end: rowEnd,
      open: r.end === undefined,
      leftPct,
      widthPct: Math.min(100 - leftPct, Math.max(MIN_BAR_WIDTH_PCT, pct(rowEnd) - leftPct)),
    };
  });

  const gaps: TimelineGap[] = [];
  for (let i = 0; i + 1 < tree.length; i += 1) {
    const endedAt = tree[i]?.call.endedAt;
    const nextStart = tree[i + 1]?.call.startedAt;
    if (endedAt === undefined || nextStart === undefined || nextStart <= endedAt) continue;
    gaps.push({ start: endedAt, end: nextStart, leftPct: pct(endedAt), widthPct: pct(nextStart) - pct(endedAt) });
  }
  return { start, end, rows, gaps };
}

/** Tick marks for the time axis: about `count` round steps (1, 2 or 5 times a power of ten ms). */
export function axisTicks(spanMs: number, count: number): number[] {
  if (!(spanMs > 0) || count < 1) return [0];
  const raw = spanMs / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let t = 0; t <= spanMs + 1e-9; t += step) ticks.push(t);
  return ticks;
}
