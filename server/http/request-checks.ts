// Pure checks of one HTTP request against the server's exposure: Host and Origin (DNS rebinding), body size, access token, operator cookie.
/*
 * Loopback (the default) serves without credentials, but only to requests that name this server in Host
 * (a rebound DNS name does not) and come from its own origin. A non-loopback bind needs an access token:
 * every request then carries `Authorization: Bearer <token>` or the operator cookie, which the page gets
 * after logging in with that token. The operator cookie is what makes a request the operator (the
 * playground page): on loopback it is handed out with the page itself (a browser's navigation to `/`, see
 * isPageNavigation), and when exposed only by the login.
 */
import { isIP } from 'node:net';
import type { ServerOptions } from '../config/types.ts';
import { accessTokenSchema } from '../config/schema.ts';
import { tokensEqual } from '../access/tokens.ts';
import { API_KEY_PREFIX, OwnerDirectory, type Owner } from '../access/owners.ts';

/**
 * HttpOnly, SameSite=Strict cookie carrying the operator token (minted at each start). Browsers key cookies by
 * host, not port, so the name carries the port: two playgrounds on one host keep their own cookie, and a
 * service on another port of the host is not sent one that opens this server.
 */
export const OPERATOR_COOKIE_PREFIX = 'codemode_operator_';

export function operatorCookieName(port: number): string {
  return `${OPERATOR_COOKIE_PREFIX}${port}`;
}
/** Environment variable with the access token; it wins over `server.accessToken`. */
export const ACCESS_TOKEN_ENV_VAR = 'CODEMODE_ACCESS_TOKEN';
/** Where the login form (exposed servers) posts the access token. */
export const LOGIN_PATH = '/__codemode/login';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** A startup refusal: the server would be exposed without credentials, or its token is unusable. */
export class ExposureError extends Error {
  override name = 'ExposureError';
}

/** What a bound server answers to and demands; built once at start (after listen, so the port is known). */
export interface Exposure {
  bindHost: string;
  port: number;
  /** Bound to a non-loopback address: every request needs the access token or the operator cookie. */
  exposed: boolean;
  accessToken?: string;
  /** Lowercased `Host` values accepted. */
  allowedHosts: ReadonlySet<string>;
  /** `Origin` values accepted (requests without Origin, such as curl's, pass). */
  allowedOrigins: ReadonlySet<string>;
  maxRequestBodyBytes: number;
  /** The owners requests are told apart into (access/owners.ts): the operator, each API key's client, the keyless. */
  owners: OwnerDirectory;
}

export function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** `::1` -> `[::1]` for Host headers and origins. */
function hostForUrl(address: string): string {
  return isIP(address) === 6 ? `[${address}]` : address;
}

/** The token the server demands when exposed: env first, then config; undefined when neither is set. */
export function resolveAccessToken(env: Readonly<Record<string, string | undefined>>, server: Pick<ServerOptions, 'accessToken'>): string | undefined {
  const fromEnv = env[ACCESS_TOKEN_ENV_VAR];
  if (fromEnv !== undefined && fromEnv !== '') {
    const checked = accessTokenSchema.safeParse(fromEnv);
    if (!checked.success) throw new ExposureError(`${ACCESS_TOKEN_ENV_VAR} ${checked.error.issues.map((issue) => issue.message).join('; ')}`);
    return fromEnv;
  }
  return server.accessToken;
}

/** Throws ExposureError when `bindHost` is not loopback and there is no access token: checked before binding. */
export function refuseUnprotectedExposure(bindHost: string, accessToken: string | undefined): void {
  if (isLoopbackAddress(bindHost) || accessToken !== undefined) return;
  throw new ExposureError(
    `HOST=${bindHost} is not a loopback address: anyone who can reach it could run cells. Set an access token ` +
      `(${ACCESS_TOKEN_ENV_VAR}=<secret>, or server.accessToken in the config; \`openssl rand -hex 32\` makes one), or bind HOST=127.0.0.1`,
  );
}

/**
 * The exposure of a server bound to `bindHost:port`. Throws ExposureError when the address is not loopback
 * and no access token is configured. `interfaceAddresses` are the machine's addresses (a wildcard bind
 * answers to each of them).
 */
