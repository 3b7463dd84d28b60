// Tests for the JSON Schema -> TypeScript generator, on the kinds of schemas real tools declare.
import { describe, it, expect } from 'vitest';
import {
  acceptsEmptyObject,
  compactSignature,
  declarationFor,
  schemaToTypeScript,
  DEFAULT_SCHEMA_MAX_PROPERTIES,
} from './schema-to-ts.ts';

const githubCreateIssue = {
  type: 'object',
  properties: {
    owner: { type: 'string', description: 'Repository owner (user or organization)' },
    repo: { type: 'string', description: 'Repository name' },
    title: { type: 'string' },
    body: { type: ['string', 'null'], description: 'Issue text.\nMarkdown is allowed; do not write */ in it.' },
    labels: { type: 'array', items: { type: 'string' } },
    assignee: { type: 'object', properties: { login: { type: 'string' }, id: { type: 'integer' } }, required: ['login'], additionalProperties: false },
    state: { type: 'string', enum: ['open', 'closed'], default: 'open' },
    'x-request-id': { type: 'string', deprecated: true },
  },
  required: ['owner', 'repo', 'title'],
};

const weather = {
  type: 'object',
  properties: {
    location: { type: 'string', description: 'City name or "lat,lon"' },
    units: { enum: ['metric', 'imperial', 'standard'] },
    days: { type: 'integer', minimum: 1, maximum: 14 },
  },
  required: ['location'],
};

const weatherOutput = {
  type: 'object',
  properties: {
    current: {
      type: 'object',
      properties: { tempC: { type: 'number' }, conditions: { type: 'string' } },
      required: ['tempC'],
    },
    daily: {
      type: 'array',
      items: {
        type: 'object',
        properties: { date: { type: 'string', format: 'date' }, highC: { type: 'number' }, lowC: { type: 'number' } },
        required: ['date', 'highC', 'lowC'],
      },
    },
  },
  required: ['current', 'daily'],
};

const fileTree = {
  type: 'object',
  properties: { root: { $ref: '#/$defs/Entry' }, maxDepth: { type: 'integer' } },
  required: ['root'],
  $defs: {
    Entry: {
      type: 'object',
      description: 'A file or a folder',
      properties: {
        name: { type: 'string' },
        kind: { const: 'file' },
        children: { type: 'array', items: { $ref: '#/$defs/Entry' } },
      },
      required: ['name'],
    },
  },
};

const hugeObject = {
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: 52 }, (_, i) => [`field${i}`, { type: i % 2 === 0 ? 'string' : 'number' }])),
  required: ['field51'],
};

