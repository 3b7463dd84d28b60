// The URL writer: writes with the router state kept, and a Run's writes held until its result shows (issue 14).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeCellHash } from '../editor/index.ts';
import { UrlWriter } from './urlWriter.ts';
import { MAX_HOLD_MS } from './holdQueue.ts';
import type { UrlWindow } from './urlWriter.ts';

const PAGE = 'http://localhost:3000/';

/** A window whose history records every replaceState (its state and URL) and moves location like a browser. */
function fakeWindow(state: unknown = { __NA: true, tree: 'next' }) {
  const writes: Array<{ data: unknown; url: string }> = [];
  const win: UrlWindow = {
    location: { href: PAGE },
    history: {
      state,
      replaceState(data, _unused, url) {
        writes.push({ data, url });
        win.location.href = url;
        win.history.state = data;
      },
    },
  };
  return { win, writes };
}

describe('UrlWriter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes at once with the entry's own state (Next's router state stays, so its patched replaceState passes the write through)", () => {
    const { win, writes } = fakeWindow();
    const writer = new UrlWriter(win);
    writer.write({ kind: 'run', runId: 'run_1' });
    expect(writes).toEqual([{ data: { __NA: true, tree: 'next' }, url: `${PAGE}?run=run_1` }]);
    // the same URL again is no write
    writer.write({ kind: 'run', runId: 'run_1' });
    expect(writes).toHaveLength(1);
  });

  it("holds a Run's writes and makes them as one URL on release; href() shows the URL they will make meanwhile", () => {
    const { win, writes } = fakeWindow();
    const writer = new UrlWriter(win);
    writer.write({ kind: 'run', runId: 'run_1' });
    writer.hold();
    const cell = { code: 'return 1', language: 'javascript' as const };
    writer.write({ kind: 'cell', cell });
    writer.write({ kind: 'run', runId: undefined });
    writer.write({ kind: 'run', runId: 'run_2' });
    expect(writes).toHaveLength(1);
    expect(writer.href()).toBe(`${PAGE}?run=run_2${encodeCellHash(cell)}`);
    writer.release();
    expect(writes.map((w) => w.url)).toEqual([`${PAGE}?run=run_1`, `${PAGE}?run=run_2${encodeCellHash(cell)}`]);
    // released: the next write goes out at once
    writer.write({ kind: 'run', runId: 'run_3' });
    expect(writes.at(-1)?.url).toBe(`${PAGE}?run=run_3${encodeCellHash(cell)}`);
  });

  it('a hold nobody releases ends by itself after MAX_HOLD_MS (a long run still reaches the URL)', () => {
    vi.useFakeTimers();
    const { win, writes } = fakeWindow();
    const writer = new UrlWriter(win);
    writer.hold();
    writer.write({ kind: 'run', runId: 'run_9' });
    vi.advanceTimersByTime(MAX_HOLD_MS - 1);
    expect(writes).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(writes.map((w) => w.url)).toEqual([`${PAGE}?run=run_9`]);
    // a release after the cap writes nothing twice
    writer.release();
    expect(writes).toHaveLength(1);
  });
});
