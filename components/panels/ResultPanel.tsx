'use client';
// The result of the last exec or wait: status, value as a JSON tree, output lines, telemetry, error code.
import { useState } from 'react';
import { JsonTree } from '../ui/JsonTree.tsx';
import { Button, Empty, ErrorNote, Panel, KeyValueList } from '../ui/Panel.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { formatBytes, formatDuration, percentOf, previewJson } from '../ui/format.ts';
import { useNow } from '../ui/useNow.ts';
import { resultRunId } from '../playground/callState.ts';
import type { CellCall } from '../playground/callState.ts';
import type { ExecResult, Meter } from '../api.ts';
import { TokenMeterView } from '../meter/TokenMeterView.tsx';
import { RunMovedOn } from './RunFollowNote.tsx';
import { ReplayedNote } from '../ui/Replayed.tsx';

type Telemetry = ExecResult['telemetry'];
type Output = NonNullable<ExecResult['output']>[number];

const OUTPUT_COLORS: Record<string, string> = {
  error: 'text-rose-300',
  warn: 'text-amber-300',
  info: 'text-sky-300',
  debug: 'text-neutral-500',
  log: 'text-neutral-200',
  text: 'text-neutral-200',
  json: 'text-emerald-300',
};

function OutputLines({ output }: { output: Output[] }) {
  return (
    <div data-testid="result-output" className="rounded bg-neutral-950 p-1.5 font-mono text-[11px]">
      {output.map((line, i) => (
        <div key={i} data-testid="result-output-line" className={`whitespace-pre-wrap break-words ${OUTPUT_COLORS[line.kind] ?? ''}`}>
          <span className="mr-2 select-none text-neutral-600">{line.kind}</span>
          {line.text}
        </div>
      ))}
    </div>
  );
}

function TelemetryGrid({ telemetry }: { telemetry: Telemetry }) {
  const rows: Array<[string, string]> = [
    ['executor', telemetry.executor],
    ['duration', formatDuration(telemetry.durationMs)],
    ['budget used', formatDuration(telemetry.budgetUsedMs)],
    ['calls / search / describe', `${telemetry.counters.call} / ${telemetry.counters.search} / ${telemetry.counters.describe}`],
    ['nested calls', String(telemetry.nestedCalls)],
    ['output', `${formatBytes(telemetry.outputBytes)}${telemetry.truncated ? ' (truncated)' : ''}`],
  ];
  if (telemetry.snapshot) {
    const s = telemetry.snapshot;
    rows.push(['snapshot raw / stored', `${formatBytes(s.rawBytes)} / ${formatBytes(s.storedBytes)}`]);
    if (s.takeMs !== undefined) rows.push(['snapshot take', formatDuration(s.takeMs)]);
    if (s.restoreMs !== undefined) rows.push(['restore', formatDuration(s.restoreMs)]);
  }
  if (telemetry.retainedBytesEstimate !== undefined) rows.push(['retained (estimate)', formatBytes(telemetry.retainedBytesEstimate)]);
  if (telemetry.networkContent) rows.push(['network content', 'yes: wrapped as untrusted for a model']);
  return (
    <KeyValueList rows={rows} testId="result-telemetry" />
  );
}

/** Where the approvals prompt is, in words the user can follow from the result panel. */
const PROMPT_PLACE: Record<ApprovalsWhere, string> = {
  cell: 'the prompt is just above this panel',
  runs: 'the prompt is at the top of the runs column, on the right',
};
type ApprovalsWhere = 'runs' | 'cell';

