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
import { loadDocumentText, OpenApiDocumentError } from './document.ts';
import { mapDocument, type OperationSpec } from './mapping.ts';
import { OpenApiSchemas, SchemaBoundsError } from './schemas.ts';

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

function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/** Reads the document text: an upload, a URL (fetched, size-limited) or a file relative to `baseDir`. */
async function documentText(config: OpenApiSourceConfig, baseDir: string, where: string, maxBytes: number): Promise<string> {
  if (config.documentText !== undefined) return config.documentText;
  const document = config.document;
  if (!document) throw new OpenApiDocumentError(`${where} needs "document" (a file path or an http(s) URL of an OpenAPI 3.x document)`);
  if (isUrl(document)) {
    let response: Response;
    try {
      response = await fetch(document, { signal: AbortSignal.timeout(DOCUMENT_FETCH_TIMEOUT_MS), headers: { accept: 'application/json, application/yaml, text/yaml, */*' } });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      throw new OpenApiDocumentError(`${where}: fetching ${document} failed (${cause?.code ?? (err as Error).message}); check the URL is reachable from the Gateway`);
    }
    if (!response.ok) throw new OpenApiDocumentError(`${where}: fetching ${document} answered HTTP ${response.status}; check the URL`);
    const text = await response.text();
    if (Buffer.byteLength(text) > maxBytes) throw new OpenApiDocumentError(`${where}: ${document} is larger than sources.maxDocumentBytes (${maxBytes} bytes)`);
    return text;
  }
  const file = isAbsolute(document) ? document : resolve(baseDir, document);
  try {
    // a device or a pipe (/dev/zero) would be read until memory runs out: regular files of a bounded size only
    const info = await stat(file);
    if (!info.isFile()) throw new OpenApiDocumentError(`${where}: ${file} is not a regular file; name an OpenAPI document (JSON or YAML)`);
    if (info.size > maxBytes) throw new OpenApiDocumentError(`${where}: ${file} is ${info.size} bytes, larger than sources.maxDocumentBytes (${maxBytes}); raise that limit in the config or trim the document`);
    return await readFile(file, 'utf8');
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
  if (!config.baseUrl) refuseInternalServerUrl(url, config, where);
  return url;
}

/** Literal link-local addresses (169.254.0.0/16, where clouds serve instance metadata; fe80::/10). */
const LINK_LOCAL = /^(169\.254\.\d{1,3}\.\d{1,3}|\[fe[89ab][0-9a-f]:[0-9a-f:.]*\])$/i;
/** Literal loopback and private addresses, and localhost. */
const INTERNAL = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|0\.0\.0\.0|10\.\d{1,3}\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3}\.\d{1,3}|172\.(1[6-9]|2\d|3[01])\.\d{1,3}\.\d{1,3}|\[::1?\]|\[f[cd][0-9a-f]{2}:[0-9a-f:.]*\])$/i;

/**
 * The document chose this base URL (its servers[0]); the allowlist defaults to its host, so the document decides
 * where calls go. It may not pick a link-local address (cloud metadata), nor, when it was fetched from a URL, a
 * loopback or private address other than the host it came from (a document on one port naming the playground's own
 * port, or another service on the machine). Setting baseUrl in the source's config says the operator means it.
 */
function refuseInternalServerUrl(url: URL, config: OpenApiSourceConfig, where: string): void {
  const host = url.hostname.toLowerCase();
  const fix = `set "baseUrl" (and "allowedHosts") in the source's config if calls should go there`;
  if (LINK_LOCAL.test(host)) throw new OpenApiDocumentError(`${where}: the document's server ${url.origin} is a link-local address (where clouds serve instance metadata); ${fix}`);
  const from = config.document && isUrl(config.document) ? new URL(config.document) : undefined;
  if (from && INTERNAL.test(host) && url.host !== from.host) {
    throw new OpenApiDocumentError(`${where}: the document (from ${from.host}) names its server ${url.origin}, a loopback or private address of another host or port; ${fix}`);
  }
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
  const text = await documentText(config, opts.baseDir, where, maxBytes);
  const doc = loadDocumentText(text, where, maxBytes);
  const schemas = new OpenApiSchemas(doc, name);
  let mapped;
  try {
    schemas.nameComponents();
    mapped = mapDocument(doc, schemas);
    schemas.release();
  } catch (err) {
    if (err instanceof SchemaBoundsError) throw new OpenApiDocumentError(`${where}: ${err.message}`);
    throw err;
  }
  const baseUrl = resolveBaseUrl(config, mapped.serverUrl, where);
  const allowedHosts = (config.allowedHosts ?? [baseUrl.host]).map((h) => h.toLowerCase());
  const target: HttpTarget = {
    baseUrl,
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
