// Gateways for the benchmark: real config resolution and tool sources, plus a no-op tool, over a shared executor.
import type { ExecutorKind, RunsConfig } from '../server/config/types.ts';
import { resolveCodeModeOptions } from '../server/config/schema.ts';
import type { Executor } from '../server/executors/types.ts';
import { Gateway } from '../server/gateway.ts';
import type { CodeModeResult } from '../server/runs/types.ts';
import { loadToolSources } from '../server/tools/registry.ts';
import { testConfig } from '../server/tools/testing.ts';
import type { ToolDefinition } from '../server/tools/types.ts';

/** The no-op tool's callable name: a nested call that does no work, so its cost is the bridge's. */
export const NOOP_TOOL = 'bench_noop';

export function noopTool(): ToolDefinition {
  return {
    name: NOOP_TOOL,
    description: 'benchmark probe: returns null at once, so a call measures only the bridge round trip',
    source: 'core',
    executionMode: 'parallel',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => null,
  };
}

/** Limits the benchmark changes; everything else is the config schema's default. */
export interface BenchLimits {
  timeoutMs?: number;
  memoryLimitBytes?: number;
  /** (b) one Promise.all of 100 calls needs more than the default 16 in flight. */
  maxPendingToolCalls?: number;
}

/** What a Gateway adds to the core tools: (o) adds GitHub's whole REST API as tools. */
export interface BenchTools {
  extraTools?: () => ToolDefinition[];
}

/** (r) `runs.durable` over a SQLite file, sealing with `key` (a CODEMODE_SNAPSHOT_KEY value). */
export interface BenchDurable {
  sessionsPath: string;
  key: string;
  /** runs.maxParked and runs.parkedInMemory (absent: the defaults, spec 01's 64 each). */
  maxParked?: number;
  parkedInMemory?: number;
}

function durableRuns(d: BenchDurable): RunsConfig {
  return { durable: true, ...(d.maxParked !== undefined ? { maxParked: d.maxParked } : {}), ...(d.parkedInMemory !== undefined ? { parkedInMemory: d.parkedInMemory } : {}) };
}

/**
 * A Gateway over `executor` (shared, not owned: closing the Gateway leaves it running), with the core
 * tools (sleep, read, ...) and the no-op tool. No plugins, so the catalog stays small and equal for all rows.
 */
export async function openGateway(kind: ExecutorKind, executor: Executor, limits: BenchLimits = {}, tools: BenchTools = {}, durable?: BenchDurable): Promise<Gateway> {
  const codeMode = resolveCodeModeOptions({ enabled: true, executor: kind, ...limits }, 'bench.tools.codeMode');
  const config = testConfig({ tools: { codeMode }, ...(durable ? { sessions: { path: durable.sessionsPath }, runs: durableRuns(durable) } : {}) });
  const sources = await loadToolSources(config);
  sources.tools.push(noopTool());
  const gw = new Gateway(config, sources, {
    executors: { [kind]: executor },
    ...(tools.extraTools ? { extraTools: tools.extraTools } : {}),
    ...(durable ? { env: { ...process.env, CODEMODE_SNAPSHOT_KEY: durable.key }, log: durableLog } : {}),
  });
  // the session database migrated before the first cell, as createGateway does
  if (durable) await gw.ready();
  return gw;
}

/** A durable Gateway's log on stderr, without its line per run restored from the store (it would bury the bench's progress). */
function durableLog(line: string): void {
  if (!line.includes(' restored from the session database ')) process.stderr.write(`${line}\n`);
}

type Status = CodeModeResult['status'];

/** Narrows a result to `status`, or throws with the whole result so a broken row says why. */
export function expectStatus<S extends Status>(result: CodeModeResult, status: S, what: string): Extract<CodeModeResult, { status: S }> {
  if (result.status !== status) {
    throw new Error(`${what}: expected a ${status} result, got ${JSON.stringify(result).slice(0, 600)}`);
  }
  return result as Extract<CodeModeResult, { status: S }>;
}
