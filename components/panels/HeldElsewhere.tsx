'use client';
// Another Gateway's run on the waiting board: the chip naming its holder, the note on its card, and its client calls read-only (answered on the holder).
import { previewJson } from '../ui/format.ts';
import type { Run } from '../api.ts';

/** The chip of a run another Gateway holds: which one, and (its tooltip) what this page can do with it. */
export function HeldBy(props: { run: Run }) {
  const held = props.run.heldBy;
  if (!held) return null;
  return (
    <span
      data-testid="waiting-held-by"
      data-gateway={held.gatewayId}
      title={`held by Gateway ${held.gatewayId}: its approvals and client calls are answered on that Gateway's page${held.detail === 'ids' ? ' (without runs.durable only its ids, state and counts are shared)' : ''}${held.cut ? `; cut from this view: ${held.cut.join(', ')}` : ''}`}
      className="rounded bg-sky-950/60 px-1 font-mono text-sky-300"
    >
      on {held.gatewayId}
    </span>
  );
}

/** What the card of another Gateway's run says: who holds it, where to act on it, and what its view left out. */
export function HeldByNote(props: { run: Run }) {
  const { run } = props;
  if (!run.heldBy) return null;
  return (
    <p data-testid="waiting-held-by-note" className="text-[11px] text-sky-300">
      held by Gateway <span className="font-mono">{run.heldBy.gatewayId}</span>, as it last published the run: its approvals and client calls are answered
      there (act on it on that Gateway&apos;s page).{run.durableRow ? ' Wait takes the run over from the session database and resumes it here.' : ''}
      {run.heldBy.cut ? ` Cut from this view: ${run.heldBy.cut.join(', ')}.` : ''}
    </p>
  );
}

/** A client call of another Gateway's run: shown, not answerable here. */
export function ClientCallElsewhere(props: { gatewayId: string; call: Run['clientCalls'][number] }) {
  return (
    <div data-testid="client-call-elsewhere" data-call-id={props.call.callId} className="rounded border border-amber-900/60 bg-amber-950/20 p-2 text-[11px]">
      <span className="text-neutral-400">client call </span>
      <span className="font-mono text-amber-300">{props.call.tool}</span>
      <span className="ml-1 font-mono text-neutral-400">{previewJson(props.call.input, 160)}</span>
      <span className="ml-1 text-sky-300">: answer it on Gateway {props.gatewayId}&apos;s page</span>
    </div>
  );
}
