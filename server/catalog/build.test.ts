// Tests for buildCatalog: winners, order, ids, MCP namespaces, virtual files and ambient declarations.
import { describe, it, expect } from 'vitest';
import ts from 'typescript';
import type { ToolDefinition, ToolSource } from '../tools/types.ts';
import { buildCatalog, CatalogInputError, describeTool, guestMcpNamespaces, guestMeta, mcpServerApi } from './build.ts';
import { everyBootTool } from './boot-tools.ts';
import { listDeclarationFiles, readDeclarationFile } from './api-files.ts';
import { renderQuickIndex } from './quick-index.ts';
import { searchCatalog } from './search.ts';
import { InvalidInputError } from '../errors.ts';

function tool(name: string, source: ToolSource, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    source,
    description: `${name} tool`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    ...extra,
  };
}

const searchOut = {
  type: 'object',
  properties: { results: { type: 'array', items: { type: 'object', properties: { title: { type: 'string' }, url: { type: 'string' } }, required: ['title', 'url'] } } },
  required: ['results'],
};

function demoTools(): ToolDefinition[] {
  return [
    tool('web_search', 'core', { description: 'Search the web.', outputSchema: searchOut }),
    tool('read', 'core', { description: 'Read a workspace file.' }),
    tool('exec', 'core', { description: 'Run an allowed shell command.' }),
    tool('message', 'core', { directOnly: true }),
    tool('tool_search', 'core', { control: true }),
    tool('delete', 'core'),
    tool('llm-task', 'bundled_plugin', { owner: 'llm' }),
    tool('catalog', 'external_plugin', { owner: 'acme' }),
    tool('echo', 'mcp', { owner: 'demo-server', description: 'Echo the text back.' }),
    tool('delete', 'mcp', { owner: 'demo-server' }),
    tool('search', 'mcp', { owner: 'docs', outputSchema: { type: 'object', properties: { hits: { type: 'integer' } } } }),
    tool('read', 'client', { description: 'Client-side read.' }),
    tool('ask_user', 'client', { description: 'Ask the user a question.' }),
  ];
}

