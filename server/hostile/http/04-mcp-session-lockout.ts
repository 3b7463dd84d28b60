// attack: a keyless client opens /mcp sessions up to the server's cap and keeps them alive with pings, so every other client's initialize gets 503
// finding: issue 39, 4 (one client held all 32 sessions with pings)
import { HOSTILE_MCP_IDLE_SECONDS, HOSTILE_SHARES, type HttpTarget } from '../http-corpus.ts';
import { eventually, mcpInitialize, mcpSend } from './kit.ts';

/** Generous against a loaded machine: the idle sweep runs every HOSTILE_MCP_IDLE_SECONDS. */
const WITHIN_MS = 60_000;

export async function run(t: HttpTarget): Promise<string[]> {
  const problems: string[] = [];
  const mine: string[] = [];
  for (let i = 0; i < HOSTILE_SHARES.anonymous.mcpSessions; i++) {
    const { sessionId } = await mcpInitialize(t.port);
    if (sessionId) mine.push(sessionId);
  }
  const over = await mcpInitialize(t.port);
  if (over.reply.status !== 429 || !over.reply.body.includes('server.shares.anonymous.mcpSessions')) {
    problems.push(`one session past the keyless share was not refused with 429 naming it: ${over.reply.status} ${over.reply.body.slice(0, 200)}`);
  }
  // a client with its own key opens a session beside them
  const keyed = await mcpInitialize(t.port, t.key);
  if (!keyed.sessionId) problems.push(`a keyed client could not open an MCP session: ${keyed.reply.status} ${keyed.reply.body.slice(0, 200)}`);
  // pings are not activity: the pinging sessions are closed as idle all the same
  let id = 100;
  const closed = await eventually(async () => {
    const replies = await Promise.all(mine.map((s) => mcpSend(t.port, s, { jsonrpc: '2.0', id: id++, method: 'ping' })));
    return replies.every((r) => r.status === 404);
  }, WITHIN_MS);
  if (!closed) problems.push(`sessions that only pinged were still open after ${WITHIN_MS / 1000} s (mcpServer.sessionIdleSeconds ${HOSTILE_MCP_IDLE_SECONDS})`);
  // and their places came back
  const again = await mcpInitialize(t.port);
  if (!again.sessionId) problems.push(`after the idle close a keyless client still could not open a session: ${again.reply.body.slice(0, 200)}`);
  for (const s of [again.sessionId, keyed.sessionId]) {
    if (s) await mcpSend(t.port, s, { jsonrpc: '2.0', id: id++, method: 'ping' }, s === keyed.sessionId ? t.key : undefined);
  }
  return problems;
}
