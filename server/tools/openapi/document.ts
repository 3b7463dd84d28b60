// An OpenAPI 3.x document read from text (JSON or YAML) and checked for what the mapping needs.
//
// Nothing is dereferenced here: schemas.ts names every referenced schema and mapping.ts follows the
// other references (parameters, bodies, responses) one operation at a time, so a big document (GitHub's
// 13 MB description) costs its parse and little more. Only references inside the document (`#/...`) are
// followed: a document cannot make the Gateway read files or call hosts the operator did not name.
// Swagger 2.0 is refused with how to convert it (docs/decisions.md).
import { parse as parseYaml } from 'yaml';
import { isRecord } from '../../util/is-record.mjs';

/** A document the source cannot use; the message names what is wrong and what to do. */
export class OpenApiDocumentError extends Error {
  override name = 'OpenApiDocumentError';
}

export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths?: Record<string, unknown> };

/** JSON when it looks like JSON, YAML otherwise (YAML 1.2 reads JSON too, but JSON errors are clearer from JSON.parse). */
export function parseDocumentText(text: string, where: string, maxBytes: number): unknown {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new OpenApiDocumentError(`${where} is ${bytes} bytes, larger than sources.maxDocumentBytes (${maxBytes}); raise that limit in the config or trim the document to the operations you need`);
  }
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new OpenApiDocumentError(`${where} is not valid JSON: ${(err as Error).message}`);
    }
  }
  try {
    return parseYaml(text, { maxAliasCount: 100 }) as unknown;
  } catch (err) {
    throw new OpenApiDocumentError(`${where} is neither JSON nor valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Checks the value is an OpenAPI 3.0 or 3.1 document with a `paths` object. Throws OpenApiDocumentError naming the problem. */
export function checkDocument(value: unknown, where: string): OpenApiDocument {
  if (!isRecord(value)) throw new OpenApiDocumentError(`${where} must be an OpenAPI 3.x object with "openapi", "info" and "paths"`);
  const version = value['openapi'];
  if (typeof version !== 'string' || !/^3\.[01]\./.test(version)) {
    const swagger = typeof value['swagger'] === 'string';
    throw new OpenApiDocumentError(
      swagger
        ? `${where} is Swagger ${String(value['swagger'])}; convert it to OpenAPI 3.x first, e.g. \`npx swagger2openapi ${'<file>'} -o openapi.json\`, and add the result`
        : `${where} has no "openapi": "3.0.x" or "3.1.x" field; only OpenAPI 3.0 and 3.1 documents are supported`,
    );
  }
  if (value['paths'] !== undefined && !isRecord(value['paths'])) throw new OpenApiDocumentError(`${where}: "paths" must be an object of path templates`);
  if (value['components'] !== undefined && !isRecord(value['components'])) throw new OpenApiDocumentError(`${where}: "components" must be an object`);
  return value as OpenApiDocument;
}

/** Text -> checked document. */
export function loadDocumentText(text: string, where: string, maxBytes: number): OpenApiDocument {
  return checkDocument(parseDocumentText(text, where, maxBytes), where);
}
