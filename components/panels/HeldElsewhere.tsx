'use client';
// Another Gateway's run on the waiting board: the chip naming its holder and the note on its card (what is answered here is forwarded to the holder).
import type { Run } from '../api.ts';

/** The chip of a run another Gateway holds: which one, and (its tooltip) what this page can do with it. */
export function HeldBy(props: { run: Run }) {
  const held = props.run.heldBy;
  if (!held) return null;
  return (
    <span
      data-testid="waiting-held-by"
      data-gateway={held.gatewayId}
      title={`held by Gateway ${held.gatewayId}: approvals, client-call answers and Abort from here are forwarded to it${held.detail === 'ids' ? ' (without runs.durable only its ids, state and counts are shared: act on it on that Gateway\'s page)' : ''}${held.cut ? `; cut from this view: ${held.cut.join(', ')}` : ''}`}
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
      held by Gateway <span className="font-mono">{run.heldBy.gatewayId}</span>, as it last published the run: approvals, client-call answers and Abort from
      here are forwarded to it{run.heldBy.detail === 'ids' ? ' (without runs.durable: act on them on that Gateway\'s page)' : ''}.
      {run.durableRow ? ' Wait takes the run over from the session database and resumes it here.' : ''}
      {run.heldBy.cut ? ` Cut from this view: ${run.heldBy.cut.join(', ')}.` : ''}
    </p>
  );
}
