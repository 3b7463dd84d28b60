'use client';
// After a reload: the selected run's last result, re-fetched with runs.get, so the result panel shows what it showed before.
import { useEffect, useRef } from 'react';
import { useTRPCClient } from '../trpc.ts';
import type { ExecResult } from '../api.ts';

/**
 * The model text is made by exec and wait for the model and not kept with the run: a re-fetched result says
 * so in its place rather than show an empty one.
 */
export const RESTORED_MODEL_TEXT = 'Not kept with the run: this result was re-fetched after a reload (runs.get). Wait or run again to see the model text.';

/** `runId`: the run the URL names (`?run=`); fetched once, and shown only while the page has not called exec or wait. */
export function useRestoredResult(runId: string | undefined, restore: (result: ExecResult) => void): void {
  const client = useTRPCClient();
  const done = useRef(false);
  useEffect(() => {
    if (!runId || done.current) return;
    done.current = true;
    client.runs.get
      .query({ runId })
      .then((run) => {
        if (run.lastResult) restore({ ...run.lastResult, modelText: RESTORED_MODEL_TEXT });
      })
      // A run the Gateway released (or a restarted Gateway) leaves the panel empty, as on a first visit.
      .catch(() => undefined);
  }, [runId, client, restore]);
}
