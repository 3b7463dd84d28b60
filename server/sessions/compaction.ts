// Compaction rules: what a compaction covers, the summary one gets when the caller gives none, and when a session may change.
import { InvalidInputError } from '../errors.ts';
import type { TranscriptEntry } from './types.ts';

/** A generated compaction summary names store keys so a reader knows what load() can still return; beyond this, a count. */
export const MAX_SUMMARY_STORE_KEYS = 20;

/** The entries after the branch's latest compaction (all of them when there is none). */
export function entriesSinceCompaction(branch: readonly TranscriptEntry[]): TranscriptEntry[] {
  let start = 0;
  for (let i = branch.length - 1; i >= 0; i--) {
    if (branch[i]?.type === 'compaction') {
      start = i + 1;
      break;
    }
  }
  return branch.slice(start);
}

/**
 * The summary a compaction without one gets: what the calls were and which store keys they left, since the
 * playground has no model to write a prose summary. Store values themselves stay readable through load().
 */
export function defaultCompactionSummary(entries: readonly TranscriptEntry[]): string {
  const calls = { exec: 0, wait: 0 };
  const statuses = new Map<string, number>();
  const set = new Set<string>();
  const deleted = new Set<string>();
  let messages = 0;
  // entries are read back from the database: a field a hand edit or another build left is counted only when it has its type
  for (const entry of entries) {
    if (entry.type === 'tool-call') {
      const tool: unknown = entry.payload.tool;
      if (tool === 'exec' || tool === 'wait') calls[tool]++;
    } else if (entry.type === 'tool-result') {
      const status: unknown = entry.payload.status;
      if (typeof status === 'string') statuses.set(status, (statuses.get(status) ?? 0) + 1);
    } else if (entry.type === 'message') messages++;
    else if (entry.type === 'code-mode-store') {
      const sets: unknown = entry.payload.sets;
      const deletes: unknown = entry.payload.deletes;
      for (const s of Array.isArray(sets) ? (sets as unknown[]) : []) {
        const key = typeof s === 'object' && s !== null ? (s as { key?: unknown }).key : undefined;
        if (typeof key !== 'string') continue;
        set.add(key);
        deleted.delete(key);
      }
      for (const key of Array.isArray(deletes) ? (deletes as unknown[]) : []) {
        if (typeof key !== 'string') continue;
        deleted.add(key);
        set.delete(key);
      }
    }
  }
  const keys = (names: Set<string>) => {
    const list = [...names];
    const shown = list.slice(0, MAX_SUMMARY_STORE_KEYS).join(', ');
    return list.length > MAX_SUMMARY_STORE_KEYS ? `${shown} and ${list.length - MAX_SUMMARY_STORE_KEYS} more` : shown;
  };
  const parts = [`${calls.exec} exec and ${calls.wait} wait calls`];
  if (statuses.size > 0) parts[0] += ` (${[...statuses].map(([status, n]) => `${n} ${status}`).join(', ')})`;
  if (messages > 0) parts.push(`${messages} messages`);
  if (set.size > 0) parts.push(`store keys set: ${keys(set)}`);
  if (deleted.size > 0) parts.push(`store keys deleted: ${keys(deleted)}`);
  return `Compacted ${entries.length} entries: ${parts.join('; ')}. Stored values stay readable with load().`;
}

/** A compaction's summary as a caller sent it: a string, or undefined for a generated one. */
export function checkedSummary(summary: unknown): string | undefined {
  if (summary !== undefined && typeof summary !== 'string') {
    throw new InvalidInputError('summary must be a string (what the compacted part established), or left out for a generated one');
  }
  return summary;
}

/** The summary a compaction of `branch` records: the caller's, or a generated one when it is absent or blank. Refuses a branch with nothing to compact. */
export function compactionText(sessionId: string, branch: readonly TranscriptEntry[], summary: string | undefined): string {
  if (branch.length === 0) {
    throw new InvalidInputError(`session "${sessionId}" has no entries on its branch; nothing to compact, run a cell first`);
  }
  const since = entriesSinceCompaction(branch);
  if (since.length === 0) {
    throw new InvalidInputError(`session "${sessionId}" has nothing to compact: its leaf is already a compaction; run a cell first`);
  }
  return summary !== undefined && summary.trim() !== '' ? summary : defaultCompactionSummary(since);
}

/** A run as the idle check needs it (the runs board's view has these fields). */
export interface SessionRunState {
  runId: string;
  sessionId: string;
  state: string;
}

/**
 * Branching or compacting is refused while a run of the session is running or waiting: its result and store
 * commit would land on whichever branch is current when it settles, so a user could not tell which branch it belongs to.
 */
export function assertSessionIdle(runs: readonly SessionRunState[], sessionId: string, action: 'branch' | 'compact'): void {
  const live = runs.filter((r) => r.sessionId === sessionId && (r.state === 'running' || r.state === 'waiting'));
  const first = live[0];
  if (!first) return;
  const more = live.length > 1 ? ` (and ${live.length - 1} more)` : '';
  throw new InvalidInputError(
    `cannot ${action} session "${sessionId}" while run ${first.runId} is ${first.state}${more}; wait for it to finish or abort it, then ${action} again`,
  );
}
