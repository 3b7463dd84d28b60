'use client';
// The session transcript view: the branch root to leaf, calls with their nested rows and results, "branch here" on each branch point.
import { NestedCallRow } from '../ui/NestedCallRow.tsx';
import { Empty, PanelSection } from '../ui/Panel.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { NetworkFlag } from './SessionStore.tsx';
import { branchPoint, buildTranscriptView, itemRunIds, leafItemIndex, lineCount } from './transcriptView.ts';
import type { BranchPoint, CallGroup, TranscriptItem } from './transcriptView.ts';
import type { TranscriptEntry } from '../api.ts';

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

/** The selected run's items: a sky outline and a label a screen reader reads with the item. */
const SELECTED_ITEM = 'outline outline-1 outline-sky-600 bg-sky-950/30';

function SelectedMark() {
  return <span className="sr-only">(selected run)</span>;
}

function CallItem({ group, branch, leaf, selected }: { group: CallGroup; branch: BranchAction; leaf: boolean; selected: boolean }) {
  const c = group.call.payload;
  const source = c.code ?? c.command;
  const status = group.result?.payload.status ?? 'running';
  const runId = group.result?.payload.runId ?? c.runId;
  return (
    <li
      data-testid="transcript-call"
      data-tool={c.tool}
      data-status={status}
      data-tool-call-id={c.toolCallId}
      data-selected={selected}
      className={`rounded border border-neutral-800/80 bg-neutral-950/40 px-1.5 py-1 ${selected ? SELECTED_ITEM : ''}`}
    >
      <div className="flex items-center gap-2">
        <span className="font-semibold text-neutral-100">{c.tool}</span>
        {selected ? <SelectedMark /> : null}
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
            <NestedCallRow key={n.id} testId="transcript-nested" call={n.payload} />
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

function Item({ item, branch, leaf, selected }: { item: TranscriptItem; branch: BranchAction; leaf: boolean; selected: boolean }) {
  const tail = leaf ? <LeafMark /> : <BranchButton action={branch} />;
  switch (item.kind) {
    case 'call':
      return <CallItem group={item} branch={branch} leaf={leaf} selected={selected} />;
    case 'store': {
      const p = item.entry.payload;
      return (
        <li data-testid="transcript-store-commit" data-selected={selected} className={`flex flex-wrap items-center gap-x-1.5 rounded px-1.5 text-neutral-400 ${selected ? SELECTED_ITEM : ''}`}>
          <span className="text-neutral-500">store commit</span>
          {selected ? <SelectedMark /> : null}
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
        <li data-testid="transcript-orphan" data-selected={selected} className={`rounded px-1.5 text-neutral-500 ${selected ? SELECTED_ITEM : ''}`}>
          {e.type === 'nested-activity' ? (
            <ul>
              <NestedCallRow testId="transcript-nested" call={e.payload} />
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

/** `busy` while a branch or compaction is in flight: one at a time. The items of `selectedRunId` are highlighted. */
export function SessionTranscriptView(props: { branch: readonly TranscriptEntry[]; loading: boolean; busy: boolean; onBranch(point: BranchPoint): void; selectedRunId?: string }) {
  const { busy, onBranch } = props;
  const items = buildTranscriptView(props.branch);
  const leafIndex = leafItemIndex(items, props.branch);
  const callCount = items.filter((i) => i.kind === 'call').length;
  return (
    <PanelSection title="Transcript (root → leaf)" count={callCount}>
      {items.length === 0 ? (
        <Empty testId="session-transcript-empty">{props.loading ? 'Loading…' : 'No calls in this session yet.'}</Empty>
      ) : (
        <ol data-testid="session-transcript" className="space-y-1">
          {items.map((item, i) => {
            const point = branchPoint(item);
            const selected = props.selectedRunId !== undefined && itemRunIds(item).has(props.selectedRunId);
            return <Item key={item.key} item={item} leaf={i === leafIndex} selected={selected} branch={{ busy, onBranch, ...(point ? { point } : {}) }} />;
          })}
        </ol>
      )}
    </PanelSection>
  );
}
