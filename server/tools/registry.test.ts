// Tests for loadToolSources: source order, schemas, bundled/external plugins, broken plugins reported and skipped.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBeforeToolCallHooks } from './plugins.ts';
import { loadToolSources } from './registry.ts';
import { callTool, findTool, testConfig, testContext } from './testing.ts';
import { TOOL_SOURCE_ORDER, type ToolDefinition } from './types.ts';

const CORE_NAMES = ['read', 'grep', 'web_search', 'web_fetch', 'sleep', 'image_generate', 'exec', 'tool_search', 'tool_describe'];
const fullConfig = testConfig({
  plugins: {
    bundled: ['llm-task', 'weather', 'notes', 'guard'],
    external: [{ id: 'edge-names', path: 'demo/plugins/edge-names' }],
  },
});

const scratch = mkdtempSync(join(tmpdir(), 'codemode-plugins-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes a throwaway external plugin folder and returns its path relative to `scratch`. */
function writePlugin(name: string, source: string): string {
  mkdirSync(join(scratch, name), { recursive: true });
  writeFileSync(join(scratch, name, 'index.mjs'), source);
  return name;
}

describe('loadToolSources', () => {
  it('on no plugins: loads exactly the core tools', async () => {
    const { tools, plugins, pluginErrors } = await loadToolSources(testConfig());
    expect(tools.map((t) => t.name)).toEqual(CORE_NAMES);
    expect(tools.every((t) => t.source === 'core')).toBe(true);
    expect(plugins).toEqual([]);
    expect(pluginErrors).toEqual([]);
  });

  it('on all plugins: orders tools core, bundled_plugin, external_plugin and stamps owners', async () => {
    const { tools, plugins, pluginErrors } = await loadToolSources(fullConfig);
    expect(pluginErrors).toEqual([]);
    const rank = tools.map((t) => TOOL_SOURCE_ORDER.indexOf(t.source));
    expect([...rank].sort((a, b) => a - b)).toEqual(rank);
    expect(tools.filter((t) => t.source === 'bundled_plugin').map((t) => `${t.owner}:${t.name}`)).toEqual([
      'llm-task:llm-task',
      'weather:weather.lookup',
      'notes:notes_append',
    ]);
    expect(tools.filter((t) => t.source === 'external_plugin').map((t) => `${t.owner}:${t.name}`)).toEqual([
      'edge-names:delete',
      'edge-names:catalog',
      'edge-names:2fa',
    ]);
    expect(plugins.map((p) => p.id)).toEqual(['llm-task', 'weather', 'notes', 'guard', 'edge-names']);
  });

  it('gives every tool an object input schema that rejects unknown fields and lists required ones', async () => {
    const { tools } = await loadToolSources(fullConfig);
    for (const tool of tools) {
      expect(tool.inputSchema['type'], tool.name).toBe('object');
      expect(tool.inputSchema['additionalProperties'], tool.name).toBe(false);
      expect(tool.description.length, tool.name).toBeGreaterThan(10);
    }
    const withOutput = ['read', 'grep', 'web_search', 'web_fetch', 'sleep', 'weather.lookup'];
    for (const name of withOutput) expect(findTool(tools, name).outputSchema, name).toBeDefined();
    expect(findTool(tools, 'llm-task').outputSchema).toBeUndefined();
  });

  it('marks the tool flags the spec relies on', async () => {
    const { tools } = await loadToolSources(fullConfig);
    const flags = (t: ToolDefinition): string =>
      [t.directOnly && 'directOnly', t.control && 'control', t.networkContent && 'network', t.approval, t.executionMode].filter(Boolean).join(',');
    expect(Object.fromEntries(tools.filter((t) => flags(t)).map((t) => [t.name, flags(t)]))).toEqual({
      web_search: 'network',
      web_fetch: 'network',
      image_generate: 'directOnly',
      exec: 'required,sequential',
      tool_search: 'control',
      tool_describe: 'control',
      notes_append: 'sequential',
      delete: 'sequential',
    });
  });

  it('validates plugin tool input before it runs, naming the field', async () => {
    const { tools } = await loadToolSources(fullConfig);
    await expect(callTool(findTool(tools, '2fa'), { secret: 'x', when: 1 })).rejects.toThrow(/"when" is not a known field/);
    await expect(callTool(findTool(tools, 'catalog'), { category: 'cars' })).rejects.toThrow(/"category" must be one of/);
  });

  it('on an unknown bundled id: reports it with the known ids and loads the rest', async () => {
    const { tools, pluginErrors } = await loadToolSources(testConfig({ plugins: { bundled: ['weather', 'wether', 'constructor'], external: [] } }));
    expect(pluginErrors).toEqual([
      { plugin: 'wether', error: expect.stringContaining('known bundled plugins: llm-task, weather, notes, guard') },
      { plugin: 'constructor', error: expect.stringContaining('unknown bundled plugin "constructor"') },
    ]);
    expect(tools.map((t) => t.name)).toContain('weather.lookup');
  });

  it('on a plugin whose module or tools() never settles: reported after the load time, the rest load (the server had exited at start with status 0)', async () => {
    const external = [
      { id: 'hung-import', path: writePlugin('hung-import', 'await new Promise(() => {});\nexport default { tools: [] };') },
      { id: 'hung-tools', path: writePlugin('hung-tools', 'export default { tools: () => new Promise(() => {}) };') },
    ];
    // a short load time: only plugins that never settle are loaded here, so nothing can pass it by being slow
    const { tools, pluginErrors } = await loadToolSources(testConfig({ baseDir: scratch, plugins: { bundled: ['weather'], external } }), { pluginLoadTimeoutMs: 300 });
    expect(pluginErrors).toEqual([
      { plugin: 'hung-import', error: expect.stringMatching(/^loading .*hung-import.index\.mjs threw: importing .* did not finish within 0\.3 s; the plugin was left out/) },
      { plugin: 'hung-tools', error: expect.stringMatching(/^its tools\(\) function did not finish within 0\.3 s/) },
    ]);
    expect(tools.map((t) => t.name)).toContain('weather.lookup');
  });

  it('on a plugin that throws at load: reports it by name and skips it, never fatal', async () => {
    const { tools, pluginErrors } = await loadToolSources(
      testConfig({
        plugins: {
          bundled: [],
          external: [
            { id: 'broken', path: 'demo/plugins/broken' },
            { id: 'edge-names', path: 'demo/plugins/edge-names' },
          ],
        },
      }),
    );
    expect(pluginErrors).toHaveLength(1);
    expect(pluginErrors[0]?.plugin).toBe('broken');
    expect(pluginErrors[0]?.error).toContain('fails at load on purpose');
    expect(tools.map((t) => t.name)).toContain('2fa');
  });

  it('on malformed external plugins: reports what is wrong and what to do', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['no-default', 'export const tools = [];', /must have a default export/],
      ['no-execute', "export default { tools: [{ name: 'x', description: 'd', inputSchema: {} }] };", /tools\[0\] \("x"\)\.execute must be an async function/],
      ['bad-mode', "export default { tools: [{ name: 'x', description: 'd', inputSchema: {}, execute: async () => 1, executionMode: 'serial' }] };", /executionMode must be/],
      ['wrong-id', "export default { id: 'other', tools: [] };", /says its id is "other"/],
      ['tools-throw', "export default { tools() { throw new Error('no db'); } };", /no db/],
    ];
    const external = cases.map(([name, source]) => ({ id: name, path: writePlugin(name, source) }));
    external.push({ id: 'missing', path: 'does-not-exist' });
    const { pluginErrors, plugins } = await loadToolSources(testConfig({ baseDir: scratch, plugins: { bundled: [], external } }));
    for (const [name, , pattern] of cases) expect(pluginErrors.find((e) => e.plugin === name)?.error, name).toMatch(pattern);
    expect(pluginErrors.find((e) => e.plugin === 'missing')?.error).toMatch(/does not exist/);
    expect(plugins).toEqual([]);
  });

  it('on a plugin tool whose exact name is taken: skips that tool and reports the conflict', async () => {
    const path = writePlugin('clash', "export default { tools: [{ name: 'read', description: 'd', inputSchema: {}, execute: async () => 1 }, { name: 'fine', description: 'd', inputSchema: {}, execute: async () => 2 }] };");
    const { tools, pluginErrors } = await loadToolSources(testConfig({ baseDir: scratch, plugins: { bundled: [], external: [{ id: 'clash', path }] } }));
    expect(pluginErrors).toEqual([{ plugin: 'clash', error: expect.stringContaining('tool "read" conflicts with core tool "read"') }]);
    expect(tools.filter((t) => t.name === 'read')).toHaveLength(1);
    expect(findTool(tools, 'fine').source).toBe('external_plugin');
  });

  it('on duplicate plugin ids: loads the first and reports the rest', async () => {
    const { pluginErrors, plugins } = await loadToolSources(
      testConfig({ plugins: { bundled: ['notes', 'notes'], external: [{ id: 'notes', path: 'demo/plugins/edge-names' }] } }),
    );
    expect(plugins.map((p) => p.id)).toEqual(['notes']);
    expect(pluginErrors.map((e) => e.plugin)).toEqual(['notes', 'notes']);
  });

  it('lets Tool Search find tools appended to the list later (MCP, client)', async () => {
    const { tools } = await loadToolSources(testConfig());
    tools.push({ name: 'echo', description: 'Echo a message back (MCP demo)', source: 'mcp', owner: 'demo', inputSchema: { type: 'object' } });
    const result = (await callTool(findTool(tools, 'tool_search'), { query: 'echo message' })) as { results: Array<{ name: string }> };
    expect(result.results[0]?.name).toBe('echo');
  });

  it('keeps plugin state per load (edge-names delete)', async () => {
    const first = await loadToolSources(fullConfig);
    expect(await callTool(findTool(first.tools, 'delete'), { key: 'draft-1' })).toEqual({ deleted: true, remaining: ['draft-2', 'cache:weather'] });
    expect(await callTool(findTool(first.tools, 'delete'), { key: 'draft-1' })).toEqual({ deleted: false, remaining: ['draft-2', 'cache:weather'] });
    const second = await loadToolSources(fullConfig);
    expect(((await callTool(findTool(second.tools, 'delete'), { key: 'nope' })) as { remaining: string[] }).remaining).toContain('draft-1');
  });
});

