// Plain tests of the request checks: exposure at start, Host and Origin (DNS rebinding), body size, bearer token and operator cookie.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_OPTIONS } from '../config/schema.ts';
import type { ServerOptions } from '../config/types.ts';
import {
  checkRequest,
  describeExposure,
  ExposureError,
  exposureFor,
  isLoopbackAddress,
  operatorCookie,
  operatorCookieName,
  readCookie,
  resolveAccessToken,
  servedOverHttps,
} from './request-checks.ts';
import { newApiKey } from '../access/owners.ts';

const TOKEN = 'a'.repeat(32);
const OPERATOR = 'op_secret';
const server = (over: Partial<ServerOptions> = {}): ServerOptions => ({ ...DEFAULT_SERVER_OPTIONS, allowedHosts: [], allowedOrigins: [], ...over });
const loopback = exposureFor({ bindHost: '127.0.0.1', port: 3000, server: server(), accessToken: undefined });
const OPERATOR_COOKIE = operatorCookieName(3000);
const exposed = exposureFor({ bindHost: '0.0.0.0', port: 3000, server: server(), accessToken: TOKEN, interfaceAddresses: ['10.0.0.5', 'fe80::1'] });

describe('exposure at start', () => {
  it('loopback addresses are told from the rest', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackAddress(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com']) expect(isLoopbackAddress(host)).toBe(false);
  });

  it('on a non-loopback HOST without an access token: refuses to start, naming CODEMODE_ACCESS_TOKEN and how to make one', () => {
    expect(() => exposureFor({ bindHost: '0.0.0.0', port: 3000, server: server(), accessToken: undefined })).toThrow(ExposureError);
    expect(() => exposureFor({ bindHost: '0.0.0.0', port: 3000, server: server(), accessToken: undefined })).toThrow(
      /HOST=0\.0\.0\.0 is not a loopback address.*CODEMODE_ACCESS_TOKEN.*openssl rand -hex 32.*HOST=127\.0\.0\.1/,
    );
  });

  it('the access token comes from CODEMODE_ACCESS_TOKEN over the config; a short one is refused', () => {
    expect(resolveAccessToken({ CODEMODE_ACCESS_TOKEN: TOKEN }, { accessToken: 'b'.repeat(30) })).toBe(TOKEN);
    expect(resolveAccessToken({}, { accessToken: 'b'.repeat(30) })).toBe('b'.repeat(30));
    expect(resolveAccessToken({}, {})).toBeUndefined();
    expect(() => resolveAccessToken({ CODEMODE_ACCESS_TOKEN: 'short' }, {})).toThrow(/at least 24 characters/);
    expect(() => resolveAccessToken({ CODEMODE_ACCESS_TOKEN: `${'c'.repeat(30)} with spaces` }, {})).toThrow(
      /^CODEMODE_ACCESS_TOKEN must be at least 24 characters without spaces; generate one with `openssl rand -hex 32`$/,
    );
  });

  it('the start log line says the address, whether a token is needed and the allowed origins', () => {
    expect(describeExposure(loopback)).toMatch(/listening on 127\.0\.0\.1:3000; loopback only, no access token;.*allowed origins: http:\/\/127\.0\.0\.1:3000/);
    expect(describeExposure(exposed)).toMatch(/listening on 0\.0\.0\.0:3000; access token required/);
    expect(describeExposure(exposed)).toContain('http://10.0.0.5:3000');
  });
});

