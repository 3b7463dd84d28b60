// One OpenAPI tool source: its document (file, URL or uploaded text) loaded, mapped and offered as tools.
//
// Tools carry source "openapi" with the source's name as owner (docs/decisions.md): policy patterns
// `<name>/*` and `source:openapi` select them, their names project like every other tool's, and their results are
// `networkContent` (wrapped as untrusted when they reach a model) unless the config says otherwise.
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { withInputValidation } from '../validate.ts';
import type { ToolDefinition } from '../types.ts';
import type { OpenApiSourceConfig } from '../../config/types.ts';
import { callOperation, DEFAULT_OPENAPI_TIMEOUT_MS, hostAllowed, type HttpTarget } from './client.ts';
import { DEFAULT_OPENAPI_MAX_DOCUMENT_BYTES } from '../../config/sources-schema.ts';
import { OpenApiDocumentError } from './document.ts';
import type { OperationSpec } from './mapping.ts';
import { readDocumentOffLoop } from './read.ts';
import { OpenApiSchemas } from './schemas.ts';
import { ADDRESS_CLASS_WORDS, parseAddress, type ParsedAddress } from '../../util/addresses.ts';
import { AddressRefusedError, guardedFetch, refusal, resolveHost, type PinnedHop, type Reach } from '../../util/guarded-fetch.ts';
import { isOwnListener } from '../../util/own-listeners.ts';

export interface LoadedOpenApiSource {
  name: string;
  tools: ToolDefinition[];
  /** The document's named schemas, shared by every tool (their declarations are one file per source). */
  schemas: OpenApiSchemas;
  operations: OperationSpec[];
  skipped: string[];
  baseUrl: string;
  allowedHosts: string[];
  title?: string;
}

const DOCUMENT_FETCH_TIMEOUT_MS = 15_000;
/** Redirects a document URL may take (each hop checked): as many as a call's. */
const MAX_DOCUMENT_REDIRECTS = 5;

function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/** A document's bytes (UTF-8, decoded by the reader off the event loop), and the hop it was fetched from (its checked address) when it came from a URL. */
interface DocumentBytes {
  bytes: Uint8Array;
  fetchedFrom?: PinnedHop;
}

