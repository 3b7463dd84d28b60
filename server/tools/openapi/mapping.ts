// OpenAPI operations -> tool specs: name, description, input schema (path, query and header parameters and
// the body), output schema (the success responses) and what the HTTP client needs to build the request.
//
// Schemas go through OpenApiSchemas (schemas.ts): a referenced schema stays a name (`#/$defs/Issue`), the
// input in the request view and the output in the response view. Names come from `operationId`, else from
// method + path (`get_items_itemId`); the catalog projects them to callable names with the same rules as
// every other tool. Cookie parameters are not offered (browsers own cookies; an API that needs one takes it
// in the source's headers). An operation whose schemas refer outside the document or to nothing is left out
// with the reason.
import type { JsonSchema } from '../types.ts';
import { isRecord } from '../../util/is-record.mjs';
import { jsonShapeProblem } from '../../util/json-shape.ts';
import type { OpenApiDocument } from './document.ts';
import { SchemaRefError, type OpenApiSchemas } from './schemas.ts';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Operations turned into tools per document: GitHub's whole REST API is about 1,200; past this a document is a dump, not an API. */
export const MAX_OPENAPI_OPERATIONS = 4096;

export interface OperationParam {
  /** Name in the HTTP request (path template name, query key, header name). */
  name: string;
  in: 'path' | 'query' | 'header';
  /** Property of the tool input that carries it (the name, or `<name>_<in>` when two locations share a name). */
  property: string;
  required: boolean;
}

export interface OperationSpec {
  /** Tool name: operationId, or method + path. */
  name: string;
  method: HttpMethod;
  /** Path template as the document spells it (`/items/{itemId}`). */
  path: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  params: OperationParam[];
  /** Set when the operation takes a body: the input's `body` property, sent as this media type. */
  body?: { contentType: string; required: boolean };
  /** The operation's first tag. */
  group?: string;
}

export interface MappedDocument {
  operations: OperationSpec[];
  /** Operations left out, with why (shown with the source's state). */
  skipped: string[];
  /** `servers[0].url` when the document names one. */
  serverUrl?: string;
  title?: string;
}

/** `get /items/{itemId}` -> `get_items_itemId`. */
export function nameFromMethodAndPath(method: string, path: string): string {
  const parts = path
    .split('/')
    .map((segment) => segment.replace(/[{}]/g, '').replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, ''))
    .filter(Boolean);
  return [method.toLowerCase(), ...parts].join('_');
}

function paramList(value: unknown, schemas: OpenApiSchemas): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.map((p) => schemas.deref(p)).filter(isRecord) : [];
}

/** Request body media types the client sends: JSON first, then form fields, then text or raw bytes (as a string). */
function requestMediaType(content: unknown): { type: string; schema: unknown } | undefined {
  if (!isRecord(content)) return undefined;
  const entries = Object.entries(content);
  const pick =
    entries.find(([type]) => /^application\/(.+\+)?json\b/i.test(type)) ??
    entries.find(([type]) => type === 'application/x-www-form-urlencoded') ??
    entries.find(([type]) => type.startsWith('text/')) ??
    entries.find(([type]) => type === 'application/octet-stream' || type === '*/*');
  if (!pick) return undefined;
  return { type: pick[0], schema: isRecord(pick[1]) ? pick[1]['schema'] : undefined };
}

/**
 * What one response gives the caller, as the client decodes it: a JSON media type's schema, a string for text
 * or any other media type, `null` for no content (204).
 */
function responseShape(response: unknown, schemas: OpenApiSchemas): JsonSchema {
  const resolved = schemas.deref(response);
  if (!isRecord(resolved)) return {};
  const content = resolved['content'];
  if (!isRecord(content) || Object.keys(content).length === 0) return { type: 'null' };
  const entries = Object.entries(content);
  const json = entries.find(([type]) => /^application\/(.+\+)?json\b/i.test(type) || type === '*/*' && isRecord(content[type]) && (content[type] as Record<string, unknown>)['schema'] !== undefined);
  if (json) {
    const media = json[1];
    return isRecord(media) && media['schema'] !== undefined ? schemas.normalize(media['schema'], 'response') : {};
  }
  return { type: 'string' };
}