describe('schemaToTypeScript', () => {
  it('on a nested object with descriptions, nullable types, enums and a quoted name: renders doc comments and optional marks', () => {
    expect(schemaToTypeScript(githubCreateIssue)).toMatchInlineSnapshot(`
      "{
        /** Repository owner (user or organization) */
        owner: string;
        /** Repository name */
        repo: string;
        title: string;
        /**
         * Issue text.
         * Markdown is allowed; do not write *\\/ in it.
         */
        body?: string | null;
        labels?: string[];
        assignee?: {
          login: string;
          id?: number;
        };
        /** @default "open" */
        state?: "open" | "closed";
        /** @deprecated */
        "x-request-id"?: string;
      }"
    `);
  });

  it('on an array of objects: renders T[] with nested required fields', () => {
    expect(schemaToTypeScript(weatherOutput)).toMatchInlineSnapshot(`
      "{
        current: {
          tempC: number;
          conditions?: string;
        };
        daily: {
          date: string;
          highC: number;
          lowC: number;
        }[];
      }"
    `);
  });

  it('on a recursive $ref without an alias registry: inlines once and stops at unknown', () => {
    expect(schemaToTypeScript(fileTree)).toMatchInlineSnapshot(`
      "{
        root: {
          name: string;
          kind?: "file";
          children?: unknown[];
        };
        maxDepth?: number;
      }"
    `);
  });

  it('on a root self-reference ("#"): stops at unknown instead of looping', () => {
    const json = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'array', items: { $ref: '#' } }] };
    expect(schemaToTypeScript(json)).toBe('string | number | unknown[]');
  });

  it('on definitions (draft-07) and escaped pointers: resolves by name', () => {
    const schema = { definitions: { 'a/b': { type: 'string' } }, type: 'object', properties: { x: { $ref: '#/definitions/a~1b' } } };
    expect(schemaToTypeScript(schema, { compact: true })).toBe('{ x?: string }');
  });

  it('on a remote or missing $ref: unknown', () => {
    expect(schemaToTypeScript({ $ref: 'https://example.com/schema.json' })).toBe('unknown');
    expect(schemaToTypeScript({ $ref: '#/$defs/Missing' })).toBe('unknown');
  });

  it('on an object wider than the limit: keeps required properties and counts the rest', () => {
    const text = schemaToTypeScript(hugeObject, { compact: true });
    expect(text).toContain('field51: number');
    expect(text).toContain(`/* ${52 - DEFAULT_SCHEMA_MAX_PROPERTIES} more properties */ [key: string]: unknown`);
    expect(text.match(/field\d+\??:/g)).toHaveLength(DEFAULT_SCHEMA_MAX_PROPERTIES);
  });

  it('on a huge enum: names its base type and size instead of listing every value', () => {
    const values = Array.from({ length: 300 }, (_, i) => `tz_${i}`);
    expect(schemaToTypeScript({ enum: values })).toBe('string /* one of 300 values */');
    expect(schemaToTypeScript({ type: 'array', items: { enum: values } })).toBe('(string /* one of 300 values */)[]');
  });

  it('on a union wider than the limit: unknown with the member count', () => {
    const members = Array.from({ length: 5 }, (_, i) => ({ const: i }));
    expect(schemaToTypeScript({ oneOf: members }, { maxUnionMembers: 4 })).toBe('unknown /* one of 5 shapes */');
    expect(schemaToTypeScript({ oneOf: members }, { maxUnionMembers: 5 })).toBe('0 | 1 | 2 | 3 | 4');
  });

  it('past the depth limit: falls back to an open object (object on one line) and unknown[]', () => {
    const deep = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'string' } } }, list: { type: 'array', items: { type: 'string' } } } } } };
    expect(schemaToTypeScript(deep, { maxDepth: 2 })).toBe('{\n  a?: {\n    b?: { [key: string]: unknown };\n    list?: unknown[];\n  };\n}');
    expect(schemaToTypeScript(deep, { compact: true, maxDepth: 2 })).toBe('{ a?: { b?: object; list?: unknown[] } }');
    expect(schemaToTypeScript(deep, { compact: true, maxDepth: 3 })).toBe('{ a?: { b?: { c?: string }; list?: string[] } }');
  });

  it('on tuples (prefixItems and draft-04 items arrays): renders fixed elements, optional ones after minItems, and rest items', () => {
    expect(schemaToTypeScript({ type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false })).toBe('[number, number]');
    expect(schemaToTypeScript({ type: 'array', items: [{ type: 'string' }, { type: 'integer' }], minItems: 1, additionalItems: { type: 'boolean' } })).toBe(
      '[string, number?, ...boolean[]]',
    );
  });

  it('on oneOf/anyOf/allOf and const discriminators: unions and intersections with parentheses where needed', () => {
    const shape = {
      oneOf: [
        { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind', 'r'] },
        { type: 'object', properties: { kind: { const: 'rect' }, w: { type: 'number' }, h: { type: 'number' } }, required: ['kind', 'w', 'h'] },
      ],
    };
    expect(schemaToTypeScript(shape, { compact: true })).toBe('{ kind: "circle"; r: number } | { kind: "rect"; w: number; h: number }');
    const both = { allOf: [{ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, shape] };
    expect(schemaToTypeScript(both, { compact: true })).toBe('{ id: string } & ({ kind: "circle"; r: number } | { kind: "rect"; w: number; h: number })');
    expect(schemaToTypeScript({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } })).toBe('(string | number)[]');
  });

  it('on type arrays, nullable and formats: unions with null, formats ignored', () => {
    expect(schemaToTypeScript({ type: ['string', 'integer', 'null'] })).toBe('string | number | null');
    expect(schemaToTypeScript({ type: 'string', format: 'date-time', nullable: true })).toBe('string | null');
  });

  it('on additionalProperties and patternProperties: index signatures', () => {
    expect(schemaToTypeScript({ type: 'object', additionalProperties: { type: 'number' } }, { compact: true })).toBe('{ [key: string]: number }');
    expect(schemaToTypeScript({ type: 'object', patternProperties: { '^x-': { type: 'string' } } }, { compact: true })).toBe('{ [key: string]: string }');
    // a declared property must fit the index signature, so the signature widens to unknown
    expect(schemaToTypeScript({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'number' } }, { compact: true })).toBe(
      '{ a?: string; [key: string]: unknown }',
    );
    expect(schemaToTypeScript({ type: 'object' }, { compact: true })).toBe('{ [key: string]: unknown }');
    expect(schemaToTypeScript({ type: 'object', properties: {} }, { compact: true })).toBe('{}');
  });

  it('on true/false/empty schemas and enum literals of every JSON kind: unknown, never and literal types', () => {
    expect(schemaToTypeScript(true)).toBe('unknown');
    expect(schemaToTypeScript({})).toBe('unknown');
    expect(schemaToTypeScript(false)).toBe('never');
    expect(schemaToTypeScript({ enum: ['a"b', -1.5, true, null, [1], { 'k-1': 2 }] })).toBe('"a\\"b" | -1.5 | true | null | [1] | { "k-1": 2 }');
  });

  it('on a bad option: a RangeError naming the option', () => {
    expect(() => schemaToTypeScript({}, { maxDepth: 0 })).toThrow(/options\.maxDepth must be a positive integer/);
  });
});