export function exposureFor(opts: {
  bindHost: string;
  port: number;
  server: ServerOptions;
  accessToken: string | undefined;
  interfaceAddresses?: readonly string[];
}): Exposure {
  const { bindHost, port, server, accessToken } = opts;
  refuseUnprotectedExposure(bindHost, accessToken);
  const exposed = !isLoopbackAddress(bindHost);
  const names = new Set<string>();
  if (!exposed || isWildcard(bindHost)) for (const name of LOOPBACK_NAMES) names.add(name);
  if (isWildcard(bindHost)) for (const address of opts.interfaceAddresses ?? []) names.add(hostForUrl(address).toLowerCase());
  else names.add(hostForUrl(bindHost.replace(/^\[|\]$/g, '')).toLowerCase());
  const hosts = new Set<string>();
  const origins = new Set<string>(server.allowedOrigins);
  for (const name of names) {
    hosts.add(`${name}:${port}`);
    origins.add(`http://${name}:${port}`);
    if (port === 80) {
      hosts.add(name);
      origins.add(`http://${name}`);
    }
  }
  // a configured name without a port is what a reverse proxy on the default port forwards
  for (const entry of server.allowedHosts) {
    const lower = entry.toLowerCase();
    hosts.add(lower);
    if (!/:\d+$/.test(lower)) hosts.add(`${lower}:${port}`);
  }
  return {
    bindHost,
    port,
    exposed,
    ...(accessToken !== undefined ? { accessToken } : {}),
    allowedHosts: hosts,
    allowedOrigins: origins,
    maxRequestBodyBytes: server.maxRequestBodyBytes,
    owners: new OwnerDirectory(server),
  };
}

/** One line for the start log: where it listens, whether it demands a token, which origins may call it. */
export function describeExposure(exposure: Exposure): string {
  const auth = exposure.exposed
    ? 'access token required (Authorization: Bearer, or log in on the page)'
    : 'loopback only, no access token';
  return `listening on ${hostForUrl(exposure.bindHost)}:${exposure.port}; ${auth}; Host must be one of ${[...exposure.allowedHosts].join(', ')}; allowed origins: ${[...exposure.allowedOrigins].join(', ')}`;
}

