'use client';
// The turn's settings the page edits (agent, model, executor, typecheck and its inferred-types opt-in, client tools, loaded example): seeded from a link, mirrored into the URL.
import { useEffect, useState } from 'react';
import type { Dispatch, SetStateAction } from 'react';
import type { Agent, ClientToolSpec } from '../api.ts';
import type { TurnSettings } from './cellUrl.ts';
import { DEFAULT_CLIENT_TOOLS } from './clientTools.ts';
import { effectiveAgentId } from './turnRequest.ts';
import type { ExecutorChoice } from './EditorPanel.tsx';

export interface TurnSettingsState {
  agentId?: string;
  setAgentId(agentId: string): void;
  model: string;
  setModel(model: string): void;
  executor: ExecutorChoice;
  setExecutor(executor: ExecutorChoice): void;
  typecheck: boolean;
  setTypecheck(typecheck: boolean): void;
  /** The server typecheck also uses this turn's inferred output types (off unless the user ticks it). */
  typecheckInferred: boolean;
  setTypecheckInferred(typecheckInferred: boolean): void;
  clientTools: ClientToolSpec[];
  setClientTools(tools: ClientToolSpec[]): void;
  exampleId?: string;
  /** Takes an id, or an update of the current one (the editor's changes drop it once the cell no longer matches). */
  setExampleId: Dispatch<SetStateAction<string | undefined>>;
}

/**
 * `linked`: the settings of the link the page opened with; `defaultExampleId`: the example the cell starts as
 * when the link has no cell. An agent the link names that the Gateway does not list falls back to the first.
 */
export function useTurnSettings(opts: {
  linked: TurnSettings | undefined;
  defaultExampleId: string | undefined;
  agents: readonly Agent[] | undefined;
  write(settings: TurnSettings): void;
}): TurnSettingsState {
  const { linked, agents, write } = opts;
  const [agentId, setAgentId] = useState(linked?.agentId);
  const [model, setModel] = useState(linked?.model ?? '');
  const [executor, setExecutor] = useState<ExecutorChoice>(linked?.executor ?? 'default');
  const [typecheck, setTypecheck] = useState(linked?.typecheck ?? false);
  const [typecheckInferred, setTypecheckInferred] = useState(linked?.typecheckInferred ?? false);
  const [clientTools, setClientTools] = useState<ClientToolSpec[]>(linked?.clientTools ?? DEFAULT_CLIENT_TOOLS);
  const [exampleId, setExampleId] = useState(linked?.example ?? opts.defaultExampleId);

  useEffect(() => {
    const effective = effectiveAgentId(agentId, agents);
    if (effective !== agentId) setAgentId(effective);
  }, [agents, agentId]);

  useEffect(() => {
    const settings: TurnSettings = { clientTools };
    if (agentId) settings.agentId = agentId;
    if (model.trim()) settings.model = model.trim();
    if (executor !== 'default') settings.executor = executor;
    if (typecheck) settings.typecheck = true;
    if (typecheckInferred) settings.typecheckInferred = true;
    if (exampleId) settings.example = exampleId;
    write(settings);
  }, [agentId, model, executor, typecheck, typecheckInferred, clientTools, exampleId, write]);

  const state: TurnSettingsState = {
    setAgentId,
    model,
    setModel,
    executor,
    setExecutor,
    typecheck,
    setTypecheck,
    typecheckInferred,
    setTypecheckInferred,
    clientTools,
    setClientTools,
    setExampleId,
  };
  if (agentId !== undefined) state.agentId = agentId;
  if (exampleId !== undefined) state.exampleId = exampleId;
  return state;
}
