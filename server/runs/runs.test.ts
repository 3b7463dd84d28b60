// Run lifecycle beyond the executor conformance suite: the suspended-run cap, scoping, snapshot cap,
// worker crashes, provenance and trajectories (QuickJS executor through a real Gateway).
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CodeModeOptions } from '../config/types.ts';
import type { Gateway } from '../gateway.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { Continuation, Executor, LegOutcome } from '../executors/types.ts';
import { expectCompleted, expectFailed, expectWaiting, testGateway, until } from '../testing.ts';
import type { CodeModeResult } from './types.ts';
import { MAX_SLOTS_PER_TURN, MAX_SUSPENDED_RUNS } from './runs.ts';
import { OwnerDirectory } from '../access/owners.ts';
import { DEFAULT_SHARES } from '../config/shares.ts';
import { MAX_CALLS_DURING_APPROVAL } from './approval-gate.ts';
import { MAX_NESTED_IN_VIEW } from './trajectory.ts';

let executor: QuickJsExecutor;

beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 2 });
  await executor.ready();
});

afterAll(async () => {
  await executor.close();
});

/** The default budget unless a test is about the budget: runs that must wait park with yield_control(). */
async function gateway(o: Partial<CodeModeOptions> = {}): Promise<Gateway> {
  return testGateway({ executor, codeMode: { memoryLimitBytes: 32 * 1024 * 1024, ...o }, config: { plugins: { bundled: ['weather'], external: [] } } });
}

const status = (r: CodeModeResult) => r.status;

