'use client';
// The agent turn the page's cells run in: kept per tab across reloads, prepared whenever agent or model change; client-tool edits update the live turn.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTRPCClient } from '../trpc.ts';
import { errorMessage } from './errors.ts';
import type { Turn as TurnInfo, TurnRequest } from '../api.ts';

const SESSION_KEY = 'codemode.sessionId';
/** This tab's turn and the agent and model it was prepared for (sessionStorage: per tab, gone when the tab closes). */
const TURN_KEY = 'codemode.turn';

interface StoredTurn {
  key: string;
  turn: TurnInfo;
}

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

function readStoredTurn(): StoredTurn | undefined {
  try {
    const raw = sessionStorage.getItem(TURN_KEY);
    return raw ? (JSON.parse(raw) as StoredTurn) : undefined;
  } catch {
    return undefined;
  }
}

function writeStoredTurn(stored: StoredTurn | undefined): void {
  try {
    if (stored) sessionStorage.setItem(TURN_KEY, JSON.stringify(stored));
    else sessionStorage.removeItem(TURN_KEY);
  } catch {
    // Storage can be disabled; a reload then prepares a new turn.
  }
}

/**
 * A reload keeps the tab's turn: the page rejoins the turn it stored (checked, and its client tools applied,
 * with turns.updateClientTools) instead of preparing one, so waiting runs can still be waited on and answered.
 * Closing the tab therefore does not end the turn: a page cannot tell a close from a reload, and the Gateway
 * ends turns left idle (TURN_IDLE_MS) and expires their snapshots (snapshotTtlSeconds).
 */
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
  // Only the first turn of a page load may be the stored one: "new turn" and agent changes prepare afresh.
  const mayRejoinRef = useRef(true);

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
    const stored = mayRejoinRef.current ? readStoredTurn() : undefined;
    mayRejoinRef.current = false;
    const prepare = () =>
      client.turns.prepare.mutate(req).then((info) => {
        if (cancelled) void client.turns.end.mutate({ agentRunId: info.agentRunId }).catch(() => undefined);
        return info;
      });
    // A stored turn the Gateway no longer knows (restarted, idled out, ended) is replaced by a new one.
    const rejoin = (turn: TurnInfo) =>
      client.turns.updateClientTools.mutate({ agentRunId: turn.agentRunId, turnToken: turn.turnToken, clientTools: req.clientTools ?? [] }).catch(() => prepare());
    (stored?.key === key ? rejoin(stored.turn) : prepare())
      .then((info) => {
        if (cancelled) return;
        agentRunId = info.agentRunId;
        appliedToolsRef.current = tools;
        sessionRef.current = info.sessionId;
        writeSession(info.sessionId);
        writeStoredTurn({ key, turn: info });
        setTurn(info);
        setError(undefined);
      })
      .catch((err: unknown) => {
        if (!cancelled) setError(errorMessage(err));
      })
      .finally(() => {
        if (!cancelled) setPreparing(false);
      });
    return () => {
      cancelled = true;
      if (agentRunId) {
        writeStoredTurn(undefined);
        void client.turns.end.mutate({ agentRunId }).catch(() => undefined);
      }
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
        if (key) writeStoredTurn({ key, turn: info });
        setTurn(info);
        setError(undefined);
      })
      .catch((err: unknown) => {
        if (!cancelled) setError(errorMessage(err));
      });
    return () => {
      cancelled = true;
    };
  }, [agentRunId, toolsKey, key, client]);

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