/**
 * The output schema: every 2xx response (`200`, `2XX`, ...) the operation lists, else its `default` response; one
 * shape, or `anyOf` when they differ (a 200 with JSON and a 204 without content). Undefined when nothing is listed.
 */
function outputSchemaOf(responses: unknown, schemas: OpenApiSchemas): JsonSchema | undefined {
  if (!isRecord(responses)) return undefined;
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort((a, b) => a.localeCompare(b));
  const picked = codes.length > 0 ? codes : 'default' in responses ? ['default'] : [];
  const shapes: JsonSchema[] = [];
  const seen = new Set<string>();
  let description: string | undefined;
  for (const code of picked) {
    const shape = responseShape(responses[code], schemas);
    const key = JSON.stringify(shape);
    if (!seen.has(key)) {
      seen.add(key);
      shapes.push(shape);
    }
    const response = schemas.deref(responses[code]);
    if (description === undefined && isRecord(response) && typeof response['description'] === 'string' && response['description'].trim() !== '') description = response['description'];
  }
  if (shapes.length === 0) return undefined;
  if (shapes.some((shape) => Object.keys(shape).length === 0)) return undefined; // some success is any value: nothing to check or declare
  const schema: JsonSchema = shapes.length === 1 ? { ...(shapes[0] as JsonSchema) } : { anyOf: shapes };
  if (description !== undefined && schema['description'] === undefined) schema['description'] = description;
  return schema;
}

function mapOperation(method: HttpMethod, path: string, pathItem: Record<string, unknown>, op: Record<string, unknown>, schemas: OpenApiSchemas): OperationSpec {
  const name = typeof op['operationId'] === 'string' && op['operationId'].trim() ? op['operationId'].trim() : nameFromMethodAndPath(method, path);
  const text = [op['summary'], op['description']].filter((t): t is string => typeof t === 'string' && t.trim() !== '');
  const description = text.length > 0 ? [...new Set(text)].join('\n\n') : `${method.toUpperCase()} ${path}`;

  // operation-level parameters override path-level ones with the same name and location
  const byKey = new Map<string, Record<string, unknown>>();
  for (const p of [...paramList(pathItem['parameters'], schemas), ...paramList(op['parameters'], schemas)]) {
    if (typeof p['name'] === 'string' && typeof p['in'] === 'string') byKey.set(`${p['in']}:${p['name']}`, p);
  }
  const usable = [...byKey.values()].filter((p) => p['in'] === 'path' || p['in'] === 'query' || p['in'] === 'header');
  const nameCount = new Map<string, number>();
  for (const p of usable) nameCount.set(String(p['name']), (nameCount.get(String(p['name'])) ?? 0) + 1);

  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const params: OperationParam[] = [];
  for (const p of usable) {
    const paramName = String(p['name']);
    const location = p['in'] as OperationParam['in'];
    const clash = (nameCount.get(paramName) ?? 0) > 1 || paramName === 'body';
    const property = clash ? `${paramName}_${location}` : paramName;
    const raw = p['schema'] ?? requestMediaType(p['content'])?.schema;
    const schema = schemas.normalize(raw, 'request');
    const doc = [typeof p['description'] === 'string' ? p['description'] : '', `(${location} parameter)`].filter(Boolean).join(' ');
    properties[property] = schema['$ref'] !== undefined ? { allOf: [schema], description: doc } : { ...schema, description: typeof schema['description'] === 'string' ? `${schema['description']} ${doc}` : doc };
    const isRequired = location === 'path' || p['required'] === true;
    if (isRequired) required.push(property);
    params.push({ name: paramName, in: location, property, required: isRequired });
  }

  let body: OperationSpec['body'];
  const requestBody = schemas.deref(op['requestBody']);
  if (isRecord(requestBody) && isRecord(requestBody['content']) && Object.keys(requestBody['content']).length > 0) {
    const media = requestMediaType(requestBody['content']);
    if (!media) {
      throw new SchemaRefError(`its request body is ${Object.keys(requestBody['content']).join(' or ')}, which the client does not send (JSON, form fields, text or raw bytes)`);
    }
    body = { contentType: media.type, required: requestBody['required'] === true };
    const json = /json/i.test(media.type) || media.type === 'application/x-www-form-urlencoded';
    const schema = json ? schemas.normalize(media.schema, 'request') : { type: 'string' };
    const doc = typeof requestBody['description'] === 'string' ? requestBody['description'] : `request body (${media.type})`;
    properties['body'] = schema['$ref'] !== undefined ? { allOf: [schema], description: doc } : { ...schema, ...(schema['description'] === undefined ? { description: doc } : {}) };
    if (body.required) required.push('body');
  }

  const inputSchema: JsonSchema = { type: 'object', properties, additionalProperties: false, ...(required.length > 0 ? { required } : {}) };
  const outputSchema = outputSchemaOf(op['responses'], schemas);
  const tags = Array.isArray(op['tags']) ? op['tags'].filter((t): t is string => typeof t === 'string' && t.trim() !== '') : [];
  return {
    name,
    method,
    path,
    description,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    params,
    ...(body ? { body } : {}),
    ...(tags[0] ? { group: tags[0] } : {}),
  };
}