export interface RequestFacts {
  method?: string | undefined;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

export type RequestVerdict =
  /** `owner`: whose shares the request draws on (the operator for the cookie, a key's client, else the keyless clients). */
  | { ok: true; operator: boolean; owner: Owner }
  | { ok: false; status: 401 | 403 | 413 | 421; message: string };

function header(facts: RequestFacts, name: string): string | undefined {
  const value = facts.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The value of cookie `name` in a Cookie header. */
export function readCookie(cookieHeader: string | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Whether the browser reached this server over https. The server itself speaks plain http, so only a TLS-ending
 * reverse proxy can say so (X-Forwarded-Proto, or Forwarded's proto). A forged header only makes the sender's own
 * cookie Secure.
 */
export function servedOverHttps(facts: RequestFacts): boolean {
  const forwardedProto = header(facts, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  if (forwardedProto !== undefined) return forwardedProto === 'https';
  return /(?:^|[;,\s])proto="?https"?(?:$|[;,\s])/i.test(header(facts, 'forwarded') ?? '');
}

/** The one path that serves the page: the operator cookie is handed out only with it. */
export const PAGE_PATH = '/';

/**
 * Whether a request is a browser's top-level navigation to the page: GET of `/` (any query: share links carry
 * the cell) that accepts HTML, and, where the browser sends Fetch Metadata, for a document by navigation. Only
 * such a request is handed the operator cookie on loopback: HEAD, other paths (a 404, a static file), API
 * paths, a fetch() or an <img> from a page, and clients that do not ask for HTML (curl's default Accept names
 * no HTML type) are not. Headers are the client's word: a local process can send a browser's, which is why
 * loopback is the boundary and the cookie is not (docs/security.md).
 */
export function isPageNavigation(facts: RequestFacts & { path: string }): boolean {
  if (facts.method !== 'GET' || facts.path !== PAGE_PATH) return false;
  const accept = header(facts, 'accept')?.toLowerCase() ?? '';
  if (!/(^|[,\s])text\/html($|[;,\s])/.test(accept)) return false;
  const dest = header(facts, 'sec-fetch-dest')?.toLowerCase();
  const mode = header(facts, 'sec-fetch-mode')?.toLowerCase();
  return (dest === undefined || dest === 'document') && (mode === undefined || mode === 'navigate');
}

/**
 * The Set-Cookie value that makes a browser the operator of the server on `port`; HttpOnly so page scripts never
 * read it, Secure when the page came over https so the browser never sends it over plain http.
 */
export function operatorCookie(port: number, operatorToken: string, opts: { secure: boolean }): string {
  return `${operatorCookieName(port)}=${operatorToken}; HttpOnly; SameSite=Strict; Path=/${opts.secure ? '; Secure' : ''}`;
}

/**
 * Checks one request: Host, Origin, declared body size, then credentials (in that order, so a rebound name learns nothing).
 * `alsoAccepted` is a bearer that opens this one request besides the access token (the MCP path's own token).
 */
export function checkRequest(exposure: Exposure, facts: RequestFacts, operatorToken: string, alsoAccepted?: string): RequestVerdict {
  const host = header(facts, 'host')?.toLowerCase();
  if (host === undefined || !exposure.allowedHosts.has(host)) {
    return {
      ok: false,
      status: 421,
      message:
        `Host "${host ?? ''}" is not an address of this server (it answers to ${[...exposure.allowedHosts].join(', ')}); ` +
        'open it by one of those, or add the name to server.allowedHosts in the config if it is yours',
    };
  }
  const origin = header(facts, 'origin');
  if (origin !== undefined && !exposure.allowedOrigins.has(origin)) {
    return {
      ok: false,
      status: 403,
      message: `Origin "${origin}" may not call this server; only its own pages may (add the origin to server.allowedOrigins if it should)`,
    };
  }
  const length = Number(header(facts, 'content-length') ?? '0');
  if (Number.isFinite(length) && length > exposure.maxRequestBodyBytes) {
    return {
      ok: false,
      status: 413,
      message: `the request body is ${length} bytes, over the limit of ${exposure.maxRequestBodyBytes} bytes (server.maxRequestBodyBytes); send a smaller request (a smaller cell, fewer client tools)`,
    };
  }
  const operator = tokensEqual(readCookie(header(facts, 'cookie'), operatorCookieName(exposure.port)), operatorToken);
  const auth = header(facts, 'authorization');
  const presented = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : undefined;
  const { owners } = exposure;
  let bearerOwner: Owner | undefined;
  if (presented !== undefined && presented !== '') {
    if (exposure.accessToken !== undefined && tokensEqual(presented, exposure.accessToken)) bearerOwner = owners.accessToken;
    else if (alsoAccepted !== undefined && tokensEqual(presented, alsoAccepted)) bearerOwner = owners.mcpToken;
    else bearerOwner = owners.byKey(presented);
    // a revoked or mistyped key must not pass as keyless: its holder would never learn why its shares shrank. Any other
    // unknown bearer on loopback (a header copied from an exposed setup) is ignored, as loopback needs none
    if (bearerOwner === undefined && !operator && (exposure.exposed || presented.startsWith(API_KEY_PREFIX))) {
      return {
        ok: false,
        status: 401,
        message:
          'the Authorization bearer is not a key of this server (nor its access token); send a key `codemode keys add NAME` minted for this server' +
          (exposure.exposed ? '' : ', or no Authorization header at all (loopback serves keyless clients as one owner with a small share)'),
      };
    }
  }
  if (exposure.exposed && !operator && bearerOwner === undefined) {
    return {
      ok: false,
      status: 401,
      message: `this server needs its access token: send "Authorization: Bearer <token>" (the token is in ${ACCESS_TOKEN_ENV_VAR} or server.accessToken where it runs, or an API key from \`codemode keys add NAME\`), or log in on the page`,
    };
  }
  return { ok: true, operator, owner: operator ? owners.operator : (bearerOwner ?? owners.anonymous) };
}
