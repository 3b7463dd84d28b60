// Tests for the trajectory tree and timeline layout.
import { describe, expect, it } from 'vitest';
import { axisTicks, buildTree, layoutTimeline, orphanCalls } from './layout.ts';
import type { ControlCallRecord, NestedCallRecord } from '../../server/runs/types.ts';

const exec: ControlCallRecord = { callId: 'c1', toolCallId: 'tc1', tool: 'exec', startedAt: 0, endedAt: 1000, status: 'waiting' };
const wait: ControlCallRecord = { callId: 'c2', toolCallId: 'tc2', tool: 'wait', startedAt: 3000, endedAt: 4000, status: 'completed' };

function nested(id: string, parent: string, start: number, end?: number, tool = 'sleep'): NestedCallRecord {
  return {
    invocationId: id,
    requestId: id,
    tool,
    kind: 'tool',
    inputBytes: 12,
    startedAt: start,
    ...(end !== undefined ? { endedAt: end, outputBytes: 4 } : {}),
    status: end === undefined ? 'running' : 'ok',
    parentCallId: parent,
  };
}

describe('buildTree', () => {
  it('puts each nested call under the exec or wait call that dispatched it, in start order', () => {
    const tree = buildTree([wait, exec], [nested('n2', 'c1', 50), nested('n1', 'c1', 10), nested('n3', 'c2', 3100)]);
    expect(tree.map((n) => n.call.callId)).toEqual(['c1', 'c2']);
    expect(tree[0]?.nested.map((n) => n.invocationId)).toEqual(['n1', 'n2']);
    expect(tree[1]?.nested.map((n) => n.invocationId)).toEqual(['n3']);
  });
  it('on a nested call whose parent is unknown: reports it as an orphan instead of dropping it', () => {
    expect(orphanCalls([exec], [nested('n9', 'gone', 5)]).map((n) => n.invocationId)).toEqual(['n9']);
  });
});

describe('layoutTimeline', () => {
  it('shows the suspension between an exec and the wait that resumed it as a gap', () => {
    const layout = layoutTimeline([exec, wait], [], 5000);
    expect(layout.gaps).toHaveLength(1);
    expect(layout.gaps[0]?.leftPct).toBeCloseTo(25);
    expect(layout.gaps[0]?.widthPct).toBeCloseTo(50);
  });
  it('on parallel calls: their bars overlap; on sequential calls they do not', () => {
    const parallel = layoutTimeline([{ ...exec, endedAt: 100 }], [nested('a', 'c1', 0, 80), nested('b', 'c1', 0, 90)], 100);
    const [, a, b] = parallel.rows;
    expect(a && b && a.leftPct < b.leftPct + b.widthPct && b.leftPct < a.leftPct + a.widthPct).toBe(true);
    const sequential = layoutTimeline([{ ...exec, endedAt: 100 }], [nested('a', 'c1', 0, 40), nested('b', 'c1', 50, 90)], 100);
    const [, s1, s2] = sequential.rows;
    expect(s1 && s2 && s1.leftPct + s1.widthPct <= s2.leftPct).toBe(true);
  });
  it('on a call still running: its bar reaches now and is marked open', () => {
    const layout = layoutTimeline([{ callId: 'c1', toolCallId: 'tc1', tool: 'exec', startedAt: 0 }], [nested('a', 'c1', 100)], 1000);
    expect(layout.end).toBe(1000);
    expect(layout.rows[1]?.open).toBe(true);
    expect(layout.rows[1]?.leftPct).toBeCloseTo(10);
    expect(layout.rows[1]?.widthPct).toBeCloseTo(90);
  });
  it('on no calls: an empty layout', () => {
    expect(layoutTimeline([], [], 10).rows).toEqual([]);
  });
});

describe('axisTicks', () => {
  it('picks round steps covering the span', () => {
    expect(axisTicks(1000, 5)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(axisTicks(4500, 4)).toEqual([0, 2000, 4000]);
  });
});
