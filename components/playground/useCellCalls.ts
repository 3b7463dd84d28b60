'use client';
// The page's exec, wait and abort calls, each straight through the tRPC client: the call the result panel shows and the runs being waited on.
import { useCallback, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { useTRPCClient } from '../trpc.ts';
import { resultRunId } from './callState.ts';
import type { CellCall } from './callState.ts';
import { errorMessage } from './errors.ts';
import type { ExecRequest, ExecResult, Run } from '../api.ts';

export interface CellCalls {
  /** The latest exec or wait the page started: in flight, settled, or failed to reach the Gateway. */
  call?: CellCall;
  /** An exec is in flight (the editor's Run waits for it), whatever call the result panel shows meanwhile. */
  running: boolean;
  /** The tool-call id of the exec in flight, to find its run in the live list (Stop, selection). */
  runningToolCallId?: string;
  /** Runs with a wait in flight. */
  waitingFor: Set<string>;
  /** Why the last abort did nothing or failed. */
  actionError?: string;
  dismissActionError(): void;
  exec(request: Omit<ExecRequest, 'toolCallId'>): void;
  wait(runId: string, agentRunId: string): void;
  abort(run: Run): void;
  /** Forget the shown call (a new turn: its result belongs to a turn that ended). */
  clear(): void;
  /** Shows a result the page did not call for (the selected run's, re-fetched after a reload), unless a call has started since. */
  restore(result: ExecResult): void;
}

/** A tool-call id no other exec of this page shares: the page finds its run by it. */
function newToolCallId(): string {
  return `playground-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * `timeoutMs` is the budget each call gets (shown while it runs); `onRun` names the run an exec or wait is
 * about, so the page can show it. Calls go through the tRPC client, not useMutation: this hook keeps its own
 * state per call (the board can wait on several runs at once), and a mutation observer would re-render the
 * whole page twice more per call (pending, then settled) for state nobody reads (issue 14).
 */
export function useCellCalls(opts: { timeoutMs: number | undefined; onRun(runId: string): void; onExecShown?(): void }): CellCalls {
  const client = useTRPCClient();
  const [call, setCall] = useState<CellCall>();
  const callSeq = useRef(0);
  const [waitingFor, setWaitingFor] = useState<Set<string>>(() => new Set());
  const [actionError, setActionError] = useState<string>();
  // Kept apart from `call`: a Wait pressed on the board replaces the shown call, but Run stays disabled while
  // the page's own exec is still in flight.
  const [execInFlight, setExecInFlight] = useState<string>();
  const { timeoutMs, onRun, onExecShown } = opts;

  const start = useCallback(
    (tool: CellCall['tool'], runId?: string): CellCall => {
      callSeq.current += 1;
      const started: CellCall = { seq: callSeq.current, tool, startedAt: Date.now() };
      if (runId !== undefined) started.runId = runId;
      if (timeoutMs !== undefined) started.timeoutMs = timeoutMs;
      setCall(started);
      return started;
    },
    [timeoutMs],
  );

  const exec = useCallback(
    (request: Omit<ExecRequest, 'toolCallId'>) => {
      const toolCallId = newToolCallId();
      // the request leaves before the page re-renders for it (issue 14: Run pressed -> value shown)
      const response = client.exec.mutate({ ...request, toolCallId });
      const started = { ...start('exec'), toolCallId };
      setCall(started);
      setExecInFlight(toolCallId);
      // A Wait started meanwhile took the panel: the exec's result then comes back as the newest call (a fresh seq).
      const settleCall = (ended: CellCall) =>
        setCall((shown) => (shown?.seq === started.seq ? ended : { ...ended, seq: (callSeq.current += 1) }));
      const ended = () => setExecInFlight((current) => (current === toolCallId ? undefined : current));
      // the result, its run and the Run button in one render, now rather than after the tasks queued meanwhile;
      // then the work the page held back while the exec ran (`onExecShown`)
      const show = (render: () => void) => {
        flushSync(render);
        onExecShown?.();
      };
      response.then(
        (result) =>
          show(() => {
            settleCall({ ...started, endedAt: Date.now(), result });
            const runId = resultRunId(result);
            if (runId) onRun(runId);
            ended();
          }),
        (err: unknown) =>
          show(() => {
            settleCall({ ...started, endedAt: Date.now(), error: errorMessage(err) });
            ended();
          }),
      );
    },
    [start, client, onRun, onExecShown],
  );

  const wait = useCallback(
    (runId: string, agentRunId: string) => {
      setWaitingFor((s) => new Set(s).add(runId));
      const started = start('wait', runId);
      onRun(runId);
      client.wait
        .mutate({ agentRunId, runId })
        .then((result) => setCall({ ...started, endedAt: Date.now(), result }))
        .catch((err: unknown) => setCall({ ...started, endedAt: Date.now(), error: errorMessage(err) }))
        .finally(() =>
          setWaitingFor((s) => {
            const next = new Set(s);
            next.delete(runId);
            return next;
          }),
        );
    },
    [start, client, onRun],
  );

  const abort = useCallback(
    (run: Run) => {
      client.abort
        .mutate({ runId: run.runId })
        .then(({ aborted }) => setActionError(aborted ? undefined : `run ${run.runId} was no longer abortable (it settled or expired)`))
        .catch((err: unknown) => setActionError(errorMessage(err)));
    },
    [client],
  );

  const restore = useCallback((result: ExecResult) => {
    setCall((current) => {
      if (current) return current;
      callSeq.current += 1;
      const now = Date.now();
      return { seq: callSeq.current, tool: 'exec', startedAt: now, endedAt: now, result };
    });
  }, []);

  const dismissActionError = useCallback(() => setActionError(undefined), []);
  const clear = useCallback(() => setCall(undefined), []);
  const calls: CellCalls = { running: execInFlight !== undefined, waitingFor, dismissActionError, exec, wait, abort, clear, restore };
  if (execInFlight !== undefined) calls.runningToolCallId = execInFlight;
  if (call) calls.call = call;
  if (actionError !== undefined) calls.actionError = actionError;
  return calls;
}
