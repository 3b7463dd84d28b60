// How the page marks what a replay or a fork answered without running it: a run replayed from a cassette, and a nested
// call answered from a cassette or a fork's reply (the tool did not run, so its row must not read "ok").
import type { NestedCall } from '../api.ts';

/**
 * The badge text of a nested call answered without dispatching it, in place of "ok" or "error" (which would say the
 * tool ran): short, so the row keeps the tool's name; the badge is rose for an answered error, its title says more.
 */
export function answeredLabel(call: Pick<NestedCall, 'answeredBy'>): string | undefined {
  if (call.answeredBy === 'cassette') return 'replayed';
  if (call.answeredBy === 'fork') return 'fork reply';
  return undefined;
}

/** The badge's title: what the label means. */
export const ANSWERED_TITLE: Record<NonNullable<NestedCall['answeredBy']>, string> = {
  cassette: 'replayed: answered from the cassette, the tool did not run',
  fork: "answered by the fork's reply, the tool did not run",
};

/** A run replayed from a cassette, said once where the run is shown. */
export function ReplayedNote(props: { replay: { runId?: string }; testId: string }) {
  return (
    <p data-testid={props.testId} className="text-[11px] text-violet-300">
      replayed from cassette{props.replay.runId !== undefined ? <> (recorded from run <span className="font-mono">{props.replay.runId}</span>)</> : null}:
      every tool call was answered from it, no tool ran
    </p>
  );
}
