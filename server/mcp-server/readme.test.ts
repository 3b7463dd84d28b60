// The README's "Use it from your agent" snippets, as written (only the placeholder checkout path, port and token filled in): the stdio one through the MCP Inspector's --config from a foreign folder, the HTTP one through an SDK client.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Gateway } from '../gateway.ts';
import type { PlaygroundServer } from '../http/server.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { REPO_ROOT } from '../tools/testing.ts';
import { testGateway } from '../testing.ts';
import { INSPECTOR_CLI, startMcpTestServer, stopMcpTestServer } from './testing.ts';

const run = promisify(execFile);
/** Each stdio test starts the Inspector and a Gateway over the shipped config (plugins, the demo MCP server) in child processes. */
const CHILD_PROCESS_TIMEOUT_MS = 120_000;
const PLACEHOLDER_CHECKOUT = '/path/to/code-mode-playground';
const PLACEHOLDER_ORIGIN = 'http://127.0.0.1:3000';
const PLACEHOLDER_TOKEN = '<token, only when the server is exposed>';
const TOKEN = 'r'.repeat(40);

interface McpServersFile {
  mcpServers: Record<string, { command?: string; args?: string[]; type?: string; url?: string; headers?: Record<string, string> }>;
}

/** The two JSON blocks of the README section, in order: stdio, then HTTP. */
function readmeSnippets(): [string, string] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('### Use it from your agent');
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  const blocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  if (start < 0 || blocks.length !== 2) throw new Error(`README "Use it from your agent" should hold two json blocks (stdio, HTTP), found ${blocks.length}`);
  return [blocks[0]!, blocks[1]!];
}

describe('README stdio snippet, through the MCP Inspector\'s --config (launched from a folder outside the checkout)', { timeout: CHILD_PROCESS_TIMEOUT_MS }, () => {
  const folder = mkdtempSync(join(tmpdir(), 'codemode-readme-'));
  const configFile = join(folder, 'mcp.json');
  const inspect = async <T>(method: string[]): Promise<T> => {
    const { stdout } = await run(process.execPath, [INSPECTOR_CLI, '--cli', '--config', configFile, '--server', 'codemode', ...method], { cwd: folder, maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout) as T;
  };
  const execCall = (code: string) => inspect<{ content: Array<{ text: string }>; structuredContent: CodeModeResult }>(['--method', 'tools/call', '--tool-name', 'exec', '--tool-arg', `code=${code}`]);

  beforeAll(() => {
    const [stdio] = readmeSnippets();
    const parsed = JSON.parse(stdio.replaceAll(PLACEHOLDER_CHECKOUT, REPO_ROOT)) as McpServersFile;
    expect(parsed.mcpServers['codemode']?.args).toContain('mcp');
    writeFileSync(configFile, JSON.stringify(parsed));
  });

  it('exec reaches the workspace and the web fixture (paths in the config resolve from its folder), the text wrapped as untrusted', async () => {
    // (not the demo MCP server: on a loaded machine its first connection may miss the turn, which is its own test's business)
    const reply = await execCall('const r = await read({ path: "README.md" }); const w = await web_search({ query: "code mode" }); return [typeof r.content, w.results.length > 0];');
    // network content: the value travels only inside the wrapped text, in the structured content too
    expect(reply.structuredContent).toMatchObject({ status: 'completed', untrustedContent: reply.content[0]?.text });
    expect(reply.content[0]?.text).toContain('EXTERNAL_UNTRUSTED_CONTENT');
    expect(reply.content[0]?.text).toContain('"value":["string",true]');
  });

  it('an approval is denied (no --approve in the snippet, no panel on stdio), and the cell hears how to allow it', async () => {
    const reply = await execCall('try { await exec({ command: "ls" }); return "ran"; } catch (e) { return String(e); }');
    expect(reply.structuredContent).toMatchObject({ status: 'completed' });
    const value = (reply.structuredContent as Extract<CodeModeResult, { status: 'completed' }>).value;
    expect(String(value)).toContain('--approve');
  });
});

describe('README HTTP snippet, through an SDK client', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await testGateway();
  });
  afterAll(() => gateway.close());

  /** The snippet's server entry with the playground's real origin (and the token, when given) filled in. */
  function entry(origin: string, token?: string) {
    const [, http] = readmeSnippets();
    let text = http.replaceAll(PLACEHOLDER_ORIGIN, origin);
    if (token !== undefined) text = text.replaceAll(PLACEHOLDER_TOKEN, token);
    const server = (JSON.parse(text) as McpServersFile).mcpServers['codemode'];
    expect(server?.type).toBe('http');
    return { url: new URL(server!.url!), headers: server!.headers ?? {} };
  }

  async function connect(url: URL, headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'readme-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    return client;
  }

  it('on loopback, as written (the placeholder header is ignored there): the named agent\'s session, its runs labelled with the client', async () => {
    const s: PlaygroundServer = await startMcpTestServer(gateway);
    try {
      const { url, headers } = entry(`http://127.0.0.1:${s.exposure.port}`);
      expect(url.searchParams.get('agent')).toBe('main');
      const client = await connect(url, headers);
      const reply = await client.callTool({ name: 'exec', arguments: { code: 'return "from the readme";' } });
      expect(reply.structuredContent).toMatchObject({ status: 'completed', value: 'from the readme' });
      expect(gateway.runs().find((r) => r.code.includes('from the readme'))).toMatchObject({ client: 'readme-agent', agentId: 'main' });
      await client.close();
    } finally {
      await stopMcpTestServer(s);
    }
  });

  it('exposed: with the token in the header it works; the placeholder left in is a 401', async () => {
    const s: PlaygroundServer = await startMcpTestServer(gateway, { host: '0.0.0.0', accessToken: 'a'.repeat(40), mcpServer: { token: TOKEN } });
    try {
      const withToken = entry(`http://127.0.0.1:${s.exposure.port}`, TOKEN);
      const client = await connect(withToken.url, withToken.headers);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('exec');
      await client.close();
      const asWritten = entry(`http://127.0.0.1:${s.exposure.port}`);
      const refused = await connect(asWritten.url, asWritten.headers).then(
        () => undefined,
        (err: unknown) => err as Error,
      );
      expect(refused?.message).toMatch(/401|Unauthorized|access token/);
    } finally {
      await stopMcpTestServer(s);
    }
  });
});
