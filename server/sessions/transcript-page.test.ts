// A transcript read a page at a time: bounded by entries and by stored bytes, the cursor walking root to leaf, a cursor off the branch refused.
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.ts';
import { openSessionDatabase, MEMORY_DB_PATH } from './db.ts';
import { Transcript } from './transcript.ts';
import { MAX_TRANSCRIPT_PAGE_BYTES, TranscriptPages } from './transcript-page.ts';

function fresh() {
  const t = new Transcript(openSessionDatabase(MEMORY_DB_PATH));
  return { t, pages: new TranscriptPages(t) };
}
const say = (t: Transcript, sessionId: string, text: string) => t.appendEntry(sessionId, 'message', { role: 'user', text });

describe('TranscriptPages', () => {
  it('walks the branch root first, a page of at most `limit` entries at a time, to the same entries as the whole branch', () => {
    const { t, pages } = fresh();
    for (let i = 0; i < 7; i++) say(t, 's', `m${i}`);
    const seen: string[] = [];
    let page = pages.page('s', { limit: 3 });
    const sizes = [page.entries.length];
    seen.push(...page.entries.map((e) => e.id));
    while (page.nextCursor !== null) {
      page = pages.page('s', { limit: 3, after: page.nextCursor });
      sizes.push(page.entries.length);
      seen.push(...page.entries.map((e) => e.id));
    }
    expect(sizes).toEqual([3, 3, 1]);
    expect(page.total).toBe(7);
    expect(seen).toEqual(t.branch('s').map((e) => e.id));
    expect(pages.page('nobody')).toEqual({ entries: [], nextCursor: null, total: 0 });
  });

  it(`bounds a page by stored bytes (${MAX_TRANSCRIPT_PAGE_BYTES}): a long session comes in many small answers, an entry bigger than the bound alone`, () => {
    const { t, pages } = fresh();
    const big = 'x'.repeat(300 * 1024);
    for (let i = 0; i < 10; i++) say(t, 's', `${i}${big}`);
    say(t, 's', 'y'.repeat(MAX_TRANSCRIPT_PAGE_BYTES + 10));
    const sizes: number[] = [];
    let after: string | undefined;
    for (;;) {
      const page = pages.page('s', after !== undefined ? { after } : {});
      sizes.push(page.entries.length);
      if (page.nextCursor === null) break;
      after = page.nextCursor;
    }
    expect(sizes).toEqual([3, 3, 3, 1, 1]);
  });

  it('a cursor that left the branch (branched away) or names another session is refused with what to do', () => {
    const { t, pages } = fresh();
    const first = say(t, 's', 'a');
    const second = say(t, 's', 'b');
    t.branchFrom('s', first.id);
    say(t, 's', 'c');
    expect(() => pages.page('s', { after: second.id })).toThrow(InvalidInputError);
    expect(() => pages.page('s', { after: second.id })).toThrow('is not on the current branch of session "s"');
    expect(() => pages.page('s', { after: say(t, 'other', 'z').id })).toThrow('read the transcript again from its start');
  });
});
