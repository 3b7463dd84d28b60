'use client';
// Waiting runs board: suspended runs (and running ones asking the user, durable runs not resumed here, other Gateways' runs, answered through their holder) as cards that expand to pending calls, snapshot size and home, client answers; Wait/Abort, abort all.
import { Fragment, memo, useState } from 'react';
import type { ReactNode } from 'react';
import { JsonEditor } from '../ui/JsonEditor.tsx';
import { Button, Empty, ErrorNote, Panel } from '../ui/Panel.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { formatBytes, formatCountdown, formatDuration, percentOf, previewJson } from '../ui/format.ts';
import { useNow } from '../ui/useNow.ts';
import type { PendingToolCall, Run } from '../api.ts';
import { ForkForm, forkable } from './ForkForm.tsx';
import { ReplayedNote } from '../ui/Replayed.tsx';
import { HeldBy, HeldByNote } from './HeldElsewhere.tsx';

export interface ClientAnswer {
  runId: string;
  callId: string;
  result?: unknown;
  error?: string;
}

function SizeBar(props: { label: string; bytes: number; cap: number; color: string; testId: string }) {
  return (
    <div className="grid grid-cols-[3.5rem_1fr_auto] items-center gap-2 text-[11px]" data-testid={props.testId} data-bytes={props.bytes}>
      <span className="text-neutral-500">{props.label}</span>
      <div className="h-2 rounded bg-neutral-800" title={`${props.bytes} bytes of ${props.cap}`}>
        <div className={`h-2 rounded ${props.color}`} style={{ width: `${Math.max(0.5, percentOf(props.bytes, props.cap))}%` }} />
      </div>
      <span className="font-mono text-neutral-300">{formatBytes(props.bytes)}</span>
    </div>
  );
}

/** What each home of a waiting run's continuation means (the chip's tooltip); the chip shows the key. */
export const SNAPSHOT_HOME_TITLES: Record<NonNullable<Run['snapshotIn']>, string> = {
  memory: 'snapshot held in this Gateway process: a restart loses the run',
  store: 'snapshot sealed in the session database (runs.durable): it survives a restart, and Wait resumes it',
  live: 'live worker continuation: the VM keeps running in a worker, nothing is snapshotted; a restart loses the run',
};

function SnapshotHome(props: { run: Run }) {
  const home = props.run.snapshotIn;
  if (!home) return null;
  return (
    <span
      data-testid="waiting-snapshot-in"
      data-snapshot-in={home}
      title={SNAPSHOT_HOME_TITLES[home]}
      className={`rounded px-1 font-mono ${home === 'store' ? 'bg-emerald-950/60 text-emerald-300' : 'bg-neutral-800 text-neutral-300'}`}
    >
      {home}
    </span>
  );
}

/** The snapshot's size on the card: this suspension's stored bytes, or a row's (a durable run not resumed here). */
function snapshotBytes(run: Run): number | undefined {
  return run.snapshots[run.snapshots.length - 1]?.storedBytes ?? run.durableRow?.snapshotStoredBytes;
}