describe('Host and Origin', () => {
  it('on a Host that is not this server (DNS rebinding): 421 naming the Host and what it answers to', () => {
    const verdict = checkRequest(loopback, { headers: { host: 'evil.example:3000' } }, OPERATOR);
    expect(verdict).toMatchObject({ ok: false, status: 421 });
    expect(!verdict.ok && verdict.message).toMatch(/Host "evil\.example:3000" is not an address of this server.*127\.0\.0\.1:3000.*server\.allowedHosts/);
  });

  it('on the right name but another port, or no Host at all: 421', () => {
    expect(checkRequest(loopback, { headers: { host: '127.0.0.1:4000' } }, OPERATOR)).toMatchObject({ ok: false, status: 421 });
    expect(checkRequest(loopback, { headers: {} }, OPERATOR)).toMatchObject({ ok: false, status: 421 });
  });

  it('loopback names and, on a wildcard bind, the machine addresses pass; configured hosts pass with or without a port', () => {
    for (const host of ['127.0.0.1:3000', 'localhost:3000', 'LOCALHOST:3000', '[::1]:3000']) {
      expect(checkRequest(loopback, { headers: { host } }, OPERATOR)).toMatchObject({ ok: true });
    }
    for (const host of ['10.0.0.5:3000', '[fe80::1]:3000']) expect(checkRequest(exposed, { headers: { host, authorization: `Bearer ${TOKEN}` } }, OPERATOR)).toMatchObject({ ok: true });
    const proxied = exposureFor({ bindHost: '127.0.0.1', port: 3000, server: server({ allowedHosts: ['play.example'] }), accessToken: undefined });
    expect(checkRequest(proxied, { headers: { host: 'play.example' } }, OPERATOR)).toMatchObject({ ok: true });
    expect(checkRequest(proxied, { headers: { host: 'play.example:3000' } }, OPERATOR)).toMatchObject({ ok: true });
  });

  it('on a foreign Origin: 403 naming it and server.allowedOrigins; the own origin and configured ones pass; no Origin passes', () => {
    const host = '127.0.0.1:3000';
    const verdict = checkRequest(loopback, { headers: { host, origin: 'https://evil.example' } }, OPERATOR);
    expect(verdict).toMatchObject({ ok: false, status: 403 });
    expect(!verdict.ok && verdict.message).toContain('server.allowedOrigins');
    expect(checkRequest(loopback, { headers: { host, origin: 'null' } }, OPERATOR)).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest(loopback, { headers: { host, origin: 'http://127.0.0.1:3000' } }, OPERATOR)).toMatchObject({ ok: true });
    expect(checkRequest(loopback, { headers: { host } }, OPERATOR)).toMatchObject({ ok: true });
    const withApp = exposureFor({ bindHost: '127.0.0.1', port: 3000, server: server({ allowedOrigins: ['https://app.example'] }), accessToken: undefined });
    expect(checkRequest(withApp, { headers: { host, origin: 'https://app.example' } }, OPERATOR)).toMatchObject({ ok: true });
  });
});

describe('body size', () => {
  it('on a declared body over maxRequestBodyBytes: 413 naming the limit', () => {
    const over = String(DEFAULT_SERVER_OPTIONS.maxRequestBodyBytes + 1);
    const verdict = checkRequest(loopback, { headers: { host: '127.0.0.1:3000', 'content-length': over } }, OPERATOR);
    expect(verdict).toMatchObject({ ok: false, status: 413 });
    expect(!verdict.ok && verdict.message).toContain('server.maxRequestBodyBytes');
    const at = String(DEFAULT_SERVER_OPTIONS.maxRequestBodyBytes);
    expect(checkRequest(loopback, { headers: { host: '127.0.0.1:3000', 'content-length': at } }, OPERATOR)).toMatchObject({ ok: true });
  });
});

