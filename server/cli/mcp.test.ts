// `codemode mcp` as a child process: an SDK Client over stdio (StdioClientTransport spawning bin/codemode.mjs) against a test config.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { createGateway, type Gateway } from '../gateway.ts';
import type { CodeModeResult } from '../runs/types.ts';
import { MSG_ALREADY_RESUMING, MSG_UNAVAILABLE } from '../runs/messages.ts';
import { REPO_ROOT } from '../tools/testing.ts';
import { CODEMODE_BIN as BIN, writeStdioTestConfig } from '../mcp-server/testing.ts';
import { until } from '../testing.ts';
import { MAX_STDIO_LINE_BYTES } from './stdio-lines.ts';

/** Code mode on QuickJS, two agents, no plugins or MCP sources, sessions in memory: the child starts fast and leaves no file. */
const config = writeStdioTestConfig();

function structured(reply: Awaited<ReturnType<Client['callTool']>>): { text: string; result: CodeModeResult } {
  const content = reply.content as Array<{ type: string; text?: string }>;
  return { text: content[0]?.text ?? '', result: reply.structuredContent as CodeModeResult };
}

/** Each test drives a `codemode mcp` child (a Gateway starting): seconds, many more on a loaded machine. */
const CHILD_PROCESS_TIMEOUT_MS = 120_000;

