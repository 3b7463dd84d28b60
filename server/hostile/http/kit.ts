// What the HTTP attack scripts share: raw requests with any headers, tRPC calls, held-open event streams, an MCP initialize.
import { request, type ClientRequest } from 'node:http';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface ApiAnswer<T> {
  status: number;
  data?: T;
  message?: string;
}

/** A tRPC mutation (POST) or query (GET); `auth` a key sent as the bearer, `cookie` a cookie header. */
export async function api<T>(port: number, path: string, input: unknown, opts: { auth?: string; cookie?: string; query?: boolean } = {}): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = {
    ...(opts.auth ? { authorization: `Bearer ${opts.auth}` } : {}),
    ...(opts.cookie ? { cookie: opts.cookie } : {}),
  };
  const reply = opts.query
    ? await send(port, 'GET', `/api/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, headers)
    : await send(port, 'POST', `/api/trpc/${path}`, { ...headers, 'content-type': 'application/json' }, JSON.stringify(input));
  let parsed: { result?: { data: T }; error?: { message: string } } = {};
  try {
    parsed = JSON.parse(reply.body) as typeof parsed;
  } catch {
    return { status: reply.status, message: reply.body.slice(0, 300) };
  }
  return { status: reply.status, ...(parsed.result ? { data: parsed.result.data } : {}), ...(parsed.error ? { message: parsed.error.message } : {}) };
}

export interface Turn {
  agentRunId: string;
  sessionId: string;
  turnToken: string;
  sessionToken: string;
}

export interface HeldStream {
  status: number;
  /** What the stream said so far. */
  text(): string;
  /** Resolves once the stream said `needle` (or ended). */
  saw(needle: string): Promise<void>;
  close(): void;
}

/**
 * An events subscription held open; `stall` stops reading it (the socket's buffers fill, as a client that never
 * reads leaves them). Resolves once the answer started.
 */
export function openStream(port: number, turnTokens: string[], opts: { auth?: string; stall?: boolean } = {}): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    let text = '';
    const waiters: Array<{ needle: string; done: () => void }> = [];
    let ended = false;
    const check = () => {
      for (const w of [...waiters]) if (ended || text.includes(w.needle)) (waiters.splice(waiters.indexOf(w), 1), w.done());
    };
    const input = encodeURIComponent(JSON.stringify({ turnTokens }));
    const req: ClientRequest = request(
      {
        host: '127.0.0.1',
        port,
        agent: false,
        path: `/api/trpc/events?input=${input}`,
        headers: { host: `127.0.0.1:${port}`, accept: 'text/event-stream', ...(opts.auth ? { authorization: `Bearer ${opts.auth}` } : {}) },
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          check();
        });
        res.on('end', () => {
          ended = true;
          check();
        });
        res.once('data', () => {
          if (opts.stall) res.pause();
          resolve({
            status: res.statusCode ?? 0,
            text: () => text,
            saw: (needle) => new Promise<void>((done) => (waiters.push({ needle, done }), check())),
            close: () => req.destroy(),
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** A raw MCP initialize at /mcp; resolves with the reply and the session id it opened (if any). */
export async function mcpInitialize(port: number, auth?: string): Promise<{ reply: Reply; sessionId?: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } } });
  const reply = await send(port, 'POST', '/mcp', { ...MCP_HEADERS, ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, body);
  const id = reply.headers['mcp-session-id'];
  return { reply, ...(typeof id === 'string' ? { sessionId: id } : {}) };
}

/** One JSON-RPC message on an open MCP session. */
export function mcpSend(port: number, sessionId: string, message: unknown, auth?: string): Promise<Reply> {
  return send(port, 'POST', '/mcp', { ...MCP_HEADERS, 'mcp-session-id': sessionId, ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, JSON.stringify(message));
}

/** Resolves when `check` holds, trying every `everyMs`; false once `withinMs` passed without it. */
export async function eventually(check: () => Promise<boolean>, withinMs: number, everyMs = 100): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return check();
}
