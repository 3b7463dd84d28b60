'use client';
// The page's "Run on all executors": one compare call (each executor its own run), its rows, and whether it is in flight.
import { useMutation } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import type { CompareRequest, ComparisonRow } from '../api.ts';
import { useTRPC } from '../trpc.ts';
import { errorMessage } from './errors.ts';

export interface Comparison {
  rows?: ComparisonRow[];
  running: boolean;
  error?: string;
  /** The code the rows are for (the editor may have moved on). */
  code?: string;
  /** Compare the cell `request()` names now (nothing while no turn is ready). */
  start(): void;
  clear(): void;
}

export function useCompare(request: () => CompareRequest | undefined): Comparison {
  const trpc = useTRPC();
  const { mutateAsync } = useMutation(trpc.compare.mutationOptions());
  const [state, setState] = useState<{ rows?: ComparisonRow[]; running: boolean; error?: string; code?: string }>({ running: false });
  // the latest request builder: the page passes a fresh closure each render
  const latest = useRef(request);
  latest.current = request;
  const start = useCallback(() => {
    const req = latest.current();
    if (!req) return;
    const code = req.input.code ?? req.input.command ?? '';
    setState({ running: true, code });
    mutateAsync(req).then(
      (rows) => setState({ rows, running: false, code }),
      (err: unknown) => setState({ running: false, error: errorMessage(err), code }),
    );
  }, [mutateAsync]);
  const clear = useCallback(() => setState({ running: false }), []);
  return { ...state, start, clear };
}
