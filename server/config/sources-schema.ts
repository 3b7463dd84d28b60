// The `sources` section of the config file: OpenAPI tool sources and the live-sources switches (zod schema).
import { z } from 'zod';
import type { OpenApiSourceConfig, SourcesConfig } from './types.ts';
import { expectedReason, strictObject } from './issues.ts';

/** A source name becomes a policy owner (`<name>/*`) and a label in errors: keep it plain. */
export const SOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HOST_ENTRY = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** An absolute http: or https: URL (MCP endpoints, OpenAPI documents and base URLs, the OTLP endpoint). */
export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Largest OpenAPI document a source reads (file, URL or upload): GitHub's whole REST API description is 13 MB, GHEC's 14 MB. */
export const DEFAULT_OPENAPI_MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
/** sources.maxDocumentBytes may be set from 64 KiB to 256 MiB: a parsed document takes several times its size in memory. */
export const OPENAPI_MAX_DOCUMENT_BYTES_RANGE = { min: 64 * 1024, max: 256 * 1024 * 1024 } as const;

const nonEmpty = (hint: string) =>
  z.string({ error: (issue) => expectedReason('a string', hint, issue.input) }).refine((v) => v.trim() !== '', { error: `must not be empty; ${hint}` });

export const openApiSourceSchema = strictObject(
  {
    document: nonEmpty('a path (relative to the config file) or an http(s) URL of an OpenAPI 3.x document, e.g. "demo/openapi/inventory.yaml"'),
    baseUrl: nonEmpty('where calls go, e.g. "http://127.0.0.1:4011"')
      .refine(isHttpUrl, { error: (issue) => `${JSON.stringify(issue.input)} is not an http(s) URL; give where calls go, e.g. "http://127.0.0.1:4011"` })
      .optional(),
    auth: strictObject(
      {
        header: nonEmpty('the header name, e.g. "Authorization"')
          .refine((h) => HEADER_NAME.test(h), { error: (issue) => `${JSON.stringify(issue.input)} is not a header name` })
          .optional(),
        value: z.string({ error: (issue) => expectedReason('a string', 'the header value, e.g. "Bearer ..."', issue.input) }).optional(),
        env: nonEmpty('an environment variable holding the header value').optional(),
      },
      'auth: header, value or env',
    )
      .refine((a) => (a.value === undefined) !== (a.env === undefined), { error: 'give exactly one of "value" and "env"' })
      .optional(),
    allowedHosts: z
      .array(
        nonEmpty('a host name, optionally with :port').refine((h) => HOST_ENTRY.test(h), {
          error: (issue) => `${JSON.stringify(issue.input)} is not a host; write "api.example.com" or "127.0.0.1:4011" (no scheme or path)`,
        }),
        { error: (issue) => expectedReason('a list', 'list the hosts calls may reach', issue.input) },
      )
      .optional(),
    networkContent: z.boolean({ error: (issue) => expectedReason('true or false', 'false only for an API you control', issue.input) }).optional(),
    timeoutMs: z
      .number({ error: (issue) => expectedReason('a number', 'milliseconds per call', issue.input) })
      .int()
      .min(100, { error: 'must be at least 100 (milliseconds per call)' })
      .max(600_000, { error: 'must be at most 600000 (10 minutes)' })
      .optional(),
  },
  'an OpenAPI source: document, baseUrl, auth, allowedHosts, networkContent, timeoutMs',
);

export const sourcesSchema = strictObject(
  {
    openapi: z
      .record(
        z.string().refine((name) => SOURCE_NAME.test(name), {
          error: 'an OpenAPI source name uses letters, digits, "_", "-" or "." (up to 64), starting with a letter or digit',
        }),
        openApiSourceSchema,
        { error: (issue) => expectedReason('an object', 'map source names to { "document": ... }', issue.input) },
      )
      .optional(),
    allowStdioWhenExposed: z
      .boolean({ error: (issue) => expectedReason('true or false', 'true lets the operator add stdio MCP servers while the server is exposed', issue.input) })
      .optional(),
    maxDocumentBytes: z
      .number({ error: (issue) => expectedReason('a number', 'the largest OpenAPI document in bytes', issue.input) })
      .int()
      .min(OPENAPI_MAX_DOCUMENT_BYTES_RANGE.min, { error: `must be at least ${OPENAPI_MAX_DOCUMENT_BYTES_RANGE.min} (bytes)` })
      .max(OPENAPI_MAX_DOCUMENT_BYTES_RANGE.max, { error: `must be at most ${OPENAPI_MAX_DOCUMENT_BYTES_RANGE.max} (256 MiB)` })
      .optional(),
  },
  'sources: openapi, allowStdioWhenExposed, maxDocumentBytes',
);

/** The parsed section with defaults; `fromRoot` makes document paths absolute (URLs stay). */
export function resolveSources(file: z.infer<typeof sourcesSchema> | undefined, fromRoot: (path: string) => string): SourcesConfig {
  const openapi: Record<string, OpenApiSourceConfig> = {};
  for (const [name, source] of Object.entries(file?.openapi ?? {})) {
    const { document, ...rest } = source;
    openapi[name] = { ...rest, document: isHttpUrl(document) ? document : fromRoot(document) } as OpenApiSourceConfig;
  }
  return { openapi, allowStdioWhenExposed: file?.allowStdioWhenExposed ?? false, maxDocumentBytes: file?.maxDocumentBytes ?? DEFAULT_OPENAPI_MAX_DOCUMENT_BYTES };
}
