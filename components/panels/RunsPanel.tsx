'use client';
// The runs in the page's scope (its turn, or every turn), newest first; picking one shows its trajectory and snapshots.
import { memo } from 'react';
import { Empty, Panel } from '../ui/Panel.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import type { Run } from '../api.ts';

/** The list stays short; older runs are still reachable through their link. */
export const MAX_RUNS_LISTED = 50;

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const RunsPanel = memo(function RunsPanel(props: {
  runs: Run[];
  selectedRunId?: string;
  /** The selected run, listed though it is of another turn than the scope shows (runsState.ts listedRuns). */
  outOfScopeRunId?: string;
  onSelect: (runId: string) => void;
}) {
  // the selected run stays listed past the cap: the list holds what the trajectory shows
  const capped = props.runs.slice(0, MAX_RUNS_LISTED);
  const selected = props.runs.find((r) => r.runId === props.selectedRunId);
  const runs = selected && !capped.includes(selected) ? [...capped, selected] : capped;
  return (
    <Panel title={`Runs (${props.runs.length})`} testId="runs-panel" bodyClassName="p-1">
      {runs.length === 0 ? (
        <Empty>No runs yet.</Empty>
      ) : (
        <ul className="font-mono text-[11px]">
          {runs.map((run) => (
            <li key={run.runId}>
              <button
                type="button"
                data-testid="run-row"
                data-run-id={run.runId}
                data-state={run.state}
                data-selected={run.runId === props.selectedRunId}
                aria-current={run.runId === props.selectedRunId ? 'true' : undefined}
                onClick={() => props.onSelect(run.runId)}
                className={`flex w-full flex-wrap items-center gap-x-2 rounded px-1.5 py-0.5 text-left hover:bg-neutral-800 ${
                  run.runId === props.selectedRunId ? 'bg-neutral-800' : ''
                }`}
              >
                <StatusBadge status={run.state} />
                {/* The whole id, never cut (issue 13: ids showed as `run_...` at 1280 px); the counts wrap below instead. */}
                <span data-testid="run-id" className="shrink-0 whitespace-nowrap text-neutral-300">
                  {run.runId}
                </span>
                <span className="text-neutral-500">{run.executor}</span>
                {run.replay ? (
                  <span data-testid="run-replayed" className="text-violet-300" title="replayed from a cassette: its tool calls were answered from it, no tool ran">
                    replay
                  </span>
                ) : null}
                {run.runId === props.outOfScopeRunId ? (
                  <span data-testid="run-other-turn" className="text-amber-300" title={`turn ${run.agentRunId}: shown because it is selected; tick "all turns" to list that turn's runs`}>
                    other turn
                  </span>
                ) : null}
                {run.client !== undefined ? (
                  <span data-testid="run-client" className="truncate text-sky-400" title="the client driving this run's turn (MCP)">
                    {run.client}
                  </span>
                ) : null}
                <span className="ml-auto whitespace-nowrap text-neutral-500">
                  {run.calls.length} calls · {run.nested.length + (run.nestedOmitted ?? 0)} nested
                </span>
                <span className="whitespace-nowrap text-neutral-600">{new Date(run.createdAt).toLocaleTimeString()}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
});
