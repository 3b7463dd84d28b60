'use client';
// The current turn's session: the committed session store and the transcript branch, branching and compacting it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { useTRPC } from '../trpc.ts';
import { branchPoint, buildTranscriptView, leafItemIndex, lineCount } from '../session/transcriptView.ts';
import type { BranchPoint, CallGroup, NestedActivityEntry, TranscriptItem } from '../session/transcriptView.ts';
import { JsonTree } from '../ui/JsonTree.tsx';
import { Button, Empty, ErrorNote, Panel } from '../ui/Panel.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { formatBytes, formatDuration } from '../ui/format.ts';
import { errorMessage } from '../playground/errors.ts';
import type { Run, SessionStoreEntry } from '../api.ts';

/** A store value's one-line preview: enough to recognize it; the row unfolds into a tree for the rest. */
export const MAX_VALUE_PREVIEW_CHARS = 72;

function NetworkFlag({ testId }: { testId?: string }) {
  return (
    <span
      data-testid={testId}
      title="network-content provenance: a cell that loads it is treated as holding untrusted content"
      className="rounded border border-amber-800 bg-amber-950/60 px-1 font-mono text-[10px] leading-4 text-amber-300"
    >
      network
    </span>
  );
}

/** What an item's "branch here" needs: where to branch (absent on the leaf and on items without a branch point). */
interface BranchAction {
  point?: BranchPoint;
  busy: boolean;
  onBranch(point: BranchPoint): void;
}

function BranchButton({ action }: { action: BranchAction }) {
  const { point } = action;
  if (!point) return null;
  return (
    <button
      type="button"
      data-testid="transcript-branch"
      data-entry-id={point.entryId}
      disabled={action.busy}
      onClick={() => action.onBranch(point)}
      title="End the session's branch here: later entries leave it (they stay stored), and the next cell's load() sees the store as it was here"
      className="whitespace-nowrap rounded border border-neutral-700 px-1 leading-4 text-neutral-400 hover:border-sky-700 hover:text-sky-300 disabled:cursor-not-allowed disabled:opacity-40"
    >
      branch here
    </button>
  );
}

function LeafMark() {
  return (
    <span data-testid="transcript-leaf" title="the session's current leaf: the next cell appends here" className="whitespace-nowrap text-[10px] text-sky-400">
      ● leaf
    </span>
  );
}

function parseJson(json: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(json) as unknown };
  } catch {
    return undefined;
  }
}

function StoreRow({ entry }: { entry: SessionStoreEntry }) {
  const [open, setOpen] = useState(false);
  const preview = entry.json.length > MAX_VALUE_PREVIEW_CHARS ? `${entry.json.slice(0, MAX_VALUE_PREVIEW_CHARS - 1)}…` : entry.json;
  const parsed = open ? parseJson(entry.json) : undefined;
  return (
    <li data-testid="session-store-row" data-key={entry.key} data-network={entry.networkContent ? 'true' : 'false'}>
      <button
        type="button"
        onClick={() => setOpen(!open)}
        aria-expanded={open}
        className="grid w-full grid-cols-[minmax(4rem,auto)_1fr_auto] items-center gap-2 rounded px-1 py-px text-left hover:bg-neutral-800"
      >
        <span data-testid="session-store-key" className="truncate text-sky-300">
          <span className="mr-1 text-neutral-600">{open ? '▾' : '▸'}</span>
          {entry.key}
        </span>
        <span data-testid="session-store-value" className="truncate text-emerald-300/90" title={preview}>
          {preview}
        </span>
        {entry.networkContent ? <NetworkFlag testId="session-store-network" /> : <span />}
      </button>
      {open ? (
        <div className="ml-4 rounded bg-neutral-950 p-1">
          {parsed ? <JsonTree value={parsed.value} /> : <pre className="whitespace-pre-wrap break-all text-neutral-300">{entry.json}</pre>}
        </div>
      ) : null}
    </li>
  );
}