describe('declarationFor', () => {
  it('on an input with required fields and an output schema: declare function with Promise<Out>', () => {
    expect(declarationFor('weather_lookup', weather, weatherOutput, 'Current weather and a daily forecast.')).toMatchInlineSnapshot(`
      "/** Current weather and a daily forecast. */
      declare function weather_lookup(input: {
        /** City name or "lat,lon" */
        location: string;
        units?: "metric" | "imperial" | "standard";
        days?: number;
      }): Promise<{
        current: {
          tempC: number;
          conditions?: string;
        };
        daily: {
          date: string;
          highC: number;
          lowC: number;
        }[];
      }>;"
    `);
  });

  it('on an input without required fields and no output schema: input? and Promise<unknown>', () => {
    const text = declarationFor('sessions_list', { type: 'object', properties: { limit: { type: 'integer' } } });
    expect(text).toBe('declare function sessions_list(input?: {\n  limit?: number;\n}): Promise<unknown>;');
  });

  it('on a recursive $ref: a named alias prefixed by the callable name', () => {
    expect(declarationFor('tree_walk', fileTree, { type: 'array', items: { $ref: '#/$defs/Entry' }, $defs: fileTree.$defs }, 'Walk a file tree.')).toMatchInlineSnapshot(`
      "/** A file or a folder */
      type tree_walk__Entry = {
        name: string;
        kind?: "file";
        children?: tree_walk__Entry[];
      };
      /** Walk a file tree. */
      declare function tree_walk(input: {
        root: tree_walk__Entry;
        maxDepth?: number;
      }): Promise<tree_walk__Entry[]>;"
    `);
  });

  it('on mutually recursive definitions: one alias breaks the cycle', () => {
    const schema = {
      type: 'object',
      properties: { expr: { $ref: '#/$defs/Expr' } },
      required: ['expr'],
      $defs: {
        Expr: { anyOf: [{ type: 'number' }, { $ref: '#/$defs/Call' }] },
        Call: { type: 'object', properties: { fn: { type: 'string' }, args: { type: 'array', items: { $ref: '#/$defs/Expr' } } }, required: ['fn', 'args'] },
      },
    };
    const text = declarationFor('evaluate', schema);
    expect(text).toMatchInlineSnapshot(`
      "type evaluate__Expr = number | {
        fn: string;
        args: evaluate__Expr[];
      };
      declare function evaluate(input: {
        expr: evaluate__Expr;
      }): Promise<unknown>;"
    `);
  });

  it('on a multi-line description: a block doc comment with */ escaped', () => {
    const text = declarationFor('t', { type: 'object', properties: {} }, undefined, 'First line.\n\nSecond */ line.');
    expect(text).toBe('/**\n * First line.\n *\n * Second *\\/ line.\n */\ndeclare function t(input?: {}): Promise<unknown>;');
  });
});

describe('acceptsEmptyObject', () => {
  it('on object schemas: true without required properties, false with them or with minProperties', () => {
    expect(acceptsEmptyObject({ type: 'object', properties: { a: { type: 'string' } } })).toBe(true);
    expect(acceptsEmptyObject({ type: 'object', required: ['a'] })).toBe(false);
    expect(acceptsEmptyObject({ type: 'object', minProperties: 1 })).toBe(false);
    expect(acceptsEmptyObject({ type: 'string' })).toBe(false);
    expect(acceptsEmptyObject({ allOf: [{ type: 'object' }, { required: ['x'] }] })).toBe(false);
    expect(acceptsEmptyObject({ anyOf: [{ required: ['x'] }, { type: 'object' }] })).toBe(true);
    expect(acceptsEmptyObject({ $ref: '#/$defs/In', $defs: { In: { type: 'object', required: ['q'] } } })).toBe(false);
  });
});

describe('compactSignature', () => {
  it('on any schema: one line, no comments', () => {
    const { param, output } = compactSignature(githubCreateIssue, weatherOutput);
    expect(param).not.toContain('\n');
    expect(param).not.toContain('/**');
    expect(output).toBe('{ current: { tempC: number; conditions?: string }; daily: { date: string; highC: number; lowC: number }[] }');
  });
});

describe('declarationFor on a root self-reference', () => {
  it('on "#" inside the input schema: aliases the root as <callable>__Root', () => {
    const json = { anyOf: [{ type: 'string' }, { type: 'array', items: { $ref: '#' } }] };
    expect(declarationFor('parse', json)).toBe('type parse__Root = string | parse__Root[];\ndeclare function parse(input: string | parse__Root[]): Promise<unknown>;');
  });
});
