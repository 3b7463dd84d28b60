'use client';
// Trajectory of one run: nested calls as a tree under their exec/wait calls and as a timeline; JSON export.
import { Fragment, memo, useState } from 'react';
import { SpanDetail } from '../trajectory/SpanDetail.tsx';
import { useTRPCClient } from '../trpc.ts';
import { axisTicks, buildTree, layoutTimeline, orphanCalls } from '../trajectory/layout.ts';
import { Button, Empty, ErrorNote, Panel } from '../ui/Panel.tsx';
import { NestedCallRow } from '../ui/NestedCallRow.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { formatDuration } from '../ui/format.ts';
import { useNow } from '../ui/useNow.ts';
import { errorMessage } from '../playground/errors.ts';
import { ReplayedNote } from '../ui/Replayed.tsx';
import type { Run } from '../api.ts';

const BAR_COLORS: Record<string, string> = {
  ok: 'bg-emerald-500',
  completed: 'bg-emerald-500',
  waiting: 'bg-amber-500',
  running: 'bg-sky-500',
  queued: 'bg-neutral-500',
  awaiting_client: 'bg-amber-400',
  awaiting_approval: 'bg-fuchsia-500',
  error: 'bg-rose-500',
  failed: 'bg-rose-500',
  canceled: 'bg-neutral-600',
};

