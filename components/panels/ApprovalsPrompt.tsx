'use client';
// Approvals prompt: nested calls waiting for an operator, with the tool, its input and the cell that asked (another Gateway's forwarded to it, naming it).
import { memo, useEffect, useRef, useState } from 'react';
import { JsonTree } from '../ui/JsonTree.tsx';
import { Button, ErrorNote } from '../ui/Panel.tsx';
import { formatDuration } from '../ui/format.ts';
import { useNow } from '../ui/useNow.ts';
import type { Approval } from '../api.ts';

function ApprovalCard(props: { approval: Approval; now: number; onDecide: (approvalId: string, approve: boolean, reason?: string) => Promise<void> }) {
  const { approval } = props;
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const decide = async (approve: boolean) => {
    setBusy(true);
    try {
      await props.onDecide(approval.approvalId, approve, reason.trim() || undefined);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <li data-testid="approval" data-approval-id={approval.approvalId} className="space-y-1.5 rounded border border-fuchsia-800/70 bg-fuchsia-950/20 p-2">
      <div className="flex items-center gap-2 text-xs">
        <span className="font-semibold text-fuchsia-200">Approve</span>
        <span data-testid="approval-tool" className="font-mono text-fuchsia-300">
          {approval.tool}
        </span>
        <span className="text-neutral-500">run {approval.runId}</span>
        <span className="ml-auto text-[11px] text-neutral-400">asked {formatDuration(Math.max(0, props.now - approval.requestedAt))} ago; the cell's budget is paused</span>
      </div>
      <div className="rounded bg-neutral-950 p-1.5">
        <JsonTree value={approval.input} />
      </div>
      <details>
        <summary className="cursor-pointer text-[11px] text-neutral-400">the cell that asked</summary>
        <pre data-testid="approval-code" className="mt-1 max-h-40 overflow-auto rounded bg-neutral-950 p-1.5 font-mono text-[11px] text-neutral-300">
          {approval.code}
        </pre>
      </details>
      {error ? <ErrorNote title="Decision not recorded">{error}</ErrorNote> : null}
      {approval.heldBy !== undefined ? (
        <p data-testid="approval-held-by" className="text-[11px] text-sky-300">
          asked on Gateway <span className="font-mono">{approval.heldBy}</span>, which holds the run: the decision is forwarded to it.
        </p>
      ) : null}
      <div className="flex items-center gap-1.5">
        <Button kind="primary" testId="approval-approve" disabled={busy} onClick={() => void decide(true)}>
          Approve
        </Button>
        <Button kind="danger" testId="approval-deny" disabled={busy} onClick={() => void decide(false)}>
          Deny
        </Button>
        <input
          className="min-w-0 flex-1 rounded border border-neutral-800 bg-neutral-950 px-1.5 py-0.5 text-[11px]"
          aria-label="reason (optional, the cell sees it on deny)"
          placeholder="reason (optional, the cell sees it on deny)"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
    </li>
  );
}

const PROMPT_ID = 'approvals-prompt';

/** Brings the approvals prompt into view and focuses its first Approve button (the result panel's "show the prompt"). */
export function showApprovalsPrompt(): void {
  const prompt = document.getElementById(PROMPT_ID);
  if (!prompt) return;
  prompt.scrollIntoView({ block: 'nearest' });
  prompt.querySelector<HTMLButtonElement>('[data-testid=approval-approve]:not(:disabled)')?.focus({ preventScroll: true });
}

// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const ApprovalsPrompt = memo(function ApprovalsPrompt(props: {
  approvals: Approval[];
  onDecide: (approvalId: string, approve: boolean, reason?: string) => Promise<void>;
  /** Atop the runs column, or in the cell's column above the result (playground/layout.ts approvalsPlacement). */
  placement: 'runs' | 'cell';
}) {
  const now = useNow(1000, props.approvals.length > 0);
  const ref = useRef<HTMLElement>(null);
  const asking = props.approvals.length > 0;
  // In the cell's column the prompt comes into view when a question arrives: the user is at the cell, not below it.
  useEffect(() => {
    if (asking && props.placement === 'cell') ref.current?.scrollIntoView({ block: 'nearest' });
  }, [asking, props.placement]);
  if (!asking) return null;
  return (
    <section
      ref={ref}
      id={PROMPT_ID}
      data-testid="approvals-prompt"
      data-placement={props.placement}
      aria-labelledby={`${PROMPT_ID}-title`}
      className={`shrink-0 rounded border border-fuchsia-700 bg-neutral-900 p-2 shadow-lg shadow-fuchsia-950/40 ${props.placement === 'cell' ? 'max-h-[60vh] overflow-y-auto' : ''}`}
    >
      <h2 id={`${PROMPT_ID}-title`} className="mb-1.5 text-[11px] font-semibold uppercase tracking-wider text-fuchsia-300">
        Approvals pending ({props.approvals.length})
      </h2>
      <ul className="space-y-2">
        {props.approvals.map((a) => (
          <ApprovalCard key={a.approvalId} approval={a} now={now} onDecide={props.onDecide} />
        ))}
      </ul>
    </section>
  );
});
