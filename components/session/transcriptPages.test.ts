// The panel's reading of a paged transcript: every page in order, the cursor passed on, a cap on pages.
import { describe, expect, it } from 'vitest';
import type { TranscriptEntry, TranscriptPage } from '../api.ts';
import { loadBranch } from './transcriptPages.ts';

const entry = (id: string) => ({ id, parentId: null, sessionId: 's', type: 'message', payload: { role: 'user', text: id }, createdAt: 0 }) as unknown as TranscriptEntry;

function pages(ids: string[], size: number) {
  const asked: Array<string | undefined> = [];
  const fetchPage = async (after: string | undefined): Promise<TranscriptPage> => {
    asked.push(after);
    const start = after === undefined ? 0 : ids.indexOf(after) + 1;
    const slice = ids.slice(start, start + size);
    const more = start + size < ids.length;
    return { entries: slice.map(entry), nextCursor: more ? slice.at(-1)! : null, total: ids.length } as TranscriptPage;
  };
  return { fetchPage, asked };
}

describe('loadBranch', () => {
  it('reads page after page, passing each nextCursor on, until the leaf', async () => {
    const { fetchPage, asked } = pages(['a', 'b', 'c', 'd', 'e'], 2);
    const loaded = await loadBranch(fetchPage);
    expect(loaded.entries.map((e) => e.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(loaded.total).toBe(5);
    expect(asked).toEqual([undefined, 'b', 'd']);
  });

  it('stops at the page cap and says how many entries the branch holds', async () => {
    const { fetchPage } = pages(['a', 'b', 'c', 'd', 'e'], 2);
    const loaded = await loadBranch(fetchPage, 2);
    expect(loaded.entries.map((e) => e.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(loaded.total).toBe(5);
  });
});
