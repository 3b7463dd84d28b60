// OpenAPI semantics read the same in a tool's declaration and in its validation: one normalized schema, two readers.
import { describe, expect, it } from 'vitest';
import { buildCatalog, describeTool } from './build.ts';
import { checkDeclarations } from './named-types.ts';
import { loadDocumentText } from '../tools/openapi/document.ts';
import { mapDocument } from '../tools/openapi/mapping.ts';
import { OpenApiSchemas } from '../tools/openapi/schemas.ts';
import { validateToolInput, validateToolOutput } from '../tools/validate.ts';
import type { ToolDefinition } from '../tools/types.ts';
import { typecheckCell } from '../cell/typecheck.ts';

/** The tools an OpenAPI document becomes (no HTTP: these tests read declarations and validation only). */
function toolsOf(doc: Record<string, unknown>, owner = 'pets'): ToolDefinition[] {
  const checked = loadDocumentText(JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, ...doc }), 'doc.json', 1 << 24);
  const schemas = new OpenApiSchemas(checked, owner);
  schemas.nameComponents();
  const mapped = mapDocument(checked, schemas);
  expect(mapped.skipped).toEqual([]);
  return mapped.operations.map((op) => ({
    name: op.name,
    description: op.description,
    inputSchema: op.inputSchema,
    ...(op.outputSchema ? { outputSchema: op.outputSchema } : {}),
    schemaDefs: schemas,
    source: 'openapi' as const,
    owner,
  }));
}

const json = (schema: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });

/** The output problem validation finds, or undefined when the value passes. */
function outputProblem(tool: ToolDefinition, value: unknown): string | undefined {
  try {
    validateToolOutput(tool.name, tool, value);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function inputProblem(tool: ToolDefinition, value: unknown): string | undefined {
  try {
    validateToolInput(tool, value);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Whether TypeScript accepts `value` as the tool's declared output (the same declarations a typecheck uses). */
async function declaredOutputAccepts(tools: ToolDefinition[], callableName: string, value: unknown): Promise<boolean> {
  const catalog = buildCatalog(tools);
  const code = `const v: Awaited<ReturnType<typeof ${callableName}>> = ${JSON.stringify(value)};\nreturn v;`;
  const diagnostics = await typecheckCell(code, checkDeclarations(catalog));
  return diagnostics.length === 0;
}

async function declaredInputAccepts(tools: ToolDefinition[], callableName: string, value: unknown): Promise<boolean> {
  const catalog = buildCatalog(tools);
  const code = `const v: Parameters<typeof ${callableName}>[0] = ${JSON.stringify(value)};\nreturn v;`;
  const diagnostics = await typecheckCell(code, checkDeclarations(catalog));
  return diagnostics.length === 0;
}

const PETS = {
  paths: {
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'getPet', responses: json({ $ref: '#/components/schemas/Pet' }) },
      put: { operationId: 'putPet', requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } }, responses: json({ $ref: '#/components/schemas/Pet' }) },
    },
    '/animals': { get: { operationId: 'listAnimals', responses: json({ type: 'array', items: { $ref: '#/components/schemas/Animal' } }) } },
    '/tree': { get: { operationId: 'getTree', responses: json({ $ref: '#/components/schemas/Node' }) } },
    '/misc': { get: { operationId: 'misc', responses: json({ $ref: '#/components/schemas/Misc' }) } },
  },
  components: {
    schemas: {
      Pet: {
        type: 'object',
        required: ['id', 'name', 'tag'],
        properties: {
          id: { type: 'integer', format: 'int64', readOnly: true },
          name: { type: 'string' },
          tag: { type: 'string', enum: ['cat', 'dog', 'bird'], nullable: true },
          password: { type: 'string', writeOnly: true },
          born: { type: 'string', format: 'date-time' },
          owner: { allOf: [{ $ref: '#/components/schemas/Owner' }], nullable: true },
        },
      },
      Owner: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, additionalProperties: { type: 'integer' } },
      Cat: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { meows: { type: 'boolean' } } }] },
      Dog: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { barks: { type: 'boolean' } } }] },
      Base: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } },
      Animal: { oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }], discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat', doggo: 'Dog' } } },
      Node: { type: 'object', required: ['value'], properties: { value: { type: ['integer', 'null'] }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
      Misc: {
        type: 'object',
        properties: {
          size: { const: 'xl' },
          blob: { type: 'string', format: 'binary' },
          big: { type: 'string', format: 'int64' },
          closed: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
          either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        },
      },
    },
  },
};

