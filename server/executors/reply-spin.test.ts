import { describe, expect, it } from 'vitest';
import { NodeExecutor } from './node/executor.ts';
import { QuickJsExecutor } from './quickjs/executor.ts';
import {
  CALM_CHECKS_TO_RESUME,
  DEFAULT_REPLY_SPIN_US,
  MAX_STEAL_SHARE,
  holdStealGuard,
  readCpuTimes,
  replySpinData,
  replySpinUs,
  stealGuardState,
  stealShare,
  stealVerdict,
} from './reply-spin.ts';
import { MAX_BACKOFF, MIN_BACKOFF, SPIN_ALLOWED, SPIN_POLLERS, SpinPolicy } from './spin-policy.mjs';
import { MAX_POLL_STRETCH_MS, replyPoller } from './worker-port.mjs';

/** A port's queue and a clock that only moves when the poller looks at it (each look: `stepMs`). */
function fakePort(stepMs = 0.01) {
  const queue: { at: number; message: unknown }[] = [];
  let t = 0;
  let receives = 0;
  return {
    /** `message` arrives `afterMs` from now. */
    arrive(message: unknown, afterMs = 0) {
      queue.push({ at: t + afterMs, message });
    },
    receive: () => {
      receives++;
      if (queue.length > 0 && (queue[0]?.at ?? Infinity) <= t) return { message: queue.shift()?.message };
      return undefined;
    },
    now: () => (t += stepMs),
    get receives() {
      return receives;
    },
    get left() {
      return queue.length;
    },
  };
}

function slotsOf(taken = 0, allowed = 1) {
  const replySpinSlots = new SharedArrayBuffer(8);
  new Int32Array(replySpinSlots)[SPIN_POLLERS] = taken;
  new Int32Array(replySpinSlots)[SPIN_ALLOWED] = allowed;
  return { replySpinSlots, count: () => new Int32Array(replySpinSlots)[SPIN_POLLERS] };
}

