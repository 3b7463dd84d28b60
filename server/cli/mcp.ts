// `codemode mcp`: one MCP session on stdin/stdout over a Gateway, until the client closes stdin or the process is told to stop.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RunsFace } from '../gateway-types.ts';
import { McpSession, type McpGateway } from '../mcp-server/session.ts';
import { LineGuard, MAX_STDIO_LINE_BYTES } from './stdio-lines.ts';

export interface StdioMcpOptions {
  agentId?: string;
  /** No operator watches a stdio server's approvals unless a playground serves the same Gateway: --approve decides. */
  approve: boolean;
}

/** Serves one session; resolves with the exit code once the client hung up (its turn ended, its runs aborted). */
export async function serveMcpStdio(gw: McpGateway & Pick<RunsFace, 'decideApproval'>, opts: StdioMcpOptions): Promise<number> {
  if (opts.agentId !== undefined && !gw.agents().some((agent) => agent.id === opts.agentId)) {
    const known = gw.agents().map((agent) => agent.id).join(', ');
    process.stderr.write(`codemode mcp: unknown agent ${JSON.stringify(opts.agentId)}; use --agent with one of: ${known} (or leave it out for the default agent)\n`);
    return 2;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const session = new McpSession(gw, { ...(opts.agentId !== undefined ? { agentId: opts.agentId } : {}), log });
  // the command line has no approvals panel: the same rule as `codemode run`
  const unsubscribe = gw.subscribe((e) => {
    if (e.type !== 'approval.requested') return;
    gw.decideApproval({
      approvalId: e.approval.approvalId,
      approve: opts.approve,
      ...(opts.approve ? {} : { reason: 'no operator for `codemode mcp` (start it with --approve, or use the playground\'s /mcp and its approvals panel)' }),
    });
  });
  // whole lines only, an over-long one dropped and answered, so the SDK's read buffer never closes the session (stdio-lines.ts)
  const input = process.stdin.pipe(
    new LineGuard((bytes) => {
      const message = `Invalid Request: a line of ${bytes} bytes is over the limit of ${MAX_STDIO_LINE_BYTES} bytes and was dropped; send smaller messages (a shorter cell; keep data in files or results.save)`;
      log(`codemode mcp: ${message}`);
      transport.send({ jsonrpc: '2.0', id: null, error: { code: -32600, message } } as unknown as JSONRPCMessage).catch(() => undefined);
    }),
  );
  const transport = new StdioServerTransport(input as unknown as typeof process.stdin, process.stdout);
  /** Why the session is ending, when this process ended it (the client hung up, a signal); unset: the transport closed itself. */
  let endedBy: string | undefined;
  let lastError: string | undefined;
  const end = (why: string) => {
    endedBy ??= why;
    void transport.close();
  };
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // the SDK's stdio transport does not watch for the end of stdin; a client that closes it is done
    input.once('end', () => end('stdin ended'));
    process.once('SIGTERM', () => end('SIGTERM'));
    process.once('SIGINT', () => end('SIGINT'));
  });
  transport.onerror = (err) => {
    // a line that is not JSON, or JSON that is no JSON-RPC message: the client hears it (JSON-RPC: id null), the log gets one line
    const notJson = err instanceof SyntaxError;
    if (!notJson && err.name !== 'ZodError') {
      lastError = err.message;
      return log(`codemode mcp: ${err.message}`);
    }
    const message = notJson
      ? `Parse error: a line is not JSON (${err.message}); send one JSON-RPC message per line`
      : 'Invalid Request: a line is JSON but not a JSON-RPC 2.0 request, notification or response; send objects with "jsonrpc": "2.0"';
    log(`codemode mcp: ${message}`);
    transport.send({ jsonrpc: '2.0', id: null, error: { code: notJson ? -32700 : -32600, message } } as unknown as JSONRPCMessage).catch(() => undefined);
  };
  await session.server.connect(transport);
  await closed;
  unsubscribe();
  await session.close();
  if (endedBy !== undefined) return 0;
  // the transport gave up on its own: say why, and exit non-zero so the client's launcher sees a failure
  log(`codemode mcp: stopped serving: the stdio transport closed${lastError ? ` after: ${lastError}` : ''}`);
  return 1;
}
