// Reads a request body into text, at most `maxBytes` of it: the edge's one reader for bodies it parses itself.
import type { IncomingMessage } from 'node:http';

/** The body as UTF-8 text, or undefined once it passes `maxBytes` (the rest is left unread). */
export async function readSmallBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > maxBytes) return undefined;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}