function Running({
  call,
  approvalsPending,
  approvalsWhere,
  onShowApprovals,
  onStop,
}: {
  call: CellCall;
  approvalsPending: number;
  approvalsWhere: ApprovalsWhere;
  onShowApprovals?: (() => void) | undefined;
  onStop?: (() => void) | undefined;
}) {
  const now = useNow(100);
  const elapsed = now - call.startedAt;
  const over = call.timeoutMs !== undefined && elapsed > call.timeoutMs;
  return (
    <div data-testid="result-running" className="space-y-1.5">
      <div className="flex items-center gap-2">
        <StatusBadge status="running" testId="result-status" />
        <span className="font-mono text-xs text-neutral-300">
          {call.tool}
          {call.runId ? ` ${call.runId}` : ''}… {formatDuration(elapsed)}
          {call.timeoutMs !== undefined ? ` of a ${formatDuration(call.timeoutMs)} deadline` : ''}
        </span>
        {call.tool === 'exec' ? (
          // Enabled once the run's start event arrived (the abort names the run); an infinite loop stops at once.
          <Button
            kind="danger"
            testId="result-stop"
            disabled={!onStop}
            onClick={() => onStop?.()}
            title={onStop ? 'abort this run now: its nested calls are canceled and the cell stops' : 'the run has not started yet'}
          >
            Stop
          </Button>
        ) : null}
      </div>
      {call.timeoutMs !== undefined ? (
        <div className="h-1 rounded bg-neutral-800">
          <div className="h-1 rounded bg-sky-500" style={{ width: `${percentOf(elapsed, call.timeoutMs)}%` }} />
        </div>
      ) : null}
      {approvalsPending > 0 ? (
        <p data-testid="result-awaiting-approval" className="text-[11px] text-fuchsia-300">
          A nested call waits for your approval ({PROMPT_PLACE[approvalsWhere]}); the cell&apos;s execution budget is paused meanwhile.{' '}
          {onShowApprovals ? (
            <button type="button" onClick={onShowApprovals} className="text-fuchsia-200 underline decoration-dotted underline-offset-2 hover:text-fuchsia-100">
              show the prompt
            </button>
          ) : null}
        </p>
      ) : null}
      {over && approvalsPending === 0 ? (
        <p className="text-[11px] text-amber-300">
          Past the deadline: the Gateway is suspending the cell, or a nested call awaits an approval (the budget pauses while it does).
        </p>
      ) : null}
    </div>
  );
}

