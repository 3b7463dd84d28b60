'use client';
// A new turn (another agent or model, New turn) takes the previous turn's live runs out of view: a notice names them and what became of them.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isLive, runsLeftBehind } from '../live/runsState.ts';
import { Button } from '../ui/Panel.tsx';
import type { Run } from '../api.ts';

/**
 * Follows the page's turn. When it changes, `onTurnChanged` runs (the shown result and run belong to the turn
 * that ended, so a Wait there could only fail) and the runs of the old turn then running or waiting are kept:
 * the panels show this turn only, so without a word a cell running a moment ago would just vanish (ending the
 * turn aborts it; a run the Gateway keeps goes on holding a slot).
 */
export function useRunsLeftBehind(
  turnId: string | undefined,
  runs: Run[],
  onTurnChanged: () => void,
): { runs: Run[]; dismiss(): void; leaving(runIds: readonly string[]): void } {
  const previousTurnId = useRef<string | undefined>(undefined);
  const [left, setLeft] = useState<ReadonlySet<string>>(() => new Set());
  // the runs live when the user chose to end the turn: ending it aborts them before the new turn arrives
  const leavingRef = useRef<readonly string[]>([]);
  const runsRef = useRef(runs);
  runsRef.current = runs;
  useEffect(() => {
    const previous = previousTurnId.current;
    previousTurnId.current = turnId;
    // the first turn keeps a run named by the link
    if (previous === undefined || previous === turnId) return;
    onTurnChanged();
    const stillLive = runsRef.current.filter((r) => r.agentRunId === previous && isLive(r)).map((r) => r.runId);
    setLeft(new Set([...leavingRef.current, ...stillLive]));
    leavingRef.current = [];
  }, [turnId, onTurnChanged]);
  const shown = useMemo(() => runsLeftBehind(runs, left), [runs, left]);
  const dismiss = useCallback(() => setLeft(new Set()), []);
  const leaving = useCallback((runIds: readonly string[]) => {
    leavingRef.current = runIds;
  }, []);
  return { runs: shown, dismiss, leaving };
}

function fate(run: Run): string {
  return isLive(run) ? `continues (${run.state}) in the previous turn, which this page no longer shows` : `was ${run.state} when the previous turn ended`;
}

export function LeftBehindNotice(props: { runs: Run[]; onShowAllTurns: () => void; onAbort: (run: Run) => void; onDismiss: () => void }) {
  if (props.runs.length === 0) return null;
  const live = props.runs.filter(isLive);
  return (
    <div data-testid="left-behind" role="status" className="flex flex-wrap items-center gap-2 border-b border-sky-900 bg-sky-950/50 px-3 py-1 text-xs text-sky-100">
      <ul>
        {props.runs.map((run) => (
          <li key={run.runId} data-testid="left-behind-run" data-run-id={run.runId}>
            <span className="font-mono">{run.runId}</span> {fate(run)}.
          </li>
        ))}
      </ul>
      <span className="text-sky-300">{live.length > 0 ? 'Abort, or tick "all turns" to see the previous turn\'s runs.' : `Tick "all turns" to see ${props.runs.length === 1 ? 'it' : 'them'}.`}</span>
      {live.length > 0 ? (
        <Button kind="danger" onClick={() => live.forEach(props.onAbort)}>
          abort {live.length === 1 ? 'it' : 'them'}
        </Button>
      ) : null}
      <Button onClick={props.onShowAllTurns}>show all turns</Button>
      <Button kind="ghost" onClick={props.onDismiss}>
        dismiss
      </Button>
    </div>
  );
}
