'use client';
// The agent turn the page's cells run in: prepared on load and whenever agent, model or client tools change.
import { useCallback, useEffect, useRef, useState } from 'react';
import { API_URL, useTRPCClient } from '../trpc.ts';
import { errorMessage } from './errors.ts';
import type { TurnRequest } from '../../server/gateway-types.ts';
import type { Turn as TurnInfo } from '../api.ts';

const SESSION_KEY = 'codemode.sessionId';

export interface TurnState {
  turn?: TurnInfo;
  error?: string;
  preparing: boolean;
  /** Prepare a fresh turn (after the Gateway restarted, or to drop this turn's runs). */
  restart(): void;
  /** Start a new session: the session store starts empty. */
  newSession(): void;
}

function readSession(): string | undefined {
  try {
    return sessionStorage.getItem(SESSION_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

function writeSession(sessionId: string | undefined): void {
  try {
    if (sessionId) sessionStorage.setItem(SESSION_KEY, sessionId);
    else sessionStorage.removeItem(SESSION_KEY);
  } catch {
    // Storage can be disabled; the session then lasts as long as the tab.
  }
}

export function useTurn(request: TurnRequest | undefined): TurnState {
  const client = useTRPCClient();
  const [turn, setTurn] = useState<TurnInfo>();
  const [error, setError] = useState<string>();
  const [preparing, setPreparing] = useState(false);
  const [generation, setGeneration] = useState(0);
  const sessionRef = useRef<string | undefined>(undefined);
  const key = request ? JSON.stringify(request) : undefined;

  useEffect(() => {
    if (!key) return;
    sessionRef.current ??= readSession();
    const req: TurnRequest = JSON.parse(key) as TurnRequest;
    if (sessionRef.current) req.sessionId = sessionRef.current;
    let cancelled = false;
    let agentRunId: string | undefined;
    setPreparing(true);
    client.turns.prepare
      .mutate(req)
      .then((info) => {
        if (cancelled) {
          void client.turns.end.mutate({ agentRunId: info.agentRunId }).catch(() => undefined);
          return;
        }
        agentRunId = info.agentRunId;
        sessionRef.current = info.sessionId;
        writeSession(info.sessionId);
        setTurn(info);
        setError(undefined);
      })
      .catch((err: unknown) => {
        if (!cancelled) setError(errorMessage(err));
      })
      .finally(() => {
        if (!cancelled) setPreparing(false);
      });
    // A closed tab ends its turn too, so its waiting runs do not hold snapshots until the TTL.
    const onPageHide = () => {
      if (agentRunId) navigator.sendBeacon(`${API_URL}/turns.end`, new Blob([JSON.stringify({ agentRunId })], { type: 'application/json' }));
    };
    window.addEventListener('pagehide', onPageHide);
    return () => {
      cancelled = true;
      window.removeEventListener('pagehide', onPageHide);
      if (agentRunId) void client.turns.end.mutate({ agentRunId }).catch(() => undefined);
    };
  }, [key, generation, client]);

  const restart = useCallback(() => setGeneration((g) => g + 1), []);
  const newSession = useCallback(() => {
    sessionRef.current = undefined;
    writeSession(undefined);
    setGeneration((g) => g + 1);
  }, []);

  const state: TurnState = { preparing, restart, newSession };
  if (turn) state.turn = turn;
  if (error !== undefined) state.error = error;
  return state;
}
