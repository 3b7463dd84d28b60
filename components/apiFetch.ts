// The fetch under the tRPC links: an error the HTTP layer answers in plain text (413, 403, 421) becomes an error that says so.
import { formatBytes } from './ui/format.ts';

/**
 * The Gateway's request checks (body size, Host, Origin, token) refuse a request before tRPC sees it, with a
 * plain-text reason; the link would parse that text as JSON and report "Unexpected token". tRPC's own errors
 * come as JSON and pass through untouched.
 */
export class ApiHttpError extends Error {
  override name = 'ApiHttpError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Procedures whose request carries a cell: its source has a limit of its own (maxSourceBytes). */
const CELL_PROCEDURES = new Set(['exec', 'compare']);

/** The procedure a tRPC request URL names (`/api/trpc/exec?...` -> `exec`). */
export function procedureOf(url: string): string {
  const path = url.split('?')[0] ?? '';
  return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
}

function bodyBytes(body: unknown): number | undefined {
  if (typeof body === 'string') return new TextEncoder().encode(body).length;
  if (body instanceof Blob) return body.size;
  if (body instanceof ArrayBuffer) return body.byteLength;
  return undefined;
}

/** What to tell the user about a non-JSON error answer to a request of `bytes` bytes for `procedure`. */
export function httpErrorMessage(opts: { procedure: string; status: number; text: string; bytes: number | undefined }): string {
  const reason = opts.text.trim() || `HTTP ${opts.status} with no reason given`;
  const parts = [`${opts.procedure}: the server refused the request (HTTP ${opts.status}): ${reason}`];
  if (opts.status === 413) {
    if (opts.bytes !== undefined) parts.push(`This request was ${opts.bytes} bytes (${formatBytes(opts.bytes)}).`);
    if (CELL_PROCEDURES.has(opts.procedure)) parts.push("A cell's source is also limited to maxSourceBytes (the surface's options, in the tools column).");
  }
  return parts.join(' ');
}

function isJson(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').includes('application/json');
}

/** A fetch that turns an error answered in plain text into an ApiHttpError with a readable message. */
export function checkedFetch(base: typeof fetch = (input, init) => fetch(input, init)): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (res.ok || isJson(res)) return res;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const text = await res.text().catch(() => '');
    throw new ApiHttpError(res.status, httpErrorMessage({ procedure: procedureOf(url), status: res.status, text, bytes: bodyBytes(init?.body) }));
  };
}
