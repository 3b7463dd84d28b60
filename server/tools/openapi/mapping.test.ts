import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../testing.ts';
import { loadDocumentText, OpenApiDocumentError } from './document.ts';
import { MAX_OPENAPI_EXPANDED_VALUES } from './expansion.ts';
import { mapDocument, nameFromMethodAndPath, normalizeSchema, type OperationSpec } from './mapping.ts';

const INVENTORY = readFileSync(join(REPO_ROOT, 'demo/openapi/inventory.yaml'), 'utf8');

async function inventoryOps(): Promise<Map<string, OperationSpec>> {
  const mapped = mapDocument(await loadDocumentText(INVENTORY, 'inventory.yaml'));
  return new Map(mapped.operations.map((op) => [op.name, op]));
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

  it('builds the input schema from path, query and header parameters, with $refs resolved', async () => {
    const ops = await inventoryOps();
    const list = ops.get('listItems')?.inputSchema as { properties: Record<string, Record<string, unknown>>; required?: string[] };
    // the Category parameter and its schema are both $refs in the document
    expect(list.properties['category']?.['enum']).toEqual(['tools', 'parts', 'supplies']);
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
    expect(create?.inputSchema).toMatchObject({
      required: ['body'],
      properties: { body: { type: 'object', required: ['name', 'category', 'quantity'], properties: { category: { enum: ['tools', 'parts', 'supplies'] } } } },
    });
  });

  it('takes the output schema from the first 2xx response, merging allOf objects', async () => {
    const ops = await inventoryOps();
    expect(ops.get('createItem')?.outputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['name', 'category', 'quantity', 'id']),
      properties: { id: { type: 'string' }, quantity: { type: 'integer' } },
    });
    expect(ops.get('getItem')?.outputSchema).toMatchObject({ properties: { requestId: { type: 'string' }, id: { type: 'string' } } });
    expect(ops.get('listItems')?.outputSchema).toMatchObject({ type: 'array', items: { type: 'object', required: expect.arrayContaining(['id']) } });
    expect(ops.get('delete_items_itemId')?.outputSchema).toBeUndefined();
  });

  it('renames a parameter whose name two locations share, and keeps operation-level parameters over path-level ones', async () => {
    const doc = await loadDocumentText(
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
      'things.json',
    );
    const [op] = mapDocument(doc).operations;
    expect(op?.params.map((p) => p.property)).toEqual(['id_path', 'id_query']);
    expect(op?.inputSchema).toMatchObject({ properties: { id_path: { type: 'string' } }, required: ['id_path'] });
    expect(op?.body).toEqual({ contentType: 'application/x-www-form-urlencoded', required: false });
    expect(op?.outputSchema).toBeUndefined();
  });

  it('turns OpenAPI 3.0 nullable into a null type and leaves circular references as any value', () => {
    expect(normalizeSchema({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] });
    expect(normalizeSchema({ type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } })).toEqual({ type: 'object', properties: { next: {} } });
  });

  it('keeps the first of two operations with the same name and says why the other was left out', async () => {
    const doc = await loadDocumentText(
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get: {operationId: same, responses: {"200": {description: ok}}}\n  /b:\n    get: {operationId: same2, responses: {"200": {description: ok}}}\n    post: {operationId: same2, responses: {"200": {description: ok}}}\n',
      'dup.yaml',
    ).catch((err: Error) => err);
    // the validator refuses duplicate operationIds outright
    expect(doc).toBeInstanceOf(OpenApiDocumentError);
    expect((doc as Error).message).toMatch(/operationId|duplicate/i);
  });
});

describe('OpenAPI documents', () => {
  it('refuses Swagger 2, a missing version, broken YAML and an unresolvable $ref with what to do', async () => {
    await expect(loadDocumentText('{"swagger":"2.0","info":{},"paths":{}}', 'old.json')).rejects.toThrow(/Swagger 2\.0; convert it to OpenAPI 3\.x/);
    await expect(loadDocumentText('info: {title: x}\npaths: {}', 'none.yaml')).rejects.toThrow(/no "openapi": "3\.0\.x"/);
    await expect(loadDocumentText('openapi: 3.0.0\n  bad: [indent', 'bad.yaml')).rejects.toThrow(/bad\.yaml is neither JSON nor valid YAML/);
    await expect(loadDocumentText('{"openapi": 3', 'bad.json')).rejects.toThrow(/bad\.json is not valid JSON/);
    await expect(
      loadDocumentText('openapi: 3.0.0\ninfo: {title: x, version: "1"}\npaths:\n  /a:\n    get:\n      responses:\n        "200": {$ref: "#/components/responses/Nope"}\n', 'ref.yaml'),
    ).rejects.toThrow(/Missing \$ref pointer "#\/components\/responses\/Nope"/);
  });

  it('does not follow external $refs (files or URLs)', async () => {
    const text = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: { '/a': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '/etc/passwd#/x' } } } } } } } },
    });
    const doc = await loadDocumentText(text, 'external.json');
    // left in place (never read), and the mapping treats it as any value
    expect(JSON.stringify(doc)).toContain('/etc/passwd#/x');
    expect(JSON.stringify(doc)).not.toContain('root:');
    expect(mapDocument(doc).operations[0]?.outputSchema).toEqual({ description: 'ok' });
  });

  it('refuses a document whose $refs multiply ("billion laughs": 40 schemas each using the one before twice, 2^40 values) at once, naming the limit', async () => {
    let schemas = '    S0: {type: string}\n';
    for (let i = 1; i <= 40; i++) schemas += `    S${i}: {type: object, properties: {l: {$ref: "#/components/schemas/S${i - 1}"}, r: {$ref: "#/components/schemas/S${i - 1}"}}}\n`;
    const text =
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    post:\n      operationId: boom\n' +
      '      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/S40"}}}}\n' +
      `      responses: {"200": {description: ok}}\ncomponents:\n  schemas:\n${schemas}`;
    await expect(loadDocumentText(text, 'laughs.yaml')).rejects.toThrow(
      new OpenApiDocumentError(
        `laughs.yaml holds more than ${MAX_OPENAPI_EXPANDED_VALUES} values once its $refs are resolved (schemas that refer to others many times over); ` +
          'trim it to the operations you need, or make deeply shared schemas refer to each other less',
      ),
    );
  });

  it('leaves out an operation whose schema is past the catalog limit (an enum of 210000 values), saying why, and keeps the others', async () => {
    const huge = { type: 'integer', enum: Array.from({ length: 210_000 }, (_, i) => i) };
    const ok = { '200': { description: 'ok' } };
    const doc = await loadDocumentText(
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: { '/huge': { post: { operationId: 'huge', requestBody: { content: { 'application/json': { schema: huge } } }, responses: ok } }, '/fine': { get: { operationId: 'fine', responses: ok } } },
      }),
      'huge.json',
    );
    const mapped = mapDocument(doc);
    expect(mapped.operations.map((o) => o.name)).toEqual(['fine']);
    expect(mapped.skipped).toEqual(['POST /huge: its schema holds more than 200000 values (counting each repeat of a shared part); split it or describe the repeated parts once']);
  });
});
