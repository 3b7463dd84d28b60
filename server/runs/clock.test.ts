// The clock recording: run-length pairs merged across legs, the cap the guest and the host share, and what happens past it.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ClockRecording, MAX_CLOCK_RUNS } from './clock.ts';

const PRELUDE = readFileSync(new URL('../guest/prelude.js', import.meta.url), 'utf8');

/**
 * The prelude alone in a fresh context whose Date.now counts up by one per call: every reading is a new value, so
 * the recording grows one pair per reading. Returns a reader of the guest's Date.now and its __cm_clock take.
 */
function guestWithCountingClock(startMs: number) {
  const ctx = vm.createContext(Object.create(null));
  vm.runInContext(`var __t = ${startMs}; Date.now = function () { return ++__t; }; globalThis.__cm_sync = function () {};`, ctx);
  vm.runInContext(PRELUDE, ctx);
  vm.runInContext(`__cm_boot(${JSON.stringify(JSON.stringify({ maxPendingToolCalls: 4, tools: [], mcp: [], clock: { mode: 'real', startMs } }))})`, ctx);
  return {
    read: (n: number) => vm.runInContext(`for (var i = 0; i < ${n}; i++) Date.now();`, ctx) as unknown,
    take: () => {
      const text = vm.runInContext('__cm_clock()', ctx) as string;
      return text === '' ? undefined : (JSON.parse(text) as { runs: number[]; dropped: number });
    },
  };
}

describe('clock recording', () => {
  it('on the caps: the guest keeps the same number of pairs as the host', () => {
    const guest = /var MAX_CLOCK_RUNS = (\d+);/.exec(PRELUDE);
    expect(Number(guest?.[1])).toBe(MAX_CLOCK_RUNS);
  });

  it('on readings of one value across two legs: one pair, merged by the host', () => {
    const rec = new ClockRecording('real', 1000);
    rec.append({ runs: [5, 3], dropped: 0 });
    rec.append({ runs: [0, 2, 7, 1], dropped: 0 });
    expect(rec.toJSON()).toEqual({ mode: 'real', startMs: 1000, runs: [5, 5, 7, 1] });
    expect(rec.recorded).toBe(6);
  });

  it(`on more than ${MAX_CLOCK_RUNS} changes of value: the first ${MAX_CLOCK_RUNS} pairs are kept and every later reading is counted as dropped`, () => {
    const guest = guestWithCountingClock(0);
    guest.read(MAX_CLOCK_RUNS + 5);
    const first = guest.take()!;
    expect(first.runs.length).toBe(2 * MAX_CLOCK_RUNS);
    expect(first.runs.slice(0, 4)).toEqual([1, 1, 1, 1]);
    expect(first.dropped).toBe(5);
    // past the cap nothing more is kept, only counted, in later legs too
    guest.read(3);
    expect(guest.take()).toEqual({ runs: [], dropped: 3 });
    // and the host keeps what the guest kept, no more
    const rec = new ClockRecording('real', 0);
    rec.append(first);
    rec.append({ runs: [], dropped: 3 });
    expect(rec.toJSON().runs.length).toBe(2 * MAX_CLOCK_RUNS);
    expect(rec.toJSON().dropped).toBe(8);
  });

  it('on a guest whose recording holds nothing new: the take is empty', () => {
    const guest = guestWithCountingClock(50);
    expect(guest.take()).toBeUndefined();
    guest.read(2);
    expect(guest.take()).toEqual({ runs: [1, 1, 1, 1], dropped: 0 });
    expect(guest.take()).toBeUndefined();
  });

  it('on a host recording past its cap (a guest that forged its own takes): later pairs are dropped, counted', () => {
    const rec = new ClockRecording('real', 0);
    const runs: number[] = [];
    for (let i = 0; i < MAX_CLOCK_RUNS; i++) runs.push(1, 1);
    rec.append({ runs, dropped: 0 });
    rec.append({ runs: [1, 4, 0, 2], dropped: 1 });
    expect(rec.toJSON().runs.length).toBe(2 * MAX_CLOCK_RUNS);
    expect(rec.toJSON().dropped).toBe(7);
  });
});
