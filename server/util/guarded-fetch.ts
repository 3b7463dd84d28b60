// Outbound HTTP that hostile input can steer (OpenAPI calls, document fetches): each hop's name resolved once, every address checked, the connection pinned to the checked one.
/*
 * Checking a URL's host and then letting the HTTP client resolve it again leaves a gap: a DNS answer that
 * changes between the check and the connect (rebinding) lands the request anywhere. So a hop here is:
 * resolve the name once (dns.lookup, every address), refuse the hop when any address is outside the policy,
 * then connect to the first address through node:http's `lookup` hook, which hands the socket exactly that
 * address. Host header, TLS server name and certificate checks still use the name. Redirects are hops of
 * their own, checked the same way. The answer is a web `Response`, so callers read it as they read fetch's.
 *
 * The policy's reach says which address classes (addresses.ts) a hop may land on: `public` only public
 * ones, `internal` also loopback, private and link-local ones (the operator named such a host). Unspecified
 * and reserved addresses, and this process's own listeners (own-listeners.ts), are refused whatever the reach.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { LookupFunction } from 'node:net';
import { ADDRESS_CLASS_WORDS, parseAddress, type AddressClass, type ParsedAddress } from './addresses.ts';
import { isOwnListener } from './own-listeners.ts';

/** Where a hop may land: public addresses only, or also the operator's internal ones (loopback, private, link-local). */
export type Reach = 'public' | 'internal';

const REACHABLE: Readonly<Record<Reach, ReadonlySet<AddressClass>>> = Object.freeze({
  public: new Set<AddressClass>(['public']),
  internal: new Set<AddressClass>(['public', 'loopback', 'private', 'link-local']),
});

/** A hop the policy does not allow; the message names the host, the address and why. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
}

export interface PinnedHop {
  url: URL;
  /** The address the connection goes to (checked). */
  pinned: ParsedAddress;
  /** Every address the name resolved to (all checked). */
  resolved: ParsedAddress[];
}

function defaultPort(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** The URL's hostname as the resolver sees it (brackets off an IPv6 literal). */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** A name's addresses, as the system resolver answers them (every one of them). */
export type HostResolver = (hostname: string) => Promise<string[]>;

const systemResolver: HostResolver = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Every address `url`'s host stands for: itself when a literal, else what the resolver answers (once). */
export async function resolveHost(url: URL, resolver: HostResolver = systemResolver): Promise<ParsedAddress[]> {
  const host = bareHost(url);
  const literal = parseAddress(host);
  if (literal) return [literal];
  const answers = await resolver(host);
  return answers.map((a) => parseAddress(a)).filter((a): a is ParsedAddress => a !== undefined);
}

/** Why `address` on `port` is refused under `reach`, or undefined when it may be reached. */
export function refusal(address: ParsedAddress, port: number, reach: Reach): string | undefined {
  if (isOwnListener(address.address, port)) return `${address.address}:${port} is this Gateway's own server (a call there would act on its API)`;
  if (!REACHABLE[reach].has(address.class)) return `${address.address} is ${ADDRESS_CLASS_WORDS[address.class]}`;
  return undefined;
}

/**
 * Resolves a hop's host once and checks every address; throws AddressRefusedError naming the first refused one.
 * A name that answers nothing fails as the resolver does (ENOTFOUND), like a fetch would.
 */
export async function pinHop(url: URL, reach: Reach, resolver?: HostResolver): Promise<PinnedHop> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AddressRefusedError(`${url.protocol} URLs are not fetched; use http or https`);
  const resolved = await resolveHost(url, resolver);
  const port = defaultPort(url);
  for (const address of resolved) {
    const why = refusal(address, port, reach);
    if (why !== undefined) {
      const via = parseAddress(bareHost(url)) ? '' : ` (${url.hostname} resolves to it)`;
      throw new AddressRefusedError(`${url.host} is refused: ${why}${via}`);
    }
  }
  const pinned = resolved[0];
  if (!pinned) throw Object.assign(new Error(`${url.hostname} resolves to no address`), { code: 'ENOTFOUND' });
  return { url, pinned, resolved };
}

export interface GuardedInit {
  method?: string;
  headers?: Headers | Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal;
  /** Redirects followed, each a hop checked like the first; 0 (the default): a 3xx is returned as it is. */
  maxRedirects?: number;
  /** Called with each hop's URL before its name is resolved (a host allowlist); what it throws ends the fetch as thrown. */
  beforeHop?: (url: URL) => void;
  /** Resolves names (tests give their own answers); default the system resolver. */
  resolver?: HostResolver;
}

/** The answer and the hop it came from (its checked address). */
export interface GuardedResponse {
  response: Response;
  hop: PinnedHop;
}

/** A network failure, shaped as fetch's are (`cause.code`), so callers that report fetch's errors report these. */
function networkError(err: unknown): Error {
  if (err instanceof AddressRefusedError) return err;
  const e = err as NodeJS.ErrnoException;
  return new TypeError('fetch failed', { cause: { code: e.code, message: e.message } });
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** One request to a pinned hop. */
function send(hop: PinnedHop, init: GuardedInit): Promise<Response> {
  const { url, pinned } = hop;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  // fetch would decompress; this client asks for none rather than decode
  headers['accept-encoding'] = 'identity';
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  // a redirect that turned the request into a GET dropped its body, and with it what described the body
  else delete headers['content-type'];
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'GET', headers, lookup, agent: false, ...(init.signal ? { signal: init.signal } : {}) },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) {
          res.destroy();
          reject(networkError(Object.assign(new Error(`status ${status}`), { code: 'EPROTO' })));
          return;
        }
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const body = NULL_BODY_STATUSES.has(status) ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        if (body === null) res.resume();
        resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
      },
    );
    req.on('error', (err) => reject(init.signal?.aborted ? init.signal.reason : networkError(err)));
    req.end(init.body);
  });
}

/**
 * fetch() over checked, pinned hops (see the header). A redirect never widens the reach: once a hop landed on a
 * public address, later hops must be public too (a public server cannot bounce the request inward). Throws
 * AddressRefusedError for a refused hop, a TypeError with `cause.code` for a network failure (as fetch does),
 * the signal's reason when aborted, and whatever `beforeHop` throws.
 */
export async function guardedFetch(url: URL, init: GuardedInit, reach: Reach): Promise<GuardedResponse> {
  let current = url;
  let method = init.method ?? 'GET';
  let body = init.body;
  let hopReach = reach;
  for (let hop = 0; ; hop++) {
    init.signal?.throwIfAborted();
    init.beforeHop?.(current);
    let pinned: PinnedHop;
    try {
      pinned = await pinHop(current, hopReach, init.resolver);
    } catch (err) {
      throw networkError(err);
    }
    if (pinned.pinned.class === 'public') hopReach = 'public';
    const response = await send(pinned, { ...init, method, body });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location || hop >= (init.maxRedirects ?? 0)) return { response, hop: pinned };
    await response.body?.cancel().catch(() => {});
    current = new URL(location, current);
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
  }
}
