// Tests for the tool input validator: each keyword refuses bad input with a ToolError naming the field.
import { describe, expect, it } from 'vitest';
import { ToolError } from '../errors.ts';
import type { ToolDefinition } from './types.ts';
import { checkSchema, validateToolInput, validateToolOutput, withInputValidation } from './validate.ts';

const schema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 10 },
    limit: { type: 'integer', minimum: 1, maximum: 20 },
    mode: { type: 'string', enum: ['fast', 'slow'] },
    args: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    filter: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
  required: ['query'],
  additionalProperties: false,
};
const tool = { name: 'demo_tool', inputSchema: schema };

function errorOf(input: unknown): ToolError {
  try {
    validateToolInput(tool, input);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

describe('validateToolInput', () => {
  it('on valid input: passes', () => {
    expect(() => validateToolInput(tool, { query: 'x', limit: 3, mode: 'fast', args: ['a'], filter: { city: 'Oslo' } })).not.toThrow();
  });

  it('on a missing required field: names the field and says it is required', () => {
    const error = errorOf({});
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('"query" is required');
    expect(error.message).toContain('demo_tool');
  });

  it('on an unknown field: names it and lists the allowed fields', () => {
    const error = errorOf({ query: 'x', qeury: 'typo' });
    expect(error.message).toContain('"qeury" is not a known field');
    expect(error.message).toContain('allowed: query, limit, mode, args, filter');
  });

  it('on a wrong type: names the field, the expected type and what it got', () => {
    expect(errorOf({ query: 5 }).message).toContain('"query" must be a string; got integer 5');
    expect(errorOf({ query: 'x', limit: 2.5 }).message).toContain('"limit" must be an integer');
    expect(errorOf(null).message).toContain('"input" must be an object');
  });

  it('on out-of-range numbers: names the bound', () => {
    expect(errorOf({ query: 'x', limit: 0 }).message).toContain('"limit" must be >= 1; got 0');
    expect(errorOf({ query: 'x', limit: 21 }).message).toContain('"limit" must be <= 20; got 21');
  });

  it('on a value outside the enum: lists the allowed values', () => {
    expect(errorOf({ query: 'x', mode: 'medium' }).message).toContain('"mode" must be one of "fast", "slow"');
  });

  it('on string length and array bounds: names the field', () => {
    expect(errorOf({ query: '' }).message).toContain('"query" must have at least 1 character');
    expect(errorOf({ query: 'x'.repeat(11) }).message).toContain('"query" must have at most 10 characters');
    expect(errorOf({ query: 'x', args: ['a', 'b', 'c'] }).message).toContain('"args" must have at most 2 items');
    expect(errorOf({ query: 'x', args: ['a', 7] }).message).toContain('"args[1]" must be a string');
  });

  it('on nested objects: uses a dotted path', () => {
    expect(errorOf({ query: 'x', filter: {} }).message).toContain('"filter.city" is required');
    expect(errorOf({ query: 'x', filter: { city: 'A', zip: 1 } }).message).toContain('"filter.zip" is not a known field');
  });

  it('on several problems: reports the first and counts the rest', () => {
    expect(errorOf({ limit: 0, extra: true }).message).toMatch(/and 2 more problems/);
  });

  it('on an extra __proto__, constructor or prototype field (as JSON.parse makes them): refused like any unknown field', () => {
    // JSON.parse defines "__proto__" as an own key; an object literal would set the prototype instead
    expect(errorOf(JSON.parse('{"query":"x","__proto__":{"limit":3}}')).message).toContain('"__proto__" is not a known field');
    expect(errorOf({ query: 'x', constructor: 1 }).message).toContain('"constructor" is not a known field');
    expect(errorOf({ query: 'x', prototype: {} }).message).toContain('"prototype" is not a known field');
    expect(errorOf(JSON.parse('{"query":"x","filter":{"city":"A","__proto__":null}}')).message).toContain('"filter.__proto__" is not a known field');
  });

  it('on required __proto__ and constructor fields: inherited members never count as present', () => {
    const strict = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"string"}},"required":["__proto__","constructor"]}');
    expect(checkSchema(strict, {}).map((i) => i.message)).toEqual(['"__proto__" is required', '"constructor" is required']);
    expect(checkSchema(strict, JSON.parse('{"__proto__":5,"constructor":"c"}')).map((i) => i.message)).toEqual(['"__proto__" must be a string; got integer 5']);
    expect(checkSchema(strict, JSON.parse('{"__proto__":"p","constructor":"c"}'))).toEqual([]);
  });

  it('on anyOf: passes when one branch matches, fails otherwise', () => {
    const union = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    expect(checkSchema(union, 'a')).toEqual([]);
    expect(checkSchema(union, 3)).toEqual([]);
    expect(checkSchema(union, true)).toHaveLength(1);
  });
});

