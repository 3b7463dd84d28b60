// Tests for the quick index: order (output hints first), line format, the character bound and its footer.
import { describe, it, expect } from 'vitest';
import type { JsonSchema, ToolDefinition, ToolSource } from '../tools/types.ts';
import { buildCatalog } from './build.ts';
import { DEFAULT_QUICK_INDEX_MAX_CHARS, MAX_QUICK_INDEX_LINE_CHARS, quickIndexLine, renderQuickIndex } from './quick-index.ts';

function tool(name: string, source: ToolSource, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, source, description: `Does ${name}.`, inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, ...extra };
}

const out: JsonSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

describe('renderQuickIndex', () => {
  it('on a small catalog: output-hint tools first, then the rest, each in catalog order, then MCP; no footer', () => {
    const c = buildCatalog([
      tool('a_plain', 'core'),
      tool('b_hint', 'core', { outputSchema: out }),
      tool('c-plain', 'bundled_plugin', { owner: 'p' }),
      tool('echo', 'mcp', { owner: 'demo' }),
      tool('d_hint', 'client', { outputSchema: out }),
    ]);
    expect(renderQuickIndex(c)).toMatchInlineSnapshot(`
      "b_hint(input: { id: string }) -> { ok: boolean }  // Does b_hint.
      d_hint(input: { id: string }) -> { ok: boolean }  // Does d_hint.
      a_plain(input: { id: string }) -> unknown  // Does a_plain.
      c_plain(input: { id: string }) -> unknown  // Does c-plain.
      MCP.demo.echo(input: { id: string }) -> McpCallToolResult  // Does echo."
    `);
  });

  it('on reserved and colliding names: lines use the projected callable names', () => {
    const c = buildCatalog([tool('delete', 'core'), tool('llm_task', 'core'), tool('llm-task', 'bundled_plugin', { owner: 'p' })]);
    const index = renderQuickIndex(c);
    for (const e of c.entries) expect(index).toContain(`${e.callableName}(input: `);
    expect(index).toMatch(/^delete_[0-9a-z]{6}\(input: \{ id: string \}\) -> unknown {2}\/\/ Does delete\.$/m);
    expect(index).toMatch(/^llm_task_[0-9a-z]{6}\(/m);
  });

  it('on more tools than fit: stays within maxChars and the footer counts exactly the omitted tools', () => {
    const tools = Array.from({ length: 300 }, (_, i) => tool(`tool_number_${i}`, 'core', { description: `Tool number ${i} does a fairly specific thing. More detail.` }));
    tools.push(tool('m1', 'mcp', { owner: 'srv' }));
    const c = buildCatalog(tools);
    const index = renderQuickIndex(c);
    expect(index.length).toBeLessThanOrEqual(DEFAULT_QUICK_INDEX_MAX_CHARS);
    const lines = index.split('\n');
    const footer = lines[lines.length - 1] ?? '';
    const shown = lines.length - 1;
    expect(footer).toBe(`… ${c.entries.length - shown} more tools (1 MCP): use catalog.search("<keywords>"), API.list("tools/") or API.list("mcp/")`);
    expect(shown).toBeGreaterThan(10);
  });

  it('on a small bound: still within it, with the footer pointing to catalog.search', () => {
    const c = buildCatalog(Array.from({ length: 20 }, (_, i) => tool(`t${i}`, 'core')));
    for (const maxChars of [200, 500, 1000]) {
      const index = renderQuickIndex(c, { maxChars });
      expect(index.length).toBeLessThanOrEqual(maxChars);
      const shown = index.split('\n').length - 1;
      expect(index).toContain(`… ${20 - shown} more tools: use catalog.search("<keywords>") or API.list("tools/")`);
    }
  });

  it('on a huge schema: the line stays within the per-line bound', () => {
    const props = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`someRatherLongPropertyName${i}`, { type: 'object', properties: { inner: { type: 'string' } } }]));
    const c = buildCatalog([tool('huge', 'core', { inputSchema: { type: 'object', properties: props, required: Object.keys(props) }, outputSchema: { type: 'object', properties: props } })]);
    const entry = c.entries[0];
    if (!entry) throw new Error('no entry');
    const line = quickIndexLine(entry);
    expect(line.length).toBeLessThanOrEqual(MAX_QUICK_INDEX_LINE_CHARS);
    expect(line.startsWith('huge(input: {')).toBe(true);
  });

  it('on a bad bound: a RangeError naming maxChars', () => {
    expect(() => renderQuickIndex(buildCatalog([]), { maxChars: 0 })).toThrow(/maxChars must be a positive integer/);
  });
});
