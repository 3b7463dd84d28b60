// Test kit for the guest controller: a real Gateway per executor, an echo tool that records its inputs, and a protocol recorder.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { BridgeRequest } from '../bridge/protocol.ts';
import type { CodeModeOptions, ExecutorKind } from '../config/types.ts';
import { NodeExecutor } from '../executors/node/executor.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import { EmscriptenExecutor } from '../executors/emscripten/executor.ts';
import type { Executor, Leg, LegHandlers, LegOutcome } from '../executors/types.ts';
import type { Gateway } from '../gateway.ts';
import { testGateway } from '../testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { withInputValidation } from '../tools/validate.ts';

export const EXECUTOR_KINDS: readonly ExecutorKind[] = ['quickjs', 'node', 'quickjs-emscripten'];

export async function createExecutor(kind: ExecutorKind): Promise<Executor> {
  if (kind === 'quickjs') {
    const ex = new QuickJsExecutor({ workers: 2 });
    await ex.ready();
    return ex;
  }
  if (kind === 'quickjs-emscripten') return new EmscriptenExecutor();
  // the probe never reports pressure, so a loaded machine cannot turn warm reuse off mid-suite
  return new NodeExecutor({ memoryPressure: () => false });
}

/**
 * What crossed from the guest to the host: every request of every frontier (as the host rebuilt them
 * after its checks), cancels, every leg's outcome, and the error of every run that failed.
 */
export interface ProtocolLog {
  requests: BridgeRequest[];
  cancels: string[];
  outcomes: LegOutcome[];
  /** Errors of failed runs (a run-level protocol fault ends the leg as aborted; only the run says why). */
  runErrors: string[];
}

/** The same executor, recording what its legs send to the host. */
export function recordingExecutor(inner: Executor): { executor: Executor; log: ProtocolLog } {
  const log: ProtocolLog = { requests: [], cancels: [], outcomes: [], runErrors: [] };
  const wrap = (handlers: LegHandlers): LegHandlers => ({
    ...handlers,
    onRequests(requests, cancels) {
      log.requests.push(...requests);
      log.cancels.push(...cancels);
      handlers.onRequests(requests, cancels);
    },
  });
  const track = (leg: Leg): Leg => {
    void leg.done.then((outcome) => log.outcomes.push(outcome));
    return leg;
  };
  const executor: Executor = {
    kind: inner.kind,
    pressureParking: inner.pressureParking,
    start: (req, handlers) => track(inner.start(req, wrap(handlers))),
    resume: (continuation, req, handlers) => track(inner.resume(continuation, req, wrap(handlers))),
    release: (continuation) => inner.release(continuation),
    stats: () => inner.stats(),
    leaks: () => inner.leaks(),
    close: () => inner.close(),
  };
  if (inner.ready) executor.ready = () => inner.ready?.() ?? Promise.resolve();
  return { executor, log };
}

/** Record the error of every run of `gw` that fails into `log` (call once, before the runs). */
export function recordRunFailures(gw: Gateway, log: ProtocolLog): () => void {
  const seen = new Set<string>();
  return gw.subscribe((e) => {
    if (e.type !== 'run.updated' || e.view.lastResult?.status !== 'failed' || seen.has(e.runId)) return;
    seen.add(e.runId);
    log.runErrors.push(e.view.lastResult.error);
  });
}

/**
 * Every way a malformed guest message ends a run says so in these words: the worker's check of a
 * guest payload (worker-runtime.mjs protocolFault), the host's check of a worker message
 * (leg-messages.ts malformedOutcome), and the run's frontier check (runs.ts).
 */
export const PROTOCOL_FAULT = /\bmalformed message\b/;

const isJsonText = (v: unknown): boolean => {
  if (typeof v !== 'string') return false;
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
};

/**
 * Problems with everything the log holds: a run or leg that ended on a malformed guest message, a
 * cancel id the prelude never makes, an outcome that is not clean JSON, an internal_error. The
 * requests themselves are not checked here: the host's own checks rebuilt them into clean copies
 * before they were recorded, so a malformed one shows up as a failed run instead.
 */
