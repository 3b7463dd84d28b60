'use client';
// The agent turn the page's cells run in: prepared on load and whenever agent or model change; client-tool edits update the live turn.
import { useCallback, useEffect, useRef, useState } from 'react';
import { API_URL, useTRPCClient } from '../trpc.ts';
import { errorMessage } from './errors.ts';
import type { Turn as TurnInfo, TurnRequest } from '../api.ts';

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
  // Client tools are not part of the turn's identity: editing them updates the live turn (its waiting
  // runs and saved results stay), while a new agent or model prepares a new turn.
  const { clientTools, ...base } = request ?? {};
  const key = request ? JSON.stringify(base) : undefined;
  const toolsKey = JSON.stringify(clientTools ?? []);
  const toolsRef = useRef(toolsKey);
  toolsRef.current = toolsKey;
  const appliedToolsRef = useRef<string | undefined>(undefined);

  useEffect(() => {
    if (!key) return;
    sessionRef.current ??= readSession();
    const req: TurnRequest = JSON.parse(key) as TurnRequest;
    const tools = toolsRef.current;
    req.clientTools = JSON.parse(tools) as NonNullable<TurnRequest['clientTools']>;
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
        appliedToolsRef.current = tools;
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

  const agentRunId = turn?.agentRunId;
  useEffect(() => {
    if (!agentRunId || appliedToolsRef.current === toolsKey) return;
    let cancelled = false;
    client.turns.updateClientTools
      .mutate({ agentRunId, clientTools: JSON.parse(toolsKey) as NonNullable<TurnRequest['clientTools']> })
      .then((info) => {
        if (cancelled) return;
        appliedToolsRef.current = toolsKey;
        setTurn(info);
        setError(undefined);
      })
      .catch((err: unknown) => {
        if (!cancelled) setError(errorMessage(err));
      });
    return () => {
      cancelled = true;
    };
  }, [agentRunId, toolsKey, client]);

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
