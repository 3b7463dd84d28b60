// How the page marks what a replay or a fork answered without running it: a run replayed from a cassette, and a nested
// call answered from a cassette or a fork's reply (the tool did not run, so its row must not read "ok").
import type { NestedCall } from '../api.ts';

/** The badge text of a nested call answered without dispatching it; undefined for a call that ran. */
export function answeredLabel(call: Pick<NestedCall, 'status' | 'answeredBy'>): string | undefined {
  if (call.answeredBy === 'cassette') return call.status === 'error' ? 'replayed error' : 'replayed';
  if (call.answeredBy === 'fork') return call.status === 'error' ? 'fork error' : 'fork reply';
  return undefined;
}

/** Where the answer came from, beside the call's kind. */
export const ANSWERED_FROM: Record<NonNullable<NestedCall['answeredBy']>, string> = {
  cassette: 'from cassette',
  fork: "from the fork's reply",
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
