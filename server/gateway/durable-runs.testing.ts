// The durable-run tests' kit: the cell that parks with calls in flight, the tools it calls, and a Gateway over one session database with runs.durable.
import { randomBytes } from 'node:crypto';
import type { CodeModeOptions, GatewayConfig, RunsConfig, SessionsConfig } from '../config/types.ts';
import type { Executor } from '../executors/types.ts';
import { Gateway } from '../gateway.ts';
import { loadToolSources } from '../tools/registry.ts';
import { testCodeModeOptions, testConfig } from '../tools/testing.ts';
import type { ToolDefinition } from '../tools/types.ts';

/** What the cell holds across its park and never writes anywhere: no file of the session database may show it. */
export const HELD_SECRET = 'canary_42_held_by_the_cell';

/**
 * Holds HELD_SECRET (built at run time, so the source does not contain it), sends a replay-safe lookup and a
 * non-replay-safe transfer, parks on a yield with both in flight, and returns what each came to.
 */
export const PARKING_CELL = [
  'const held = ["canary", 6 * 7, "held", "by", "the", "cell"].join("_");',
  'const slow = lookup({ q: "rate" });',
  'const risky = transfer({ amount: 5 }).then((r) => r, (e) => ({ code: e.code, message: e.message }));',
  'await yield_control("park");',
  'return { held, slow: await slow, risky: await risky };',
].join('\n');

/**
 * `lookup` (replay-safe) and `transfer` (not): in the process that parks, both never answer (their outcome dies with
 * it); in the process that resumes, lookup answers and transfer counts its calls, which must stay 0.
 */
export function durableTools(mode: 'hang' | 'answer', transfers: { count: number } = { count: 0 }): ToolDefinition[] {
  const never = () => new Promise<never>(() => {});
  return [
    {
      name: 'lookup',
      description: 'reads a rate (read-only, replay-safe)',
      source: 'core',
      replaySafe: true,
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      execute: async () => (mode === 'hang' ? never() : { rate: 7 }),
    },
    {
      name: 'transfer',
      description: 'moves money (not replay-safe)',
      source: 'core',
      inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
      execute: async () => {
        transfers.count++;
        return mode === 'hang' ? never() : { moved: true };
      },
    },
  ];
}

/** A fresh CODEMODE_SNAPSHOT_KEY value. */
export function newSnapshotKey(): string {
  return randomBytes(32).toString('base64');
}

/** A Gateway with runs.durable over `sessions`, sealing with `key`, and the durable tools in `mode`. The caller closes it. */
export async function durableGateway(
  sessions: SessionsConfig,
  key: string,
  tools: ToolDefinition[],
  opts: { executor?: Executor; log?: (line: string) => void; codeMode?: Partial<CodeModeOptions>; runs?: Omit<RunsConfig, 'durable'>; turnIdleMs?: number } = {},
): Promise<Gateway> {
  const base = testConfig({ sessions, runs: { durable: true, ...opts.runs } });
  const config: GatewayConfig = { ...base, tools: { ...base.tools, codeMode: testCodeModeOptions({ executor: 'quickjs', ...opts.codeMode }) } };
  const sources = await loadToolSources(config);
  sources.tools.push(...tools);
  return new Gateway(config, sources, {
    env: { ...process.env, CODEMODE_SNAPSHOT_KEY: key },
    ...(opts.executor ? { executors: { quickjs: opts.executor } } : {}),
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.turnIdleMs !== undefined ? { turnIdleMs: opts.turnIdleMs } : {}),
  });
}
