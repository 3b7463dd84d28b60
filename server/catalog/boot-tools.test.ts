// Tests for bootTools: which tools a cell's guest defines as globals when it boots.
import { describe, expect, it } from 'vitest';
import type { ToolDefinition, ToolSource } from '../tools/types.ts';
import { buildCatalog } from './build.ts';
import { bootTools, DYNAMIC_GLOBAL_WORDS, everyBootTool, sourceWords } from './boot-tools.ts';

function tool(name: string, source: ToolSource = 'core', extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, source, description: `${name} tool`, inputSchema: { type: 'object', properties: {} }, ...extra };
}

const catalog = buildCatalog([
  tool('web_search'),
  tool('read'),
  tool('llm-task', 'bundled_plugin', { owner: 'llm' }),
  tool('delete'), // a reserved word: projected to a suffixed name
  tool('échelle'),
  tool('echo', 'mcp', { owner: 'demo' }),
]);
const callable = (name: string) => catalog.entries.find((e) => e.name === name && !e.mcp)!.callableName;
const names = (body: string) => bootTools(catalog, body).map((t) => t.callableName);

describe('bootTools', () => {
  it('on a cell that names some tools: boots exactly those, with their metadata and no declaration', () => {
    expect(names('const r = await read({ path: "a" });\nreturn await llm_task({})')).toEqual(['read', 'llm_task']);
    expect(bootTools(catalog, 'return read')).toEqual([{ callableName: 'read', name: 'read', description: 'read tool', source: 'core' }]);
  });

  it('on a cell that names no tool: boots none', () => {
    expect(names('return 1 + 1')).toEqual([]);
    expect(names('')).toEqual([]);
  });

  it('on a tool named in a string, a comment, a property or a template: boots it (a spare handle costs little)', () => {
    expect(names('// uses web_search\nreturn "read" + `${x.llm_task}`')).toEqual(['web_search', 'read', 'llm_task']);
  });

  it('on a word that only contains a tool name (a longer identifier): does not boot it', () => {
    expect(names('const reader = 1, web_search2 = 2, _read = 3; return reader')).toEqual([]);
  });

  it('on a suffixed (projected) name and a non-ASCII name: boots them by their callable names', () => {
    const del = callable('delete');
    expect(del).not.toBe('delete');
    expect(names(`return [${del}, échelle]`)).toEqual([del, 'échelle']);
  });

  it('on a tool spelled with unicode escapes (\\u0072ead, \\u{72}ead): boots it', () => {
    expect(names('return typeof \\u0072ead')).toEqual(['read']);
    expect(names('return typeof \\u{72}e\\u0061d')).toEqual(['read']);
  });

  it(`on a cell naming a way to the global object or run-time code (${[...DYNAMIC_GLOBAL_WORDS].join(', ')}): boots every non-MCP tool in catalog order`, () => {
    const every = everyBootTool(catalog).map((t) => t.callableName);
    expect(every).toEqual(catalog.entries.filter((e) => !e.mcp).map((e) => e.callableName));
    for (const word of DYNAMIC_GLOBAL_WORDS) expect(names(`return 1 /* ${word} */`), word).toEqual(every);
    expect(names('return glob\\u0061lThis')).toEqual(every);
  });

  it('on an MCP tool named in the cell: not a global (MCP tools live under MCP.<server>)', () => {
    expect(names('return await MCP.demo.echo({})')).toEqual([]);
  });

  it('on every cell of a catalog: the full list is made once and shared, frozen', () => {
    expect(everyBootTool(catalog)).toBe(everyBootTool(catalog));
    expect(Object.isFrozen(everyBootTool(catalog))).toBe(true);
    expect(Object.isFrozen(everyBootTool(catalog)[0])).toBe(true);
  });
});

describe('sourceWords', () => {
  it('on identifiers, numbers, punctuation and escapes: the identifier words, each once', () => {
    expect([...sourceWords('a.b(c, 1, $d, _e2, a); x\\u0079z 3f')]).toEqual(['a', 'b', 'c', '$d', '_e2', 'xyz', 'f']);
  });

  it('on an escape that is not a code point: left as it is', () => {
    expect([...sourceWords('\\u{110000}q')]).toEqual(['u', 'q']);
  });
});