function NestedRow({ entry }: { entry: NestedActivityEntry }) {
  const n = entry.payload;
  return (
    <li data-testid="transcript-nested" data-tool={n.tool} data-kind={n.kind} data-status={n.status} className="grid grid-cols-[1fr_auto_auto_auto] items-center gap-2 py-px pl-4">
      <span className="truncate">
        <span className="text-neutral-600">└ </span>
        <span className="text-sky-300">{n.tool}</span>
        <span className="ml-1.5 text-neutral-500">{n.kind}</span>
        {n.errorCode ? <span className="ml-1.5 text-rose-300">{n.errorCode}</span> : null}
      </span>
      <StatusBadge status={n.status} />
      <span className="w-14 text-right text-neutral-400">{n.endedAt !== undefined ? formatDuration(Math.max(0, n.endedAt - n.startedAt)) : '…'}</span>
      <span className="w-24 text-right text-neutral-500" title="input / output bytes">
        {formatBytes(n.inputBytes)} → {n.outputBytes !== undefined ? formatBytes(n.outputBytes) : '…'}
      </span>
    </li>
  );
}

function CallItem({ group, branch, leaf }: { group: CallGroup; branch: BranchAction; leaf: boolean }) {
  const c = group.call.payload;
  const source = c.code ?? c.command;
  const status = group.result?.payload.status ?? 'running';
  const runId = group.result?.payload.runId ?? c.runId;
  return (
    <li data-testid="transcript-call" data-tool={c.tool} data-status={status} data-tool-call-id={c.toolCallId} className="rounded border border-neutral-800/80 bg-neutral-950/40 px-1.5 py-1">
      <div className="flex items-center gap-2">
        <span className="font-semibold text-neutral-100">{c.tool}</span>
        <StatusBadge status={status} />
        <span className="truncate text-neutral-500" title="the model's tool-call id">
          {c.toolCallId}
        </span>
        <span className="ml-auto whitespace-nowrap text-neutral-600">{new Date(group.call.createdAt).toLocaleTimeString()}</span>
        {leaf ? <LeafMark /> : <BranchButton action={branch} />}
      </div>
      {source !== undefined ? (
        <details data-testid="transcript-source" className="mt-0.5">
          <summary className="cursor-pointer text-neutral-500 hover:text-neutral-300">
            {c.command !== undefined && c.code === undefined ? 'command' : 'source'} · {c.language ?? 'javascript'} · {lineCount(source)} lines (redacted)
          </summary>
          <pre className="mt-0.5 max-h-48 overflow-auto whitespace-pre rounded bg-neutral-950 p-1.5 text-neutral-300">{source}</pre>
        </details>
      ) : null}
      {c.tool === 'wait' && c.runId ? <div className="text-neutral-500">continues {c.runId}</div> : null}
      {group.nested.length > 0 ? (
        <ul className="mt-0.5">
          {group.nested.map((n) => (
            <NestedRow key={n.id} entry={n} />
          ))}
        </ul>
      ) : null}
      {group.result ? (
        <details data-testid="transcript-result" data-status={group.result.payload.status} className="mt-0.5">
          <summary className="cursor-pointer text-neutral-400 hover:text-neutral-200">
            <span className="text-neutral-600">→ </span>
            result <span className={status === 'failed' ? 'text-rose-300' : status === 'waiting' ? 'text-amber-300' : 'text-emerald-300'}>{group.result.payload.status}</span>
            {group.result.payload.errorCode ? <span className="ml-1.5 text-rose-300">{group.result.payload.errorCode}</span> : null}
            {runId ? <span className="ml-1.5 text-neutral-500">{runId}</span> : null}
          </summary>
          <pre className="mt-0.5 max-h-40 overflow-auto whitespace-pre-wrap break-all rounded bg-neutral-950 p-1.5 text-neutral-300">{group.result.payload.text}</pre>
        </details>
      ) : null}
    </li>
  );
}