describe('credentials', () => {
  const host = '10.0.0.5:3000';

  it('exposed: no token is 401 saying how to send it; a wrong bearer is 401; the right bearer passes (not as operator)', () => {
    const none = checkRequest(exposed, { headers: { host } }, OPERATOR);
    expect(none).toMatchObject({ ok: false, status: 401 });
    expect(!none.ok && none.message).toContain('Authorization: Bearer');
    expect(checkRequest(exposed, { headers: { host, authorization: `Bearer ${'b'.repeat(32)}` } }, OPERATOR)).toMatchObject({ ok: false, status: 401 });
    expect(checkRequest(exposed, { headers: { host, authorization: `Bearer ${TOKEN}` } }, OPERATOR)).toEqual({ ok: true, operator: false, owner: exposed.owners.accessToken });
  });

  it("owners: the cookie is the operator, an API key its client (exposed or not), the access and MCP tokens one owner each, no credential the keyless clients; an unknown bearer is 401", () => {
    const key = newApiKey();
    const keyed = server({ clients: { ci: { keySha256: key.keySha256 } } });
    const loop = exposureFor({ bindHost: '127.0.0.1', port: 3000, server: keyed, accessToken: undefined });
    const open = exposureFor({ bindHost: '0.0.0.0', port: 3000, server: keyed, accessToken: TOKEN, interfaceAddresses: ['10.0.0.5'] });
    const ownerOf = (exposure: typeof loop, headers: Record<string, string>, mcpToken?: string) => {
      const verdict = checkRequest(exposure, { headers: { host: exposure === loop ? '127.0.0.1:3000' : host, ...headers } }, OPERATOR, mcpToken);
      return verdict.ok ? verdict.owner.id : verdict.status;
    };
    expect(ownerOf(loop, {})).toBe('anonymous');
    expect(ownerOf(loop, { authorization: `Bearer ${key.key}` })).toBe('client:ci');
    expect(ownerOf(open, { authorization: `Bearer ${key.key}` })).toBe('client:ci');
    expect(ownerOf(open, { authorization: `Bearer ${TOKEN}` })).toBe('token:access');
    expect(ownerOf(open, { authorization: `Bearer ${'m'.repeat(32)}` }, 'm'.repeat(32))).toBe('token:mcp');
    expect(ownerOf(loop, { cookie: `${OPERATOR_COOKIE}=${OPERATOR}` })).toBe('operator');
    // a revoked or mistyped key is refused, on loopback too, rather than silently made keyless; another bearer on loopback is ignored
    expect(ownerOf(loop, { authorization: 'Bearer ck_revoked' })).toBe(401);
    expect(ownerOf(loop, { authorization: 'Bearer <token, only when the server is exposed>' })).toBe('anonymous');
    expect(ownerOf(open, { authorization: 'Bearer ck_revoked' })).toBe(401);
    const refused = checkRequest(loop, { headers: { host: '127.0.0.1:3000', authorization: 'Bearer ck_revoked' } }, OPERATOR);
    expect(!refused.ok && refused.message).toContain('not a key of this server');
  });

  it('the operator cookie makes a request the operator, exposed or not; a wrong cookie does not', () => {
    const cookie = `theme=dark; ${OPERATOR_COOKIE}=${OPERATOR}`;
    expect(checkRequest(exposed, { headers: { host, cookie } }, OPERATOR)).toEqual({ ok: true, operator: true, owner: exposed.owners.operator });
    expect(checkRequest(loopback, { headers: { host: '127.0.0.1:3000', cookie } }, OPERATOR)).toMatchObject({ ok: true, operator: true });
    expect(checkRequest(loopback, { headers: { host: '127.0.0.1:3000', cookie: `${OPERATOR_COOKIE}=guess` } }, OPERATOR)).toMatchObject({ ok: true, operator: false });
    expect(checkRequest(exposed, { headers: { host, cookie: `${OPERATOR_COOKIE}=guess` } }, OPERATOR)).toMatchObject({ ok: false, status: 401 });
  });

  it('the cookie is HttpOnly and SameSite=Strict, and reads back', () => {
    const set = operatorCookie(3000, OPERATOR, { secure: false });
    expect(set).toContain('HttpOnly');
    expect(set).toContain('SameSite=Strict');
    expect(set).not.toContain('Secure');
    expect(readCookie(set.split(';')[0], OPERATOR_COOKIE)).toBe(OPERATOR);
    expect(readCookie(undefined, OPERATOR_COOKIE)).toBeUndefined();
  });

  it('the cookie is named by port: the operator cookie of a playground on another port of the host opens nothing here', () => {
    expect(operatorCookieName(3000)).toBe('codemode_operator_3000');
    const otherPlayground = operatorCookie(3001, OPERATOR, { secure: false }).split(';')[0];
    expect(checkRequest(loopback, { headers: { host: '127.0.0.1:3000', cookie: otherPlayground } }, OPERATOR)).toMatchObject({ ok: true, operator: false });
    expect(checkRequest(exposed, { headers: { host, cookie: otherPlayground } }, OPERATOR)).toMatchObject({ ok: false, status: 401 });
  });

  it('the cookie is Secure when a proxy says the page came over https, and only then', () => {
    expect(operatorCookie(3000, OPERATOR, { secure: true })).toMatch(/; Secure$/);
    expect(servedOverHttps({ headers: { 'x-forwarded-proto': 'https' } })).toBe(true);
    expect(servedOverHttps({ headers: { 'x-forwarded-proto': 'https, http' } })).toBe(true);
    expect(servedOverHttps({ headers: { forwarded: 'for=10.0.0.1;proto=https;host=app.example' } })).toBe(true);
    expect(servedOverHttps({ headers: { 'x-forwarded-proto': 'http' } })).toBe(false);
    expect(servedOverHttps({ headers: { forwarded: 'for=10.0.0.1;proto=http' } })).toBe(false);
    expect(servedOverHttps({ headers: {} })).toBe(false);
  });
});