/** Every operation of a document, in document order; duplicate names keep the first. Throws SchemaBoundsError past the schema bounds. */
export function mapDocument(doc: OpenApiDocument, schemas: OpenApiSchemas): MappedDocument {
  const operations: OperationSpec[] = [];
  const skipped: string[] = [];
  const names = new Set<string>();
  const paths = isRecord(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    let pathItem: unknown;
    try {
      pathItem = schemas.deref(rawItem);
    } catch (err) {
      if (!(err instanceof SchemaRefError)) throw err;
      skipped.push(`${path}: ${err.message}`);
      continue;
    }
    if (!isRecord(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const op = pathItem[method];
      if (!isRecord(op)) continue;
      if (operations.length >= MAX_OPENAPI_OPERATIONS) {
        skipped.push(`${method.toUpperCase()} ${path}: more than ${MAX_OPENAPI_OPERATIONS} operations; the rest were left out`);
        continue;
      }
      let spec: OperationSpec;
      try {
        spec = mapOperation(method, path, pathItem, op, schemas);
      } catch (err) {
        if (!(err instanceof SchemaRefError)) throw err;
        skipped.push(`${method.toUpperCase()} ${path}: ${err.message}`);
        continue;
      }
      const shape = jsonShapeProblem(spec.inputSchema) ?? jsonShapeProblem(spec.outputSchema ?? null);
      if (shape) {
        skipped.push(`${method.toUpperCase()} ${path}: its schema ${shape}`);
        continue;
      }
      if (names.has(spec.name)) {
        skipped.push(`${method.toUpperCase()} ${path}: its name "${spec.name}" is already used by another operation; give it a unique operationId`);
        continue;
      }
      names.add(spec.name);
      operations.push(spec);
    }
  }
  skipped.push(...schemas.notes);
  const servers = Array.isArray(doc['servers']) ? doc['servers'].filter(isRecord) : [];
  const serverUrl = typeof servers[0]?.['url'] === 'string' ? servers[0]['url'] : undefined;
  const info = isRecord(doc['info']) ? doc['info'] : {};
  return { operations, skipped, ...(serverUrl ? { serverUrl } : {}), ...(typeof info['title'] === 'string' ? { title: info['title'] } : {}) };
}
