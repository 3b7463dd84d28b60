// The run record's test kit: a turn scope and a host without a Gateway, an executor whose legs the test ends, and
// a run brought into each state through its own transitions.
import { NO_DECLARATION_FILES } from '../bridge/declaration-files.mjs';
import { LOCAL_OWNER } from '../access/owners.ts';
import { CallScheduler } from '../bridge/scheduler.ts';
import { buildCatalog } from '../catalog/build.ts';
import type { CodeModeOptions } from '../config/types.ts';
import type { Continuation, Executor, Leg, LegOutcome } from '../executors/types.ts';
import { ResultsStore } from '../results/store.ts';
import type { SessionStore } from '../sessions/store.ts';
import { testCodeModeOptions } from '../tools/testing.ts';
import { ExecutionBudget } from './budget.ts';
import { Run } from './run.ts';
import type { RunHost, TurnScope } from './scope.ts';
import { SlotLedger } from './slots.ts';
import type { RunEvent, RunState } from './types.ts';

/** A turn scope with no tools, as the Gateway's turn registry would give one (ids and options as the test needs). */
export function testTurn(ids: { agentRunId?: string; sessionId?: string } = {}, options: Partial<CodeModeOptions> = {}): TurnScope {
  const resolved = testCodeModeOptions(options);
  return {
    agentRunId: ids.agentRunId ?? 'ar_test',
    sessionId: ids.sessionId ?? 'sess_test',
    agentId: 'main',
    owner: LOCAL_OWNER,
    workspaceDir: '.',
    options: resolved,
    catalog: buildCatalog([]),
    boot: { maxPendingToolCalls: resolved.maxPendingToolCalls, mcp: [] },
    files: NO_DECLARATION_FILES,
    scheduler: new CallScheduler(),
    results: new ResultsStore(resolved.maxSnapshotBytes),
    headless: false,
    toolCalls: 0,
    abort: new AbortController(),
    inferredOutputs: new Map(),
    definitionTokens: () => ({ codeMode: 0, direct: 0 }),
    beforeToolCall: async (_entry, input) => ({ input }),
  };
}

/** A host that keeps what its runs told it: events, changes and ends, over a slot ledger of its own. */
export interface TestHost extends RunHost {
  readonly events: RunEvent[];
  readonly ended: (run: Run) => void;
  endedRuns: Run[];
  changes: number;
}

export function testHost(): TestHost {
  const host: TestHost = {
    // the runs of these tests dispatch no nested call: a store or approval use is a test bug, and says so
    sessions: new Proxy({} as SessionStore, {
      get: () => {
        throw new Error('this test host has no session store');
      },
    }),
    approvals: { request: () => Promise.reject(new Error('this test host has no approvals')) },
    slots: new SlotLedger(),
    snapshotStore: 'memory',
    events: [],
    endedRuns: [],
    changes: 0,
    emit: (event) => void host.events.push(event),
    changed: () => void host.changes++,
    ended: (run) => void host.endedRuns.push(run),
  };
  return host;
}

/** A leg the test ends: `finish(outcome)` resolves it; what the run asked of it is counted. */
export interface ScriptedLeg extends Leg {
  finish(outcome: LegOutcome): void;
  parks: number;
  aborts: number;
}

export function scriptedLeg(): ScriptedLeg {
  let finish!: (o: LegOutcome) => void;
  const done = new Promise<LegOutcome>((resolve) => (finish = resolve));
  const leg: ScriptedLeg = {
    done,
    finish: (o) => finish(o),
    parks: 0,
    aborts: 0,
    deliver() {},
    park: () => void leg.parks++,
    setDeadline() {},
    abort: () => {
      leg.aborts++;
      finish({ kind: 'failed', code: 'aborted', error: 'aborted', droppedBytes: 0 });
    },
  };
  return leg;
}

/** An executor whose legs are scripted (the test ends each); released continuations are counted. */
export function scriptedExecutor(): Executor & { legs: ScriptedLeg[]; released: Continuation[] } {
  const legs: ScriptedLeg[] = [];
  const released: Continuation[] = [];
  const open = (): Leg => {
    const leg = scriptedLeg();
    legs.push(leg);
    return leg;
  };
  return {
    kind: 'quickjs',
    pressureParking: false,
    legs,
    released,
    start: open,
    resume: open,
    release: (c) => void released.push(c),
    stats: () => ({ workers: 0, activeLegs: 0 }),
    leaks: () => [],
    close: async () => {},
  };
}

/** A parked outcome holding a (fake) snapshot. */
export function parkedOutcome(): Extract<LegOutcome, { kind: 'parked' }> {
  return { kind: 'parked', continuation: { executor: 'quickjs', snapshot: new Uint8Array([1, 2, 3]), rawBytes: 3, storedBytes: 3 }, queued: [], droppedBytes: 0 };
}

/** A new run of `turn` on `executor`, its exec call recorded and no leg open. */
export function startedRun(host: RunHost, executor: Executor, turn: TurnScope = testTurn()): Run {
  const run = Run.start(host, turn, { body: 'return 1', code: 'return 1', language: 'javascript', executor, restartSafe: false, toolCallId: 'call_1', seed: 7, clock: { mode: 'logical' } });
  run.openCall('exec', 'call_1');
  return run;
}

/** Open a leg on the run and drive it to `outcome` (the leg ends; the run's state is the caller's next step). */
export async function legTo(run: Run, outcome: LegOutcome): Promise<void> {
  const call = run.calls[run.calls.length - 1]!;
  const live = run.openLeg(new ExecutionBudget(60_000), call, () => run.cell.executor.start({ body: '', boot: { ...run.turn.boot, tools: [] }, files: NO_DECLARATION_FILES, limits: {} as never, budgetMs: 60_000 }, { onRequests() {}, onOutput() {} }));
  const ran = run.runLeg(live, 60_000);
  (live.leg as ScriptedLeg).finish(outcome);
  await ran;
}

/** A run brought into `state` by its own transitions (waiting: parked with a fake snapshot). An expired run comes from a restore (Run.restore with a past expiresAt). */
export async function runIn(state: Exclude<RunState, 'expired'>, host: RunHost = testHost(), executor: Executor = scriptedExecutor()): Promise<Run> {
  const run = startedRun(host, executor);
  switch (state) {
    case 'running':
      return run;
    case 'aborted':
      run.abort('the test ended it');
      return run;
    case 'completed':
      await legTo(run, { kind: 'completed', valueJson: '1', droppedBytes: 0 });
      run.complete();
      return run;
    case 'failed':
      await legTo(run, { kind: 'failed', error: 'boom', droppedBytes: 0 });
      run.fail();
      return run;
    case 'waiting':
      await legTo(run, parkedOutcome());
      run.park(parkedOutcome());
      return run;
  }
}
