'use client';
// "Run on all executors": one column per executor for the same cell (status, value with a diff, duration, nested-call cost, parked bytes, cold or warm).
import type { ComparisonRow } from '../api.ts';
import { jsonLineDiff, prettyJson } from '../playground/compareDiff.ts';
import { Button, ErrorNote, Panel } from '../ui/Panel.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { formatBytes, formatDuration } from '../ui/format.ts';

/** What each executor's parked bytes are: a stored snapshot, or an estimate of what a live VM holds. */
function parkedText(row: ComparisonRow): string {
  const p = row.parked;
  if (!p) return 'never parked';
  if (p.kind === 'snapshot') return `${formatBytes(p.storedBytes)} stored snapshot (${formatBytes(p.rawBytes)} raw)`;
  return `~${formatBytes(p.bytes)} live (estimate)`;
}

function ValueCell({ row, reference }: { row: ComparisonRow; reference?: string }) {
  if (row.status === 'failed') {
    return (
      <div data-testid="compare-error" className="whitespace-pre-wrap break-words font-mono text-[11px] text-rose-300">
        {row.code ? <span className="text-rose-400">{row.code}: </span> : null}
        {row.error}
      </div>
    );
  }
  if (row.valueJson === undefined) return <span className="text-neutral-500">no value (the run is still {row.status})</span>;
  if (!row.valueDiffers || reference === undefined) {
    return (
      <pre data-testid="compare-value" className="max-h-40 overflow-auto whitespace-pre-wrap break-words font-mono text-[11px] text-neutral-200">
        {prettyJson(row.valueJson)}
      </pre>
    );
  }
  return (
    <pre data-testid="compare-diff" className="max-h-40 overflow-auto whitespace-pre-wrap break-words font-mono text-[11px]">
      {jsonLineDiff(reference, row.valueJson).map((l, i) => (
        <div key={i} data-mark={l.mark} className={l.mark === '+' ? 'bg-emerald-950/60 text-emerald-300' : l.mark === '-' ? 'bg-rose-950/60 text-rose-300' : 'text-neutral-400'}>
          {l.mark} {l.text}
        </div>
      ))}
    </pre>
  );
}

export function ComparePanel(props: { rows?: ComparisonRow[]; running: boolean; error?: string; onClose: () => void }) {
  const reference = props.rows?.find((r) => r.status === 'completed')?.valueJson;
  const referenceExecutor = props.rows?.find((r) => r.status === 'completed')?.executor;
  return (
    <Panel
      title="Executors side by side"
      testId="compare-panel"
      className="max-h-[40%] shrink-0"
      actions={
        <Button kind="ghost" testId="compare-close" onClick={props.onClose} disabled={props.running}>
          close
        </Button>
      }
    >
      {props.error ? <ErrorNote title="the comparison did not run">{props.error}</ErrorNote> : null}
      {props.running ? (
        <p data-testid="compare-running" className="text-xs text-neutral-400">
          running the cell on each executor in turn, each in its own run…
        </p>
      ) : null}
      {props.rows ? (
        <div data-testid="compare-columns" className="grid gap-2" style={{ gridTemplateColumns: `repeat(${props.rows.length}, minmax(0, 1fr))` }}>
          {props.rows.map((row) => (
            <section key={row.executor} data-testid="compare-column" data-executor={row.executor} data-status={row.status} className="min-w-0 rounded border border-neutral-800 p-1.5">
              <h3 className="mb-1 flex items-center gap-1.5 font-mono text-[11px] font-semibold text-neutral-200">
                {row.executor}
                <StatusBadge status={row.status} testId="compare-status" />
                <span data-testid="compare-start" className="ml-auto font-normal text-neutral-500" title="cold: this executor had not run a cell on this server before (worker start and module load included)">
                  {row.start}
                </span>
              </h3>
              <dl className="grid grid-cols-[auto_1fr] gap-x-2 gap-y-0.5 font-mono text-[11px]">
                <dt className="text-neutral-500">duration</dt>
                <dd data-testid="compare-duration">
                  {formatDuration(row.durationMs)}
                  {row.startMs !== undefined ? <span className="text-neutral-500"> (start-up {formatDuration(row.startMs)})</span> : null}
                  {row.calls > 1 ? <span className="text-neutral-500"> over {row.calls} calls</span> : null}
                </dd>
                <dt className="text-neutral-500">nested calls</dt>
                <dd data-testid="compare-nested">
                  {row.nestedCalls}
                  {row.nestedCalls > 0 ? <span className="text-neutral-500"> ({formatDuration(row.nestedMs)} inside them)</span> : null}
                </dd>
                <dt className="text-neutral-500">parked</dt>
                <dd data-testid="compare-parked">{parkedText(row)}</dd>
              </dl>
              <div className="mt-1 border-t border-neutral-800 pt-1">
                {row.valueDiffers ? <div className="mb-0.5 text-[11px] text-amber-300">differs from {referenceExecutor}</div> : null}
                <ValueCell row={row} {...(reference !== undefined ? { reference } : {})} />
              </div>
            </section>
          ))}
        </div>
      ) : null}
    </Panel>
  );
}
