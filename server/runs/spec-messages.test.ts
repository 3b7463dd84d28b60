// Every message the spec quotes, emitted through the real Gateway: each starts with the spec's sentence, period included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeModeOptions } from '../config/types.ts';
import type { Gateway } from '../gateway.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { expectFailed, expectWaiting, runReaches, testGateway } from '../testing.ts';
import type { CodeModeResult } from './types.ts';
import { MSG_TOO_MANY, MSG_UNAVAILABLE, MSG_WRONG_SESSION } from './messages.ts';
import { MAX_SLOTS_PER_TURN, MAX_SUSPENDED_RUNS } from './runs.ts';

const PARK = 'await yield_control("park"); return 1';

let executor: QuickJsExecutor;

beforeAll(async () => {
  executor = new QuickJsExecutor({ workers: 2 });
  await executor.ready();
});

afterAll(async () => {
  await executor.close();
});

/** Made inside a test (every row emits from one): closed when that test finishes. */
async function gateway(o: Partial<CodeModeOptions> = {}): Promise<Gateway> {
  return testGateway({ executor, codeMode: { memoryLimitBytes: 32 * 1024 * 1024, ...o } });
}

/** One row per message the spec quotes: its exact text, the code it comes with, and how the Gateway is made to emit it. */
interface SpecMessage {
  /** The sentence as the spec quotes it (02-internals.txt), period included. */
  spec: string;
  /** Where the spec says it. */
  where: string;
  /** The constant the code emits it from. */
  constant: string;
  code: string;
  /** Drive the real Gateway to the failure and return it. */
  emit(): Promise<CodeModeResult>;
}

const SPEC_MESSAGES: SpecMessage[] = [
  {
    spec: 'code mode run is unavailable or expired.',
    where: '02 "Expiry, wrong-session, wrong-run, and unknown/already-resuming runId values ... (code: "invalid_input")": an unknown runId',
    constant: MSG_UNAVAILABLE,
    code: 'invalid_input',
    async emit() {
      const gw = await gateway();
      const t = gw.prepareTurn({ sessionId: 'msg-unknown' });
      return gw.wait(t.agentRunId, { runId: 'run_0000000000000000' });
    },
  },
  {
    spec: 'code mode run is unavailable or expired.',
    where: '02, the same sentence: a run that has already settled (its continuation is released)',
    constant: MSG_UNAVAILABLE,
    code: 'invalid_input',
    async emit() {
      const gw = await gateway();
      const t = gw.prepareTurn({ sessionId: 'msg-settled' });
      const runId = expectWaiting(await gw.exec(t.agentRunId, { code: PARK })).runId;
      expect((await gw.wait(t.agentRunId, { runId })).status).toBe('completed');
      return gw.wait(t.agentRunId, { runId });
    },
  },
  {
    spec: 'code mode run is unavailable or expired.',
    where: '02, the same sentence: a run past snapshotTtlSeconds',
    constant: MSG_UNAVAILABLE,
    code: 'invalid_input',
    async emit() {
      const gw = await gateway({ snapshotTtlSeconds: 1 });
      const t = gw.prepareTurn({ sessionId: 'msg-expired' });
      const runId = expectWaiting(await gw.exec(t.agentRunId, { code: PARK })).runId;
      await runReaches(gw, runId, 'expired');
      return gw.wait(t.agentRunId, { runId });
    },
  },
  {
    spec: 'code mode run belongs to a different session.',
    where: '02, the same bullet: a wait from a turn of another session',
    constant: MSG_WRONG_SESSION,
    code: 'invalid_input',
    async emit() {
      const gw = await gateway();
      const owner = gw.prepareTurn({ sessionId: 'msg-owner' });
      const other = gw.prepareTurn({ sessionId: 'msg-other' });
      const runId = expectWaiting(await gw.exec(owner.agentRunId, { code: PARK })).runId;
      return gw.wait(other.agentRunId, { runId });
    },
  },
  {
    spec: 'too many suspended code mode runs.',
    where: '02 "OpenClaw caps the number of concurrently suspended runs per process (64) and rejects new suspensions past that cap with ..."',
    constant: MSG_TOO_MANY,
    code: 'runtime_unavailable',
    async emit() {
      const gw = await gateway();
      const turns = Array.from({ length: MAX_SUSPENDED_RUNS / MAX_SLOTS_PER_TURN }, () => gw.prepareTurn({ sessionId: 'msg-cap' }));
      const parked = await Promise.all(turns.flatMap((t) => Array.from({ length: MAX_SLOTS_PER_TURN }, () => gw.exec(t.agentRunId, { code: PARK }))));
      expect(parked.every((r) => r.status === 'waiting')).toBe(true);
      return gw.exec(gw.prepareTurn({ sessionId: 'msg-cap' }).agentRunId, { code: PARK });
    },
  },
];

describe('every message the spec quotes starts with the spec\'s exact sentence, period included', () => {
  it('lists the constants word for word', () => {
    for (const row of SPEC_MESSAGES) expect(row.constant, row.where).toBe(row.spec);
  });

  it.each(SPEC_MESSAGES.map((row) => [row.where, row] as const))('on %s: the failed result starts with the spec sentence', async (_where, row) => {
    const r = expectFailed(await row.emit());
    expect(r.code).toBe(row.code);
    expect(r.error.startsWith(row.spec), `"${r.error}" should start with "${row.spec}"`).toBe(true);
    // guidance may follow the sentence, never replace its period
    const rest = r.error.slice(row.spec.length);
    expect(rest === '' || rest.startsWith(' ')).toBe(true);
  });
});
