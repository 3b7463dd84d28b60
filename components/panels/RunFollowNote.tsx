// What the result panel says when the shown run moved on after its exec/wait call returned (callState.followRun).
import type { ReactNode } from 'react';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { formatDuration } from '../ui/format.ts';
import type { RunFollow } from '../playground/callState.ts';

/** The run's new state and id over what it means. */
function Followed(props: { state: 'expired' | 'running'; run: string; children: ReactNode }) {
  return (
    <div data-testid="result-followed" data-followed={props.state} className="space-y-1.5">
      <div className="flex items-center gap-2">
        <StatusBadge status={props.state} testId="result-status" />
        <span className="font-mono text-[11px] text-neutral-400">{props.run}</span>
      </div>
      {props.children}
    </div>
  );
}

/** The run is running again or expired: its state and what to do, in place of the call's stale result. */
export function RunMovedOn(props: { runId: string | undefined; followed: RunFollow; snapshotTtlSeconds?: number | undefined }) {
  const { followed, runId } = props;
  const run = runId ? `run ${runId}` : 'the run';
  if (followed.kind === 'expired') {
    const ttlSeconds = props.snapshotTtlSeconds;
    const ttl = ttlSeconds !== undefined ? ` after ${ttlSeconds} s (snapshotTtlSeconds${ttlSeconds >= 60 ? `, ${formatDuration(ttlSeconds * 1000)}` : ''})` : ' (snapshotTtlSeconds)';
    return (
      <Followed state="expired" run={run}>
        <p className="text-xs text-neutral-300">
          The run expired{ttl}: no wait came before its snapshot's time to live ran out, so the Gateway released it and it can no longer be
          resumed. Run the cell again.
        </p>
      </Followed>
    );
  }
  if (followed.kind === 'running') {
    return (
      <Followed state="running" run={run}>
        <p className="text-xs text-neutral-300">
          A wait for this run is in flight (made before this page loaded, or by another client). Its result shows here when it returns.
        </p>
        <RefusedWait refused={followed.refused} />
      </Followed>
    );
  }
  return (
    <div data-testid="result-followed" data-followed="latest" className="space-y-1">
      <p className="text-[11px] text-neutral-500">The run moved on after this page's call returned: this is its latest result.</p>
      <RefusedWait refused={followed.refused} />
    </div>
  );
}

function RefusedWait({ refused }: { refused: string | undefined }) {
  if (refused === undefined) return null;
  return (
    <p data-testid="result-refused-wait" className="text-[11px] text-amber-300">
      The Gateway turned your Wait down (the run is not lost): {refused}
    </p>
  );
}
