import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../testing.ts';
import { loadDocumentText as loadText } from './document.ts';
import { mapDocument, nameFromMethodAndPath, type MappedDocument, type OperationSpec } from './mapping.ts';
import { OpenApiSchemas, SchemaBoundsError } from './schemas.ts';

const INVENTORY = readFileSync(join(REPO_ROOT, 'demo/openapi/inventory.yaml'), 'utf8');

const loadDocumentText = async (text: string, where: string) => loadText(text, where, 32 * 1024 * 1024);

/** A document's operations as the source maps them, with its named schemas. */
function mapText(text: string, where = 'doc'): MappedDocument & { schemas: OpenApiSchemas } {
  const doc = loadText(text, where, 32 * 1024 * 1024);
  const schemas = new OpenApiSchemas(doc, 'test');
  schemas.nameComponents();
  return { ...mapDocument(doc, schemas), schemas };
}

async function inventoryOps(): Promise<Map<string, OperationSpec>> {
  return new Map(mapText(INVENTORY, 'inventory.yaml').operations.map((op) => [op.name, op]));
}

describe('OpenAPI mapping', () => {
  it('names operations by operationId, else by method and path', async () => {
    const ops = await inventoryOps();
    expect([...ops.keys()]).toEqual(['listItems', 'createItem', 'getItem', 'delete_items_itemId', 'get_stats']);
    expect(nameFromMethodAndPath('get', '/v1/users/{user-id}/repos')).toBe('get_v1_users_user_id_repos');
  });

  it('describes a tool from summary and description', async () => {
    const ops = await inventoryOps();
    expect(ops.get('listItems')?.description).toBe('List inventory items\n\nItems in stock, optionally filtered by category.');
    expect(ops.get('get_stats')?.description).toBe('Count of items and units per category.');
    expect(ops.get('delete_items_itemId')?.description).toBe('Remove an item');
  });

  it('builds the input schema from path, query and header parameters; a referenced schema stays a name', async () => {
    const ops = await inventoryOps();
    const list = ops.get('listItems')?.inputSchema as { properties: Record<string, Record<string, unknown>>; required?: string[] };
    // the Category parameter is a $ref (followed) and its schema a $ref (kept as the name Category)
    expect(list.properties['category']).toEqual({ allOf: [{ $ref: '#/$defs/Category' }], description: 'Only items of this category (query parameter)' });
    expect(list.properties['limit']).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(list.required).toBeUndefined();
    const get = ops.get('getItem');
    expect(get?.inputSchema).toMatchObject({ required: ['itemId'], additionalProperties: false });
    expect(get?.params).toEqual([
      { name: 'itemId', in: 'path', property: 'itemId', required: true },
      { name: 'X-Request-Id', in: 'header', property: 'X-Request-Id', required: false },
    ]);
  });

  it('puts a request body under "body", required when the document says so', async () => {
    const ops = await inventoryOps();
    const create = ops.get('createItem');
    expect(create?.body).toEqual({ contentType: 'application/json', required: true });
    expect(create?.inputSchema).toMatchObject({ required: ['body'], properties: { body: { allOf: [{ $ref: '#/$defs/NewItem' }] } } });
  });

  it('takes the output schema from the 2xx responses, each named schema once in the source\'s names', async () => {
    const mapped = mapText(INVENTORY);
    const ops = new Map(mapped.operations.map((op) => [op.name, op]));
    expect(ops.get('createItem')?.outputSchema).toEqual({ $ref: '#/$defs/Item', description: 'The created item' });
    expect(ops.get('getItem')?.outputSchema).toMatchObject({ allOf: [{ $ref: '#/$defs/Item' }, { type: 'object', properties: { requestId: { type: 'string' } } }] });
    expect(ops.get('listItems')?.outputSchema).toMatchObject({ type: 'array', items: { $ref: '#/$defs/Item' } });
    // a 204 without content: the call answers null
    expect(ops.get('delete_items_itemId')?.outputSchema).toEqual({ type: 'null', description: 'Removed' });
    expect(mapped.schemas.names()).toEqual(['Category', 'NewItem', 'Item', 'Problem']);
    expect(mapped.schemas.get('Item')).toEqual({ allOf: [{ $ref: '#/$defs/NewItem' }, { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }] });
  });

  it('renames a parameter whose name two locations share, and keeps operation-level parameters over path-level ones', async () => {
    const mapped = mapText(
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: {
          '/things/{id}': {
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
            put: {
              operationId: 'putThing',
              parameters: [
                { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'operation level' },
                { name: 'id', in: 'query', schema: { type: 'string' } },
                { name: 'session', in: 'cookie', schema: { type: 'string' } },
              ],
              requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } } },
              responses: { '200': { description: 'ok' } },
            },
          },
        },
      }),
    );
    const [op] = mapped.operations;
    expect(op?.params.map((p) => p.property)).toEqual(['id_path', 'id_query']);
    expect(op?.inputSchema).toMatchObject({ properties: { id_path: { type: 'string' } }, required: ['id_path'] });
    expect(op?.body).toEqual({ contentType: 'application/x-www-form-urlencoded', required: false });
    expect(op?.outputSchema).toEqual({ type: 'null', description: 'ok' });
  });

  it('keeps the first of two operations with the same name and says why the other was left out', () => {
    const mapped = mapText(
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get: {operationId: same, responses: {"200": {description: ok}}}\n  /b:\n    get: {operationId: same, responses: {"200": {description: ok}}}\n',
      'dup.yaml',
    );
    expect(mapped.operations.map((o) => o.path)).toEqual(['/a']);
    expect(mapped.skipped).toEqual(['GET /b: its name "same" is already used by another operation; give it a unique operationId']);
  });

  it('takes the default response when no 2xx is listed, text as a string, and several successes as a union', () => {
    const ok = (content?: Record<string, unknown>) => ({ description: 'ok', ...(content ? { content } : {}) });
    const mapped = mapText(
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {
          '/d': { get: { operationId: 'dflt', responses: { default: ok({ 'application/json': { schema: { type: 'integer' } } }) } } },
          '/t': { get: { operationId: 'text', responses: { '200': ok({ 'text/plain': { schema: { type: 'string' } } }) } } },
          '/u': { post: { operationId: 'union', responses: { '200': ok({ 'application/json': { schema: { type: 'integer' } } }), '204': ok() } } },
          '/b': { put: { operationId: 'bytes', requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, responses: { '200': ok() } } },
          '/m': { post: { operationId: 'multi', requestBody: { content: { 'multipart/form-data': { schema: { type: 'object' } } } }, responses: { '200': ok() } } },
        },
      }),
    );
    const ops = new Map(mapped.operations.map((op) => [op.name, op]));
    expect(ops.get('dflt')?.outputSchema).toEqual({ type: 'integer', description: 'ok' });
    expect(ops.get('text')?.outputSchema).toEqual({ type: 'string', description: 'ok' });
    expect(ops.get('union')?.outputSchema).toEqual({ anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'ok' });
    expect(ops.get('bytes')).toMatchObject({ body: { contentType: 'application/octet-stream', required: true }, inputSchema: { properties: { body: { type: 'string' } } } });
    expect(mapped.skipped).toEqual(['POST /m: its request body is multipart/form-data, which the client does not send (JSON, form fields, text or raw bytes)']);
  });
});