describe('buildCatalog', () => {
  it('on direct-only and control tools: leaves them out', () => {
    const c = buildCatalog(demoTools());
    expect(c.entries.map((e) => e.name)).not.toContain('message');
    expect(c.entries.map((e) => e.name)).not.toContain('tool_search');
  });

  it('on a client tool with a core tool\'s exact name: the client tool wins and the core one is dropped', () => {
    const c = buildCatalog(demoTools());
    const reads = c.entries.filter((e) => e.name === 'read');
    expect(reads).toHaveLength(1);
    expect(reads[0]?.source).toBe('client');
    expect(c.byCallable.get('read')?.description).toBe('Client-side read.');
  });

  it('on tools out of source order: non-MCP entries in core, bundled, external, client order, then MCP', () => {
    const c = buildCatalog([tool('c1', 'client'), tool('m1', 'mcp', { owner: 's' }), tool('x1', 'external_plugin'), tool('b1', 'bundled_plugin'), tool('k1', 'core'), tool('k2', 'core')]);
    expect(c.entries.map((e) => e.name)).toEqual(['k1', 'k2', 'b1', 'x1', 'c1', 'm1']);
  });

  it('on the spec examples: projected names in byCallable, exec callable as exec', () => {
    const c = buildCatalog(demoTools());
    const names = [...c.byCallable.keys()];
    expect(names).toContain('web_search');
    expect(names).toContain('exec');
    expect(names).toContain('llm_task');
    expect(names.some((n) => /^delete_[0-9a-z]{6}$/.test(n))).toBe(true);
    expect(names.some((n) => /^catalog_[0-9a-z]{6}$/.test(n))).toBe(true);
    expect(names).not.toContain('delete');
    expect(names).not.toContain('catalog');
    expect(new Set(names).size).toBe(names.length);
  });

  it('on MCP tools: MCP.<server>.<tool> with server and tool names escaped within their namespace', () => {
    const c = buildCatalog(demoTools());
    expect([...c.mcp.keys()]).toEqual(['demo_server', 'docs']);
    const demo = c.mcp.get('demo_server');
    expect(demo?.get('echo')?.mcp).toEqual({ server: 'demo-server', serverCallable: 'demo_server' });
    expect([...(demo?.keys() ?? [])].some((n) => /^delete_[0-9a-z]{6}$/.test(n))).toBe(true);
    // MCP tools never become guest globals
    expect(c.byCallable.has('echo')).toBe(false);
    expect(c.byCallable.has('search')).toBe(false);
  });

  it('on the same tools in another order: the same ids and callable names', () => {
    const a = buildCatalog(demoTools());
    // buildCatalog restores source order, so the client read still shadows the core read
    const b = buildCatalog(demoTools().reverse());
    const key = (e: { source: string; name: string }) => `${e.source}:${e.name}`;
    const ids = (cat: typeof a) => Object.fromEntries(cat.entries.map((e) => [key(e), [e.id, e.callableName]]));
    expect(ids(b)).toEqual(ids(a));
    expect(new Set(a.entries.map((e) => e.id)).size).toBe(a.entries.length);
    for (const e of a.entries) expect(e.id).toMatch(/^t_[0-9a-f]{16}$/);
  });

  it('on every guest-visible artifact (metadata, describe, $api, files, declarations, quick index, search): no catalog id appears', () => {
    const c = buildCatalog(demoTools());
    const view = { tools: everyBootTool(c), mcp: guestMcpNamespaces(c) };
    const visible = [
      JSON.stringify(view),
      JSON.stringify(c.entries.map(guestMeta)),
      JSON.stringify(c.entries.map(describeTool)),
      JSON.stringify([...c.mcp.keys()].map((s) => mcpServerApi(c, s))),
      JSON.stringify([...c.files]),
      c.ambientDeclarations,
      renderQuickIndex(c),
      JSON.stringify(searchCatalog(c, 'search read tool', 50).map(guestMeta)),
    ].join('\n');
    for (const e of c.entries) expect(visible).not.toContain(e.id);
    expect(visible).not.toMatch(/\bt_[0-9a-f]{16}\b/);
    for (const meta of view.tools) expect(Object.keys(meta).sort()).toEqual(['callableName', 'description', 'name', 'source']);
  });

  it('on the virtual files: one tools/<callableName>.d.ts per non-MCP tool, mcp/index.d.ts, mcp/<server>.d.ts and results.d.ts', () => {
    const c = buildCatalog(demoTools());
    const plain = c.entries.filter((e) => !e.mcp).map((e) => `tools/${e.callableName}.d.ts`);
    expect([...c.files.keys()].sort()).toEqual([...plain, 'mcp/demo_server.d.ts', 'mcp/docs.d.ts', 'mcp/index.d.ts', 'results.d.ts'].sort());
    expect(c.files.get('tools/web_search.d.ts')).toContain('declare function web_search(input: {');
    expect(c.files.get('tools/llm_task.d.ts')).toContain('// Tool "llm-task" (bundled_plugin), callable as llm_task(...).');
    expect(c.files.get('mcp/index.d.ts')).toContain('demo_server: McpServer_demo_server;');
    expect(c.files.get('mcp/docs.d.ts')).toContain('search(input: {\n    q: string;\n  }): Promise<McpCallToolResult<{\n    hits?: number;\n  }>>;');
    expect(c.files.get('mcp/demo_server.d.ts')).toContain('$api(): Promise<McpServerApi>;');
  });

  it('on API.list and API.read: list by prefix ("mcp" and "mcp/" alike) and read; an unknown path is invalid_input with a hint', () => {
    const c = buildCatalog(demoTools());
    expect(listDeclarationFiles(c, 'mcp')).toEqual(['mcp/demo_server.d.ts', 'mcp/docs.d.ts', 'mcp/index.d.ts']);
    expect(listDeclarationFiles(c, 'mcp/')).toEqual(listDeclarationFiles(c, 'mcp'));
    expect(listDeclarationFiles(c)).toHaveLength(c.files.size);
    expect(readDeclarationFile(c, './results.d.ts')).toContain('save(value: unknown): Promise<{ ref: string; bytes: number }>;');
    expect(() => readDeclarationFile(c, 'tools/nope.d.ts')).toThrow(InvalidInputError);
    expect(() => readDeclarationFile(c, 'tools/nope.d.ts')).toThrow(/API\.list\("tools\/"\)/);
  });

  it('on describe and $api: full schemas and declarations without ids', () => {
    const c = buildCatalog(demoTools());
    const ws = c.byCallable.get('web_search');
    if (!ws) throw new Error('web_search missing');
    expect(describeTool(ws)).toEqual({
      callableName: 'web_search',
      name: 'web_search',
      description: 'Search the web.',
      source: 'core',
      declaration: ws.declaration,
      inputSchema: ws.inputSchema,
      outputSchema: searchOut,
    });
    const api = mcpServerApi(c, 'demo_server');
    expect(api?.server).toBe('demo-server');
    expect(api?.tools.map((t) => t.name)).toEqual(['echo', 'delete']);
    expect(api?.declarations).toBe(c.files.get('mcp/demo_server.d.ts'));
    expect(mcpServerApi(c, 'nope')).toBeUndefined();
  });

  it('on the ambient declarations: a cell using tools, MCP, catalog, API, results and store typechecks; a wrong field does not', () => {
    const c = buildCatalog([
      ...demoTools(),
      tool('tree', 'core', {
        inputSchema: { type: 'object', properties: { root: { $ref: '#/$defs/Node' } }, required: ['root'], $defs: { Node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/Node' } } } } } },
      }),
      tool('walk', 'mcp', { owner: 'docs', inputSchema: { type: 'object', properties: { node: { $ref: '#/$defs/N' } }, $defs: { N: { type: 'object', properties: { next: { $ref: '#/$defs/N' } } } } } }),
    ]);
    const good = `
      const r = await web_search({ q: "x" });
      const titles: string[] = r.results.map((x) => x.title);
      await exec({ q: "ls" });
      await llm_task({ q: "hi" });
      await tree({ root: { kids: [{ kids: [] }] } });
      const echoed = await MCP.demo_server.echo({ q: "hi" });
      const first = echoed.content[0];
      if (first && first.type === "text") text(first.text);
      const hits: number | undefined = (await MCP.docs.search({ q: "a" })).structuredContent?.hits;
      await MCP.docs.walk({ node: { next: {} } });
      const api = await MCP.docs.$api();
      const handles = await catalog.search("read", { limit: 3 });
      for (const h of handles) { const d = await h.describe(); console.log(h.callableName, d.declaration); await h({ q: "x" }); }
      const files: string[] = API.list("tools/");
      const body: string = API.read("results.d.ts");
      const saved = await results.save({ big: true });
      await results.load(saved.ref);
      await store("k", 1);
      json(await load("k"));
      const t = setTimeout(() => {}, 10);
      clearTimeout(t);
      await yield_control("checkpoint");
      export { titles, hits, api, files, body };
    `;
    expect(typecheck(c.ambientDeclarations, good)).toEqual([]);
    const bad = `await web_search({ query: "x" }); await MCP.demo_server.nope({}); export {};`;
    const errors = typecheck(c.ambientDeclarations, bad);
    expect(errors.join('\n')).toMatch(/query/);
    expect(errors.join('\n')).toMatch(/nope/);
  });

  it('on bad input: a CatalogInputError naming the field', () => {
    expect(() => buildCatalog([tool('x', 'mcp')])).toThrow(/tools\[0\] \("x"\)\.owner: MCP tools need their server name as owner/);
    expect(() => buildCatalog([{ ...tool('x', 'core'), inputSchema: 'nope' as unknown as ToolDefinition['inputSchema'] }])).toThrow(CatalogInputError);
    expect(() => buildCatalog([tool('ok', 'core'), { ...tool('', 'core') }])).toThrow(/tools\[1\]\.name/);
    expect(() => buildCatalog([{ ...tool('x', 'core'), source: 'plugin' as ToolSource }])).toThrow(/\.source: must be one of core, bundled_plugin/);
  });

  it('on no tools: an empty catalog whose declarations still declare the guest API', () => {
    const c = buildCatalog([]);
    expect(c.entries).toEqual([]);
    expect(c.files.get('mcp/index.d.ts')).toContain('declare const MCP: {};');
    expect(typecheck(c.ambientDeclarations, 'await catalog.all(); export {};')).toEqual([]);
  });
});

/** Typecheck `cell` (a module, top-level await) against `ambient` with ES2023 libs only, in memory. */
function typecheck(ambient: string, cell: string): string[] {
  const files = new Map([
    ['/ambient.d.ts', ambient],
    ['/cell.ts', cell],
  ]);
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, lib: ['lib.es2023.d.ts'], types: [] };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name);
  host.getSourceFile = (name, lang, onError) => {
    const text = files.get(name);
    return text !== undefined ? ts.createSourceFile(name, text, lang) : getSourceFile(name, lang, onError);
  };
  const program = ts.createProgram(['/ambient.d.ts', '/cell.ts'], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}
