// Test helper for the HTTP edge: one raw request with full control of Host, body and headers (fetch and the SDK clients cannot send a wrong Host, a malformed body or omit a token on purpose).
import { request as httpRequest } from 'node:http';

/** What a browser sends with a top-level navigation (Chromium's Accept and Fetch Metadata): the only request handed the operator cookie. */
export const NAVIGATION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'none',
});

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Sends one request to 127.0.0.1:`port` on a connection of its own (a refused request's unread body must not swallow the next one). */
export function sendRaw(port: number, opts: RawRequest): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, agent: false, method: opts.method, path: opts.path, headers: { host: `127.0.0.1:${port}`, ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