describe('withInputValidation', () => {
  it('on bad input: rejects before execute runs', async () => {
    let ran = false;
    const wrapped = withInputValidation({
      name: 't',
      description: '',
      source: 'core',
      inputSchema: schema,
      async execute() {
        ran = true;
        return 'ok';
      },
    } satisfies ToolDefinition);
    const ctx = { agentId: 'a', agentRunId: 'r', sessionId: 's', signal: new AbortController().signal, invocationId: 'i', workspaceDir: '/' };
    await expect(wrapped.execute?.({ nope: 1 }, ctx)).rejects.toBeInstanceOf(ToolError);
    expect(ran).toBe(false);
    await expect(wrapped.execute?.({ query: 'ok' }, ctx)).resolves.toBe('ok');
    expect(ran).toBe(true);
  });

  it('on an already validated tool: returns it unchanged', () => {
    const once = withInputValidation({ name: 't', description: '', source: 'core', inputSchema: schema, execute: async () => 1 });
    expect(withInputValidation(once)).toBe(once);
  });
});

describe('validateToolOutput', () => {
  const outputSchema = { type: 'object', properties: { sum: { type: 'number' }, parts: { type: 'array', items: { type: 'integer' } } }, required: ['sum'] };
  const failure = (fn: () => void): ToolError => {
    try {
      fn();
    } catch (err) {
      if (err instanceof ToolError) return err;
      throw err;
    }
    throw new Error('expected a ToolError');
  };

  it('on a result that contradicts the schema: invalid_output naming the tool, the field and what was expected', () => {
    const err = failure(() => validateToolOutput('adder', { source: 'core', outputSchema }, { sum: 1, parts: [1, 'two'] }));
    expect(err.code).toBe('invalid_output');
    expect(err.message).toContain('adder: invalid output: "parts[1]" must be an integer; got string "two"');
    expect(failure(() => validateToolOutput('adder', { source: 'core', outputSchema }, 'three')).message).toContain('"output" must be an object');
  });

  it('on a tool without an output schema: nothing is checked', () => {
    expect(() => validateToolOutput('free', { source: 'core' }, { anything: [1] })).not.toThrow();
  });

  it('on an MCP result: structuredContent is checked, an isError result is a value, and a missing structuredContent fails', () => {
    const mcp = { source: 'mcp' as const, outputSchema };
    expect(() => validateToolOutput('MCP.s.add', mcp, { content: [], structuredContent: { sum: 3 } })).not.toThrow();
    expect(() => validateToolOutput('MCP.s.add', mcp, { content: [{ type: 'text', text: 'no' }], isError: true })).not.toThrow();
    expect(failure(() => validateToolOutput('MCP.s.add', mcp, { content: [], structuredContent: { sum: 'x' } })).message).toContain('"structuredContent.sum" must be a number');
    expect(failure(() => validateToolOutput('MCP.s.add', mcp, { content: [] })).message).toContain('has no "structuredContent"');
  });
});

describe('checkSchema: references and allOf', () => {
  const defs = (table: Record<string, Record<string, unknown>>) => ({ owner: 'src', get: (name: string) => table[name], names: () => Object.keys(table) });

  it('follows #/$defs/<Name> through the tool\'s named schemas, and a #/ pointer into the schema itself', () => {
    const named = defs({ Node: { type: 'object', required: ['v'], properties: { v: { type: 'integer' }, next: { $ref: '#/$defs/Node' } } } });
    const ref = { $ref: '#/$defs/Node' };
    expect(checkSchema(ref, { v: 1, next: { v: 2, next: { v: 3 } } }, '', 'output', { defs: named })).toEqual([]);
    expect(checkSchema(ref, { v: 1, next: { v: 'x' } }, '', 'output', { defs: named })[0]?.message).toBe('"next.v" must be an integer; got string "x"');
    const local = { type: 'object', properties: { a: { $ref: '#/definitions/A' } }, definitions: { A: { type: 'string' } } };
    expect(checkSchema(local, { a: 1 })[0]?.message).toBe('"a" must be a string; got integer 1');
    // an unknown name constrains nothing, as the declaration (unknown) says
    expect(checkSchema({ $ref: '#/$defs/Missing' }, 5, '', 'output', { defs: named })).toEqual([]);
  });

  it('needs every allOf member', () => {
    const both = { allOf: [{ type: 'object', required: ['a'] }, { type: 'object', required: ['b'] }] };
    expect(checkSchema(both, { a: 1, b: 2 })).toEqual([]);
    expect(checkSchema(both, { a: 1 }).map((i) => i.message)).toEqual(['"b" is required']);
  });

  it('on a hostile document: references that only point at each other admit the value; unions multiplying through names stop at the step bound', () => {
    const loop = defs({ A: { allOf: [{ $ref: '#/$defs/B' }] }, B: { allOf: [{ $ref: '#/$defs/A' }] } });
    expect(checkSchema({ $ref: '#/$defs/A' }, 1, '', 'output', { defs: loop })).toEqual([]);
    // 30 levels of anyOf [next, next] that all fail: 2^30 branches without a bound
    const table: Record<string, Record<string, unknown>> = { L0: { type: 'string' } };
    for (let i = 1; i <= 30; i++) table[`L${i}`] = { anyOf: [{ $ref: `#/$defs/L${i - 1}` }, { $ref: `#/$defs/L${i - 1}` }] };
    const issues = checkSchema({ $ref: '#/$defs/L30' }, 1, '', 'output', { defs: defs(table) });
    expect(issues[0]?.message).toMatch(/"output" could not be checked: its schema needs more than 1000000 steps for this value/);
  });
});
