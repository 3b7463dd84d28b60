// Test kit for the guest controller: a real Gateway per executor, an echo tool that records its inputs, and a protocol recorder.
import type { BridgeRequest } from '../bridge/protocol.ts';
import type { CodeModeOptions, ExecutorKind } from '../config/types.ts';
import { NodeExecutor } from '../executors/node/executor.ts';
import { QuickJsExecutor } from '../executors/quickjs/executor.ts';
import type { Executor, Leg, LegHandlers, LegOutcome } from '../executors/types.ts';
import { Gateway } from '../gateway.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { loadToolSources } from '../tools/registry.ts';
import { testCodeModeOptions, testConfig } from '../tools/testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { withInputValidation } from '../tools/validate.ts';

export const EXECUTOR_KINDS: readonly ExecutorKind[] = ['quickjs', 'node'];

export async function createExecutor(kind: ExecutorKind): Promise<Executor> {
  if (kind === 'quickjs') {
    const ex = new QuickJsExecutor({ workers: 2 });
    await ex.ready();
    return ex;
  }
  // the probe never reports pressure, so a loaded machine cannot turn warm reuse off mid-suite
  return new NodeExecutor({ memoryPressure: () => false });
}

/** What crossed from the guest to the host: every request of every frontier, cancels, and every leg's outcome. */
export interface ProtocolLog {
  requests: BridgeRequest[];
  cancels: string[];
  outcomes: LegOutcome[];
}

/** The same executor, recording what its legs send to the host. */
export function recordingExecutor(inner: Executor): { executor: Executor; log: ProtocolLog } {
  const log: ProtocolLog = { requests: [], cancels: [], outcomes: [] };
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

type Check = (value: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isNonEmptyString: Check = (v) => typeof v === 'string' && v !== '';
const isJsonText: Check = (v) => {
  if (typeof v !== 'string') return false;
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
};
const optional = (check: Check): Check => (v) => v === undefined || check(v);
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v);

/** Fields each request op may carry besides `id` and `op`, with what each must be (server/bridge/protocol.ts). */
const REQUEST_FIELDS: Record<string, Record<string, Check>> = {
  call: {
    tool: optional(isNonEmptyString),
    mcp: optional((v) => Array.isArray(v) && v.length === 2 && v.every(isString)),
    input: (v) => v !== undefined,
  },
  search: { query: isString, limit: optional((v) => typeof v === 'number' && Number.isFinite(v)) },
  all: {},
  describe: { tool: optional(isNonEmptyString), mcpServer: optional(isNonEmptyString) },
  timer: { ms: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, timer: (v) => Number.isInteger(v) && (v as number) > 0 },
  store: { action: oneOf('set', 'get'), key: isNonEmptyString, json: optional(isJsonText) },
  results: { action: oneOf('save', 'load', 'delete'), json: optional(isJsonText), ref: optional(isString) },
  yield: { reason: isString },
};

/** What is wrong with one request the guest controller sent, or undefined when it matches the protocol. */
export function requestProblem(req: unknown): string | undefined {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return `not an object: ${JSON.stringify(req)}`;
  const r = req as Record<string, unknown>;
  if (typeof r['id'] !== 'string' || !/^r[1-9][0-9]*$/.test(r['id'])) return `bad id in ${JSON.stringify(req)}`;
  const fields = typeof r['op'] === 'string' ? REQUEST_FIELDS[r['op']] : undefined;
  if (!fields) return `unknown op in ${JSON.stringify(req)}`;
  for (const key of Object.keys(r)) {
    if (key === 'id' || key === 'op') continue;
    const check = fields[key];
    if (!check) return `unexpected field "${key}" in ${JSON.stringify(req)}`;
    if (!check(r[key])) return `bad field "${key}" in ${JSON.stringify(req)}`;
  }
  for (const [key, check] of Object.entries(fields)) {
    if (!(key in r) && !check(undefined)) return `missing field "${key}" in ${JSON.stringify(req)}`;
  }
  if (r['op'] === 'call' && (r['tool'] === undefined) === (r['mcp'] === undefined)) return `a call names neither or both of tool and mcp: ${JSON.stringify(req)}`;
  return undefined;
}

/** Problems with everything the log holds: malformed requests, duplicate ids, outcomes that are not clean JSON or an internal_error. */
export function protocolProblems(log: ProtocolLog): string[] {
  const problems: string[] = [];
  for (const req of log.requests) {
    const problem = requestProblem(req);
    if (problem) problems.push(problem);
  }
  for (const cancel of log.cancels) if (!/^r[1-9][0-9]*$/.test(cancel)) problems.push(`bad cancel id ${JSON.stringify(cancel)}`);
  for (const outcome of log.outcomes) {
    if (outcome.kind === 'completed' && !isJsonText(outcome.valueJson)) problems.push(`completed with non-JSON ${JSON.stringify(outcome.valueJson)}`);
    if (outcome.kind === 'failed' && (typeof outcome.error !== 'string' || outcome.code === 'internal_error')) problems.push(`failed: ${JSON.stringify(outcome)}`);
  }
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

/** A Gateway on `executor` with the core tools plus `extra`. */
export async function gatewayWith(executor: Executor, extra: ToolDefinition[], o: Partial<CodeModeOptions> = {}): Promise<Gateway> {
  const config = testConfig({
    tools: { codeMode: testCodeModeOptions({ executor: executor.kind, timeoutMs: 5_000, memoryLimitBytes: 64 * 1024 * 1024, maxPendingToolCalls: 4, ...o }) },
  });
  const sources = await loadToolSources(config);
  sources.tools.push(...extra);
  return new Gateway(config, sources, { executors: { [executor.kind]: executor } });
}

export function completed(r: CodeModeResult): Extract<CodeModeResult, { status: 'completed' }> {
  if (r.status !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(r)}`);
  return r;
}

export function failed(r: CodeModeResult): Extract<CodeModeResult, { status: 'failed' }> {
  if (r.status !== 'failed') throw new Error(`expected failed, got ${JSON.stringify(r)}`);
  return r;
}