function ClientCallForm(props: { run: Run; call: Run['clientCalls'][number]; onAnswer: (a: ClientAnswer) => Promise<void>; onWait: () => void }) {
  // A running run gets the answer inline (the cell continues before its deadline); only a parked one needs a Wait.
  // Another Gateway's run gets the answer forwarded to that Gateway, where its own wait delivers it.
  const heldBy = props.run.heldBy?.gatewayId;
  const parked = props.run.state === 'waiting' && heldBy === undefined;
  const [text, setText] = useState('{ "answer": "yes" }');
  const [mode, setMode] = useState<'result' | 'error'>('result');
  const [error, setError] = useState<string>();
  const [sent, setSent] = useState(false);
  const send = async (thenWait: boolean) => {
    const answer: ClientAnswer = { runId: props.run.runId, callId: props.call.callId };
    if (mode === 'error') {
      if (!text.trim()) return setError('error: say what went wrong (the cell receives it as a thrown error)');
      answer.error = text.trim();
    } else {
      try {
        answer.result = JSON.parse(text);
      } catch (err) {
        return setError(`result: not JSON (${(err as Error).message}); write a JSON value such as {"answer":"yes"}`);
      }
    }
    setError(undefined);
    try {
      await props.onAnswer(answer);
      setSent(true);
      if (thenWait && parked) props.onWait();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div data-testid="client-call" data-call-id={props.call.callId} className="space-y-1 rounded border border-amber-900/60 bg-amber-950/20 p-2">
      <div className="text-[11px]">
        <span className="text-neutral-400">client call </span>
        <span className="font-mono text-amber-300">{props.call.tool}</span>
        <span className="ml-1 font-mono text-neutral-400">{previewJson(props.call.input, 160)}</span>
      </div>
      <div className="flex gap-3 text-[11px]">
        {(['result', 'error'] as const).map((m) => (
          <label key={m} className="flex items-center gap-1">
            <input type="radio" checked={mode === m} onChange={() => setMode(m)} data-testid={`client-call-mode-${m}`} />
            {m === 'result' ? 'result (JSON)' : 'error (message)'}
          </label>
        ))}
      </div>
      <JsonEditor
        label={`${mode === 'result' ? 'result (JSON)' : 'error message'} for client call ${props.call.tool}`}
        testId="client-call-input"
        heightClassName="h-14"
        value={text}
        onChange={setText}
      />
      {error ? <ErrorNote title="Answer not sent">{error}</ErrorNote> : null}
      <div className="flex items-center gap-1.5">
        {parked ? (
          <Button kind="primary" testId="client-call-send-wait" onClick={() => void send(true)}>
            Send & wait
          </Button>
        ) : null}
        <Button kind={parked ? 'default' : 'primary'} testId="client-call-send" onClick={() => void send(false)}>
          Send
        </Button>
        {sent ? (
          <span className="text-[11px] text-emerald-300">
            {heldBy !== undefined ? `answered on Gateway ${heldBy}, which holds the run` : parked ? 'answered; Wait delivers it to the cell' : 'answered; the running cell continues'}
          </span>
        ) : null}
      </div>
    </div>
  );
}

function WaitingRun(props: {
  run: Run;
  now: number;
  waiting: boolean;
  /** Open at first: the page's selected run, and a run asking the user something. */
  initiallyOpen: boolean;
  queuedBehind?: QueuedBehind | undefined;
  onWait: (run: Run) => void;
  onAbort: (run: Run) => void;
  onAnswer: (a: ClientAnswer) => Promise<void>;
}) {
  const { run, now } = props;
  const [open, setOpen] = useState(props.initiallyOpen);
  const [forking, setForking] = useState(false);
  // A client call that arrives later opens the card: a question to the user must not hide behind a toggle.
  const expanded = open || run.clientCalls.length > 0;
  const snapshot = run.snapshots[run.snapshots.length - 1];
  return (
    <li
      data-testid="waiting-run"
      data-run-id={run.runId}
      data-expanded={expanded}
      className={`space-y-1.5 rounded border bg-neutral-950/50 px-2 py-1 ${run.state === 'running' ? 'border-sky-900/60' : 'border-amber-900/50'}`}
    >
      {/* Two lines: who (state, id) and what to do on the first, why it waits and for how long on the second; one line
          at 1440 px squeezed the reason to "p" and dropped the pending count. */}
      <div className="flex items-center gap-2 whitespace-nowrap">
        <button
          type="button"
          data-testid="waiting-run-toggle"
          aria-expanded={expanded}
          aria-label={`${expanded ? 'collapse' : 'expand'} run ${run.runId}`}
          onClick={() => setOpen(!expanded)}
          className="flex min-w-0 flex-1 items-center gap-2 text-left"
        >
          <span className="text-[10px] text-neutral-500">{expanded ? '▾' : '▸'}</span>
          <StatusBadge status={run.state} />
          {/* the id gives way first on a narrow board (its title keeps the whole id) */}
          <span data-testid="waiting-run-id" className="min-w-[7ch] truncate font-mono text-xs text-neutral-200" title={run.runId}>
            {run.runId}
          </span>
        </button>
        {/* another Gateway's run is waited on there; a durable one (durableRow) any Gateway resumes */}
        {run.state === 'waiting' && (!run.heldBy || run.durableRow) ? (
          <Button kind="primary" testId="wait-button" disabled={props.waiting} onClick={() => props.onWait(run)}>
            {props.waiting ? 'Waiting…' : 'Wait'}
          </Button>
        ) : null}
        {run.state === 'waiting' ? (
          <Button
            testId="fork-button"
            disabled={!forkable(run)}
            title={
              forkable(run)
                ? 'fork: restore this snapshot into a new run, with edited replies'
                : run.heldBy && !run.durableRow
                  ? `fork needs the run held here: Gateway ${run.heldBy.gatewayId} holds it`
                  : run.durableRow
                  ? 'fork needs the run held here: Wait resumes it from the session database first'
                  : `fork needs a snapshot; a ${run.executor} run keeps a live context`
            }
            onClick={() => setForking(!forking)}
          >
            Fork
          </Button>
        ) : null}
        {/* a stored row is aborted from its row, another Gateway's run is aborted there (forwarded): only with durable
            runs, whose key seals the request; a run known by its ids alone is that Gateway's page's to abort */}
        {run.heldBy?.detail === 'ids' ? null : (
          <Button kind="danger" testId="abort-button" onClick={() => props.onAbort(run)}>
            Abort
          </Button>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-x-2 gap-y-0.5 pl-4 text-[11px]">
        <span data-testid="waiting-reason" className="rounded bg-neutral-800 px-1 font-mono text-neutral-300">
          {run.state === 'running' ? 'asks the user' : run.durableRow ? 'parked' : (run.reason ?? '?')}
        </span>
        {run.heldBy && run.heldBy.detail === 'ids' ? (
          <span data-testid="waiting-summary" className="text-neutral-400" title="without runs.durable another Gateway shares its runs' ids, state and counts only">
            {run.heldBy.approvals} to approve · {run.heldBy.clientCalls} to answer on that Gateway
          </span>
        ) : run.durableRow && !run.heldBy ? (
          <span data-testid="waiting-summary" className="text-neutral-400" title="the pending calls are sealed with the snapshot: Wait resumes the run and dispatches them">
            restored from store · not yet resumed
          </span>
        ) : (
          <span data-testid="waiting-summary" className="text-neutral-400">
            {run.pendingToolCalls.length} pending{run.clientCalls.length > 0 ? ` · ${run.clientCalls.length} to answer` : ''}
          </span>
        )}
        <HeldBy run={run} />
        <SnapshotHome run={run} />
        {snapshotBytes(run) !== undefined ? (
          <span data-testid="waiting-snapshot-bytes" className="font-mono text-neutral-400" title="snapshot bytes stored (what maxSnapshotBytes is checked against)">
            {formatBytes(snapshotBytes(run) ?? 0)}
          </span>
        ) : null}
        {run.state === 'waiting' ? (
          <span className="text-neutral-400" title="snapshot TTL: the run expires unless waited on">
            expires in{' '}
            <span data-testid="waiting-ttl" className="font-mono text-amber-300">
              {run.expiresAt !== undefined ? formatCountdown(run.expiresAt, now) : '—'}
            </span>
          </span>
        ) : null}
      </div>
      {run.replay ? <ReplayedNote replay={run.replay} testId="waiting-replayed" /> : null}
      {run.forkedFrom ? (
        <div data-testid="forked-from" className="text-[11px] text-violet-300">
          forked from <span className="font-mono">{run.forkedFrom.runId}</span> at suspension {run.forkedFrom.suspension}
        </div>
      ) : null}
      {forking && forkable(run) ? <ForkForm run={run} onClose={() => setForking(false)} /> : null}
      {expanded ? <WaitingRunDetail run={run} now={now} snapshot={snapshot} queuedBehind={props.queuedBehind} onWait={props.onWait} onAnswer={props.onAnswer} /> : null}
    </li>
  );
}

/** What a pending call waits behind in its turn (live/runsState.ts queuedBehind), when it only looks running. */
export type QueuedBehind = (run: Run, call: PendingToolCall) => { tool: string; runId: string; state: string } | undefined;

function WaitingRunDetail(props: {
  run: Run;
  now: number;
  queuedBehind?: QueuedBehind | undefined;
  snapshot: Run['snapshots'][number] | undefined;
  onWait: (run: Run) => void;
  onAnswer: (a: ClientAnswer) => Promise<void>;
}): ReactNode {
  const { run, now, snapshot } = props;
  const row = run.durableRow;
  const sizes = snapshot ?? (row ? { rawBytes: row.snapshotRawBytes, storedBytes: row.snapshotStoredBytes } : undefined);
  return (
    <div className="space-y-1.5 pb-1" data-testid="waiting-run-detail">
      <div className="text-[11px] text-neutral-500">
        {run.client !== undefined ? `${run.client} · ` : ''}{run.agentId} · {run.executor} · turn {run.agentRunId}
      </div>
      <HeldByNote run={run} />
      {run.durableRow && !run.heldBy ? (
        <p data-testid="waiting-durable-row" className="text-[11px] text-emerald-300">
          parked {formatDuration(Math.max(0, now - run.durableRow.parkedAt))} ago by Gateway <span className="font-mono">{run.durableRow.parkedBy}</span>, before
          this process held it: its source, calls and pending calls are sealed in the session database.{' '}
          {run.durableRow.state === 'resuming' && run.durableRow.lease
            ? `Gateway ${run.durableRow.lease.holder} is resuming it right now.`
            : 'Wait restores it here and resumes the cell.'}
        </p>
      ) : null}
      {run.pendingToolCalls.length > 0 ? (
        <table className="w-full table-fixed font-mono text-[11px]">
          <thead className="text-left text-neutral-500">
            <tr>
              <th className="w-1/4 font-normal">tool</th>
              <th className="font-normal">input</th>
              <th className="w-24 font-normal">state</th>
              <th className="w-16 text-right font-normal">pending</th>
            </tr>
          </thead>
          <tbody>
            {run.pendingToolCalls.map((p) => {
              const behind = props.queuedBehind?.(run, p);
              return (
                <Fragment key={p.id}>
                  <tr data-testid="pending-call" data-state={behind ? 'queued' : p.state}>
                    <td className="truncate text-sky-300">{p.tool}</td>
                    <td className="truncate text-neutral-400" title={previewJson(p.input, 2000)}>
                      {previewJson(p.input, 200)}
                    </td>
                    <td className="text-neutral-400">{behind ? 'queued' : p.state}</td>
                    <td className="text-right text-neutral-300">{formatDuration(Math.max(0, now - p.startedAt))}</td>
                  </tr>
                  {behind ? (
                    <tr data-testid="pending-queued-behind">
                      <td colSpan={4} className="whitespace-normal pb-0.5 font-sans text-amber-300">
                        ↳ queued behind {behind.tool} ({behind.state}) in {behind.runId}: the turn runs sequential tools one at a time, across its runs
                        {behind.state === 'awaiting_client' ? '; answer or abort that run to let this one start' : ''}
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      ) : run.durableRow ? null : (
        <p className="text-[11px] text-neutral-500">{run.reason === 'yield' ? 'yielded: no pending calls, Wait continues the cell' : 'no pending calls reported'}</p>
      )}
      {sizes ? (
        <div className="space-y-0.5" data-testid="waiting-snapshot">
          <div className="text-[11px] text-neutral-500">
            snapshot vs maxSnapshotBytes {formatBytes(run.maxSnapshotBytes)} (checked against stored)
          </div>
          <SizeBar label="raw" bytes={sizes.rawBytes} cap={run.maxSnapshotBytes} color="bg-neutral-500" testId="snapshot-raw" />
          <SizeBar label="stored" bytes={sizes.storedBytes} cap={run.maxSnapshotBytes} color="bg-amber-500" testId="snapshot-stored" />
        </div>
      ) : run.retainedBytesEstimate !== undefined ? (
        <div data-testid="waiting-retained" className="text-[11px] text-neutral-400">
          live worker continuation, about {formatBytes(run.retainedBytesEstimate)} retained (an estimate; {run.executor} keeps no snapshot)
        </div>
      ) : null}
      {run.clientCalls.map((call) => (
        <ClientCallForm key={call.callId} run={run} call={call} onAnswer={props.onAnswer} onWait={() => props.onWait(run)} />
      ))}
    </div>
  );
}

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const WaitingBoard = memo(function WaitingBoard(props: {
  runs: Run[];
  waitingFor: Set<string>;
  selectedRunId?: string | undefined;
  onWait: (run: Run) => void;
  onAbort: (run: Run) => void;
  onAnswer: (a: ClientAnswer) => Promise<void>;
  /** Aborts every waiting run of the page's turn; absent when the board shows no run of it. */
  onAbortAll?: (() => void) | undefined;
  queuedBehind?: QueuedBehind | undefined;
}) {
  const now = useNow(1000, props.runs.length > 0);
  return (
    <Panel
      title={`Waiting runs (${props.runs.length})`}
      testId="waiting-board"
      actions={
        props.onAbortAll ? (
          <Button kind="danger" testId="abort-all-waiting" onClick={props.onAbortAll} title="abort every waiting run of this turn">
            abort all waiting
          </Button>
        ) : null
      }
    >
      {props.runs.length === 0 ? (
        <Empty testId="waiting-empty">No suspended runs. A cell waits when a nested call outlasts the exec deadline or it calls yield_control.</Empty>
      ) : (
        <ul className="space-y-1">
          {props.runs.map((run) => (
            <WaitingRun
              key={run.runId}
              run={run}
              now={now}
              waiting={props.waitingFor.has(run.runId)}
              initiallyOpen={run.runId === props.selectedRunId}
              onWait={props.onWait}
              onAbort={props.onAbort}
              onAnswer={props.onAnswer}
              queuedBehind={props.queuedBehind}
            />
          ))}
        </ul>
      )}
    </Panel>
  );
});
