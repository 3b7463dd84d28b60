// The official MCP Inspector's CLI mode (a pinned dev dependency, run from node_modules) against both faces: `codemode mcp` on stdio and /mcp over Streamable HTTP.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MCP_SERVER_OPTIONS } from '../config/schema.ts';
import type { Gateway } from '../gateway.ts';
import { createGateway } from '../gateway.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { REPO_ROOT } from '../tools/testing.ts';
import { CODEMODE_BIN, INSPECTOR_CLI, mcpServerForSuite, writeStdioTestConfig } from './testing.ts';

const run = promisify(execFile);
/** Each test starts the Inspector and, on stdio, a Gateway in a child process: seconds each, more on a loaded machine. */
const CHILD_PROCESS_TIMEOUT_MS = 120_000;
/** The name the Inspector's CLI sends in `initialize`: the runs it starts are labelled with it. */
const INSPECTOR_CLIENT_NAME = 'inspector-cli';

interface ListedTool {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema?: { required?: string[] };
}
interface CalledTool {
  content: Array<{ type: string; text: string }>;
  structuredContent: CodeModeResult;
  isError?: boolean;
}

/** Runs the Inspector in CLI mode; `target` is a URL or a command with its arguments (after `--`, so none of its flags is read as the Inspector's). */
async function inspect<T>(method: string[], target: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [INSPECTOR_CLI, '--cli', '--', ...target, ...method], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as T;
}

const TOOLS_LIST = ['--method', 'tools/list'];
const execCall = (code: string) => ['--method', 'tools/call', '--tool-name', 'exec', '--tool-arg', `code=${code}`];

describe('MCP Inspector CLI against `codemode mcp` (stdio)', { timeout: CHILD_PROCESS_TIMEOUT_MS }, () => {
  const config = writeStdioTestConfig();
  const command = [process.execPath, CODEMODE_BIN, 'mcp', '--config', config];
  let reference: Gateway;
  beforeAll(async () => {
    reference = await createGateway({ configPath: config });
  }, CHILD_PROCESS_TIMEOUT_MS);
  afterAll(() => reference?.close());

  it('tools/list: exactly the model surface, exec and wait with their output schema', async () => {
    const { tools } = await inspect<{ tools: ListedTool[] }>(TOOLS_LIST, command);
    expect(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual(reference.surface({}).tools);
    expect(tools.find((t) => t.name === 'exec')?.outputSchema?.required).toEqual(['status', 'telemetry']);
  });

  it('tools/call exec: the model text as text content, the result as structured content', async () => {
    const reply = await inspect<CalledTool>(execCall('const r = await sleep({ ms: 1 }); return [6 * 7, typeof r.sleptMs];'), command);
    expect(reply.structuredContent).toMatchObject({ status: 'completed', value: [42, 'number'] });
    expect(reply.isError).toBeUndefined();
    expect(reply.content[0]?.text).toBe(reference.modelText(reply.structuredContent));
  });
});

describe('MCP Inspector CLI against /mcp (Streamable HTTP)', { timeout: CHILD_PROCESS_TIMEOUT_MS }, () => {
  const suite = mcpServerForSuite();

  it('tools/list: exactly the model surface of the default agent', async () => {
    const { tools } = await inspect<{ tools: ListedTool[] }>(TOOLS_LIST, [suite.url]);
    expect(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual(suite.gateway.surface({}).tools);
  });

  it('tools/call exec of a cell that calls a core tool: the run is on the boards, labelled with the Inspector\'s name, its nested call shown', async () => {
    const reply = await inspect<CalledTool>(execCall('const r = await sleep({ ms: 1 }); return ["inspected", typeof r.sleptMs];'), [suite.url]);
    expect(reply.structuredContent).toMatchObject({ status: 'completed', value: ['inspected', 'number'] });
    expect(reply.content[0]?.text).toBe(suite.gateway.modelText(reply.structuredContent));
    const runView = suite.gateway.runs().find((r) => r.code.includes('"inspected"'));
    expect(runView).toMatchObject({ client: INSPECTOR_CLIENT_NAME, state: 'completed' });
    expect(runView?.nested.map((c) => c.tool)).toEqual(['sleep']);
  });

  it('the CLI exits without deleting its sessions: they stay open until the idle close frees them', async () => {
    const left = suite.server.mcp!.sessionCount();
    expect(left).toBeGreaterThan(0);
    expect(await suite.server.mcp!.closeIdle(Date.now() + DEFAULT_MCP_SERVER_OPTIONS.sessionIdleSeconds * 1000)).toBe(left);
    expect(suite.server.mcp!.sessionCount()).toBe(0);
  });
});
