// Test kit for the MCP face: a playground server on port 0 over a Gateway, a config file for `codemode mcp` children, and the paths of the official MCP tools in node_modules.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SERVER_OPTIONS, resolveMcpServerOptions } from '../config/schema.ts';
import type { McpServerOptions } from '../config/types.ts';
import type { GatewayApi } from '../gateway-types.ts';
import { startPlaygroundServer, type PlaygroundServer } from '../http/server.ts';
import { DEMO_WORKSPACE, REPO_ROOT } from '../tools/testing.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { afterAll, beforeAll } from 'vitest';
import { testGateway } from '../testing.ts';
import type { Gateway } from '../gateway.ts';

export const CODEMODE_BIN = join(REPO_ROOT, 'bin', 'codemode.mjs');

/**
 * The MCP Inspector's CLI (0.15.0, pinned). The inspector package's own `mcp-inspector` bin resolves `commander`
 * from the hoisted tree (an old major another package brought) and fails at start, so the test runs the same
 * launcher from the inspector's CLI package, which the inspector depends on and which carries its own commander.
 */
export const INSPECTOR_CLI = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'cli.js');
/** The conformance runner's `conformance` bin (0.1.12, pinned). */
export const CONFORMANCE_CLI = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

export interface McpTestServerOptions {
  host?: string;
  accessToken?: string;
  mcpServer?: Partial<McpServerOptions>;
}

/** The playground server (request checks, /mcp, a plain page) over `gateway` on a free loopback port. */
export function startMcpTestServer(gateway: GatewayApi, opts: McpTestServerOptions = {}): Promise<PlaygroundServer> {
  return startPlaygroundServer({
    gateway,
    host: opts.host ?? '127.0.0.1',
    port: 0,
    server: DEFAULT_SERVER_OPTIONS,
    accessToken: opts.accessToken,
    mcpServer: { ...resolveMcpServerOptions(undefined), ...opts.mcpServer },
    handlePage: async (_req, res) => void res.end('<p>the page</p>'),
  });
}

/** Closes the server and every connection it holds. */
export function stopMcpTestServer(s: PlaygroundServer): Promise<void> {
  return new Promise<void>((resolve) => {
    s.server.closeAllConnections();
    s.server.close(() => resolve());
  });
}

/** A config file for `codemode mcp` children: code mode on QuickJS, agents main and direct (code mode off), no plugins or MCP sources, sessions in memory. */
export function writeStdioTestConfig(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'codemode-mcp-config-')), 'codemode.config.json');
  writeFileSync(
    file,
    JSON.stringify({
      tools: { codeMode: { enabled: true, executor: 'quickjs' } },
      agents: { defaults: { model: 'demo/coder' }, list: [{ id: 'main' }, { id: 'direct', tools: { codeMode: { enabled: false } } }] },
      workspace: DEMO_WORKSPACE,
      sessions: { path: ':memory:' },
    }),
  );
  return file;
}

/** A core tool that needs the operator's approval: echoes `text` once approved (approval flows over MCP). */
export const GUARDED_ECHO: ToolDefinition = {
  name: 'guarded_echo',
  description: 'Echoes its input once the operator approves.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  source: 'core',
  approval: 'required',
  execute: async (input) => (input as { text: string }).text,
};

/**
 * For a describe block: a test Gateway and the playground server over it on a free port, started before its tests
 * and closed after; read `gateway`, `server` and `url` (the /mcp endpoint) inside the tests.
 */
export function mcpServerForSuite(): { readonly gateway: Gateway; readonly server: PlaygroundServer; readonly url: string } {
  let gateway: Gateway | undefined;
  let s: PlaygroundServer | undefined;
  beforeAll(async () => {
    gateway = await testGateway();
    s = await startMcpTestServer(gateway);
  });
  afterAll(async () => {
    if (s) await stopMcpTestServer(s);
    await gateway?.close();
  });
  return {
    get gateway() {
      if (!gateway) throw new Error('mcpServerForSuite: read gateway inside a test');
      return gateway;
    },
    get server() {
      if (!s) throw new Error('mcpServerForSuite: read server inside a test');
      return s;
    },
    get url() {
      if (!s) throw new Error('mcpServerForSuite: read url inside a test');
      return `http://127.0.0.1:${s.exposure.port}/mcp`;
    },
  };
}