/** Reads the document: an upload, a URL (fetched, size-limited) or a file relative to `baseDir`. */
async function documentBytes(config: OpenApiSourceConfig, baseDir: string, where: string, maxBytes: number): Promise<DocumentBytes> {
  if (config.documentText !== undefined) return { bytes: new TextEncoder().encode(config.documentText) };
  const document = config.document;
  if (!document) throw new OpenApiDocumentError(`${where} needs "document" (a file path or an http(s) URL of an OpenAPI 3.x document)`);
  if (isUrl(document)) {
    let response: Response;
    let fetchedFrom: PinnedHop;
    try {
      // the operator named this URL (internal reach); a redirect from a public address stays public (util/guarded-fetch.ts)
      ({ response, hop: fetchedFrom } = await guardedFetch(
        new URL(document),
        { signal: AbortSignal.timeout(DOCUMENT_FETCH_TIMEOUT_MS), headers: { accept: 'application/json, application/yaml, text/yaml, */*' }, maxRedirects: MAX_DOCUMENT_REDIRECTS },
        'internal',
      ));
    } catch (err) {
      if (err instanceof AddressRefusedError) throw new OpenApiDocumentError(`${where}: fetching ${document} was refused: ${err.message}`);
      const cause = (err as { cause?: { code?: string } }).cause;
      throw new OpenApiDocumentError(`${where}: fetching ${document} failed (${cause?.code ?? (err as Error).message}); check the URL is reachable from the Gateway`);
    }
    if (!response.ok) throw new OpenApiDocumentError(`${where}: fetching ${document} answered HTTP ${response.status}; check the URL`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw new OpenApiDocumentError(`${where}: ${document} is larger than sources.maxDocumentBytes (${maxBytes} bytes)`);
    return { bytes, fetchedFrom };
  }
  const file = isAbsolute(document) ? document : resolve(baseDir, document);
  try {
    // a device or a pipe (/dev/zero) would be read until memory runs out: regular files of a bounded size only
    const info = await stat(file);
    if (!info.isFile()) throw new OpenApiDocumentError(`${where}: ${file} is not a regular file; name an OpenAPI document (JSON or YAML)`);
    if (info.size > maxBytes) throw new OpenApiDocumentError(`${where}: ${file} is ${info.size} bytes, larger than sources.maxDocumentBytes (${maxBytes}); raise that limit in the config or trim the document`);
    return { bytes: await readFile(file) };
  } catch (err) {
    if (err instanceof OpenApiDocumentError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new OpenApiDocumentError(`${where}: cannot read ${file} (${code ?? (err as Error).message}); "document" is a path relative to the config file or an http(s) URL`);
  }
}

/** Base URL: the config's, else the document's first server (relative ones against the document URL). */
function resolveBaseUrl(config: OpenApiSourceConfig, serverUrl: string | undefined, where: string): URL {
  const candidate = config.baseUrl ?? serverUrl;
  if (!candidate) throw new OpenApiDocumentError(`${where}: the document names no servers; set "baseUrl" (e.g. "http://127.0.0.1:4011")`);
  let url: URL;
  try {
    url = config.document && isUrl(config.document) && !config.baseUrl ? new URL(candidate, config.document) : new URL(candidate);
  } catch {
    throw new OpenApiDocumentError(`${where}: base URL ${JSON.stringify(candidate)} is not an absolute http(s) URL; set "baseUrl"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OpenApiDocumentError(`${where}: base URL ${url.href} must be http(s)`);
  return url;
}

/**
 * Where the source's calls may land (util/guarded-fetch.ts). The operator named the host (baseUrl or allowedHosts
 * in the source's config): its network too (`internal`), never the Gateway's own server. Otherwise the document
 * chose it (servers[0]), and its addresses (every spelling normalized, a name resolved once) decide: public ones
 * give a `public` reach, so a later DNS answer cannot turn the calls inward; loopback and private ones only when
 * the document was fetched from that same address and port (a service describing itself); link-local (cloud
 * metadata), unspecified and reserved ones, and the Gateway's own server, never. Uploaded and file documents are
 * held to the same rule: their text may have come from anywhere.
 */
async function sourceReach(config: OpenApiSourceConfig, baseUrl: URL, fetchedFrom: PinnedHop | undefined, where: string): Promise<Reach> {
  const port = Number(baseUrl.port || (baseUrl.protocol === 'https:' ? 443 : 80));
  let addresses: ParsedAddress[];
  try {
    addresses = await resolveHost(baseUrl);
  } catch {
    // a name that does not resolve now: the calls resolve it again and are checked then
    addresses = [];
  }
  const operatorNamed = config.baseUrl !== undefined || config.allowedHosts !== undefined;
  for (const address of addresses) {
    const why = refusal(address, port, 'internal');
    if (why !== undefined && (operatorNamed || isOwnListener(address.address, port))) {
      throw new OpenApiDocumentError(`${where}: calls would go to ${baseUrl.origin}: ${why}; set "baseUrl" to the API's own address`);
    }
  }
  if (operatorNamed) return 'internal';
  const fix = `set "baseUrl" (and "allowedHosts") in the source's config if calls should go there`;
  const named = (address: ParsedAddress) => (parseAddress(baseUrl.hostname) ? '' : ` (${baseUrl.hostname} resolves to ${address.address})`);
  for (const address of addresses) {
    if (address.class === 'public') continue;
    if (address.class === 'loopback' || address.class === 'private') {
      const sameService = fetchedFrom !== undefined && Number(fetchedFrom.url.port || (fetchedFrom.url.protocol === 'https:' ? 443 : 80)) === port && fetchedFrom.resolved.some((a) => a.address === address.address);
      if (sameService) continue;
      const from = fetchedFrom ? `the document (from ${fetchedFrom.url.host})` : config.documentText !== undefined ? 'the uploaded document' : `the document (file ${config.document ?? ''})`;
      const other = fetchedFrom ? ' of another host or port' : '';
      throw new OpenApiDocumentError(`${where}: ${from} names its server ${baseUrl.origin}, a loopback or private address${other}${named(address)}; ${fix}`);
    }
    if (address.class === 'link-local') throw new OpenApiDocumentError(`${where}: the document's server ${baseUrl.origin} is a link-local address (where clouds serve instance metadata)${named(address)}; ${fix}`);
    throw new OpenApiDocumentError(`${where}: the document's server ${baseUrl.origin} is ${ADDRESS_CLASS_WORDS[address.class]}${named(address)}; ${fix}`);
  }
  return addresses.some((a) => a.class !== 'public') ? 'internal' : 'public';
}

function authHeaders(config: OpenApiSourceConfig, env: Readonly<Record<string, string | undefined>>, where: string): Record<string, string> {
  if (!config.auth) return {};
  const header = config.auth.header ?? 'Authorization';
  const value = config.auth.value ?? (config.auth.env ? env[config.auth.env] : undefined);
  if (value === undefined) {
    throw new OpenApiDocumentError(`${where}: auth needs "value" or "env"${config.auth.env ? ` (environment variable ${config.auth.env} is not set)` : ''}`);
  }
  if (/[\r\n]/.test(value) || /[\r\n:]/.test(header)) throw new OpenApiDocumentError(`${where}: the auth header name or value contains a line break or colon`);
  return { [header]: value };
}

function toolFor(name: string, op: OperationSpec, target: HttpTarget, networkContent: boolean, schemas: OpenApiSchemas): ToolDefinition {
  return withInputValidation({
    name: op.name,
    description: op.description,
    inputSchema: op.inputSchema,
    ...(op.outputSchema ? { outputSchema: op.outputSchema } : {}),
    schemaDefs: schemas,
    ...(op.group ? { group: op.group } : {}),
    source: 'openapi',
    owner: name,
    networkContent,
    ...(op.method === 'get' || op.method === 'head' ? {} : { executionMode: 'sequential' as const }),
    execute: (input, ctx) => callOperation(op, input, target, ctx.signal),
  });
}

/** Loads, checks and maps one source. Throws OpenApiDocumentError with what is wrong. */
export async function loadOpenApiSource(
  name: string,
  config: OpenApiSourceConfig,
  opts: { baseDir: string; env?: Readonly<Record<string, string | undefined>>; maxDocumentBytes?: number },
): Promise<LoadedOpenApiSource> {
  const where = `OpenAPI source "${name}"`;
  const maxBytes = opts.maxDocumentBytes ?? DEFAULT_OPENAPI_MAX_DOCUMENT_BYTES;
  const { bytes, fetchedFrom } = await documentBytes(config, opts.baseDir, where, maxBytes);
  // parsed, named and mapped in a worker thread (read.ts): GitHub's description would stop the event loop for a second
  const read = await readDocumentOffLoop(bytes, name, where, maxBytes);
  const mapped = read.mapped;
  const schemas = OpenApiSchemas.released(name, read.named, read.notes);
  const baseUrl = resolveBaseUrl(config, mapped.serverUrl, where);
  const allowedHosts = (config.allowedHosts ?? [baseUrl.host]).map((h) => h.toLowerCase());
  const target: HttpTarget = {
    baseUrl,
    reach: await sourceReach(config, baseUrl, fetchedFrom, where),
    headers: authHeaders(config, opts.env ?? process.env, where),
    allowedHosts: new Set(allowedHosts),
    timeoutMs: config.timeoutMs ?? DEFAULT_OPENAPI_TIMEOUT_MS,
    label: name,
  };
  if (!hostAllowed(baseUrl, target.allowedHosts)) {
    throw new OpenApiDocumentError(`${where}: the base URL's host ${baseUrl.host} is not in allowedHosts (${allowedHosts.join(', ')}); add it or change baseUrl`);
  }
  const tools = mapped.operations.map((op) => toolFor(name, op, target, config.networkContent ?? true, schemas));
  return {
    name,
    tools,
    schemas,
    operations: mapped.operations,
    skipped: mapped.skipped,
    baseUrl: baseUrl.href,
    allowedHosts,
    ...(mapped.title ? { title: mapped.title } : {}),
  };
}
