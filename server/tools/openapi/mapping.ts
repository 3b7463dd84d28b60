// OpenAPI operations -> tool specs: name, description, input schema (path, query, header and body
// parameters), output schema (the 2xx response) and what the HTTP client needs to build the request.
//
// Works on a document whose internal $refs the parser already resolved (document.ts). Names come from
// `operationId`, else from method + path (`get_items_itemId`); the catalog projects them to callable
// names with the same rules as every other tool. Cookie parameters are not offered (browsers own
// cookies; an API that needs one takes it in the source's headers).
import type { JsonSchema } from '../types.ts';
import { isRecord } from '../../util/is-record.mjs';
import { jsonShapeProblem } from '../../util/json-shape.ts';
import type { OpenApiDocument } from './document.ts';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Operations turned into tools per document: a catalog is built per turn, so a huge API must not flood it. */
export const MAX_OPENAPI_OPERATIONS = 512;
/** Schema nesting kept; deeper parts become "any value" (a pathological document must not blow the stack). */
const MAX_SCHEMA_DEPTH = 24;

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
}

export interface MappedDocument {
  operations: OperationSpec[];
  /** Operations left out, with why (shown with the source's state). */
  skipped: string[];
  /** `servers[0].url` when the document names one. */
  serverUrl?: string;
  title?: string;
}

/** OpenAPI 3.0 schema -> JSON Schema the validator and declaration renderer read: `nullable`, object `allOf` merged. */
export function normalizeSchema(schema: unknown, depth = 0): JsonSchema {
  if (!isRecord(schema) || depth > MAX_SCHEMA_DEPTH) return {};
  if (typeof schema['$ref'] === 'string') return {}; // a circular reference the parser left in place: any value
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'discriminator' || key === 'xml' || key === 'externalDocs' || key === 'example') continue;
    if (key === 'properties' && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, normalizeSchema(child, depth + 1)]));
    } else if ((key === 'items' || key === 'not') && isRecord(value)) {
      out[key] = normalizeSchema(value, depth + 1);
    } else if (key === 'additionalProperties' && isRecord(value)) {
      out[key] = normalizeSchema(value, depth + 1);
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      out[key] = value.map((child) => normalizeSchema(child, depth + 1));
    } else {
      out[key] = value;
    }
  }
  const merged = mergeAllOf(out);
  if (schema['nullable'] === true) {
    const type = merged['type'];
    if (typeof type === 'string') return { ...merged, type: [type, 'null'] };
    return { anyOf: [merged, { type: 'null' }] };
  }
  return merged;
}

/** `allOf` of object schemas becomes one object schema (properties and required united); anything else stays. */
function mergeAllOf(schema: JsonSchema): JsonSchema {
  const parts = schema['allOf'];
  if (!Array.isArray(parts)) return schema;
  const objects = parts.filter(isRecord);
  const mergeable = objects.length === parts.length && objects.every((p) => p['type'] === undefined || p['type'] === 'object');
  if (!mergeable) return schema;
  const { allOf: _allOf, ...rest } = schema;
  const properties: Record<string, unknown> = isRecord(rest['properties']) ? { ...rest['properties'] } : {};
  const required = new Set<string>(Array.isArray(rest['required']) ? rest['required'].filter((r): r is string => typeof r === 'string') : []);
  let description = typeof rest['description'] === 'string' ? rest['description'] : undefined;
  for (const part of objects) {
    if (isRecord(part['properties'])) Object.assign(properties, part['properties']);
    if (Array.isArray(part['required'])) for (const r of part['required']) if (typeof r === 'string') required.add(r);
    if (!description && typeof part['description'] === 'string') description = part['description'];
  }
  return {
    ...rest,
    type: 'object',
    properties,
    ...(required.size > 0 ? { required: [...required] } : {}),
    ...(description ? { description } : {}),
  };
}

/** `get /items/{itemId}` -> `get_items_itemId`. */
export function nameFromMethodAndPath(method: string, path: string): string {
  const parts = path
    .split('/')
    .map((segment) => segment.replace(/[{}]/g, '').replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, ''))
    .filter(Boolean);
  return [method.toLowerCase(), ...parts].join('_');
}

