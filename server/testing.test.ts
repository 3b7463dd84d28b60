// The server test kit itself: when testGateway closes a Gateway, runReaches, what the expect helpers say on a mismatch, and until's give-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJsExecutor } from './executors/quickjs/executor.ts';
import type { Gateway } from './gateway.ts';
import type { CodeModeResult } from './runs/types.ts';
import { expectCompleted, expectFailed, expectWaiting, runReaches, testGateway, until } from './testing.ts';

const telemetry = { executor: 'quickjs' as const, durationMs: 0, budgetUsedMs: 0, counters: { search: 0, describe: 0, call: 0 }, nestedCalls: 0, outputBytes: 0 };
const COMPLETED: CodeModeResult = { status: 'completed', value: 1, telemetry };
const TIMED_OUT: CodeModeResult = { status: 'failed', error: 'code mode run timed out', code: 'timeout', telemetry };

describe('testGateway', () => {
  let executor: QuickJsExecutor;
  /** Made in a hook: the caller closes it. */
  let shared: Gateway;
  /** Made inside the first test below, looked at in the second. */
  let madeInTest: Gateway | undefined;

  beforeAll(async () => {
    executor = new QuickJsExecutor({ workers: 1 });
    await executor.ready();
    shared = await testGateway({ executor });
  });

  afterAll(async () => {
    await shared.close();
    await executor.close();
  });

  it('made inside a test: runs cells on the given executor with the given options', async () => {
    madeInTest = await testGateway({ executor, codeMode: { maxOutputBytes: 2048 } });
    expect(madeInTest.config.tools.codeMode).toMatchObject({ enabled: true, executor: 'quickjs', maxOutputBytes: 2048 });
    const t = madeInTest.prepareTurn({});
    expect(expectCompleted(await madeInTest.exec(t.agentRunId, { code: 'return 40 + 2' })).value).toBe(42);
  });

  it('made inside a test: is closed once that test finishes; one made in a hook still serves, and so does the shared executor', async () => {
    expect(() => madeInTest?.prepareTurn({})).toThrow(/shutting down/);
    const t = shared.prepareTurn({});
    expect(expectCompleted(await shared.exec(t.agentRunId, { code: 'return 1' })).value).toBe(1);
  });

  it('runReaches: resolves for a run already in the state, and on the event that brings a run there', async () => {
    const t = shared.prepareTurn({});
    const parked = expectWaiting(await shared.exec(t.agentRunId, { code: 'await yield_control("park"); return 1' }));
    await runReaches(shared, parked.runId, 'waiting');
    let reached = false;
    const completed = runReaches(shared, parked.runId, 'completed').then(() => (reached = true));
    await Promise.resolve();
    expect(reached).toBe(false);
    expectCompleted(await shared.wait(t.agentRunId, { runId: parked.runId }));
    await completed;
    expect(reached).toBe(true);
  });
});

describe('expectCompleted / expectWaiting / expectFailed', () => {
  it('on the expected status: returns the same result, narrowed', () => {
    expect(expectCompleted(COMPLETED).value).toBe(1);
    expect(expectFailed(TIMED_OUT).code).toBe('timeout');
    expect(expectFailed(TIMED_OUT, 'timeout')).toBe(TIMED_OUT);
  });

  it('on another status: throws with the whole actual result', () => {
    expect(() => expectWaiting(COMPLETED)).toThrow(`expected waiting, got ${JSON.stringify(COMPLETED)}`);
    expect(() => expectCompleted(TIMED_OUT)).toThrow(/expected completed, got .*"code mode run timed out"/);
  });

  it('on a failure with another code: throws naming the expected code and showing the actual result', () => {
    expect(() => expectFailed(TIMED_OUT, 'memory_limit_exceeded')).toThrow(`expected failed with memory_limit_exceeded, got ${JSON.stringify(TIMED_OUT)}`);
    expect(() => expectFailed(COMPLETED, 'timeout')).toThrow(/^expected failed with timeout, got .*"completed"/);
  });
});

describe('until', () => {
  it('on a condition that becomes true later: resolves after it does', async () => {
    let ready = false;
    setTimeout(() => (ready = true), 0);
    await until(() => ready);
    expect(ready).toBe(true);
  });

  it('on a condition that never holds: rejects once the timeout passes, naming what it waited for', async () => {
    await expect(until(() => false, { timeoutMs: 50, what: 'the moon' })).rejects.toThrow('timed out after 50 ms waiting for the moon');
  });
});
