'use client';
// The current turn's session: the store and transcript views, branching and compacting it, and what those actions said.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { memo, useState } from 'react';
import { useTRPC, useTRPCClient } from '../trpc.ts';
import { loadBranch } from '../session/transcriptPages.ts';
import { SessionStoreView } from '../session/SessionStore.tsx';
import { SessionTranscriptView } from '../session/SessionTranscript.tsx';
import type { BranchPoint } from '../session/transcriptView.ts';
import { Button, Empty, ErrorNote, Panel } from '../ui/Panel.tsx';
import { errorMessage } from '../playground/errors.ts';
import type { Run } from '../api.ts';

/** The outcome of the last branch or compaction, shown until the next action or a session change. */
type ActionNote = { kind: 'done'; text: string } | { kind: 'refused'; title: string; text: string };

/** A run that holds the session: the Gateway refuses to branch or compact until it settles or is aborted. */
function liveRunOf(runs: readonly Run[], sessionId: string | undefined): Run | undefined {
  return sessionId === undefined ? undefined : runs.find((r) => r.sessionId === sessionId && (r.state === 'running' || r.state === 'waiting'));
}

function CompactForm(props: { busy: boolean; onCompact(summary: string): void; onCancel(): void }) {
  const [summary, setSummary] = useState('');
  return (
    <form
      data-testid="session-compact-form"
      className="space-y-1 rounded border border-neutral-800 bg-neutral-950/60 p-1.5"
      onSubmit={(e) => {
        e.preventDefault();
        props.onCompact(summary);
      }}
    >
      <label className="block text-[11px] text-neutral-400" htmlFor="session-compact-summary">
        Summary of the conversation so far (model context restarts from it; the store keeps every value)
      </label>
      <textarea
        id="session-compact-summary"
        data-testid="session-compact-summary"
        value={summary}
        onChange={(e) => setSummary(e.target.value)}
        rows={2}
        placeholder="Leave empty for a generated one: the calls and the store keys they set"
        className="w-full resize-y rounded border border-neutral-700 bg-neutral-900 px-1.5 py-1 font-mono text-[11px] text-neutral-200"
      />
      <div className="flex gap-1.5">
        <Button kind="primary" type="submit" testId="session-compact-submit" disabled={props.busy}>
          Compact
        </Button>
        <Button kind="ghost" testId="session-compact-cancel" onClick={props.onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

/** Its queries refetch when the events subscription reports an entry appended to this session (see useLiveRuns). */
// memo: the page re-renders on every live event; this panel only when its own props change (issue 14)
export const SessionPanel = memo(function SessionPanel(props: { sessionId?: string; runs: Run[]; selectedRunId?: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const { sessionId } = props;
  const input = { sessionId: sessionId ?? '' };
  const storeQuery = useQuery({ ...trpc.sessions.store.queryOptions(input), enabled: sessionId !== undefined });
  // the transcript comes a bounded page at a time (sessions.transcript pages it); under the procedure's key, so the
  // live events' invalidation (useLiveRuns) reloads it
  const transcriptQuery = useQuery({
    queryKey: trpc.sessions.transcript.queryKey(input),
    queryFn: ({ signal }) => loadBranch((after) => client.sessions.transcript.query({ ...input, ...(after !== undefined ? { after } : {}) }, { signal })),
    enabled: sessionId !== undefined,
  });
  const branchMutation = useMutation(trpc.sessions.branch.mutationOptions());
  const compactMutation = useMutation(trpc.sessions.compact.mutationOptions());
  const [note, setNote] = useState<ActionNote>();
  const [compacting, setCompacting] = useState(false);

  // another session: the last action's note and an open compact form belonged to the one before (adjusted while
  // rendering, not in an effect: a hidden tab's effects run again each time it is shown, which would clear them)
  const [noteSessionId, setNoteSessionId] = useState(sessionId);
  if (noteSessionId !== sessionId) {
    setNoteSessionId(sessionId);
    setNote(undefined);
    setCompacting(false);
  }

  const store = storeQuery.data ?? [];
  const branch = transcriptQuery.data?.entries ?? [];
  const unread = (transcriptQuery.data?.total ?? 0) - branch.length;
  const error = storeQuery.error ?? transcriptQuery.error;
  const busy = branchMutation.isPending || compactMutation.isPending;
  const liveRun = liveRunOf(props.runs, sessionId);
  const holdHint = liveRun ? ` (refused while run ${liveRun.runId} is ${liveRun.state}: wait for it or abort it first)` : '';

  const onBranch = (point: BranchPoint) => {
    if (!sessionId) return;
    setNote(undefined);
    branchMutation.mutate(
      { sessionId, entryId: point.entryId },
      {
        onSuccess: (next) => {
          const left = Math.max(0, (transcriptQuery.data?.total ?? branch.length) - next.total);
          void queryClient.invalidateQueries(trpc.sessions.pathFilter());
          setNote({
            kind: 'done',
            text: `Branched at ${point.label}: ${left} later ${left === 1 ? 'entry' : 'entries'} left the branch (still stored). The next cell appends here and load() sees the store as it was.`,
          });
        },
        onError: (err) => setNote({ kind: 'refused', title: 'Cannot branch this session', text: errorMessage(err) }),
      },
    );
  };

  const onCompact = (summary: string) => {
    if (!sessionId) return;
    setNote(undefined);
    compactMutation.mutate(
      { sessionId, ...(summary.trim() !== '' ? { summary } : {}) },
      {
        onSuccess: (entry) => {
          setCompacting(false);
          void queryClient.invalidateQueries(trpc.sessions.pathFilter());
          setNote({ kind: 'done', text: `Compacted ${entry.payload.compactedEntries} entries. Model context restarts at the compaction; store replay still reads the whole branch.` });
        },
        onError: (err) => setNote({ kind: 'refused', title: 'Cannot compact this session', text: errorMessage(err) }),
      },
    );
  };

  return (
    <Panel
      title={
        <>
          Session{sessionId ? <span className="ml-1.5 font-mono normal-case tracking-normal text-neutral-300">{sessionId}</span> : null}
        </>
      }
      testId="session-panel"
      actions={
        sessionId ? (
          <Button
            testId="session-compact"
            kind="ghost"
            disabled={busy || branch.length === 0}
            onClick={() => setCompacting(!compacting)}
            title={`Summarize the branch so far: model context restarts from the summary, the store keeps every value${holdHint}`}
          >
            Compact…
          </Button>
        ) : null
      }
    >
      {!sessionId ? <Empty>No turn yet: the session appears once a turn is prepared.</Empty> : null}
      {error ? (
        <ErrorNote title="Cannot read this session" testId="session-error">
          {errorMessage(error)}
          {'\n'}Start a new session if the transcript is damaged; otherwise check the server log.
        </ErrorNote>
      ) : null}
      {note?.kind === 'refused' ? (
        <div className="mb-2">
          <ErrorNote title={note.title} testId="session-action-error">
            {note.text}
          </ErrorNote>
        </div>
      ) : null}
      {note?.kind === 'done' ? (
        <p data-testid="session-action-done" role="status" className="mb-2 rounded border border-sky-900/70 bg-sky-950/30 px-2 py-1 text-xs text-sky-200">
          {note.text}
        </p>
      ) : null}
      {sessionId && compacting ? (
        <div className="mb-2">
          <CompactForm busy={busy} onCompact={onCompact} onCancel={() => setCompacting(false)} />
        </div>
      ) : null}
      {sessionId && !error ? (
        <div className="space-y-3 font-mono text-[11px]">
          <SessionStoreView store={store} loading={storeQuery.isLoading} />
          <SessionTranscriptView branch={branch} loading={transcriptQuery.isLoading} busy={busy} onBranch={onBranch} {...(props.selectedRunId ? { selectedRunId: props.selectedRunId } : {})} />
          {unread > 0 ? (
            <p data-testid="session-transcript-unread" className="text-neutral-500">
              {unread} later {unread === 1 ? 'entry is' : 'entries are'} not shown: the branch is longer than the panel reads (branch or compact to shorten it).
            </p>
          ) : null}
        </div>
      ) : null}
    </Panel>
  );
});