function Item({ item, branch, leaf }: { item: TranscriptItem; branch: BranchAction; leaf: boolean }) {
  const tail = leaf ? <LeafMark /> : <BranchButton action={branch} />;
  switch (item.kind) {
    case 'call':
      return <CallItem group={item} branch={branch} leaf={leaf} />;
    case 'store': {
      const p = item.entry.payload;
      return (
        <li data-testid="transcript-store-commit" className="flex flex-wrap items-center gap-x-1.5 px-1.5 text-neutral-400">
          <span className="text-neutral-500">store commit</span>
          {p.sets.map((s) => (
            <span key={`set:${s.key}`} className="inline-flex items-center gap-1">
              <span className="text-sky-300">set {s.key}</span>
              {s.networkContent ? <NetworkFlag /> : null}
            </span>
          ))}
          {p.deletes.map((key) => (
            <span key={`del:${key}`} className="text-rose-300/80">
              delete {key}
            </span>
          ))}
          <span className="text-neutral-600">{p.runId}</span>
          {leaf ? <span className="ml-auto">{tail}</span> : null}
        </li>
      );
    }
    case 'compaction':
      return (
        <li data-testid="transcript-compaction" className="border-y border-dashed border-neutral-700 px-1.5 py-0.5 text-neutral-400">
          <div className="flex items-center gap-1.5">
            <span>
              <span className="text-fuchsia-300">compaction</span> · {item.entry.payload.compactedEntries} entries summarized
            </span>
            <span className="ml-auto">{tail}</span>
          </div>
          <div className="whitespace-pre-wrap text-neutral-500">{item.entry.payload.summary}</div>
        </li>
      );
    case 'message':
      return (
        <li data-testid="transcript-message" className="flex items-start gap-1.5 px-1.5 text-neutral-300">
          <span>
            <span className="text-neutral-500">{item.entry.payload.role}: </span>
            <span className="whitespace-pre-wrap">{item.entry.payload.text}</span>
          </span>
          <span className="ml-auto">{tail}</span>
        </li>
      );
    case 'orphan': {
      const e = item.entry;
      return (
        <li data-testid="transcript-orphan" className="px-1.5 text-neutral-500">
          {e.type === 'nested-activity' ? (
            <ul>
              <NestedRow entry={e} />
            </ul>
          ) : (
            <span>
              result of {e.payload.tool} {e.payload.toolCallId} (its call is not on this branch): <StatusBadge status={e.payload.status} />
            </span>
          )}
        </li>
      );
    }
  }
}

function Section(props: { title: string; count: number; children: ReactNode }) {
  return (
    <section>
      <h3 className="mb-1 flex items-center gap-1.5 text-[11px] font-semibold text-neutral-400">
        {props.title}
        <span className="font-normal text-neutral-600">{props.count}</span>
      </h3>
      {props.children}
    </section>
  );
}

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
export function SessionPanel(props: { sessionId?: string; runs: Run[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { sessionId } = props;
  const input = { sessionId: sessionId ?? '' };
  const storeQuery = useQuery({ ...trpc.sessions.store.queryOptions(input), enabled: sessionId !== undefined });
  const transcriptQuery = useQuery({ ...trpc.sessions.transcript.queryOptions(input), enabled: sessionId !== undefined });
  const branchMutation = useMutation(trpc.sessions.branch.mutationOptions());
  const compactMutation = useMutation(trpc.sessions.compact.mutationOptions());
  const [note, setNote] = useState<ActionNote>();
  const [compacting, setCompacting] = useState(false);

  // a note about another session would mislead
  useEffect(() => {
    setNote(undefined);
    setCompacting(false);
  }, [sessionId]);

  const store = storeQuery.data ?? [];
  const branch = transcriptQuery.data ?? [];
  const items = buildTranscriptView(branch);
  const leafIndex = leafItemIndex(items, branch);
  const callCount = items.filter((i) => i.kind === 'call').length;
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
          const left = Math.max(0, branch.length - next.length);
          queryClient.setQueryData(trpc.sessions.transcript.queryKey({ sessionId }), next);
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
          <Section title="Store" count={store.length}>
            {store.length === 0 ? (
              <Empty testId="session-store-empty">{storeQuery.isLoading ? 'Loading…' : 'Empty. A cell that calls store(key, value) commits its writes here when it completes.'}</Empty>
            ) : (
              <ul data-testid="session-store" className="space-y-px">
                {store.map((entry) => (
                  <StoreRow key={entry.key} entry={entry} />
                ))}
              </ul>
            )}
          </Section>
          <Section title="Transcript (root → leaf)" count={callCount}>
            {items.length === 0 ? (
              <Empty testId="session-transcript-empty">{transcriptQuery.isLoading ? 'Loading…' : 'No calls in this session yet.'}</Empty>
            ) : (
              <ol data-testid="session-transcript" className="space-y-1">
                {items.map((item, i) => {
                  const point = branchPoint(item);
                  return (
                    <Item key={item.key} item={item} leaf={i === leafIndex} branch={{ busy, onBranch, ...(point ? { point } : {}) }} />
                  );
                })}
              </ol>
            )}
          </Section>
        </div>
      ) : null}
    </Panel>
  );
}