describe('codemode mcp (stdio)', { timeout: CHILD_PROCESS_TIMEOUT_MS }, () => {
  let client: Client;
  let stderr = '';
  // the same config in-process: what the child's surface and model text must equal
  let reference: Gateway;

  beforeAll(async () => {
    reference = await createGateway({ configPath: config });
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--config', config], cwd: REPO_ROOT, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await client.connect(transport);
  }, CHILD_PROCESS_TIMEOUT_MS);
  afterAll(async () => {
    await client?.close();
    await reference?.close();
  });

  it('lists exactly the model surface of the default agent', async () => {
    const { tools } = await client.listTools();
    expect(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual(reference.surface({}).tools);
  });

  it('exec calls a core tool, then a yielding cell is waited to completion; stdout carried only JSON-RPC', async () => {
    // progress is checked on the wire below: the SDK client handles a progress notification a microtask after reading
    // it and a response at once, so a notification read in one chunk with its response is dropped (on a loaded machine)
    let done = structured(await client.callTool({ name: 'exec', arguments: { code: 'const r = await sleep({ ms: 1 });\nreturn typeof r.sleptMs;' } }));
    // on a loaded machine the budget may end before the sleep's reply: the model would wait, and so does the test
    while (done.result.status === 'waiting') done = structured(await client.callTool({ name: 'wait', arguments: { runId: done.result.runId } }));
    expect(done.result).toMatchObject({ status: 'completed', value: 'number' });
    expect(done.text).toBe(reference.modelText(done.result));

    const parked = structured(await client.callTool({ name: 'exec', arguments: { code: 'await yield_control("park");\nreturn "resumed";' } }));
    if (parked.result.status !== 'waiting') throw new Error(`expected waiting, got ${parked.text}`);
    const resumed = structured(await client.callTool({ name: 'wait', arguments: { runId: parked.result.runId } }));
    expect(resumed.result).toMatchObject({ status: 'completed', value: 'resumed' });
    // a stray line on stdout would have broken the client's parsing before it got here; nothing failed on stderr
    expect(stderr).not.toMatch(/error/i);
  });

  it('cancelling a wait aborts its run: a later wait on it finds the run unavailable (not still resuming)', async () => {
    const parked = structured(
      await client.callTool({ name: 'exec', arguments: { code: 'await yield_control("park");\nawait sleep({ ms: 600000 });\nreturn 1;' } }),
    );
    if (parked.result.status !== 'waiting') throw new Error(`expected waiting, got ${parked.text}`);
    const progress: Progress[] = [];
    const controller = new AbortController();
    const pending = client.callTool({ name: 'wait', arguments: { runId: parked.result.runId } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => progress.push(p),
    });
    pending.catch(() => undefined);
    await until(() => progress.some((p) => p.message === 'sleep started'), { what: 'the resumed cell to start its sleep' });
    controller.abort('stop');
    await expect(pending).rejects.toThrow();
    // the abort reaches the child asynchronously: until then a wait answers "already resuming"
    let again = structured(await client.callTool({ name: 'wait', arguments: { runId: parked.result.runId } }));
    for (let i = 0; again.text.includes(MSG_ALREADY_RESUMING) && i < 100; i++) {
      again = structured(await client.callTool({ name: 'wait', arguments: { runId: parked.result.runId } }));
    }
    expect(again.result).toMatchObject({ status: 'failed', code: 'invalid_input' });
    expect(again.text).toContain(MSG_UNAVAILABLE);
  });
});

describe('codemode mcp --agent', { timeout: CHILD_PROCESS_TIMEOUT_MS }, () => {
  it('malformed lines are answered (JSON-RPC id null: -32700 not JSON, -32600 not a message) and a tools/call whose arguments are no object is -32602 naming the field; the server then answers on', async () => {
    const lines = [
      '{bad json',
      'null',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":5}}',
      '{"jsonrpc":"2.0","id":3,"method":"ping"}',
    ];
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', config], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stdin.write(`${lines.join('\n')}\n`);
    const replies = () => out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string }; result?: unknown });
    try {
      await until(() => replies().some((r) => r.id === 3), { what: 'the ping after the malformed lines to be answered', timeoutMs: CHILD_PROCESS_TIMEOUT_MS });
    } finally {
      child.stdin.end();
      child.kill();
    }
    const errors = replies().filter((r) => r.id === null).map((r) => r.error?.code);
    expect(errors).toEqual([-32700, -32600]);
    const call = replies().find((r) => r.id === 2);
    expect(call?.error?.code).toBe(-32602);
    expect(call?.error?.message).toMatch(/Invalid tools\/call request[\s\S]*"arguments"[\s\S]*expected record/);
  });

  it('progress on the wire: each nested call of an exec is reported (started, then its outcome) before the response, with the request\'s progress token', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', config], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const lines = () => out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { id?: unknown; method?: string; params?: { progressToken?: unknown; message?: string }; result?: { structuredContent?: CodeModeResult } });
    try {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await until(() => lines().some((l) => l.id === 1), { what: 'the initialize reply', timeoutMs: CHILD_PROCESS_TIMEOUT_MS });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const code = 'const r = await sleep({ ms: 1 });\nreturn typeof r.sleptMs;';
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'exec', arguments: { code }, _meta: { progressToken: 'p2' } } });
      await until(() => lines().some((l) => l.id === 2), { what: 'the exec reply', timeoutMs: CHILD_PROCESS_TIMEOUT_MS });
    } finally {
      child.stdin.end();
      child.kill();
    }
    const all = lines();
    const reply = all.findIndex((l) => l.id === 2);
    const before = all.slice(0, reply).filter((l) => l.method === 'notifications/progress');
    expect(before.every((l) => l.params?.progressToken === 'p2')).toBe(true);
    const messages = before.map((l) => l.params?.message);
    if (all[reply]?.result?.structuredContent?.status === 'completed') {
      // the sleep ended inside the exec: both reports went out before its response
      expect(messages).toEqual(['sleep started', 'sleep ok']);
    } else {
      // the budget ended first (a loaded machine): the exec answered waiting, and what was reported within it is a
      // prefix of the two, in order
      expect(messages).toEqual(['sleep started', 'sleep ok'].slice(0, messages.length));
    }
    // nothing of that call is reported after its response
    expect(all.slice(reply + 1).filter((l) => l.method === 'notifications/progress' && l.params?.progressToken === 'p2')).toEqual([]);
  });

  it(`a line over ${MAX_STDIO_LINE_BYTES} bytes (11 MiB, past the SDK's 10 MiB buffer) is answered with -32600 naming the limit, and the server keeps serving`, async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', config], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let exited: number | null | undefined;
    child.on('exit', (code) => (exited = code));
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const initialize = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}';
    const huge = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"code":"return '${'x'.repeat(11 * 1024 * 1024)}'"}}}`;
    child.stdin.write(`${initialize}\n`);
    child.stdin.write(`${huge}\n`);
    child.stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    const replies = () => out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string }; result?: unknown });
    try {
      await until(() => replies().some((r) => r.id === 3) || exited !== undefined, { what: 'the ping after the long line to be answered', timeoutMs: CHILD_PROCESS_TIMEOUT_MS });
    } finally {
      child.stdin.end();
      child.kill();
    }
    expect(exited).toBeUndefined();
    const dropped = replies().find((r) => r.id === null);
    expect(dropped?.error?.code).toBe(-32600);
    expect(dropped?.error?.message).toContain(`is over the limit of ${MAX_STDIO_LINE_BYTES} bytes and was dropped`);
    expect(replies().find((r) => r.id === 3)?.result).toEqual({});
  });

  it('an unknown agent exits 2 naming the known ones, with nothing on stdout', async () => {
    const run = promisify(execFile);
    const err = (await run(process.execPath, [BIN, 'mcp', '--config', config, '--agent', 'nope'], { cwd: REPO_ROOT }).catch((e: unknown) => e)) as {
      code: number;
      stdout: string;
      stderr: string;
    };
    expect(err.code).toBe(2);
    expect(err.stdout).toBe('');
    expect(err.stderr).toContain('unknown agent "nope"');
    expect(err.stderr).toContain('main, direct');
  });

  it('--agent picks the agent whose surface is served (code mode off: its tools directly, no exec)', async () => {
    const reference = await createGateway({ configPath: config });
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--config', config, '--agent', 'direct'], cwd: REPO_ROOT, stderr: 'ignore' });
    const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(reference.surface({ agentId: 'direct' }).tools.map((t) => t.name));
      expect(tools.map((t) => t.name)).not.toContain('wait');
    } finally {
      await client.close();
      await reference.close();
    }
  });
});
