// The server test kit: a real Gateway over a test config, waiting on a run's state, CodeModeResult narrowing that shows the actual result, and polling instead of sleeps.
import { onTestFinished, TestRunner } from 'vitest';
import type { CodeModeOptions, GatewayConfig } from './config/types.ts';
import type { CodeModeErrorCode } from './errors.ts';
import type { Executor } from './executors/types.ts';
import { Gateway, type GatewayOptions } from './gateway.ts';
import type { CodeModeResult, RunState } from './runs/types.ts';
import type { CodeModePlugin } from './tools/plugins.ts';
import { loadToolSources } from './tools/registry.ts';
import { testCodeModeOptions, testConfig } from './tools/testing.ts';
import type { ToolDefinition } from './tools/types.ts';

export interface TestGatewayOptions {
  /** Top-level config fields over `testConfig()` (no plugins, no MCP servers, agent "main", the demo workspace). */
  config?: Partial<GatewayConfig>;
  /** `tools.codeMode` fields over `testCodeModeOptions()` (the schema's defaults, enabled) and over `config.tools.codeMode`. */
  codeMode?: Partial<CodeModeOptions>;
  /**
   * An executor the test shares across gateways (starting a pool per gateway is most of a test's time); the
   * Gateway uses it for its kind and does not close it. Without one the Gateway starts and closes its own.
   */
  executor?: Executor;
  /** Tools added to the catalog after the configured ones (probes, an echo). */
  tools?: ToolDefinition[];
  /** Plugins added after the configured ones (hooks under test). */
  plugins?: CodeModePlugin[];
  /** Other Gateway options the test is about (`turnIdleMs`, `legStartLimitMs`). */
  gateway?: Pick<GatewayOptions, 'turnIdleMs' | 'legStartLimitMs' | 'log' | 'env'>;
}

/**
 * A real Gateway (no MCP manager, no warm-up) over a test config. Made inside a test, it is closed when
 * that test finishes; made in a hook or a suite body, the caller closes it (afterAll). Closing twice is
 * harmless, so a test may still close it itself.
 */
export async function testGateway(opts: TestGatewayOptions = {}): Promise<Gateway> {
  const base = testConfig(opts.config ?? {});
  const kind = opts.codeMode?.executor ?? opts.executor?.kind ?? base.tools.codeMode.executor;
  const config: GatewayConfig = {
    ...base,
    tools: { ...base.tools, codeMode: testCodeModeOptions({ ...base.tools.codeMode, executor: kind, ...opts.codeMode }) },
  };
  const sources = await loadToolSources(config);
  sources.tools.push(...(opts.tools ?? []));
  sources.plugins.push(...(opts.plugins ?? []));
  const gw = new Gateway(config, sources, { ...opts.gateway, executors: opts.executor ? { [opts.executor.kind]: opts.executor } : {} });
  if (TestRunner.getCurrentTest()) onTestFinished(() => gw.close());
  return gw;
}

/** Resolves once run `runId` is in `state`: checked now and at every Gateway event, so no test sleeps or polls. */
export function runReaches(gw: Gateway, runId: string, state: RunState): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (gw.run(runId)?.state !== state) return;
      unsubscribe();
      resolve();
    };
    const unsubscribe = gw.subscribe(check);
    check();
  });
}

type Completed = Extract<CodeModeResult, { status: 'completed' }>;
type Waiting = Extract<CodeModeResult, { status: 'waiting' }>;
type Failed = Extract<CodeModeResult, { status: 'failed' }>;

/** `result` as a completed result; otherwise throws with the whole result, so the failure says what happened instead. */
export function expectCompleted(result: CodeModeResult): Completed {
  if (result.status !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(result)}`);
  return result;
}

/** `result` as a waiting result; otherwise throws with the whole result. */
export function expectWaiting(result: CodeModeResult): Waiting {
  if (result.status !== 'waiting') throw new Error(`expected waiting, got ${JSON.stringify(result)}`);
  return result;
}

/** `result` as a failed result (with `code`, when given); otherwise throws with the whole result. */
export function expectFailed(result: CodeModeResult, code?: CodeModeErrorCode): Failed {
  if (result.status !== 'failed') throw new Error(`expected failed${code ? ` with ${code}` : ''}, got ${JSON.stringify(result)}`);
  if (code !== undefined && result.code !== code) throw new Error(`expected failed with ${code}, got ${JSON.stringify(result)}`);
  return result;
}

/** How long `until` polls before it gives up: far beyond any condition a loaded 2-core machine reaches. */
export const UNTIL_TIMEOUT_MS = 10_000;
/** How often `until` checks: often enough not to slow a test, rarely enough not to load the machine. */
const UNTIL_POLL_MS = 20;

export interface UntilOptions {
  /** Give up after this long (default UNTIL_TIMEOUT_MS). */
  timeoutMs?: number;
  /** What the test waits for, as the failure names it ("the demo server to reconnect"). */
  what?: string;
}

/** Polls `cond` until it holds (no timing assert: a slow machine only waits longer, up to `timeoutMs`). */
export async function until(cond: () => boolean, { timeoutMs = UNTIL_TIMEOUT_MS, what = 'the condition' }: UntilOptions = {}): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, UNTIL_POLL_MS));
  }
}