describe('OpenAPI documents', () => {
  it('refuses Swagger 2 (saying how to convert it), a missing version and broken YAML or JSON', async () => {
    await expect(loadDocumentText('{"swagger":"2.0","info":{},"paths":{}}', 'old.json')).rejects.toThrow(/old\.json is Swagger 2\.0; convert it to OpenAPI 3\.x first, e\.g\. `npx swagger2openapi <file> -o openapi\.json`/);
    await expect(loadDocumentText('info: {title: x}\npaths: {}', 'none.yaml')).rejects.toThrow(/no "openapi": "3\.0\.x"/);
    await expect(loadDocumentText('openapi: 3.0.0\n  bad: [indent', 'bad.yaml')).rejects.toThrow(/bad\.yaml is neither JSON nor valid YAML/);
    await expect(loadDocumentText('{"openapi": 3', 'bad.json')).rejects.toThrow(/bad\.json is not valid JSON/);
    expect(() => loadText('{"openapi":"3.0.0","paths":{}}' + ' '.repeat(70_000), 'big.json', 65_536)).toThrow(/big\.json is 70030 bytes, larger than sources\.maxDocumentBytes \(65536\)/);
  });

  it('leaves out an operation whose $ref points outside the document or to nothing, saying which, and keeps the others', () => {
    const json = (schema: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
    const mapped = mapText(
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {
          '/file': { get: { operationId: 'file', responses: json({ $ref: '/etc/passwd#/x' }) } },
          '/url': { get: { operationId: 'url', responses: json({ $ref: 'http://169.254.169.254/latest#/x' }) } },
          '/none': { get: { operationId: 'none', responses: { '200': { $ref: '#/components/responses/Nope' } } } },
          '/fine': { get: { operationId: 'fine', responses: json({ type: 'string' }) } },
        },
      }),
    );
    expect(mapped.operations.map((o) => o.name)).toEqual(['fine']);
    expect(mapped.skipped).toEqual([
      'GET /file: $ref "/etc/passwd#/x" points outside the document; only references inside it (#/...) are followed',
      'GET /url: $ref "http://169.254.169.254/latest#/x" points outside the document; only references inside it (#/...) are followed',
      'GET /none: $ref "#/components/responses/Nope" points to nothing in the document',
    ]);
  });

  it('reads a document whose $refs multiply ("billion laughs": 40 schemas each using the one before twice) as 41 names, each read once', () => {
    let schemas = '    S0: {type: string}\n';
    for (let i = 1; i <= 40; i++) schemas += `    S${i}: {type: object, properties: {l: {$ref: "#/components/schemas/S${i - 1}"}, r: {$ref: "#/components/schemas/S${i - 1}"}}}\n`;
    const text =
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    post:\n      operationId: boom\n' +
      '      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/S40"}}}}\n' +
      `      responses: {"200": {description: ok}}\ncomponents:\n  schemas:\n${schemas}`;
    const mapped = mapText(text, 'laughs.yaml');
    expect(mapped.operations[0]?.inputSchema).toMatchObject({ properties: { body: { allOf: [{ $ref: '#/$defs/S40' }] } } });
    expect(mapped.schemas.names()).toHaveLength(41);
    expect(mapped.schemas.get('S40')).toEqual({ type: 'object', properties: { l: { $ref: '#/$defs/S39' }, r: { $ref: '#/$defs/S39' } } });
    expect(mapped.schemas.nodesRead).toBeLessThan(500);
  });

  it('reads a schema nested 2000 levels deep to its depth bound (any value below), without overflowing the stack', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 2000; i++) deep = { type: 'object', properties: { d: deep } };
    const mapped = mapText(JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/deep': { get: { operationId: 'deep', responses: { '200': { description: 'ok', content: { 'application/json': { schema: deep } } } } } } } }));
    let node = mapped.operations[0]?.outputSchema as Record<string, unknown> | undefined;
    let levels = 0;
    while (node && (node['properties'] as Record<string, Record<string, unknown>> | undefined)?.['d']) {
      node = (node['properties'] as Record<string, Record<string, unknown>>)['d'];
      levels++;
    }
    expect(levels).toBe(49);
    expect(node).toEqual({});
  });

  it('fails a document past the bound on schema parts read, naming it', () => {
    const doc = loadText(JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {}, components: { schemas: Object.fromEntries([...Array(50).keys()].map((i) => [`S${i}`, { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } }])) } }), 'many.json', 1 << 20);
    const schemas = new OpenApiSchemas(doc, 'many', { maxDepth: 48, maxNodes: 100, maxMs: 60_000 });
    expect(() => schemas.nameComponents()).toThrow(new SchemaBoundsError('its schemas hold more than 100 parts to read; trim it to the operations you need'));
  });

  it('leaves out an operation whose schema is past the catalog limit (an enum of 210000 values), saying why, and keeps the others', () => {
    const huge = { type: 'integer', enum: Array.from({ length: 210_000 }, (_, i) => i) };
    const ok = { '200': { description: 'ok' } };
    const mapped = mapText(
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: { '/huge': { post: { operationId: 'huge', requestBody: { content: { 'application/json': { schema: huge } } }, responses: ok } }, '/fine': { get: { operationId: 'fine', responses: ok } } },
      }),
    );
    expect(mapped.operations.map((o) => o.name)).toEqual(['fine']);
    expect(mapped.skipped).toEqual(['POST /huge: its schema holds more than 200000 values (counting each repeat of a shared part); split it or describe the repeated parts once']);
  });
});
