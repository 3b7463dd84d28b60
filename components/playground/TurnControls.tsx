'use client';
// The header's turn controls: the agent (changing it ends the turn, so the page asks first) and the model.
import type { Agent } from '../api.ts';

export function TurnControls(props: { agents: readonly Agent[] | undefined; agentId: string | undefined; onAgentChange(agentId: string): void; model: string; onModelChange(model: string): void }) {
  const agent = props.agents?.find((a) => a.id === props.agentId);
  return (
    <>
      <label className="flex items-center gap-1 text-[11px] text-neutral-400">
        agent
        <select
          data-testid="agent-select"
          className="rounded border border-neutral-700 bg-neutral-950 px-1 py-0.5 text-xs text-neutral-200"
          value={props.agentId ?? ''}
          onChange={(e) => props.onAgentChange(e.target.value)}
        >
          {(props.agents ?? []).map((a) => (
            <option key={a.id} value={a.id}>
              {a.name ?? a.id}
            </option>
          ))}
        </select>
      </label>
      <label className="flex items-center gap-1 text-[11px] text-neutral-400">
        model
        <input
          data-testid="model-input"
          list="codemode-models"
          className="w-32 rounded border border-neutral-700 bg-neutral-950 px-1 py-0.5 font-mono text-xs text-neutral-200 placeholder:text-neutral-600"
          placeholder={agent?.model ?? 'agent default'}
          value={props.model}
          onChange={(e) => props.onModelChange(e.target.value)}
        />
        <datalist id="codemode-models">
          {[...new Set((props.agents ?? []).map((a) => a.model))].map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </label>
    </>
  );
}
