// Test fixtures for the tool sources: a GatewayConfig and a ToolContext built in code, without the config loader.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodeModeOptions, GatewayConfig } from '../config/types.ts';
import { DEFAULT_CODE_MODE_OPTIONS, resolveMcpServerOptions, resolveServerOptions } from '../config/schema.ts';
import type { ToolContext, ToolDefinition } from './types.ts';

/** Repository root, found from this file so tests run from any cwd. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DEMO_WORKSPACE = join(REPO_ROOT, 'demo/workspace');

/** Code-mode options for tests: the schema's defaults, enabled, on QuickJS, with `overrides`. */
export function testCodeModeOptions(overrides: Partial<CodeModeOptions> = {}): CodeModeOptions {
  return { ...DEFAULT_CODE_MODE_OPTIONS, enabled: true, executor: 'quickjs', ...overrides };
}

export function testConfig(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    baseDir: REPO_ROOT,
    workspace: DEMO_WORKSPACE,
    shellAllow: ['ls', 'cat', 'wc', 'echo', 'head', 'date'],
    tools: { codeMode: testCodeModeOptions() },
    agents: { defaults: { model: 'demo/coder', models: {} }, list: [{ id: 'main' }] },
    plugins: { bundled: [], external: [] },
    mcp: { servers: {} },
    server: resolveServerOptions(undefined),
    mcpServer: resolveMcpServerOptions(undefined),
    ...overrides,
  };
}

export function testContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    agentId: 'main',
    agentRunId: 'run-1',
    sessionId: 'session-1',
    signal: new AbortController().signal,
    invocationId: 'cell-1:1',
    workspaceDir: DEMO_WORKSPACE,
    ...overrides,
  };
}

/** A throwaway copy of the demo workspace, for tests that add files or links. */
export function copyOfDemoWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-ws-'));
  cpSync(DEMO_WORKSPACE, dir, { recursive: true });
  return dir;
}

export function findTool(tools: readonly ToolDefinition[], name: string): ToolDefinition {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool "${name}" among: ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

/** Calls a tool's execute (every tool under test has one). */
export async function callTool(tool: ToolDefinition, input: unknown, ctx: ToolContext = testContext()): Promise<unknown> {
  if (!tool.execute) throw new Error(`tool "${tool.name}" has no execute`);
  return tool.execute(input, ctx);
}

/** A tool that answers after `ms` of real time, returning `{ v }`: a cell awaits it across a park or a moving clock. */
export const slowEcho: ToolDefinition = {
  name: 'slow_echo',
  description: 'test: returns its input after `ms`',
  source: 'core',
  inputSchema: { type: 'object', properties: { ms: { type: 'number' }, v: {} } },
  execute: async (input) => {
    const { ms = 0, v = null } = (input ?? {}) as { ms?: number; v?: unknown };
    await new Promise((r) => setTimeout(r, ms));
    return { v };
  },
};