export function ResultPanel(props: {
  call?: CellCall;
  onWait: (runId: string) => void;
  waitingFor?: string;
  approvalsPending?: number;
  /** Where the approvals prompt sits now (playground/layout.ts approvalsPlacement); the note says so. */
  approvalsWhere?: ApprovalsWhere;
  /** Brings the approvals prompt into view and focuses it. */
  onShowApprovals?: () => void;
  /** Set when the shown run replays a cassette: its tool calls were answered from it, no tool ran. */
  replay?: { runId?: string };
  /** Aborts the running exec's run; absent until the page knows that run. */
  onStop?: () => void;
  /** The shown run's token meter (from its run view), once one of its exec/wait calls ended. */
  meter?: Meter;
  /** How long a waiting run's snapshot is kept (the surface's options), to say when an expired run expired. */
  snapshotTtlSeconds?: number;
}) {
  const [raw, setRaw] = useState(false);
  const { call } = props;
  const result = call?.result;
  const followed = call?.followed;
  const movedOn = followed && followed.kind !== 'latest';
  return (
    <Panel
      title="Result"
      testId="result-panel"
      className="flex-1"
      actions={
        result ? (
          <Button kind="ghost" testId="result-raw-toggle" onClick={() => setRaw(!raw)}>
            {raw ? 'tree' : 'model text'}
          </Button>
        ) : null
      }
    >
      <span data-testid="result-seq" data-seq={call?.seq ?? 0} hidden />
      {!call ? <Empty>Run a cell (Ctrl/Cmd+Enter) to see its result here.</Empty> : null}
      {call && !result && !call.error ? (
        <Running call={call} approvalsPending={props.approvalsPending ?? 0} approvalsWhere={props.approvalsWhere ?? 'runs'} onShowApprovals={props.onShowApprovals} onStop={props.onStop} />
      ) : null}
      {call?.error ? (
        <ErrorNote title={`${call.tool} did not return a result`} testId="result-call-error">
          {call.error}
        </ErrorNote>
      ) : null}
      {call && result && followed && movedOn ? (
        <RunMovedOn runId={resultRunId(result)} followed={followed} snapshotTtlSeconds={props.snapshotTtlSeconds} />
      ) : null}
      {call && result && !movedOn ? (
        <div className="space-y-2.5">
          {followed ? <RunMovedOn runId={resultRunId(result)} followed={followed} /> : null}
          <div className="flex flex-wrap items-center gap-2">
            <StatusBadge status={result.status} testId="result-status" />
            <span className="font-mono text-[11px] text-neutral-500" data-testid="result-call" data-run-id={resultRunId(result) ?? ''} data-picked={call.picked ?? false}>
              {call.tool}
            </span>
            {call.picked ? <span className="text-[11px] text-neutral-500">(last result of the run picked in the list)</span> : null}
            {result.status === 'waiting' ? (
              <>
                <span className="font-mono text-[11px] text-neutral-400">
                  run {result.runId}, reason {result.reason}
                </span>
                <Button kind="primary" testId="result-wait" disabled={props.waitingFor === result.runId} onClick={() => props.onWait(result.runId)}>
                  {props.waitingFor === result.runId ? 'Waiting…' : 'Wait'}
                </Button>
              </>
            ) : result.telemetry.runId ? (
              <span className="font-mono text-[11px] text-neutral-500">run {result.telemetry.runId}</span>
            ) : null}
          </div>
          {props.replay ? <ReplayedNote replay={props.replay} testId="result-replayed" /> : null}
          {raw ? (
            <div>
              <div className="mb-1 text-[11px] text-neutral-500">the tool result text a model receives (compact JSON; network content wrapped as untrusted)</div>
              <pre data-testid="result-raw" className="max-h-96 overflow-auto whitespace-pre-wrap break-all rounded bg-neutral-950 p-2 font-mono text-[11px]">
                {'modelText' in result ? result.modelText : 'The model text is kept for the calls this page made; this is a picked run\'s last result.'}
              </pre>
            </div>
          ) : (
            <>
              {result.status === 'failed' ? (
                <div data-testid="result-error" className="rounded border border-rose-900/70 bg-rose-950/40 px-2.5 py-2 text-xs">
                  <span data-testid="result-error-code" className="mr-2 font-mono font-semibold text-rose-300">
                    {result.code ?? 'error'}
                  </span>
                  <span className="whitespace-pre-wrap break-words text-rose-100">{result.error}</span>
                </div>
              ) : null}
              {result.status === 'completed' ? (
                <div>
                  <div className="mb-1 text-[11px] text-neutral-500">value</div>
                  <div className="rounded bg-neutral-950 p-1.5">
                    <JsonTree value={result.value} testId="result-value" />
                  </div>
                </div>
              ) : null}
              {result.status === 'waiting' && result.pendingToolCalls && result.pendingToolCalls.length > 0 ? (
                <div>
                  <div className="mb-1 text-[11px] text-neutral-500">pending tool calls</div>
                  <ul className="space-y-0.5 font-mono text-[11px]">
                    {result.pendingToolCalls.map((p) => (
                      <li key={p.id} className="flex gap-2">
                        <span className="text-sky-300">{p.tool}</span>
                        <span className="truncate text-neutral-400">{previewJson(p.input, 120)}</span>
                        <span className="ml-auto text-neutral-500">{p.state}</span>
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
              {result.status === 'completed' && result.warnings && result.warnings.length > 0 ? (
                <ul data-testid="result-warnings" className="list-disc pl-4 text-[11px] text-amber-300">
                  {result.warnings.map((w, i) => (
                    <li key={i}>{w}</li>
                  ))}
                </ul>
              ) : null}
              {result.output && result.output.length > 0 ? (
                <div>
                  <div className="mb-1 text-[11px] text-neutral-500">output</div>
                  <OutputLines output={result.output} />
                </div>
              ) : null}
              {props.meter ? (
                <div>
                  <div className="mb-1 text-[11px] text-neutral-500">token meter (estimate)</div>
                  <TokenMeterView meter={props.meter} />
                </div>
              ) : null}
              <div>
                <div className="mb-1 text-[11px] text-neutral-500">telemetry</div>
                <TelemetryGrid telemetry={result.telemetry} />
              </div>
            </>
          )}
        </div>
      ) : null}
    </Panel>
  );
}