describe('edge-names plugin', () => {
  it('2fa: computes the RFC 6238 test vector', async () => {
    const { tools } = await loadToolSources(fullConfig);
    expect(await callTool(findTool(tools, '2fa'), { secret: '12345678901234567890', atMs: 59_000 })).toEqual({ code: '287082', validForMs: 1_000 });
  });

  it('catalog: filters the product fixture by category', async () => {
    const { tools } = await loadToolSources(fullConfig);
    const all = (await callTool(findTool(tools, 'catalog'), {})) as { products: Array<{ category: string }> };
    const bikes = (await callTool(findTool(tools, 'catalog'), { category: 'bikes' })) as { products: Array<{ category: string }> };
    expect(bikes.products.length).toBeGreaterThan(0);
    expect(bikes.products.length).toBeLessThan(all.products.length);
    expect(bikes.products.every((p) => p.category === 'bikes')).toBe(true);
  });
});

describe('guard hook over the real read tool', () => {
  it('blocks read of secrets/token.txt, which read alone would return', async () => {
    const { tools, plugins } = await loadToolSources(fullConfig);
    const read = findTool(tools, 'read');
    const input = { path: 'secrets/token.txt' };
    expect(((await callTool(read, input)) as { content: string }).content).toContain('demo-api-token');
    const ctx = testContext();
    const outcome = await runBeforeToolCallHooks(plugins, {
      tool: read.name, source: read.source, input, agentId: ctx.agentId, sessionId: ctx.sessionId, agentRunId: ctx.agentRunId, invocationId: ctx.invocationId,
    });
    expect(outcome.blocked?.plugin).toBe('guard');
  });
});
