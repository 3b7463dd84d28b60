// Test fixtures for MCP: server configs for the demo and faulty servers, polling, and a child-process check.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { McpServerConfig } from '../../config/types.ts';
import { REPO_ROOT } from '../testing.ts';
import type { McpManagerOptions } from './manager.ts';

export const DEMO_SERVER_SCRIPT = join(REPO_ROOT, 'demo/mcp/server.mjs');
export const FAULTY_SERVER_SCRIPT = join(REPO_ROOT, 'server/tools/mcp/fixtures/faulty-server.mjs');
export const SLOW_START_SERVER_SCRIPT = join(REPO_ROOT, 'server/tools/mcp/fixtures/slow-start-server.mjs');
export const GROWING_SERVER_SCRIPT = join(REPO_ROOT, 'server/tools/mcp/fixtures/growing-server.mjs');

/** How long the slow-start fixture leaves `initialize` unanswered: well past a turn prepared right after start. */
export const SLOW_START_DELAY_MS = 1500;

/** The demo stdio server, started with this very node binary. */
export function demoServer(extra: Partial<Extract<McpServerConfig, { command: string }>> = {}): McpServerConfig {
  return { command: process.execPath, args: [DEMO_SERVER_SCRIPT], cwd: REPO_ROOT, ...extra };
}

export function faultyServer(...flags: Array<'--silent-tools-list'>): McpServerConfig {
  return { command: process.execPath, args: [FAULTY_SERVER_SCRIPT, ...flags], cwd: REPO_ROOT };
}

/** The SDK-built server that connects its transport only after `delayMs` (one tool, `ping`). */
export function slowStartServer(delayMs = SLOW_START_DELAY_MS): McpServerConfig {
  return { command: process.execPath, args: [SLOW_START_SERVER_SCRIPT, String(delayMs)], cwd: REPO_ROOT };
}

/** The SDK-built server whose `grow` tool adds a tool and sends tools/list_changed. */
export function growingServer(): McpServerConfig {
  return { command: process.execPath, args: [GROWING_SERVER_SCRIPT], cwd: REPO_ROOT };
}

/** Short delays so reconnect tests take milliseconds, not the production backoff. */
export const FAST_MCP_OPTIONS: McpManagerOptions = {
  reconnectBaseDelayMs: 20,
  maxReconnectDelayMs: 100,
  connectTimeoutMs: 10_000,
  callTimeoutMs: 10_000,
};

/** Command lines of this process's live children that run `script` (no zombies). */
export function childProcessesRunning(script: string): string[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'stat=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there are no children
  }
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('Z') && l.includes(script));
}