export function protocolProblems(log: ProtocolLog): string[] {
  const problems: string[] = [];
  for (const cancel of log.cancels) if (!/^r[1-9][0-9]*$/.test(cancel)) problems.push(`bad cancel id ${JSON.stringify(cancel)}`);
  for (const outcome of log.outcomes) {
    if (outcome.kind === 'completed' && !isJsonText(outcome.valueJson)) problems.push(`completed with non-JSON ${JSON.stringify(outcome.valueJson)}`);
    if (outcome.kind === 'failed' && (typeof outcome.error !== 'string' || outcome.code === 'internal_error' || PROTOCOL_FAULT.test(outcome.error))) {
      problems.push(`failed: ${JSON.stringify(outcome)}`);
    }
  }
  for (const error of log.runErrors) if (PROTOCOL_FAULT.test(error)) problems.push(`run failed on a protocol fault: ${error}`);
  return problems;
}

/**
 * `echo` answers `{ got: input }` and records each input it ran with; its schema takes `a` (number),
 * `tag` (string) and `list` (array) and nothing else, validated before it runs.
 */
export function echoTool(): { tool: ToolDefinition; inputs: unknown[] } {
  const inputs: unknown[] = [];
  const tool = withInputValidation({
    name: 'echo',
    description: 'test echo: returns its input as { got }',
    source: 'core',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, tag: { type: 'string' }, list: { type: 'array' } },
      additionalProperties: false,
    },
    execute: async (input) => {
      inputs.push(input);
      return { got: input };
    },
  });
  return { tool, inputs };
}

/** A Gateway on `executor` with the core tools plus `extra` (see testGateway: closed after the test that made it). */
export async function gatewayWith(executor: Executor, extra: ToolDefinition[], o: Partial<CodeModeOptions> = {}): Promise<Gateway> {
  return testGateway({ executor, tools: extra, codeMode: { timeoutMs: 5_000, memoryLimitBytes: 64 * 1024 * 1024, maxPendingToolCalls: 4, ...o } });
}

/** A recorded Gateway for one executor kind, with the hooks that make each test start clean (useRecordedGateway). */
export interface RecordedGateway {
  readonly gw: Gateway;
  readonly log: ProtocolLog;
  readonly echo: ReturnType<typeof echoTool>;
  /** Runs `code` in a turn of its own (ended after the test). */
  run(code: string): ReturnType<Gateway['exec']>;
  /** A turn ended after the test. */
  prepareTurn(req?: Parameters<Gateway['prepareTurn']>[0]): ReturnType<Gateway['prepareTurn']>;
}

/**
 * Registers, in the calling describe block, a Gateway over a recording executor of `kind` with the echo tool, and
 * after every test: its turns ended, nothing malformed reached the host, no run failed inside the host, every slot
 * back. `prefix` names the tests' sessions.
 */
export function useRecordedGateway(kind: ExecutorKind, prefix: string): RecordedGateway {
  let inner: Executor;
  let gw: Gateway;
  let log: ProtocolLog;
  let echo: ReturnType<typeof echoTool>;
  const turns: string[] = [];
  beforeAll(async () => {
    inner = await createExecutor(kind);
    const recorded = recordingExecutor(inner);
    log = recorded.log;
    echo = echoTool();
    gw = await gatewayWith(recorded.executor, [echo.tool]);
    recordRunFailures(gw, log);
  });
  afterEach(() => {
    for (const id of turns.splice(0)) gw.endTurn(id);
    const problems = protocolProblems(log);
    log.requests.length = 0;
    log.cancels.length = 0;
    log.outcomes.length = 0;
    log.runErrors.length = 0;
    echo.inputs.length = 0;
    // nothing malformed reached the host, no run ended in internal_error, every slot came back
    expect(problems).toEqual([]);
    expect(gw.diagnostics.suspendedSlots()).toBe(0);
  });
  afterAll(async () => {
    await gw.close();
    await inner.close();
  });
  return {
    get gw() {
      return gw;
    },
    get log() {
      return log;
    },
    get echo() {
      return echo;
    },
    run(code) {
      return gw.exec(this.prepareTurn({ sessionId: `${prefix}-${kind}-${turns.length}` }).agentRunId, { code });
    },
    prepareTurn(req = {}) {
      const t = gw.prepareTurn(req);
      turns.push(t.agentRunId);
      return t;
    },
  };
}
