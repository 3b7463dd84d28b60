// The HTTP side of an OpenAPI tool: one operation call -> one real request (Node's fetch, undici).
//
// The URL is built from the source's base URL and the operation's path template with every path value
// percent-encoded, so input cannot change the host or climb out of the base path. Every request (and
// every redirect hop) must go to a host on the source's allowlist, and to an address its reach allows,
// resolved once and pinned (util/guarded-fetch.ts). Responses are size-limited; a non-2xx
// answer is a ToolError naming the status and the start of the body.
import { ToolError } from '../../errors.ts';
import { isRecord } from '../../util/is-record.mjs';
import { AddressRefusedError, guardedFetch, type Reach } from '../../util/guarded-fetch.ts';
import type { OperationSpec } from './mapping.ts';

/** Largest response body read; a bigger one fails the call (the cell would not want it through the bridge anyway). */
export const MAX_OPENAPI_RESPONSE_BYTES = 4 * 1024 * 1024;
export const DEFAULT_OPENAPI_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;
/** Characters of an error body quoted in the ToolError. */
const ERROR_BODY_CHARS = 300;

export interface HttpTarget {
  /** Where paths are appended (`http://127.0.0.1:4011/v1`). */
  baseUrl: URL;
  /** Sent with every request (the source's auth header); input headers cannot override them. */
  headers: Record<string, string>;
  /** `host` or `host:port` entries a request may go to. */
  allowedHosts: ReadonlySet<string>;
  /** The address classes a hop may land on (source.ts decides: internal only where the operator named the host). */
  reach: Reach;
  timeoutMs: number;
  /** For error messages: `inventory` (the source's name). */
  label: string;
}

export function hostAllowed(url: URL, allowed: ReadonlySet<string>): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return allowed.has(url.host.toLowerCase()) || allowed.has(url.hostname.toLowerCase());
}

function scalar(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** The request URL for one call; throws ToolError for a host off the allowlist. */
export function requestUrl(op: OperationSpec, input: Record<string, unknown>, target: HttpTarget): URL {
  let path = op.path;
  for (const p of op.params) {
    if (p.in !== 'path') continue;
    const value = input[p.property];
    path = path.split(`{${p.name}}`).join(encodeURIComponent(scalar(value)));
  }
  const base = target.baseUrl.pathname.replace(/\/+$/, '');
  const url = new URL(target.baseUrl.href);
  url.pathname = `${base}${path.startsWith('/') ? '' : '/'}${path}`;
  url.search = '';
  url.hash = '';
  for (const p of op.params) {
    if (p.in !== 'query') continue;
    const value = input[p.property];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(p.name, scalar(item));
    else url.searchParams.append(p.name, scalar(value));
  }
  return url;
}

async function readLimited(response: Response, label: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_OPENAPI_RESPONSE_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw new ToolError(`${label}: the response is ${declared} bytes, more than the ${MAX_OPENAPI_RESPONSE_BYTES} an OpenAPI tool reads; ask for less (a limit or filter parameter)`, 'response_too_large');
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_OPENAPI_RESPONSE_BYTES) {
      await reader.cancel().catch(() => {});
      throw new ToolError(`${label}: the response is more than ${MAX_OPENAPI_RESPONSE_BYTES} bytes; ask for less (a limit or filter parameter)`, 'response_too_large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function decode(text: string, contentType: string | null): unknown {
  if (text === '') return null;
  if (contentType && /json/i.test(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** Runs one operation against its source. Resolves the decoded 2xx body (JSON value, text, or null when empty). */
export async function callOperation(op: OperationSpec, input: unknown, target: HttpTarget, signal: AbortSignal): Promise<unknown> {
  const label = `${target.label} ${op.name} (${op.method.toUpperCase()} ${op.path})`;
  const values = isRecord(input) ? input : {};
  const url = requestUrl(op, values, target);
  const headers = new Headers();
  for (const p of op.params) {
    if (p.in !== 'header') continue;
    const value = values[p.property];
    if (value === undefined || value === null) continue;
    const text = scalar(value);
    if (/[\r\n]/.test(text)) throw new ToolError(`${label}: header "${p.name}" must not contain line breaks`, 'invalid_input');
    headers.set(p.name, text);
  }
  for (const [name, value] of Object.entries(target.headers)) headers.set(name, value);
  headers.set('accept', 'application/json, text/plain;q=0.8, */*;q=0.5');
  let body: string | undefined;
  if (op.body && values['body'] !== undefined) {
    const raw = values['body'];
    if (op.body.contentType === 'application/x-www-form-urlencoded' && isRecord(raw)) {
      body = new URLSearchParams(Object.entries(raw).map(([k, v]) => [k, scalar(v)])).toString();
    } else body = /json/i.test(op.body.contentType) ? JSON.stringify(raw) : scalar(raw);
    headers.set('content-type', op.body.contentType);
  }

  const timeout = AbortSignal.timeout(target.timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const notAllowed = (hopUrl: URL) => {
    if (hostAllowed(hopUrl, target.allowedHosts)) return;
    throw new ToolError(
      `${label}: ${hopUrl.host} is not on this source's host allowlist (${[...target.allowedHosts].join(', ') || 'empty'}); add it to sources.openapi.<name>.allowedHosts if it is meant to be called`,
      'host_not_allowed',
    );
  };
  let response: Response;
  try {
    // every hop (the first and each redirect) on the allowlist, its name resolved once and its address checked (util/guarded-fetch.ts)
    ({ response } = await guardedFetch(url, { method: op.method.toUpperCase(), headers, body, signal: combined, maxRedirects: MAX_REDIRECTS, beforeHop: notAllowed }, target.reach));
  } catch (err) {
    if (err instanceof ToolError) throw err;
    if (err instanceof AddressRefusedError) {
      const hint = target.reach === 'public' ? "; this source's calls may reach public addresses only (the operator names a host on their own network with baseUrl or allowedHosts in the source's config)" : '';
      throw new ToolError(`${label}: ${err.message}${hint}`, 'address_not_allowed');
    }
    if (signal.aborted) throw new ToolError(`${label}: the call was aborted`, 'aborted');
    if (timeout.aborted) throw new ToolError(`${label}: no answer within ${target.timeoutMs} ms from ${url.origin}`, 'timeout');
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ToolError(`${label}: the request to ${url.origin} failed (${cause?.code ?? cause?.message ?? (err as Error).message}); is the API running at the source's baseUrl?`, 'network_error');
  }
  if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
    await response.body?.cancel().catch(() => {});
    throw new ToolError(`${label}: more than ${MAX_REDIRECTS} redirects`, 'too_many_redirects');
  }
  const text = await readLimited(response, label);
  if (!response.ok) {
    const snippet = text.length > ERROR_BODY_CHARS ? `${text.slice(0, ERROR_BODY_CHARS)}...` : text;
    throw new ToolError(`${label}: HTTP ${response.status} ${response.statusText}${snippet ? `: ${snippet}` : ''}`, `http_${response.status}`);
  }
  return decode(text, response.headers.get('content-type'));
}
