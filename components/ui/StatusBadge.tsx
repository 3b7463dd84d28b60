// A colored badge for run, call and result states (completed, waiting, failed, running, ...).

const COLORS: Record<string, string> = {
  completed: 'bg-emerald-900/60 text-emerald-300 border-emerald-800',
  ok: 'bg-emerald-900/60 text-emerald-300 border-emerald-800',
  waiting: 'bg-amber-900/50 text-amber-300 border-amber-800',
  awaiting_client: 'bg-amber-900/50 text-amber-300 border-amber-800',
  awaiting_approval: 'bg-fuchsia-900/50 text-fuchsia-300 border-fuchsia-800',
  queued: 'bg-neutral-800 text-neutral-300 border-neutral-700',
  running: 'bg-sky-900/60 text-sky-300 border-sky-800',
  failed: 'bg-rose-900/60 text-rose-300 border-rose-800',
  error: 'bg-rose-900/60 text-rose-300 border-rose-800',
  expired: 'bg-neutral-800 text-neutral-400 border-neutral-700',
  aborted: 'bg-neutral-800 text-neutral-400 border-neutral-700',
  canceled: 'bg-neutral-800 text-neutral-400 border-neutral-700',
  settled: 'bg-emerald-900/60 text-emerald-300 border-emerald-800',
};

/** `label` replaces the shown text (a replayed call reads "replayed"): violet, rose for an answered error. */
export function StatusBadge(props: { status: string; testId?: string; label?: string | undefined; title?: string | undefined }) {
  const color = props.label !== undefined ? (LABELLED[props.status] ?? LABELLED_OTHER) : (COLORS[props.status] ?? 'bg-neutral-800 text-neutral-300 border-neutral-700');
  return (
    <span data-testid={props.testId} data-status={props.status} title={props.title} className={`inline-block rounded border px-1.5 py-px font-mono text-[11px] leading-4 ${color}`}>
      {props.label ?? props.status}
    </span>
  );
}

/** A labelled badge (an answer that did not come from running the tool): violet, rose when it answered an error. */
const LABELLED_OTHER = 'bg-violet-900/50 text-violet-300 border-violet-800';
const LABELLED: Record<string, string> = { error: 'bg-rose-900/60 text-rose-300 border-rose-800' };