function Tree({ run, now }: { run: Run; now: number }) {
  const tree = buildTree(run.calls, run.nested);
  const orphans = orphanCalls(run.calls, run.nested);
  // Several spans may be open at once, to compare them; keyed by invocation id, so they stay open as the run updates.
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (id: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const row = (n: Run['nested'][number]) => (
    <Fragment key={n.invocationId}>
      <NestedCallRow testId="trajectory-nested" call={n} now={now} open={open.has(n.invocationId)} onToggle={() => toggle(n.invocationId)} />
      {open.has(n.invocationId) ? (
        <li>
          <SpanDetail call={n} parent={run.calls.find((c) => c.callId === n.parentCallId)} now={now} />
        </li>
      ) : null}
    </Fragment>
  );
  return (
    <ul data-testid="trajectory-tree" className="space-y-1">
      {tree.map((node) => (
        <li key={node.call.callId} data-testid="trajectory-control" data-tool={node.call.tool}>
          <div className="flex items-center gap-2">
            <span className="font-mono text-xs font-semibold text-neutral-100">{node.call.tool}</span>
            <StatusBadge status={node.call.status ?? 'running'} />
            {node.call.errorCode ? <span className="font-mono text-[11px] text-rose-300">{node.call.errorCode}</span> : null}
            <span className="ml-auto font-mono text-[11px] text-neutral-400">
              {formatDuration(Math.max(0, (node.call.endedAt ?? now) - node.call.startedAt))}
            </span>
          </div>
          {node.nested.length > 0 ? (
            <ul>
              {node.nested.map(row)}
            </ul>
          ) : (
            <div className="pl-5 text-[11px] text-neutral-600">no nested calls</div>
          )}
        </li>
      ))}
      {orphans.length > 0 ? (
        <li>
          <div className="text-[11px] text-neutral-500">calls without a recorded parent</div>
          <ul>
            {orphans.map(row)}
          </ul>
        </li>
      ) : null}
    </ul>
  );
}

function Timeline({ run, now }: { run: Run; now: number }) {
  const layout = layoutTimeline(run.calls, run.nested, now);
  if (layout.rows.length === 0) return <Empty>No calls recorded.</Empty>;
  const span = layout.end - layout.start;
  const ticks = axisTicks(span, 5);
  return (
    <div data-testid="trajectory-timeline" className="font-mono text-[11px]">
      <div className="grid grid-cols-[7rem_1fr] gap-2">
        <div />
        <div className="relative h-4 border-b border-neutral-800 text-neutral-500">
          {ticks.map((t, i) => (
            <span
              key={t}
              className={`absolute whitespace-nowrap ${i === 0 ? '' : t / span > 0.9 ? '-translate-x-full' : '-translate-x-1/2'}`}
              style={{ left: `${(t / span) * 100}%` }}
            >
              {formatDuration(t)}
            </span>
          ))}
        </div>
      </div>
      <div className="relative">
        <div className="pointer-events-none absolute inset-y-0 right-0 left-[calc(7rem+0.5rem)]">
          {layout.gaps.map((g) => (
            <div
              key={g.start}
              data-testid="trajectory-gap"
              title={`suspended ${formatDuration(g.end - g.start)}`}
              className="absolute inset-y-0 border-x border-dashed border-amber-800/70 bg-[repeating-linear-gradient(45deg,transparent_0_4px,rgba(245,158,11,0.10)_4px_8px)]"
              style={{ left: `${g.leftPct}%`, width: `${g.widthPct}%` }}
            />
          ))}
        </div>
        {layout.rows.map((row) => (
          <div key={row.key} data-testid="timeline-row" data-kind={row.kind} className="grid grid-cols-[7rem_1fr] items-center gap-2 py-px">
            <span className={`truncate ${row.kind === 'control' ? 'font-semibold text-neutral-100' : 'pl-2 text-sky-300'}`}>{row.label}</span>
            <div className="relative h-3.5">
              <div
                className={`absolute top-0.5 h-2.5 rounded-sm ${BAR_COLORS[row.status] ?? 'bg-neutral-500'} ${row.kind === 'control' ? 'opacity-40' : ''} ${row.open ? 'animate-pulse' : ''}`}
                style={{ left: `${row.leftPct}%`, width: `${row.widthPct}%` }}
                title={`${row.label}: ${row.status}, ${formatDuration(row.end - row.start)}`}
              />
            </div>
          </div>
        ))}
      </div>
      {layout.gaps.length > 0 ? <p className="mt-1 text-neutral-500">hatched: suspended between exec/wait calls (snapshot parked)</p> : null}
    </div>
  );
}

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const TrajectoryPanel = memo(function TrajectoryPanel(props: { run?: Run; selectedRunId?: string }) {
  const client = useTRPCClient();
  const { run } = props;
  const open = run !== undefined && (run.calls.some((c) => c.endedAt === undefined) || run.nested.some((n) => n.endedAt === undefined));
  const now = useNow(250, open);
  const [downloadError, setDownloadError] = useState<string>();
  const save = (text: string, fileName: string) => {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = fileName;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  const download = async (format: 'json' | 'otlp') => {
    if (!run) return;
    try {
      if (format === 'otlp') {
        const trace = await client.runs.otlp.query({ runId: run.runId });
        save(trace.json, trace.fileName);
      } else {
        const trajectory = await client.runs.trajectory.query({ runId: run.runId });
        save(JSON.stringify(trajectory, null, 2), `trajectory-${run.runId}.json`);
      }
      setDownloadError(undefined);
    } catch (err) {
      setDownloadError(errorMessage(err));
    }
  };
  return (
    <Panel
      title={
        <>
          Trajectory{run ? <span className="ml-1.5 font-mono normal-case tracking-normal text-neutral-300">{run.runId}</span> : null}
        </>
      }
      testId="trajectory-panel"
      actions={
        run ? (
          <>
            <Button testId="trajectory-download" onClick={() => void download('json')}>
              Export JSON
            </Button>
            <Button testId="trajectory-download-otlp" onClick={() => void download('otlp')} title="the run as OpenTelemetry spans (OTLP/JSON), for Jaeger, Tempo, Honeycomb and other tracing tools">
              Export OTLP
            </Button>
          </>
        ) : null
      }
    >
      {!run && props.selectedRunId ? (
        <ErrorNote title={`Unknown run ${props.selectedRunId}`} testId="trajectory-unknown-run">
          This Gateway process has no run with that id: it was released, or the server restarted (runs do not survive a restart). Pick a run from the list.
        </ErrorNote>
      ) : null}
      {!run && !props.selectedRunId ? <Empty testId="trajectory-empty">Run a cell or pick a run to see its nested calls.</Empty> : null}
      {downloadError ? <ErrorNote title="Export failed">{downloadError}</ErrorNote> : null}
      {run ? (
        <div className="space-y-3">
          <div className="flex items-center gap-2 text-[11px] text-neutral-400">
            <StatusBadge status={run.state} testId="trajectory-run-state" />
            <span>
              {run.client !== undefined ? `${run.client} · ` : ''}
              {run.agentId} · session {run.sessionId} · {run.executor} · {run.language}
            </span>
          </div>
          {run.replay ? <ReplayedNote replay={run.replay} testId="trajectory-replayed" /> : null}
          {run.nestedOmitted ? (
            <p data-testid="trajectory-omitted" className="text-[11px] text-amber-300">
              {run.nestedOmitted} earlier finished nested calls are not shown (the view keeps the latest {run.nested.length}); Export JSON has every one.
            </p>
          ) : null}
          <Tree run={run} now={now} />
          <Timeline run={run} now={now} />
        </div>
      ) : null}
    </Panel>
  );
});
