'use client';
// Snapshot sizes: each suspension of the selected run, and a small plain-SVG chart across runs.
import { memo } from 'react';
import { Empty, Panel } from '../ui/Panel.tsx';
import { formatBytes, formatDuration, percentOf } from '../ui/format.ts';
import type { Run, Snapshot } from '../api.ts';

/** The chart keeps the latest suspensions; older ones would be slivers. */
export const MAX_CHART_SNAPSHOTS = 40;

interface ChartPoint {
  runId: string;
  snapshot: Snapshot;
}

function AcrossRunsChart({ points, selectedRunId, scope }: { points: ChartPoint[]; selectedRunId?: string; scope: string }) {
  const width = 360;
  const height = 110;
  const pad = { left: 44, right: 6, top: 8, bottom: 16 };
  const max = Math.max(1, ...points.map((p) => p.snapshot.rawBytes));
  const slot = (width - pad.left - pad.right) / Math.max(points.length, 1);
  const barWidth = Math.max(2, Math.min(14, slot * 0.4));
  const y = (bytes: number) => pad.top + (height - pad.top - pad.bottom) * (1 - bytes / max);
  return (
    <svg data-testid="snapshots-chart" viewBox={`0 0 ${width} ${height}`} className="w-full" role="img" aria-label={`snapshot sizes of the runs in ${scope}`}>
      <line x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} stroke="#404040" />
      <line x1={pad.left} x2={width - pad.right} y1={y(max)} y2={y(max)} stroke="#262626" strokeDasharray="3 3" />
      <text x={pad.left - 4} y={y(max) + 3} textAnchor="end" fontSize="8" fill="#737373">
        {formatBytes(max)}
      </text>
      <text x={pad.left - 4} y={y(0) + 3} textAnchor="end" fontSize="8" fill="#737373">
        0
      </text>
      {points.map((p, i) => {
        const x = pad.left + i * slot + slot / 2;
        const selected = p.runId === selectedRunId;
        return (
          <g key={`${p.runId}:${p.snapshot.at}`}>
            <title>{`${p.runId} at ${new Date(p.snapshot.at).toLocaleTimeString()}: raw ${formatBytes(p.snapshot.rawBytes)}, stored ${formatBytes(p.snapshot.storedBytes)}`}</title>
            <rect x={x - barWidth} y={y(p.snapshot.rawBytes)} width={barWidth} height={y(0) - y(p.snapshot.rawBytes)} fill={selected ? '#a3a3a3' : '#525252'} />
            <rect x={x} y={y(p.snapshot.storedBytes)} width={barWidth} height={y(0) - y(p.snapshot.storedBytes)} fill={selected ? '#fbbf24' : '#b45309'} />
          </g>
        );
      })}
      <text x={pad.left} y={height - 4} fontSize="8" fill="#737373">
        {`runs in ${scope}: raw (grey) and stored (amber) per suspension, oldest left${selectedRunId ? '; the selected run bright' : ''}`}
      </text>
    </svg>
  );
}

/** The selected run's own line when it has no snapshot: true for it, and honest about the chart of other runs below. */
export function noSnapshotText(run: Pick<Run, 'runId' | 'executor'>, chartedRunIds: ReadonlySet<string>): string {
  if (run.executor !== 'quickjs') return `Run ${run.runId} ran on ${run.executor}, which keeps a live worker instead of a snapshot; see the retained-bytes estimate on the board.`;
  const others = [...chartedRunIds].filter((id) => id !== run.runId).length;
  return others > 0
    ? `Run ${run.runId} never suspended, so none of the bars below are its own (they are ${others} other ${others === 1 ? 'run' : 'runs'}).`
    : `Run ${run.runId} never suspended.`;
}

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const SnapshotsPanel = memo(function SnapshotsPanel(props: { runs: Run[]; run?: Run; scope: string }) {
  const points: ChartPoint[] = props.runs
    .flatMap((run) => run.snapshots.map((snapshot) => ({ runId: run.runId, snapshot })))
    .sort((a, b) => a.snapshot.at - b.snapshot.at)
    .slice(-MAX_CHART_SNAPSHOTS);
  const { run } = props;
  return (
    <Panel title="Snapshot sizes" testId="snapshots-panel">
      <div className="space-y-3">
        {run ? (
          run.snapshots.length > 0 ? (
            <table data-testid="snapshots-table" className="w-full font-mono text-[11px]">
              <thead className="text-left text-neutral-500">
                <tr>
                  <th className="font-normal">#</th>
                  <th className="font-normal">reason</th>
                  <th className="text-right font-normal">raw</th>
                  <th className="text-right font-normal">stored</th>
                  <th className="px-2 font-normal">vs cap ({formatBytes(run.maxSnapshotBytes)})</th>
                  <th className="text-right font-normal">take</th>
                  <th className="text-right font-normal">restore</th>
                </tr>
              </thead>
              <tbody>
                {run.snapshots.map((s, i) => (
                  <tr key={s.at} data-testid="snapshot-row">
                    <td className="text-neutral-500">{i + 1}</td>
                    <td className="text-neutral-300">{s.reason}</td>
                    <td className="text-right text-neutral-300">{formatBytes(s.rawBytes)}</td>
                    <td className="text-right text-amber-300">{formatBytes(s.storedBytes)}</td>
                    <td className="px-2">
                      <div className="h-1.5 rounded bg-neutral-800">
                        <div className="h-1.5 rounded bg-amber-500" style={{ width: `${Math.max(0.5, percentOf(s.storedBytes, run.maxSnapshotBytes))}%` }} />
                      </div>
                    </td>
                    <td className="text-right text-neutral-400">{formatDuration(s.takeMs)}</td>
                    <td className="text-right text-neutral-400">{s.restoreMs !== undefined ? formatDuration(s.restoreMs) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <Empty testId="snapshots-none">{noSnapshotText(run, new Set(points.map((p) => p.runId)))}</Empty>
          )
        ) : null}
        {points.length > 0 ? (
          <AcrossRunsChart points={points} scope={props.scope} {...(run ? { selectedRunId: run.runId } : {})} />
        ) : (
          <Empty testId="snapshots-chart-empty">{`No suspensions yet in ${props.scope}.`}</Empty>
        )}
      </div>
    </Panel>
  );
});