function paramList(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function jsonMediaType(content: unknown): { type: string; schema: unknown } | undefined {
  if (!isRecord(content)) return undefined;
  const entries = Object.entries(content);
  const json = entries.find(([type]) => /^application\/(.+\+)?json\b/i.test(type));
  const pick = json ?? entries.find(([type]) => type === 'application/x-www-form-urlencoded') ?? entries.find(([type]) => type.startsWith('text/'));
  if (!pick) return undefined;
  return { type: pick[0], schema: isRecord(pick[1]) ? pick[1]['schema'] : undefined };
}

/** The first 2xx response in code order (200 before 201, then `2XX`): its JSON schema, or undefined. */
function successSchema(responses: unknown): JsonSchema | undefined {
  if (!isRecord(responses)) return undefined;
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort((a, b) => a.localeCompare(b));
  for (const code of codes) {
    const response = responses[code];
    if (!isRecord(response)) continue;
    const media = jsonMediaType(response['content']);
    if (media && /json/i.test(media.type) && media.schema !== undefined) {
      const schema = normalizeSchema(media.schema);
      if (typeof response['description'] === 'string' && schema['description'] === undefined) schema['description'] = response['description'];
      return schema;
    }
    if (!response['content']) return undefined; // 204-style: nothing comes back
  }
  return undefined;
}

function mapOperation(method: HttpMethod, path: string, pathItem: Record<string, unknown>, op: Record<string, unknown>): OperationSpec {
  const name = typeof op['operationId'] === 'string' && op['operationId'].trim() ? op['operationId'].trim() : nameFromMethodAndPath(method, path);
  const text = [op['summary'], op['description']].filter((t): t is string => typeof t === 'string' && t.trim() !== '');
  const description = text.length > 0 ? [...new Set(text)].join('\n\n') : `${method.toUpperCase()} ${path}`;

  // operation-level parameters override path-level ones with the same name and location
  const byKey = new Map<string, Record<string, unknown>>();
  for (const p of [...paramList(pathItem['parameters']), ...paramList(op['parameters'])]) {
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
    const schema = normalizeSchema(p['schema'] ?? jsonMediaType(p['content'])?.schema);
    const doc = [typeof p['description'] === 'string' ? p['description'] : '', `(${location} parameter)`].filter(Boolean).join(' ');
    properties[property] = { ...schema, description: typeof schema['description'] === 'string' ? `${schema['description']} ${doc}` : doc };
    const isRequired = location === 'path' || p['required'] === true;
    if (isRequired) required.push(property);
    params.push({ name: paramName, in: location, property, required: isRequired });
  }

  let body: OperationSpec['body'];
  const requestBody = op['requestBody'];
  if (isRecord(requestBody)) {
    const media = jsonMediaType(requestBody['content']);
    if (media) {
      body = { contentType: media.type, required: requestBody['required'] === true };
      const schema = normalizeSchema(media.schema);
      const doc = typeof requestBody['description'] === 'string' ? requestBody['description'] : `request body (${media.type})`;
      properties['body'] = { ...schema, ...(schema['description'] === undefined ? { description: doc } : {}) };
      if (body.required) required.push('body');
    }
  }

  const inputSchema: JsonSchema = { type: 'object', properties, additionalProperties: false, ...(required.length > 0 ? { required } : {}) };
  const outputSchema = successSchema(op['responses']);
  return { name, method, path, description, inputSchema, ...(outputSchema ? { outputSchema } : {}), params, ...(body ? { body } : {}) };
}

/** Every operation of a dereferenced document, in document order; duplicate names keep the first. */
export function mapDocument(doc: OpenApiDocument): MappedDocument {
  const operations: OperationSpec[] = [];
  const skipped: string[] = [];
  const names = new Set<string>();
  const paths = isRecord(doc.paths) ? doc.paths : {};
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isRecord(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const op = pathItem[method];
      if (!isRecord(op)) continue;
      if (operations.length >= MAX_OPENAPI_OPERATIONS) {
        skipped.push(`${method.toUpperCase()} ${path}: more than ${MAX_OPENAPI_OPERATIONS} operations; the rest were left out`);
        continue;
      }
      const spec = mapOperation(method, path, pathItem, op);
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
  const servers = Array.isArray(doc['servers']) ? doc['servers'].filter(isRecord) : [];
  const serverUrl = typeof servers[0]?.['url'] === 'string' ? servers[0]['url'] : undefined;
  const info = isRecord(doc['info']) ? doc['info'] : {};
  return { operations, skipped, ...(serverUrl ? { serverUrl } : {}), ...(typeof info['title'] === 'string' ? { title: info['title'] } : {}) };
}
