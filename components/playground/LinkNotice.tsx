'use client';
// A link the page could not fully use (an unknown agent, a damaged cell or setting): a notice says what was wrong and what is shown instead.
import { useState } from 'react';
import { agentLinkProblem } from './cellUrl.ts';
import type { CellUrlState } from './cellUrl.ts';
import { Button } from '../ui/Panel.tsx';
import type { Agent } from '../api.ts';

export function LinkNotice(props: { linked: CellUrlState; agents: readonly Agent[] | undefined }) {
  const [dismissed, setDismissed] = useState(false);
  const agentProblem = agentLinkProblem(props.linked.settings?.agentId, props.agents);
  const problems = [...(agentProblem ? [agentProblem] : []), ...(props.linked.problems ?? [])];
  if (dismissed || problems.length === 0) return null;
  return (
    <div data-testid="link-notice" role="status" className="flex items-start gap-2 border-b border-amber-900 bg-amber-950/50 px-3 py-1 text-xs text-amber-200">
      <div>
        <span className="font-semibold">This link was not used in full:</span>
        <ul className="list-disc pl-4">
          {problems.map((p) => (
            <li key={p}>{p}.</li>
          ))}
        </ul>
      </div>
      <Button kind="ghost" onClick={() => setDismissed(true)}>
        dismiss
      </Button>
    </div>
  );
}
