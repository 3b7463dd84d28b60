// attack: a client of `codemode mcp` on stdio sends one line of 11 MiB (past the MCP SDK's 10 MiB read buffer), then a ping
// finding: issue 39, 7.1 (the process exited 0 without a word to the client)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HttpTarget } from '../http-corpus.ts';
import { eventually } from './kit.ts';

const BIN = fileURLToPath(new URL('../../../bin/codemode.mjs', import.meta.url));
/** A Gateway starts in the child: seconds, many more on a loaded machine. */
const WITHIN_MS = 120_000;

export async function run(t: HttpTarget): Promise<string[]> {
  const problems: string[] = [];
  const child = spawn(process.execPath, [BIN, 'mcp', '--config', t.configFile], { stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  let exit: number | null | undefined;
  child.on('exit', (code) => (exit = code));
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const replies = () => out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string } });
  try {
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}\n');
    child.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"code":"return '${'x'.repeat(11 * 1024 * 1024)}'"}}}\n`);
    child.stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await eventually(async () => exit !== undefined || replies().some((r) => r.id === 3), WITHIN_MS);
  } finally {
    child.stdin.end();
    child.kill();
  }
  if (exit !== undefined) problems.push(`codemode mcp exited (${exit}) instead of answering`);
  const dropped = replies().find((r) => r.id === null);
  if (dropped?.error?.code !== -32600 || !dropped.error.message.includes('was dropped')) problems.push(`the long line was not answered with a JSON-RPC error: ${JSON.stringify(dropped)}`);
  if (!replies().some((r) => r.id === 3)) problems.push('the ping after the long line was not answered');
  return problems;
}
