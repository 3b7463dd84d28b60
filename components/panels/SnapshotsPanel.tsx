'use client';
// Snapshot sizes: each suspension of the selected run, and a small plain-SVG chart across runs.
import { Empty, Panel } from '../ui/Panel.tsx';
import { formatBytes, formatDuration, percentOf } from '../ui/format.ts';
import type { Run, Snapshot } from '../api.ts';

/** The chart keeps the latest suspensions; older ones would be slivers. */
export const MAX_CHART_SNAPSHOTS = 40;

interface ChartPoint {
  runId: string;
  snapshot: Snapshot;
}

function AcrossRunsChart({ points, selectedRunId }: { points: ChartPoint[]; selectedRunId?: string }) {
  const width = 360;
  const height = 110;
  const pad = { left: 44, right: 6, top: 8, bottom: 16 };
  const max = Math.max(1, ...points.map((p) => p.snapshot.rawBytes));
  const slot = (width - pad.left - pad.right) / Math.max(points.length, 1);
  const barWidth = Math.max(2, Math.min(14, slot * 0.4));
  const y = (bytes: number) => pad.top + (height - pad.top - pad.bottom) * (1 - bytes / max);
  return (
    <svg data-testid="snapshots-chart" viewBox={`0 0 ${width} ${height}`} className="w-full" role="img" aria-label="snapshot sizes across runs">
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
        raw (grey) and stored (amber) per suspension, oldest left
      </text>
    </svg>
  );
}

export function SnapshotsPanel(props: { runs: Run[]; run?: Run }) {
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
            <Empty>
              {run.executor !== 'quickjs'
                ? `${run.executor} keeps a live worker instead of a snapshot; see the retained-bytes estimate on the board.`
                : 'This run never suspended.'}
            </Empty>
          )
        ) : null}
        {points.length > 0 ? <AcrossRunsChart points={points} {...(run ? { selectedRunId: run.runId } : {})} /> : <Empty>No suspensions yet in this process.</Empty>}
      </div>
    </Panel>
  );
}
