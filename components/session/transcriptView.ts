// Pure shaping of a session's transcript branch for display: calls grouped with their nested rows and result.
import type { TranscriptEntry } from '../api.ts';

type EntryOf<K extends TranscriptEntry['type']> = Extract<TranscriptEntry, { type: K }>;
export type ToolCallEntry = EntryOf<'tool-call'>;
export type ToolResultEntry = EntryOf<'tool-result'>;
export type NestedActivityEntry = EntryOf<'nested-activity'>;
export type StoreCommitEntry = EntryOf<'code-mode-store'>;
export type CompactionEntry = EntryOf<'compaction'>;
export type MessageEntry = EntryOf<'message'>;

/** One exec or wait call with what hangs under it: nested activity rows (start order) and its result, once written. */
export interface CallGroup {
  kind: 'call';
  key: string;
  call: ToolCallEntry;
  nested: NestedActivityEntry[];
  result?: ToolResultEntry;
}

export type TranscriptItem =
  | CallGroup
  | { kind: 'store'; key: string; entry: StoreCommitEntry }
  | { kind: 'compaction'; key: string; entry: CompactionEntry }
  | { kind: 'message'; key: string; entry: MessageEntry }
  /** A result or nested row whose call is not on this branch: shown where it sits, never dropped. */
  | { kind: 'orphan'; key: string; entry: ToolResultEntry | NestedActivityEntry };

/**
 * Groups a branch (root first) into display items in branch order. A result or nested row belongs to the
 * latest call before it with the same model tool-call id: a provider may reuse an id in a later response,
 * and the earlier call's rows must not move under the later one.
 */
export function buildTranscriptView(branch: readonly TranscriptEntry[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const latestCall = new Map<string, CallGroup>();
  for (const entry of branch) {
    switch (entry.type) {
      case 'tool-call': {
        const group: CallGroup = { kind: 'call', key: entry.id, call: entry, nested: [] };
        latestCall.set(entry.payload.toolCallId, group);
        items.push(group);
        break;
      }
      case 'tool-result': {
        const group = latestCall.get(entry.payload.toolCallId);
        if (group && !group.result && group.call.payload.tool === entry.payload.tool) group.result = entry;
        else items.push({ kind: 'orphan', key: entry.id, entry });
        break;
      }
      case 'nested-activity': {
        const parent = entry.payload.parentToolCallId;
        const group = parent !== undefined ? latestCall.get(parent) : undefined;
        if (group) group.nested.push(entry);
        else items.push({ kind: 'orphan', key: entry.id, entry });
        break;
      }
      case 'code-mode-store':
        items.push({ kind: 'store', key: entry.id, entry });
        break;
      case 'compaction':
        items.push({ kind: 'compaction', key: entry.id, entry });
        break;
      case 'message':
        items.push({ kind: 'message', key: entry.id, entry });
        break;
    }
  }
  for (const item of items) if (item.kind === 'call') item.nested.sort((a, b) => a.payload.startedAt - b.payload.startedAt);
  return items;
}

/** Where "branch here" on an item moves the session's leaf, and how the panel names that place. */
export interface BranchPoint {
  entryId: string;
  label: string;
}

/**
 * A call branches at its result (the call with everything it committed stays on the branch); a call without
 * a result yet has none. Store commits and orphans have none either: a store commit sits between its call and
 * that call's result, and a branch there would cut the call from its result.
 */
export function branchPoint(item: TranscriptItem): BranchPoint | undefined {
  switch (item.kind) {
    case 'call':
      return item.result ? { entryId: item.result.id, label: `${item.call.payload.tool} ${item.call.payload.toolCallId}` } : undefined;
    case 'compaction':
      return { entryId: item.entry.id, label: 'the compaction' };
    case 'message':
      return { entryId: item.entry.id, label: `the ${item.entry.payload.role} message` };
    case 'store':
    case 'orphan':
      return undefined;
  }
}

/**
 * The index of the item holding the branch's leaf (its last entry), or -1. Not always the last item: a
 * cell's store commit is written before its result, and the call group sits where the call started.
 */
export function leafItemIndex(items: readonly TranscriptItem[], branch: readonly TranscriptEntry[]): number {
  const leafId = branch.at(-1)?.id;
  if (leafId === undefined) return -1;
  return items.findIndex((item) =>
    item.kind === 'call'
      ? item.call.id === leafId || item.result?.id === leafId || item.nested.some((n) => n.id === leafId)
      : item.entry.id === leafId,
  );
}

/** Number of lines of a source text (a trailing newline does not start another line). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.replace(/\n$/, '').split('\n').length;
}

/**
 * The runs an item belongs to: a call's run (its result's, or the run a wait continues) and its nested rows' runs;
 * a store commit's and an orphan's own. The panel highlights the items of the page's selected run.
 */
export function itemRunIds(item: TranscriptItem): Set<string> {
  const ids = new Set<string>();
  const add = (id: string | undefined) => {
    if (id !== undefined) ids.add(id);
  };
  switch (item.kind) {
    case 'call':
      add(item.result?.payload.runId);
      add(item.call.payload.runId);
      for (const n of item.nested) add(n.payload.runId);
      break;
    case 'store':
    case 'orphan':
      add(item.entry.payload.runId);
      break;
    case 'compaction':
    case 'message':
      break;
  }
  return ids;
}
