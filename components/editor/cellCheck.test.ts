// One type world: a corpus of cells (every shipped example included) through the server typecheck and through the
// editor's check (Monaco's own TypeScript worker with the world the Gateway serves), with identical diagnostics;
// every example opens clean; a call to a tool the agent's policy denied is flagged with the rule.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../server/gateway.ts';
import { until } from '../../server/testing.ts';
import { TypeChecker } from '../../server/cell/typecheck.ts';
import type { CatalogView } from '../../server/catalog/view.ts';
import { DEFAULT_CLIENT_TOOLS } from '../playground/clientTools.ts';
import { EXAMPLES } from '../playground/examples.ts';
import type { CellLanguage } from './share.ts';
import { deniedToolsOf, type DeniedTool } from './cellCheck.ts';
import { editorMarkers } from './monacoWorker.testing.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** Cells with and without errors: the shapes a user hits (return of a wrong field, wrong argument, syntax, chains). */
const TS_CORPUS: string[] = [
  "const w = await weather_lookup({ city: 'Paris' });\nreturn w.temperature;",
  "const w = await weather_lookup({ city: 'Paris' });\nreturn w.tempC;",
  "await weather_lookup({ town: 'Paris' });",
  'await sleep({ ms: "soon" });',
  'const a = ;\nreturn a;',
  'const o = {',
  'function f(x) { return x; }\nreturn f(1);',
  'const n: number = "x";\nconst s: string = 1;\nreturn [n, s];',
  "const r = await read({ path: 'a.txt' });\nconst t: { text: number } = r;\nreturn t;",
  "// a comment first\r\nconst found = await grep({ pattern: 'TODO' });\r\nreturn found.matches.map((m) => m.nope);",
  'return document.title;',
  "const café = '☕';\nreturn café.lenght;",
  'const sum = await MCP.demo.add({ a: 2, b: "3" });\nreturn sum;',
  "const reply = await ask_user({ question: 'ok?' });\nreturn reply.answer.toUpperCase();",
  "const v = await load('k');\nreturn v + 1;",
  'return [1, 2].at(-1);',
];
const JS_CORPUS: string[] = ["const w = await weather_lookup({ city: 'Paris' });\nreturn w.temperature;", "await sleep({ ms: 'soon' });"];

let gateway: Gateway;
let main: CatalogView;
let research: CatalogView;
const checker = new TypeChecker();
/** A hung check, not a timing: every cell is checked twice by a whole TypeScript program, slow on a loaded 2-core machine. */
const CHECK_LIMIT_MS = 120_000;
const CORPUS_LIMIT_MS = 600_000;

beforeAll(async () => {
  gateway = await createGateway({ configPath: join(REPO_ROOT, 'codemode.config.json') });
  await until(() => gateway.mcpServers()[0]?.state === 'connected', { what: 'the demo MCP server to connect' });
  main = gateway.catalog({ clientTools: DEFAULT_CLIENT_TOOLS });
  research = gateway.catalog({ agentId: 'research', clientTools: DEFAULT_CLIENT_TOOLS });
}, 60_000);

afterAll(async () => {
  await checker.close();
  await gateway?.close();
});

async function both(source: string, language: CellLanguage, view: CatalogView) {
  const server = await checker.check(source, view.declarations, { language });
  const editor = await editorMarkers(source, language, view.cellTypes, view.declarations);
  return {
    server: server.map((d) => ({ line: d.line, column: d.column, endLine: d.endLine, endColumn: d.endColumn, message: d.message, code: String(d.code) })),
    editor: editor.map((m) => ({ line: m.line, column: m.column, endLine: m.endLine, endColumn: m.endColumn, message: m.message, code: m.code })),
  };
}

describe('the editor and the server typecheck: one type world', () => {
  it('serves the world the typecheck uses (strict, ES2022 lib, the async-body wrapper)', () => {
    expect(main.cellTypes.compilerOptions.typescript).toMatchObject({ strict: true, lib: ['lib.es2022.d.ts'], target: 9 });
    expect(main.cellTypes.prefix).toBe('void (async () => {\n');
  });

  for (const example of EXAMPLES) {
    it(`on the shipped example "${example.id}" (${example.language}): both report nothing`, async () => {
      const { server, editor } = await both(example.code, example.language, main);
      expect(editor).toEqual(server);
      expect(editor).toEqual([]);
    }, CHECK_LIMIT_MS);
  }

  it('on a corpus of TypeScript cells: the same lines, columns, ends, messages and codes', async () => {
    let withErrors = 0;
    for (const source of TS_CORPUS) {
      const { server, editor } = await both(source, 'typescript', main);
      expect(editor, source).toEqual(server);
      if (server.length > 0) withErrors++;
    }
    expect(withErrors).toBeGreaterThanOrEqual(12);
  }, CORPUS_LIMIT_MS);

  it('on JavaScript cells: the same world with checkJs', async () => {
    for (const source of JS_CORPUS) {
      const { server, editor } = await both(source, 'javascript', main);
      expect(editor, source).toEqual(server);
      expect(editor.length).toBeGreaterThan(0);
    }
  }, CHECK_LIMIT_MS);

  it('on `return w.temperature;`: both reject the returned field (a top-level return used to hide it from the editor)', async () => {
    const { editor } = await both(TS_CORPUS[0] ?? '', 'typescript', main);
    expect(editor).toEqual([expect.objectContaining({ line: 2, column: 10, endColumn: 21, code: '2339', message: expect.stringContaining("Property 'temperature' does not exist") })]);
  });
});

describe('policy in the editor', () => {
  const denied = (view: CatalogView): DeniedTool[] => deniedToolsOf(view.tools);

  it('names denied tools as a cell would call them', () => {
    expect(research.tools.find((t) => t.name === 'weather.lookup')).toMatchObject({ callableName: 'weather_lookup', deniedBy: expect.stringContaining('tools.allow') });
    expect(research.tools.find((t) => t.name === 'delete')?.callableName).toBe(main.tools.find((t) => t.name === 'delete')?.callableName);
  });

  it('on a call to a tool the agent may not use: the marker names the rule that denied it, on the call', async () => {
    const source = "const listing = await exec({ command: 'ls' });\nconst w = await weather_lookup({ city: 'Oslo' });\nreturn [listing, w];";
    const markers = await editorMarkers(source, 'typescript', research.cellTypes, research.declarations, denied(research));
    expect(markers).toEqual([
      expect.objectContaining({ line: 1, column: 23, policyRule: 'agents.list[research].tools.deny: "exec"', message: expect.stringContaining('exec is denied for this agent by policy rule agents.list[research].tools.deny: "exec"') }),
      expect.objectContaining({ line: 2, column: 17, policyRule: 'agents.list[research].tools.allow (not listed)' }),
    ]);
    // the server reports the same diagnostics; the editor only adds the rule
    const server = await checker.check(source, research.declarations);
    expect(server.map((d) => [d.line, d.column])).toEqual(markers.map((m) => [m.line, m.column]));
  });

  it('on the same names for the main agent, or a local variable that shadows one: no policy marker', async () => {
    const allowed = await editorMarkers("return await exec({ command: 'ls' });", 'typescript', main.cellTypes, main.declarations, denied(main));
    expect(allowed).toEqual([]);
    const local = await editorMarkers('const exec = (x: unknown) => x;\nreturn exec(1);', 'typescript', research.cellTypes, research.declarations, denied(research));
    expect(local).toEqual([]);
  });
});