describe('reply polling (worker side)', () => {
  it('serves messages in order while each arrives within the window and a guest waits again', async () => {
    const port = fakePort();
    const { replySpinSlots, count } = slotsOf();
    const poll = replyPoller({ replySpinSlots, replySpinMax: 1, replySpinMs: 0.5 }, port.receive, port.now);
    port.arrive('r1', 0.1);
    port.arrive('r2', 0.3);
    port.arrive('r3', 0.4);
    const served: unknown[] = [];
    await poll?.(async (m: unknown) => {
      expect(count()).toBe(1);
      served.push(m);
      return m !== 'r3';
    });
    expect(served).toEqual(['r1', 'r2', 'r3']);
    expect(count()).toBe(0);
  });

  it('goes back to sleep when nothing comes within the window, leaving later messages to the port', async () => {
    const port = fakePort();
    const { replySpinSlots, count } = slotsOf();
    const poll = replyPoller({ replySpinSlots, replySpinMax: 1, replySpinMs: 0.5 }, port.receive, port.now);
    port.arrive('late', 5);
    const served: unknown[] = [];
    await poll?.(async (m: unknown) => {
      served.push(m);
      return true;
    });
    expect(served).toEqual([]);
    expect(port.left).toBe(1);
    expect(count()).toBe(0);
  });

  it('stops polling once the guest no longer waits on the host', async () => {
    const port = fakePort();
    const poll = replyPoller({ replySpinSlots: slotsOf().replySpinSlots, replySpinMax: 1, replySpinMs: 0.5 }, port.receive, port.now);
    port.arrive('a');
    port.arrive('b');
    const served: unknown[] = [];
    await poll?.(async (m: unknown) => {
      served.push(m);
      return false;
    });
    expect(served).toEqual(['a']);
    expect(port.left).toBe(1);
  });

  it('yields to the event loop after one stretch, however fast replies keep coming', async () => {
    const port = fakePort(0.05);
    const poll = replyPoller({ replySpinSlots: slotsOf().replySpinSlots, replySpinMax: 1, replySpinMs: 0.5 }, port.receive, port.now);
    for (let i = 0; i < 10_000; i++) port.arrive(i);
    let served = 0;
    await poll?.(async () => {
      served++;
      return true;
    });
    // each message costs the fake clock a few looks (0.05 ms each): the stretch ends long before the queue does
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(MAX_POLL_STRETCH_MS / 0.05);
    expect(port.left).toBe(10_000 - served);
  });

  it('does not poll when every slot of the process is taken, nor twice at once in one worker', async () => {
    const port = fakePort();
    const full = slotsOf(1);
    const poll = replyPoller({ replySpinSlots: full.replySpinSlots, replySpinMax: 1, replySpinMs: 0.5 }, port.receive, port.now);
    await poll?.(async () => true);
    expect(port.receives).toBe(0);
    expect(full.count()).toBe(1);

    const free = slotsOf();
    const again = replyPoller({ replySpinSlots: free.replySpinSlots, replySpinMax: 2, replySpinMs: 0.5 }, port.receive, port.now);
    port.arrive('x');
    let inner: Promise<void> | undefined;
    await again?.(async () => {
      const before = port.receives;
      inner = again(async () => true);
      await inner;
      expect(port.receives).toBe(before);
      expect(free.count()).toBe(1);
      return false;
    });
    expect(free.count()).toBe(0);
  });

  it('does not poll while the steal guard has paused polling', async () => {
    const port = fakePort();
    const paused = slotsOf(0, 0);
    const poll = replyPoller({ replySpinSlots: paused.replySpinSlots, replySpinMax: 1, replySpinMs: 0.5 }, port.receive, port.now);
    port.arrive('x');
    await poll?.(async () => true);
    expect(port.receives).toBe(0);
    expect(paused.count()).toBe(0);
  });

  it('backs off after its polls keep missing, and polls again later', async () => {
    const port = fakePort();
    const poll = replyPoller({ replySpinSlots: slotsOf().replySpinSlots, replySpinMax: 1, replySpinMs: 0.5 }, port.receive, port.now);
    /** One chance to poll (nothing ever comes): whether the poller looked at the port. */
    const looked = async () => {
      const before = port.receives;
      await poll?.(async () => true);
      return port.receives > before;
    };
    let misses = 0;
    while (await looked()) if (++misses > 50) throw new Error('never backed off');
    // a few misses pull the moving hit rate under half; then MIN_BACKOFF chances go by unused, then a trial
    expect(misses).toBeGreaterThan(0);
    let skipped = 1;
    while (!(await looked())) skipped++;
    expect(skipped).toBe(MIN_BACKOFF);
  });

  it('gives its slot back when serving a message throws', async () => {
    const port = fakePort();
    const { replySpinSlots, count } = slotsOf();
    const poll = replyPoller({ replySpinSlots, replySpinMax: 1, replySpinMs: 0.5 }, port.receive, port.now);
    port.arrive('boom');
    await expect(poll?.(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(count()).toBe(0);
  });

  it('is off without a window, without slots, or with none to take', () => {
    const { replySpinSlots } = slotsOf();
    const receive = () => undefined;
    expect(replyPoller(undefined, receive)).toBeNull();
    expect(replyPoller({ replySpinSlots, replySpinMax: 1, replySpinMs: 0 }, receive)).toBeNull();
    expect(replyPoller({ replySpinSlots, replySpinMax: 0, replySpinMs: 0.5 }, receive)).toBeNull();
    expect(replyPoller({ replySpinSlots: new ArrayBuffer(4), replySpinMax: 1, replySpinMs: 0.5 }, receive)).toBeNull();
  });
});

describe('reply polling (host side): CODEMODE_REPLY_SPIN_US', () => {
  it('defaults, accepts whole microseconds, and 0 turns polling off', () => {
    expect(replySpinUs({})).toBe(DEFAULT_REPLY_SPIN_US);
    expect(replySpinUs({ CODEMODE_REPLY_SPIN_US: ' ' })).toBe(DEFAULT_REPLY_SPIN_US);
    expect(replySpinUs({ CODEMODE_REPLY_SPIN_US: '250' })).toBe(250);
    expect(replySpinData(replySpinUs({ CODEMODE_REPLY_SPIN_US: '250' }), 4)).toMatchObject({ replySpinMax: 3, replySpinMs: 0.25 });
    expect(replySpinData(replySpinUs({ CODEMODE_REPLY_SPIN_US: '0' }), 4).replySpinMax).toBe(0);
  });

  it('leaves the Gateway a core: one core means no polling', () => {
    expect(replySpinData(DEFAULT_REPLY_SPIN_US, 1).replySpinMax).toBe(0);
    expect(replySpinData(DEFAULT_REPLY_SPIN_US, 2).replySpinMax).toBe(1);
  });

  it('shares one counter between all workers of the process', () => {
    expect(replySpinData(DEFAULT_REPLY_SPIN_US, 2).replySpinSlots).toBe(replySpinData(DEFAULT_REPLY_SPIN_US, 8).replySpinSlots);
  });

  it('refuses a value that is not a whole number of µs in range, naming the variable and the fix', () => {
    for (const bad of ['-1', '1.5', 'fast', '10001']) {
      expect(() => replySpinUs({ CODEMODE_REPLY_SPIN_US: bad })).toThrow(/CODEMODE_REPLY_SPIN_US must be a whole number of microseconds from 0 to 10000 .*0 turns reply polling off/);
    }
  });
});

describe('SpinPolicy (when polling pays)', () => {
  it('keeps polling while most polls hit', () => {
    const p = new SpinPolicy();
    for (let i = 0; i < 1000; i++) {
      expect(p.shouldPoll()).toBe(true);
      p.record(i % 10 !== 0);
    }
  });

  it('stops for MIN_BACKOFF chances when the hit rate falls under half, doubling up to MAX_BACKOFF while it stays low', () => {
    const p = new SpinPolicy();
    const skipsAfterFall = (): number => {
      while (p.shouldPoll()) p.record(false);
      let skipped = 1;
      while (!p.shouldPoll()) skipped++;
      return skipped;
    };
    expect(skipsAfterFall()).toBe(MIN_BACKOFF);
    expect(skipsAfterFall()).toBe(MIN_BACKOFF * 2);
    for (let i = 0; i < 12; i++) skipsAfterFall();
    expect(skipsAfterFall()).toBe(MAX_BACKOFF);
  });

  it('starts its back-off over once polls hit again', () => {
    const p = new SpinPolicy();
    for (let round = 0; round < 3; round++) {
      while (p.shouldPoll()) p.record(false);
      while (!p.shouldPoll());
    }
    for (let i = 0; i < 40; i++) p.record(true);
    while (p.shouldPoll()) p.record(false);
    let skipped = 1;
    while (!p.shouldPoll()) skipped++;
    expect(skipped).toBe(MIN_BACKOFF);
  });
});

describe('the steal guard: stealShare', () => {
  const line = (user: number, idle: number, steal: number) => `cpu  ${user} 0 0 ${idle} 0 0 0 ${steal} 0 0`;

  it('is the share of all CPU ticks between two readings that the host took back', () => {
    expect(stealShare(line(100, 100, 0), line(150, 130, 20))).toBeCloseTo(20 / 100);
    expect(stealShare(line(100, 100, 5), line(190, 105, 5))).toBe(0);
  });

  it('is 0 for lines it cannot read (no steal column, not numbers, no time passed)', () => {
    expect(stealShare('cpu 1 2 3', 'cpu 4 5 6')).toBe(0);
    expect(stealShare('garbage', line(1, 1, 1))).toBe(0);
    expect(stealShare(line(1, 1, 1), line(1, 1, 1))).toBe(0);
  });

  it('pauses polling past MAX_STEAL_SHARE: a VM losing a tenth of its CPU to its host is over it', () => {
    expect(stealShare(line(0, 0, 0), line(80, 10, 10))).toBeGreaterThan(MAX_STEAL_SHARE);
  });
});

describe('the steal guard: stealVerdict', () => {
  it('pauses polling at the first check over MAX_STEAL_SHARE and resumes only after CALM_CHECKS_TO_RESUME calm checks in a row', () => {
    let state = { calmChecks: CALM_CHECKS_TO_RESUME, allowed: true };
    state = stealVerdict(state.calmChecks, 0.01);
    expect(state.allowed).toBe(true);
    state = stealVerdict(state.calmChecks, MAX_STEAL_SHARE * 2);
    expect(state).toEqual({ calmChecks: 0, allowed: false });
    for (let i = 1; i < CALM_CHECKS_TO_RESUME; i++) {
      state = stealVerdict(state.calmChecks, 0);
      expect(state.allowed).toBe(false);
    }
    // a burst in the lull starts the count again
    state = stealVerdict(state.calmChecks, 0.3);
    for (let i = 1; i < CALM_CHECKS_TO_RESUME; i++) state = stealVerdict(state.calmChecks, 0);
    expect(state.allowed).toBe(false);
    state = stealVerdict(state.calmChecks, 0);
    expect(state.allowed).toBe(true);
  });
});

describe('the steal guard: who holds it', () => {
  // Vitest runs test files in one process here (isolate: false): other files' executors may hold the guard too, so
  // each check is relative to the holders before it
  const pollsHere = replySpinData(DEFAULT_REPLY_SPIN_US).replySpinMax > 0;

  it('runs while an executor that polls holds it and stops when the last one lets go; a second release changes nothing', () => {
    const before = stealGuardState().holders;
    const release = holdStealGuard(replySpinData(DEFAULT_REPLY_SPIN_US, 2));
    expect(stealGuardState().holders).toBe(before + 1);
    // elsewhere than Linux there is no /proc/stat to read, and no timer
    expect(stealGuardState().running).toBe(readCpuTimes() !== undefined);
    release();
    release();
    expect(stealGuardState().holders).toBe(before);
    if (before === 0) expect(stealGuardState().running).toBe(false);
  });

  it('is not held for workers that never poll (polling off, or one core)', () => {
    const before = stealGuardState().holders;
    holdStealGuard(replySpinData(0, 4))();
    const oneCore = holdStealGuard(replySpinData(DEFAULT_REPLY_SPIN_US, 1));
    expect(stealGuardState().holders).toBe(before);
    oneCore();
    expect(stealGuardState().holders).toBe(before);
  });

  it('an executor holds it from its start and lets go when it closes (QuickJS, and a live pool: Node)', async () => {
    for (const make of [() => new QuickJsExecutor({ workers: 1 }), () => new NodeExecutor()]) {
      const before = stealGuardState().holders;
      const executor = make();
      expect(stealGuardState().holders).toBe(before + (pollsHere ? 1 : 0));
      await executor.close();
      expect(stealGuardState().holders).toBe(before);
    }
  });
});
