// One OpenAPI tool source: its document (file, URL or uploaded text) loaded, mapped and offered as tools.
//
// Tools carry source "external_plugin" with the source's name as owner (docs/decisions.md): policy
// patterns `<name>/*` select them, their names project like every other tool's, and their results are
// `networkContent` (wrapped as untrusted when they reach a model) unless the config says otherwise.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { withInputValidation } from '../validate.ts';
import type { ToolDefinition } from '../types.ts';
import type { OpenApiSourceConfig } from '../../config/types.ts';
import { callOperation, DEFAULT_OPENAPI_TIMEOUT_MS, hostAllowed, type HttpTarget } from './client.ts';
import { loadDocumentText, MAX_OPENAPI_DOCUMENT_BYTES, OpenApiDocumentError } from './document.ts';
import { mapDocument, type OperationSpec } from './mapping.ts';

export interface LoadedOpenApiSource {
  name: string;
  tools: ToolDefinition[];
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
async function documentText(config: OpenApiSourceConfig, baseDir: string, where: string): Promise<string> {
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
    if (Buffer.byteLength(text) > MAX_OPENAPI_DOCUMENT_BYTES) throw new OpenApiDocumentError(`${where}: ${document} is larger than ${MAX_OPENAPI_DOCUMENT_BYTES} bytes`);
    return text;
  }
  const file = isAbsolute(document) ? document : resolve(baseDir, document);
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
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

function toolFor(name: string, op: OperationSpec, target: HttpTarget, networkContent: boolean): ToolDefinition {
  return withInputValidation({
    name: op.name,
    description: op.description,
    inputSchema: op.inputSchema,
    ...(op.outputSchema ? { outputSchema: op.outputSchema } : {}),
    source: 'external_plugin',
    owner: name,
    networkContent,
    ...(op.method === 'get' || op.method === 'head' ? {} : { executionMode: 'sequential' as const }),
    execute: (input, ctx) => callOperation(op, input, target, ctx.signal),
  });
}

/** Loads, validates, dereferences and maps one source. Throws OpenApiDocumentError with what is wrong. */
export async function loadOpenApiSource(
  name: string,
  config: OpenApiSourceConfig,
  opts: { baseDir: string; env?: Readonly<Record<string, string | undefined>> },
): Promise<LoadedOpenApiSource> {
  const where = `OpenAPI source "${name}"`;
  const text = await documentText(config, opts.baseDir, where);
  const doc = await loadDocumentText(text, where);
  const mapped = mapDocument(doc);
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
  const tools = mapped.operations.map((op) => toolFor(name, op, target, config.networkContent ?? true));
  return {
    name,
    tools,
    operations: mapped.operations,
    skipped: mapped.skipped,
    baseUrl: baseUrl.href,
    allowedHosts,
    ...(mapped.title ? { title: mapped.title } : {}),
  };
}