describe('OpenAPI semantics: declarations and validation agree', () => {
  const tools = toolsOf(PETS);
  const tool = (name: string) => tools.find((t) => t.name === name) as ToolDefinition;
  const catalog = buildCatalog(tools);
  const types = catalog.files.get('openapi/pets.d.ts') ?? '';

  it('each component schema is one named declaration in the source\'s file, referred to by name from every tool', () => {
    expect(types).toContain('declare namespace pets {');
    expect(types.match(/^ {2}type Pet = /gm)).toHaveLength(1);
    expect(catalog.byCallable.get('getPet')?.declaration).toMatch(/Promise<pets\.Pet>;$/);
    expect(catalog.byCallable.get('putPet')?.declaration).toContain('body: pets.PetInput');
    expect(catalog.byCallable.get('listAnimals')?.declaration).toMatch(/Promise<pets\.Animal\[\]>;$/);
    expect(types).toContain('type Animal = Cat & {\n    kind: "cat";\n  } | Dog & {\n    kind: "doggo";\n  };');
    expect(types).toMatch(/type Node = \{\n {4}value: number \| null;\n {4}children\?: Node\[\];\n {2}\};/);
  });

  it('3.0 nullable (also on an enum and around a reference): null is declared and passes', async () => {
    expect(types).toContain('tag: "cat" | "dog" | "bird" | null;');
    expect(types).toContain('owner?: Owner | null;');
    const pet = { id: 1, name: 'Rex', tag: null, owner: null };
    expect(outputProblem(tool('getPet'), pet)).toBeUndefined();
    expect(await declaredOutputAccepts(tools, 'getPet', pet)).toBe(true);
    expect(outputProblem(tool('getPet'), { ...pet, tag: 'fish' })).toMatch(/"tag" must be one of "cat", "dog", "bird", null; got "fish"/);
    expect(await declaredOutputAccepts(tools, 'getPet', { ...pet, tag: 'fish' })).toBe(false);
  });

  it('readOnly fields are absent from the request type and writeOnly fields from the response type', async () => {
    expect(types).toMatch(/type PetInput = \{\n {4}name: string;/);
    expect(types).not.toMatch(/type PetInput = \{[^}]*\bid\b/);
    expect(types).not.toMatch(/type Pet = \{[^}]*password/);
    expect(types).toMatch(/type PetInput = \{[^}]*password\?: string;/);
    const input = { petId: 'p1', body: { name: 'Rex', tag: 'dog', password: 'x' } };
    expect(inputProblem(tool('putPet'), input)).toBeUndefined();
    expect(await declaredInputAccepts(tools, 'putPet', input)).toBe(true);
    // id is required in responses but never asked of a request
    expect(outputProblem(tool('getPet'), { name: 'Rex', tag: null })).toMatch(/"id" is required/);
    expect(await declaredOutputAccepts(tools, 'getPet', { name: 'Rex', tag: null })).toBe(false);
  });

  it('a discriminator pins each branch (mapping by reference or by name); allOf of references needs both', async () => {
    const animals = [{ kind: 'cat', meows: true }, { kind: 'doggo', barks: false }];
    expect(outputProblem(tool('listAnimals'), animals)).toBeUndefined();
    expect(await declaredOutputAccepts(tools, 'listAnimals', animals)).toBe(true);
    expect(outputProblem(tool('listAnimals'), [{ kind: 'dog' }])).toMatch(/"output\[0\]" matches none of the allowed shapes/);
    expect(await declaredOutputAccepts(tools, 'listAnimals', [{ kind: 'dog' }])).toBe(false);
    expect(outputProblem(tool('listAnimals'), [{ kind: 'cat', meows: 'yes' }])).toMatch(/matches none of the allowed shapes/);
    expect(await declaredOutputAccepts(tools, 'listAnimals', [{ kind: 'cat', meows: 'yes' }])).toBe(false);
  });

  it('recursive schemas, 3.1 type arrays with null, additionalProperties, const, anyOf and formats', async () => {
    const tree = { value: 1, children: [{ value: null, children: [{ value: 3 }] }] };
    expect(outputProblem(tool('getTree'), tree)).toBeUndefined();
    expect(await declaredOutputAccepts(tools, 'getTree', tree)).toBe(true);
    expect(outputProblem(tool('getTree'), { value: 1, children: [{ value: 'x' }] })).toMatch(/"children\[0\]\.value" must be an integer or null/);
    expect(await declaredOutputAccepts(tools, 'getTree', { value: 1, children: [{ value: 'x' }] })).toBe(false);
    const misc = { size: 'xl', blob: 'bytes', big: '9007199254740993', closed: { a: 'b' }, either: 2 };
    expect(outputProblem(tool('misc'), misc)).toBeUndefined();
    expect(await declaredOutputAccepts(tools, 'misc', misc)).toBe(true);
    for (const bad of [{ size: 'l' }, { closed: { b: 1 } }, { either: true }, { big: 1 }]) {
      expect(outputProblem(tool('misc'), bad), JSON.stringify(bad)).toBeDefined();
      expect(await declaredOutputAccepts(tools, 'misc', bad), JSON.stringify(bad)).toBe(false);
    }
    // an object's extra properties follow additionalProperties: a schema there checks them
    expect(outputProblem(tool('getPet'), { id: 1, name: 'Rex', tag: null, owner: { name: 'Ada', age: 'old' } })).toMatch(/"owner" matches none of the allowed shapes/);
    expect(types).toContain('born?: string;');
  });

  it('describe() carries the named types the tool reaches, and self-contained schemas', () => {
    const entry = catalog.byCallable.get('putPet');
    if (!entry) throw new Error('no putPet');
    const described = describeTool(entry);
    expect(described.declaration).toMatch(/^declare namespace pets \{\n(.|\n)*type PetInput = (.|\n)*type Owner = (.|\n)*\}\n(.|\n)*declare function putPet\(/);
    expect(described.inputSchema).toMatchObject({ $defs: { PetInput: { type: 'object' }, Owner: { type: 'object' } } });
    expect(described.outputSchema).toMatchObject({ $ref: '#/$defs/Pet', $defs: { Pet: { type: 'object' } } });
  });
});
