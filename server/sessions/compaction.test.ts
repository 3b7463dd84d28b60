// The generated compaction summary: calls by tool and status, store keys left set or deleted, bounded.
import { describe, expect, it } from 'vitest';
import { defaultCompactionSummary, MAX_SUMMARY_STORE_KEYS } from './compaction.ts';
import type { TranscriptEntry } from './types.ts';

describe('defaultCompactionSummary', () => {
  const base = { parentId: null, sessionId: 's', createdAt: 0 };
  const store = (id: string, sets: string[], deletes: string[] = []): TranscriptEntry => ({
    ...base,
    id,
    type: 'code-mode-store',
    payload: { runId: 'r', sets: sets.map((key) => ({ key, json: '1', networkContent: false })), deletes },
  });

  it('names the calls by tool and status and the store keys left set or deleted', () => {
    const summary = defaultCompactionSummary([
      { ...base, id: '1', type: 'tool-call', payload: { tool: 'exec', toolCallId: 'c1', agentRunId: 'a' } },
      store('2', ['a', 'b']),
      { ...base, id: '3', type: 'tool-result', payload: { tool: 'exec', toolCallId: 'c1', status: 'completed', text: '{}' } },
      store('4', [], ['b']),
    ]);
    expect(summary).toContain('Compacted 4 entries');
    expect(summary).toContain('1 exec and 0 wait calls (1 completed)');
    expect(summary).toContain('store keys set: a;');
    expect(summary).toContain('store keys deleted: b');
  });

  it('on more keys than the bound: lists the first ones and counts the rest', () => {
    const keys = Array.from({ length: MAX_SUMMARY_STORE_KEYS + 3 }, (_, i) => `k${i}`);
    const summary = defaultCompactionSummary([store('1', keys)]);
    expect(summary).toContain(`k${MAX_SUMMARY_STORE_KEYS - 1} and 3 more`);
    expect(summary).not.toContain(`k${MAX_SUMMARY_STORE_KEYS},`);
  });
});