describe('suspended-run cap', () => {
  const park = 'await yield_control("park"); return 1';

  it(`on the ${MAX_SUSPENDED_RUNS + 1}th suspended run (${MAX_SUSPENDED_RUNS / MAX_SLOTS_PER_TURN} turns at their share): fails with the spec message until a slot frees`, async () => {
    const gw = await gateway();
    try {
      const turns = Array.from({ length: MAX_SUSPENDED_RUNS / MAX_SLOTS_PER_TURN }, () => gw.prepareTurn({}));
      const parked = await Promise.all(turns.flatMap((t) => Array.from({ length: MAX_SLOTS_PER_TURN }, () => gw.exec(t.agentRunId, { code: park }))));
      expect(parked.map(status)).toEqual(Array(MAX_SUSPENDED_RUNS).fill('waiting'));
      expect(gw.diagnostics.suspendedSlots()).toBe(MAX_SUSPENDED_RUNS);
      const other = gw.prepareTurn({});
      // a cell with no host work needs no slot
      expect(status(await gw.exec(other.agentRunId, { code: 'return 2' }))).toBe('completed');
      const over = expectFailed(await gw.exec(other.agentRunId, { code: park }));
      expect(over.code).toBe('runtime_unavailable');
      expect(over.error).toBe(
        `too many suspended code mode runs. The process holds at most ${MAX_SUSPENDED_RUNS} and all are taken; none of them is this turn's: ` +
          "run this cell again once other turns' runs finish (a waiting run expires after snapshotTtlSeconds).",
      );
      gw.abortRun(expectWaiting(parked[0]!).runId);
      expect(status(await gw.exec(other.agentRunId, { code: park }))).toBe('waiting');
    } finally {
      await gw.close();
    }
    expect(gw.diagnostics.suspendedSlots()).toBe(0);
  });

  it(`on the ${MAX_SLOTS_PER_TURN + 1}th run of one turn: refused with its share named, while another turn still parks; ending one frees its place`, async () => {
    const gw = await gateway();
    try {
      const greedy = gw.prepareTurn({});
      const parked = await Promise.all(Array.from({ length: MAX_SLOTS_PER_TURN }, () => gw.exec(greedy.agentRunId, { code: park })));
      expect(parked.map(status)).toEqual(Array(MAX_SLOTS_PER_TURN).fill('waiting'));
      const over = expectFailed(await gw.exec(greedy.agentRunId, { code: park }));
      expect(over.code).toBe('runtime_unavailable');
      expect(over.error).toBe(
        `too many suspended code mode runs. This turn already has ${MAX_SLOTS_PER_TURN} runs in flight or waiting, its share of the process's ${MAX_SUSPENDED_RUNS}; ` +
          'wait on or abort one of them, or run the calls together in one cell (Promise.all), then run this cell again.',
      );
      expect(status(await gw.exec(gw.prepareTurn({}).agentRunId, { code: park }))).toBe('waiting');
      gw.abortRun(expectWaiting(parked[0]!).runId);
      expect(status(await gw.exec(greedy.agentRunId, { code: park }))).toBe('waiting');
      expect(gw.diagnostics.leaks()).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it("on an owner's share across its turns: its next run in any turn is refused naming the share, while another owner still parks; a settled run gives its slot back", async () => {
    const gw = await gateway();
    try {
      const owners = new OwnerDirectory({ clients: {}, shares: { ...DEFAULT_SHARES, anonymous: { ...DEFAULT_SHARES.anonymous, suspendedRuns: 3 } } });
      const turns = [gw.prepareTurn({ owner: owners.anonymous }), gw.prepareTurn({ owner: owners.anonymous })];
      const parked = [await gw.exec(turns[0]!.agentRunId, { code: park }), await gw.exec(turns[1]!.agentRunId, { code: park }), await gw.exec(turns[0]!.agentRunId, { code: park })];
      expect(parked.map(status)).toEqual(['waiting', 'waiting', 'waiting']);
      const over = expectFailed(await gw.exec(gw.prepareTurn({ owner: owners.anonymous }).agentRunId, { code: park }));
      expect(over.code).toBe('runtime_unavailable');
      expect(over.error).toContain("This turn's owner (the clients without a key) already has 3 runs in flight or waiting, its share of the process's 64 (server.shares.anonymous.suspendedRuns)");
      expect(status(await gw.exec(gw.prepareTurn({ owner: owners.operator }).agentRunId, { code: park }))).toBe('waiting');
      const resumed = expectCompleted(await gw.wait(turns[1]!.agentRunId, { runId: expectWaiting(parked[1]!).runId }));
      expect(resumed.value).toBe(1);
      expect(status(await gw.exec(turns[1]!.agentRunId, { code: park }))).toBe('waiting');
      expect(gw.diagnostics.leaks()).toEqual([]);
    } finally {
      await gw.close();
    }
  });
});

describe('scoping', () => {
  it('on wait from another agent run of the same session: fails with invalid_input', async () => {
    const gw = await gateway();
    try {
      const a = gw.prepareTurn({ sessionId: 's1' });
      const b = gw.prepareTurn({ sessionId: 's1' });
      const w = expectWaiting(await gw.exec(a.agentRunId, { code: 'await yield_control("park"); return 1' }));
      expect(await gw.wait(b.agentRunId, { runId: w.runId })).toMatchObject({
        status: 'failed',
        code: 'invalid_input',
        error: 'code mode run belongs to a different agent run.',
      });
    } finally {
      await gw.close();
    }
  });

  it('on exec in an unknown agent run: fails with invalid_input naming what to do', async () => {
    const gw = await gateway();
    try {
      expect(await gw.exec('ar_nope', { code: 'return 1' })).toMatchObject({ status: 'failed', code: 'invalid_input' });
    } finally {
      await gw.close();
    }
  });
});

describe('snapshot cap', () => {
  it('on a suspension whose stored snapshot exceeds maxSnapshotBytes: fails with snapshot_limit_exceeded', async () => {
    const gw = await gateway({ maxSnapshotBytes: 64 * 1024 });
    try {
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, { code: 'const big = Array.from({ length: 20000 }, (_, i) => "row " + i * 7919);\nawait yield_control("park");\nreturn big.length' });
      expect(r).toMatchObject({ status: 'failed', code: 'snapshot_limit_exceeded' });
      expect(gw.diagnostics.suspendedSlots()).toBe(0);
    } finally {
      await gw.close();
    }
  });

  it('on a large live heap that completes inline: succeeds (only real checkpoints are capped)', async () => {
    const gw = await gateway({ maxSnapshotBytes: 64 * 1024 });
    try {
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, { code: 'const big = Array.from({ length: 20000 }, (_, i) => "row " + i);\nawait sleep({ ms: 5 });\nreturn big.length' });
      expect(r).toMatchObject({ status: 'completed', value: 20000 });
    } finally {
      await gw.close();
    }
  });
});

describe('worker crash', () => {
  it('on a worker that dies mid-run: the run fails with internal_error and the pool replaces the worker', async () => {
    // the pool's one worker is the thread the cell runs on: it is the Worker the pool listens to as it starts
    const cellWorkers = new Set<Worker>();
    const on = Worker.prototype.on;
    const spy = vi.spyOn(Worker.prototype, 'on').mockImplementation(function (this: Worker, ...args: Parameters<Worker['on']>) {
      cellWorkers.add(this);
      return on.apply(this, args);
    });
    const own = new QuickJsExecutor({ workers: 1 });
    spy.mockRestore();
    await own.ready();
    expect(own.poolStats()).toMatchObject({ workers: 1, spawned: 1 });
    const gw = await testGateway({ executor: own });
    try {
      const t = gw.prepareTurn({});
      // stop the worker once the cell is surely on it: its sleep has reached the host
      const sleeping = new Promise<void>((resolve) => gw.subscribe((e) => e.type === 'nested.started' && resolve()));
      const pending = gw.exec(t.agentRunId, { code: 'await sleep({ ms: 60000 }); return 1' });
      await sleeping;
      expect(cellWorkers.size).toBe(1);
      await [...cellWorkers][0]!.terminate();
      const r = await pending;
      expect(r).toMatchObject({ status: 'failed', code: 'internal_error' });
      expect(own.poolStats()).toMatchObject({ workers: 1, spawned: 2 });
      expect(await gw.exec(t.agentRunId, { code: 'return "replacement works"' })).toMatchObject({ status: 'completed', value: 'replacement works' });
    } finally {
      await gw.close();
      await own.close();
    }
  });
});

describe('leg start-up limit', () => {
  it('on a resume whose VM never gets ready: fails with runtime_unavailable saying so, and releases its slot and continuation', async () => {
    // a scripted executor: the cell opens at once and yields (the run takes a slot and parks); its
    // resume never reports the VM ready, like a worker stuck starting or restoring
    const released: Continuation[] = [];
    let resumes = 0;
    const stuck: Executor = {
      kind: 'quickjs',
      pressureParking: false,
      start: (_req, handlers) => {
        let end!: (o: LegOutcome) => void;
        const done = new Promise<LegOutcome>((r) => (end = r));
        queueMicrotask(() => {
          handlers.onOpened?.({});
          handlers.onRequests([{ id: 'r1', op: 'yield', reason: 'park' }], []);
        });
        const continuation: Continuation = { executor: 'quickjs', snapshot: new Uint8Array(8), rawBytes: 8, storedBytes: 8 };
        return { done, deliver() {}, park: () => end({ kind: 'parked', continuation, queued: [], droppedBytes: 0 }), setDeadline() {}, abort() {} };
      },
      resume: () => {
        resumes++;
        let end!: (o: LegOutcome) => void;
        const done = new Promise<LegOutcome>((r) => (end = r));
        return { done, deliver() {}, park() {}, setDeadline() {}, abort: () => end({ kind: 'failed', code: 'aborted', error: 'aborted', droppedBytes: 0 }) };
      },
      release: (c) => released.push(c),
      stats: () => ({ workers: 0, activeLegs: 0 }),
      leaks: () => [],
      close: async () => undefined,
    };
    const gw = await testGateway({ executor: stuck, gateway: { legStartLimitMs: 50 } });
    try {
      const t = gw.prepareTurn({});
      const first = expectWaiting(await gw.exec(t.agentRunId, { code: 'return 1' }));
      expect(gw.diagnostics.suspendedSlots()).toBe(1);
      const r = await gw.wait(t.agentRunId, { runId: first.runId });
      expect(resumes).toBe(1);
      expect(r).toMatchObject({ status: 'failed', code: 'runtime_unavailable' });
      expect(r.status === 'failed' && r.error).toMatch(/did not get the cell's VM ready within 50 ms .*Run the cell again/);
      expect(gw.diagnostics.suspendedSlots()).toBe(0);
      expect(released).toHaveLength(1);
      expect(gw.diagnostics.leaks()).toEqual([]);
      expect(gw.run(first.runId)?.state).toBe('failed');
    } finally {
      await gw.close();
    }
  });
});

describe('release', () => {
  it('on a settle path that fails after the run was released: the run keeps the state it was released with', async () => {
    const gw = await gateway();
    // the first update of the completed run throws (a broken subscriber), after the run was released
    let thrown = false;
    const off = gw.subscribe((e) => {
      if (e.type === 'run.updated' && e.view.state === 'completed' && !thrown) {
        thrown = true;
        throw new Error('subscriber broke');
      }
    });
    try {
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, { code: 'return 1' });
      expect(thrown).toBe(true);
      expect(r).toMatchObject({ status: 'failed', code: 'internal_error' });
      expect(gw.run(r.telemetry.runId!)?.state).toBe('completed');
      expect(gw.diagnostics.leaks()).toEqual([]);
    } finally {
      off();
      await gw.close();
    }
  });
});

describe('network-content provenance', () => {
  it('on web_search output: marks the result, and a later cell that loads the stored value is marked too', async () => {
    const gw = await gateway({ timeoutMs: 5000 });
    try {
      const t = gw.prepareTurn({ sessionId: 'prov' });
      const a = await gw.exec(t.agentRunId, { code: 'const r = await web_search({ query: "quickjs" });\nawait store("top", r.results[0].url);\nreturn r.results.length > 0' });
      expect(a).toMatchObject({ status: 'completed', telemetry: { networkContent: true } });
      const clean = await gw.exec(t.agentRunId, { code: 'return 1' });
      expect(clean.telemetry.networkContent).toBeUndefined();
      const b = await gw.exec(t.agentRunId, { code: 'return await load("top")' });
      expect(b).toMatchObject({ status: 'completed', telemetry: { networkContent: true } });
      const saved = expectCompleted(await gw.exec(t.agentRunId, { code: 'const r = await web_fetch({ url: (await web_search({ query: "quickjs" })).results[0].url });\nreturn (await results.save(r.title)).ref' }));
      const c = await gw.exec(t.agentRunId, { code: `return await results.load(${JSON.stringify(saved.value)})` });
      expect(c).toMatchObject({ status: 'completed', telemetry: { networkContent: true } });
    } finally {
      await gw.close();
    }
  });
});

describe('approvals across parking', () => {
  it('on a yield while a sibling call awaits approval: the next wait pauses for the decision and completes', async () => {
    const gw = await gateway({ timeoutMs: 400 });
    try {
      const t = gw.prepareTurn({});
      const first = await gw.exec(t.agentRunId, {
        code: 'const pending = exec({ command: "echo", args: ["decided"] });\nawait yield_control("let the operator decide");\nreturn (await pending).stdout.trim()',
      });
      expect(first).toMatchObject({ status: 'waiting', reason: 'yield' });
      if (first.status !== 'waiting') return;
      let settled = false;
      const waiting = gw.wait(t.agentRunId, { runId: first.runId }).finally(() => (settled = true));
      await until(() => gw.approvals().length > 0);
      // decide well past the wait's 400 ms budget: the pause keeps the call in flight. The time passing is the
      // case under test, not a guess at when something happened, so it stays a fixed wait (after the approval is up).
      await new Promise((r) => setTimeout(r, 900));
      expect(settled, 'the wait must pause for the decision, not spend its budget').toBe(false);
      const [approval] = gw.approvals();
      expect(approval?.tool).toBe('exec');
      gw.decideApproval({ approvalId: approval!.approvalId, approve: true });
      // after the decision the budget runs again: on a loaded machine the rest may not fit in 400 ms and park
      // (reason timeout), which a further wait resumes; what matters is that the decided call is delivered
      let result = await waiting;
      for (let i = 0; i < 20 && result.status === 'waiting'; i++) result = await gw.wait(t.agentRunId, { runId: first.runId });
      expect(result).toMatchObject({ status: 'completed', value: 'decided' });
    } finally {
      await gw.close();
    }
  });
});

describe('calls while an approval is pending (the budget stands still meanwhile)', () => {
  it(`on a cell looping over tool calls beside a pending approval of a parallel tool: past ${MAX_CALLS_DURING_APPROVAL} calls the next waits, queued, for the decision; approved, the cell completes`, async () => {
    // a parallel tool that needs approval: the calls after it are not held by the scheduler, only by the approval gate
    const guarded = { name: 'guarded', description: 'test: parallel, needs approval', source: 'core' as const, approval: 'required' as const, inputSchema: { type: 'object' }, execute: async () => 'guarded ok' };
    const gw = await testGateway({ executor, codeMode: { memoryLimitBytes: 32 * 1024 * 1024, timeoutMs: 60_000 }, tools: [guarded] });
    try {
      const t = gw.prepareTurn({});
      const n = MAX_CALLS_DURING_APPROVAL + 40;
      const code = `const pending = guarded({});\nlet i = 0;\nfor (; i < ${n}; i++) await sleep({ ms: 0 });\nreturn { i, out: await pending }`;
      const result = gw.exec(t.agentRunId, { code });
      const sleeps = () => gw.runs().find((r) => r.agentRunId === t.agentRunId)?.nested.filter((c) => c.tool === 'sleep') ?? [];
      await until(() => sleeps().some((c) => c.status === 'queued'), { what: 'a call to wait for the decision', timeoutMs: 60_000 });
      const seen = sleeps();
      expect(seen.filter((c) => c.status === 'queued')).toHaveLength(1);
      expect(seen.at(-1)?.status).toBe('queued');
      expect(seen.filter((c) => c.status === 'ok').length).toBeGreaterThanOrEqual(MAX_CALLS_DURING_APPROVAL);
      expect(seen.length).toBeLessThan(n);
      const [approval] = gw.approvals();
      gw.decideApproval({ approvalId: approval!.approvalId, approve: true });
      expect(await result).toMatchObject({ status: 'completed', value: { i: n, out: 'guarded ok' } });
    } finally {
      await gw.close();
    }
  });

  it('on a cell calling tools after a sequential tool that awaits approval (the shell exec): every later call waits, queued, until the decision and its result (spec 02)', async () => {
    const gw = await gateway({ timeoutMs: 60_000 });
    try {
      const t = gw.prepareTurn({});
      const code = 'const pending = exec({ command: "echo", args: ["ok"] });\nconst w = await weather_lookup({ city: "Oslo" });\nreturn { city: w.city, out: (await pending).stdout.trim() }';
      const result = gw.exec(t.agentRunId, { code });
      await until(() => gw.approvals().length === 1, { what: 'the approval request' });
      const nested = () => gw.runs().find((r) => r.agentRunId === t.agentRunId)?.nested ?? [];
      await until(() => nested().some((c) => c.tool === 'weather_lookup'), { what: 'the later call to be dispatched' });
      expect(nested().find((c) => c.tool === 'weather_lookup')?.status).toBe('queued');
      const [approval] = gw.approvals();
      gw.decideApproval({ approvalId: approval!.approvalId, approve: true });
      expect(await result).toMatchObject({ status: 'completed', value: { city: 'Oslo', out: 'ok' } });
      const calls = gw.trajectory(expectCompleted(await result).telemetry.runId!)!.calls.flatMap((c) => c.nested);
      const execCall = calls.find((c) => c.tool === 'exec')!;
      const weather = calls.find((c) => c.tool === 'weather_lookup')!;
      // ordering, not timing: the weather call ended after the exec's result was in
      expect(weather.endedAt!).toBeGreaterThanOrEqual(execCall.endedAt!);
    } finally {
      await gw.close();
    }
  });
});

describe('run views carry a bounded number of nested calls', () => {
  it(`on a cell of ${MAX_NESTED_IN_VIEW + 100} calls: the view keeps the latest ${MAX_NESTED_IN_VIEW} and counts the rest; the trajectory export has all`, async () => {
    const gw = await gateway({ timeoutMs: 60_000 });
    try {
      const t = gw.prepareTurn({});
      const n = MAX_NESTED_IN_VIEW + 100;
      const done = expectCompleted(await gw.exec(t.agentRunId, { code: `for (let i = 0; i < ${n}; i++) await sleep({ ms: 0 });\nreturn ${n}` }));
      const runId = done.telemetry.runId ?? '';
      const seen = gw.run(runId)!;
      expect(seen.nested).toHaveLength(MAX_NESTED_IN_VIEW);
      expect(seen.nestedOmitted).toBe(100);
      expect(gw.runs().find((r) => r.runId === runId)?.nested).toHaveLength(MAX_NESTED_IN_VIEW);
      const all = gw.trajectory(runId)!.calls.flatMap((c) => c.nested);
      expect(all).toHaveLength(n);
      expect(seen.nested.at(-1)?.invocationId).toBe(all.at(-1)?.invocationId);
    } finally {
      await gw.close();
    }
  });
});

describe('untrusted network failures', () => {
  it('on an uncaught web_fetch error: the failed result is marked as network content', async () => {
    const gw = await gateway({ timeoutMs: 5000 });
    try {
      const t = gw.prepareTurn({});
      const r = await gw.exec(t.agentRunId, { code: 'return await web_fetch({ url: "https://nowhere.example/x" })' });
      expect(r).toMatchObject({ status: 'failed', telemetry: { networkContent: true } });
    } finally {
      await gw.close();
    }
  });
});

describe('source in history', () => {
  it('on a cell with a credential literal: the board and trajectory show it masked, computations kept', async () => {
    const gw = await gateway();
    try {
      const t = gw.prepareTurn({});
      const r = expectCompleted(await gw.exec(t.agentRunId, { code: 'const apiKey = "sk-live-abcdefghijklmnop1234";\nconst n = Math.max(1, 2);\nreturn n' }));
      const code = gw.trajectory(r.telemetry.runId!)!.code;
      expect(code).not.toContain('sk-live-abcdefghijklmnop1234');
      expect(code).toContain('const n = Math.max(1, 2);');
      expect(gw.run(r.telemetry.runId!)!.code).toBe(code);
    } finally {
      await gw.close();
    }
  });
});

describe('events and trajectory', () => {
  it('on a run: emits started, nested and updated events, and exports nested calls under their exec/wait calls', async () => {
    const gw = await gateway();
    try {
      const events: string[] = [];
      gw.subscribe((e) => events.push(e.type));
      const t = gw.prepareTurn({});
      const w = expectWaiting(await gw.exec(t.agentRunId, { code: 'const a = await weather_lookup({ city: "Oslo" });\nconst b = sleep({ ms: 20 });\nawait yield_control("park");\nreturn [a.city, (await b).sleptMs >= 20]' }));
      const done = await gw.wait(t.agentRunId, { runId: w.runId });
      expect(done).toMatchObject({ status: 'completed', value: ['Oslo', true] });
      expect(events).toContain('run.started');
      expect(events).toContain('nested.started');
      expect(events).toContain('nested.finished');
      const traj = gw.trajectory(w.runId)!;
      expect(traj.calls.map((c) => [c.tool, c.status])).toEqual([
        ['exec', 'waiting'],
        ['wait', 'completed'],
      ]);
      expect(traj.calls[0]!.nested.map((n) => n.tool)).toEqual(['weather_lookup', 'sleep', 'yield_control']);
      expect(traj.snapshots).toHaveLength(1);
      expect(traj.counters.call).toBe(2);
      expect(gw.run(w.runId)?.state).toBe('completed');
    } finally {
      await gw.close();
    }
  });
});

describe("the run's abort signal", () => {
  it('a wide Promise.all of calls that listen for the abort (sleeps, timers) raises no listener-leak warning', async () => {
    const gw = await gateway({ maxPendingToolCalls: 64 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const t = gw.prepareTurn({});
      const r = expectCompleted(
        await gw.exec(t.agentRunId, {
          code: 'const slept = await Promise.all(Array.from({ length: 40 }, () => sleep({ ms: 5 })));\nawait Promise.all(Array.from({ length: 40 }, () => new Promise((done) => setTimeout(done, 5))));\nreturn slept.length',
        }),
      );
      expect(r.value).toBe(40);
      // process warnings are emitted on the next tick
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await gw.close();
    }
  });
});
