// Real OpenAPI documents end to end: GitHub's whole REST API (devDependency @octokit/openapi) and 52 public API
// descriptions from the APIs-guru directory (picked by scripts/pick-openapi-corpus.mjs, vendored gzipped in
// server/tools/openapi/corpus). For every operation: the generated declarations typecheck with tsc (one program,
// a module per document), and a value built from each schema by sampleValue passes the operation's validation;
// for the directory's documents TypeScript also accepts those values as the declared input and output.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from './build.ts';
import { checkDeclarations } from './named-types.ts';
import { searchCatalog } from './search.ts';
import { renderQuickIndex, DEFAULT_QUICK_INDEX_MAX_CHARS } from './quick-index.ts';
import { loadDocumentText } from '../tools/openapi/document.ts';
import { mapDocument } from '../tools/openapi/mapping.ts';
import { OpenApiSchemas } from '../tools/openapi/schemas.ts';
import { sampleValue } from '../tools/openapi/sample.testing.ts';
import { checkSchema } from '../tools/validate.ts';
import type { ToolDefinition } from '../tools/types.ts';
import type { Catalog } from './types.ts';
import { REPO_ROOT } from '../tools/testing.ts';

const CORPUS = join(REPO_ROOT, 'server/tools/openapi/corpus');
const GITHUB = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');

interface Pick {
  id: string;
  file: string;
  origin: string;
  operations: number;
}

interface Mapped {
  id: string;
  tools: ToolDefinition[];
  skipped: string[];
  catalog: Catalog;
}

function mapped(id: string, text: string): Mapped {
  const doc = loadDocumentText(text, id, 64 * 1024 * 1024);
  const schemas = new OpenApiSchemas(doc, 'api');
  schemas.nameComponents();
  const result = mapDocument(doc, schemas);
  const tools = result.operations.map(
    (op): ToolDefinition => ({
      name: op.name,
      description: op.description,
      inputSchema: op.inputSchema,
      ...(op.outputSchema ? { outputSchema: op.outputSchema } : {}),
      schemaDefs: schemas,
      ...(op.group ? { group: op.group } : {}),
      source: 'openapi',
      owner: 'api',
    }),
  );
  return { id, tools, skipped: result.skipped, catalog: buildCatalog(tools) };
}

/** Operations whose generated input or output fails its own validation, with the first problem. */
function validationFailures(m: Mapped): string[] {
  const failures: string[] = [];
  for (const tool of m.tools) {
    for (const [what, schema] of [
      ['input', tool.inputSchema],
      ['output', tool.outputSchema],
    ] as const) {
      if (!schema) continue;
      const value = sampleValue(schema, tool.schemaDefs);
      const issues = checkSchema(schema, value, '', what, tool.schemaDefs ? { defs: tool.schemaDefs } : {});
      if (issues.length > 0) failures.push(`${m.id} ${tool.name} ${what}: ${issues[0]?.message}`);
    }
  }
  return failures;
}

/** One module per document: its declarations and, with `usage`, the sampled values assigned to the declared types. */
function moduleText(m: Mapped, usage: boolean): string {
  const lines = ['export {};', checkDeclarations(m.catalog)];
  if (usage) {
    m.catalog.entries.forEach((entry, i) => {
      const defs = entry.tool.schemaDefs;
      lines.push(`const in${i}: Parameters<typeof ${entry.callableName}>[0] = ${JSON.stringify(sampleValue(entry.inputSchema, defs))};`);
      if (entry.outputSchema) lines.push(`const out${i}: Awaited<ReturnType<typeof ${entry.callableName}>> = ${JSON.stringify(sampleValue(entry.outputSchema, defs))};`);
    });
  }
  return lines.join('\n');
}

/** tsc over the files (strict, lib es2022): every diagnostic as `file:line: message`. */
function typecheck(files: Map<string, string>): string[] {
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [], noUnusedLocals: false, skipLibCheck: true };
  const host = ts.createCompilerHost(options);
  const libDir = dirname(ts.getDefaultLibFilePath(options));
  host.getSourceFile = (name, version) => {
    const text = files.get(name) ?? (name.startsWith(libDir) ? ts.sys.readFile(name) : undefined);
    return text === undefined ? undefined : ts.createSourceFile(name, text, version);
  };
  host.fileExists = (name) => files.has(name) || (name.startsWith(libDir) && ts.sys.fileExists(name));
  host.readFile = (name) => files.get(name) ?? ts.sys.readFile(name);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').slice(0, 300)}`;
  });
}

const picks = (JSON.parse(readFileSync(join(CORPUS, 'picks.json'), 'utf8')) as { documents: Pick[] }).documents;

describe('the OpenAPI corpus: 52 public API descriptions', () => {
  const all = picks.map((p) => mapped(p.id, gunzipSync(readFileSync(join(CORPUS, p.file))).toString('utf8')));

  it('is at least 50 real documents of every original format, each mapped to tools', () => {
    expect(picks.length).toBeGreaterThanOrEqual(50);
    expect(new Set(picks.map((p) => p.origin))).toEqual(expect.objectContaining({ size: expect.any(Number) }));
    for (const format of ['swagger 2.0', 'openapi 3.0', 'openapi 3.1']) expect(picks.some((p) => p.origin === format), format).toBe(true);
    for (const m of all) expect(m.tools.length, m.id).toBeGreaterThan(0);
  });

  it('every generated input and output passes its operation\'s validation', () => {
    expect(all.flatMap(validationFailures)).toEqual([]);
  });

  it('every declaration typechecks, and TypeScript accepts the same generated inputs and outputs', () => {
    const files = new Map(all.map((m, i) => [`/corpus/${i}.ts`, moduleText(m, true)]));
    const errors = typecheck(files).map((e) => e.replace(/^\/corpus\/(\d+)\.ts/, (_, i: string) => all[Number(i)]?.id ?? i));
    expect(errors).toEqual([]);
  }, 120_000);
});

describe("GitHub's REST API description (@octokit/openapi, 13 MB)", () => {
  const github = mapped('github', readFileSync(GITHUB, 'utf8'));

  it('loads whole: every operation a tool, each component schema one named type', () => {
    expect(github.tools.length).toBeGreaterThan(1000);
    expect(github.skipped).toEqual([]);
    const types = github.catalog.typeFiles.get('openapi/api.d.ts') ?? '';
    expect(types.match(/^ {2}type Issue = /gm)).toHaveLength(1);
    expect(github.catalog.byCallable.get('issues_create')?.declaration).toMatch(/\): Promise<api\.Issue>;$/);
  });

  it('every generated input and output passes validation, and the declarations typecheck', () => {
    expect(validationFailures(github)).toEqual([]);
    expect(typecheck(new Map([['/corpus/github.ts', moduleText(github, false)]]))).toEqual([]);
  }, 120_000);

  it('catalog.search("create an issue in a repository") ranks issues/create in the top 3; the quick index summarises by tag within its budget', () => {
    expect(searchCatalog(github.catalog, 'create an issue in a repository', 3).map((e) => e.name)).toContain('issues/create');
    const index = renderQuickIndex(github.catalog);
    expect(index.length).toBeLessThanOrEqual(DEFAULT_QUICK_INDEX_MAX_CHARS);
    expect(index).toMatch(/^api: \d{4} OpenAPI tools by tag: repos \d+, actions \d+, /);
    expect(index.split('\n')).toHaveLength(1);
  });
});
