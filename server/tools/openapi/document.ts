// An OpenAPI 3.x document read from text (JSON or YAML) and dereferenced by @readme/openapi-parser.
//
// $refs are resolved by the parser package, never by hand; external references (other files, URLs) are
// refused so a document cannot make the Gateway read files or call hosts the operator did not name.
// Circular references stay as `$ref` objects (the mapping treats them as "any value").
import { dereference, validate, compileErrors } from '@readme/openapi-parser';
import { parse as parseYaml } from 'yaml';
import { isRecord } from '../../util/is-record.mjs';
import { expandedSize, MAX_OPENAPI_EXPANDED_VALUES } from './expansion.ts';

/** Largest document accepted (upload, URL or file): a big public API (GitHub's) is about 10 MB; the catalog is built per turn. */
export const MAX_OPENAPI_DOCUMENT_BYTES = 8 * 1024 * 1024;

/** A document the source cannot use; the message names what is wrong and what to do. */
export class OpenApiDocumentError extends Error {
  override name = 'OpenApiDocumentError';
}

export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths?: Record<string, unknown> };

/** JSON when it looks like JSON, YAML otherwise (YAML 1.2 reads JSON too, but JSON errors are clearer from JSON.parse). */
export function parseDocumentText(text: string, where: string): unknown {
  if (Buffer.byteLength(text, 'utf8') > MAX_OPENAPI_DOCUMENT_BYTES) {
    throw new OpenApiDocumentError(`${where} is larger than ${MAX_OPENAPI_DOCUMENT_BYTES} bytes; trim it to the operations you need`);
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

/**
 * Checks the document is OpenAPI 3.x, validates it and resolves its internal $refs. Throws
 * OpenApiDocumentError naming the first problems.
 */
export async function dereferenceDocument(value: unknown, where: string): Promise<OpenApiDocument> {
  if (!isRecord(value)) throw new OpenApiDocumentError(`${where} must be an OpenAPI 3.x object with "openapi", "info" and "paths"`);
  const version = value['openapi'];
  if (typeof version !== 'string' || !/^3\.[01]\./.test(version)) {
    const swagger = typeof value['swagger'] === 'string';
    throw new OpenApiDocumentError(
      swagger
        ? `${where} is Swagger ${String(value['swagger'])}; convert it to OpenAPI 3.x (e.g. with swagger2openapi) first`
        : `${where} has no "openapi": "3.0.x" or "3.1.x" field; only OpenAPI 3.0 and 3.1 documents are supported`,
    );
  }
  if (expandedSize(value) === undefined) {
    throw new OpenApiDocumentError(
      `${where} holds more than ${MAX_OPENAPI_EXPANDED_VALUES} values once its $refs are resolved (schemas that refer to others many times over); ` +
        'trim it to the operations you need, or make deeply shared schemas refer to each other less',
    );
  }
  const options = { resolve: { external: false, file: false }, dereference: { circular: 'ignore' as const } };
  // the parser changes the object it is given; keep the caller's
  const copy = structuredClone(value) as OpenApiDocument;
  let result;
  try {
    result = await validate(structuredClone(copy) as unknown as Parameters<typeof validate>[0], options);
  } catch (err) {
    throw new OpenApiDocumentError(`${where} could not be read: ${(err as Error).message}`);
  }
  if (!result.valid) {
    const details = compileErrors(result).split('\n').filter((line) => line.trim()).slice(0, 6).join('; ');
    throw new OpenApiDocumentError(`${where} is not a valid OpenAPI document: ${details}`);
  }
  try {
    return (await dereference(copy as unknown as Parameters<typeof dereference>[0], options)) as unknown as OpenApiDocument;
  } catch (err) {
    throw new OpenApiDocumentError(`${where}: a $ref could not be resolved (${(err as Error).message}); only references inside the document (#/...) are followed`);
  }
}

/** Text -> dereferenced document. */
export async function loadDocumentText(text: string, where: string): Promise<OpenApiDocument> {
  return dereferenceDocument(parseDocumentText(text, where), where);
}
