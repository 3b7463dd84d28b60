// The architecture check: imports between server/ folders follow one layer order with no cycles, the page, the bench
// and the server meet only where AREAS allows, the Gateway is reached only through its faces, tsc checks every server
// file, and no source file grows past LINE_LIMIT without a reason.
//
// Pure Node: it reads the files and takes import specifiers with regular expressions (`import ... from`,
// `export ... from`, `import '...'`, `import('...')`, JSDoc `@import`), so it needs no compiler and runs in a
// second (the tsconfig check asks TypeScript only which files its config names).
// Type-only imports count: a type is as much a dependency of its reader as a value is.
// Test code is not walked for layers (`*.test.ts`, `testing.ts`, `*.testing.ts`, `fixtures/`, the hostile
// cells): a test may import anything it needs. The Gateway facade is checked everywhere, tests included: its
// parts are private, callers reach it through its faces (gateway-types.ts) and the diagnostics seam, and the
// tRPC layer holds no module state.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The layers of server/, top to bottom. A file may import from its own layer's units or any layer below it,
 * never from a layer above (the issue 11 arrows: trpc -> gateway -> runs -> executors -> guest, tools below
 * catalog). Units of one layer are peers: they may import each other as long as no cycle forms. A unit is
 * a top-level folder (`runs/`) or a file at the root of server/ (`gateway.ts`); a new one fails the check
 * until it is placed here.
 */
const LAYERS: readonly Layer[] = [
  { units: ['main.ts', 'cli/'], why: 'process entry points: the server start-up and the codemode command line; nothing imports them' },
  { units: ['http/'], why: 'the HTTP edge: request checks, then tRPC and Next' },
  {
    units: ['trpc/', 'mcp-server/', 'testplan/'],
    why: 'the API faces over the Gateway facade: thin tRPC routers for the playground, the MCP server face (exec, wait, the model surface) for agents, and the spec E2E plan run against the loaded config (codemode test-plan, the Test plan tab)',
  },
  {
    units: ['gateway.ts', 'gateway-types.ts', 'gateway/'],
    why: 'the Gateway: composes everything below and is the one facade the edge talks to (gateway-types.ts is its API, by face; gateway/ holds its parts and one module per face: turns, exec/wait, executors, the transcript recorder)',
  },
  { units: ['surface/'], why: 'what the model sees (exec/wait definitions, quick index); built by the Gateway per turn' },
  { units: ['runs/'], why: 'the run record: lifecycle, budgets, parking, events, trajectory; drives executors and the bridge' },
  { units: ['executors/'], why: 'where a cell runs (QuickJS with snapshots, node:vm); speaks the bridge protocol to the guest' },
  {
    units: ['bridge/', 'guest/'],
    why: 'the two sides of one protocol: the host half (messages, their checks, nested-call dispatch) and the guest prelude',
  },
  { units: ['cell/', 'catalog/'], why: 'cell preparation (checks, transform, typecheck) and the catalog (names, declarations, search)' },
  { units: ['tools/'], why: 'tool definitions and sources: core tools, plugins, policy, MCP connections (below catalog)' },
  {
    units: ['sessions/', 'results/', 'access/', 'durable/', 'offload/', 'hostile/'],
    why: 'leaves: the session store and transcript (and durable-run rows, run notices), saved results, tokens and ownership, sealing parked runs at rest, warm worker threads, the hostile corpus',
  },
  { units: ['config/'], why: 'the config schema, its defaults and activation: read by every layer above' },
  { units: ['errors.ts', 'error-codes.mjs', 'util/'], why: 'typed errors, the error codes every layer may raise, and dependency-free helpers (plain .mjs, so worker threads load them too)' },
];

/** The API edge: it reaches the core only through the Gateway, so from below the Gateway it imports types only. */
const EDGE_UNITS = new Set(['http/', 'trpc/', 'mcp-server/']);
/** What the edge may import values from besides the Gateway: shared leaves with no run logic. */
const EDGE_VALUE_UNITS = new Set(['access/', 'config/', 'errors.ts', 'error-codes.mjs', 'util/']);

/**
 * The top-level folders that hold code, and what each may import from the others. `values`: areas it may import
 * anything from; `types`: areas it may import only types from. shared/ is the neutral folder for code both the page
 * and the server run (the cell wrapper and compiler options): it imports from no other area, so either side can
 * load it as it is. The page (components/, app/) reaches the server only through the API (tRPC), so it takes only
 * types from server/; the bench measures the server and drives it directly, and nothing imports the bench.
 */
const AREAS: Readonly<Record<string, { values: readonly string[]; types: readonly string[]; why: string }>> = {
  'shared/': { values: [], types: [], why: 'code the page and the server both run' },
  'server/': { values: ['shared/'], types: [], why: 'the Gateway: it never imports the page or the bench' },
  'components/': { values: ['shared/'], types: ['server/'], why: 'the page: it talks to the server over tRPC' },
  'app/': { values: ['components/', 'shared/'], types: ['server/'], why: 'the Next.js app shell around the page' },
  'bench/': { values: ['server/', 'shared/'], types: [], why: 'the measurements: they drive the server in process' },
};

/** Folders whose JavaScript tsc checks: the server, shared/, and the demo servers, plugins and scripts around them. */
const CHECKED_JS_FOLDERS = ['server', 'shared', 'demo', 'scripts', 'bin'];

/**
 * JavaScript files in CHECKED_JS_FOLDERS that tsc does not check, each with why. Everything else is in tsconfig.json
 * with checkJs, so no declaration file is kept by hand beside its source.
 */
const UNCHECKED_JS_FILES: ReadonlyArray<{ prefix: string; why: string }> = [
  { prefix: 'server/hostile/cells/', why: 'cell bodies (top-level await and return), run as guests, not server modules' },
  { prefix: 'server/hostile/probe.js', why: 'a cell body, like the hostile cells' },
];

/** A file longer than this says why in its header comment, or is split. */
const LINE_LIMIT = 400;
/** The phrase a long file's header comment carries, followed by why it stays one file. */
const LONG_FILE_MARKER = 'long:';

/**
 * Imports that break a rule today, each with the issue 11 item that removes it. The check fails on any
 * violation not listed here, and on any entry here that no longer breaks a rule: delete it once its item lands.
 */
const PENDING: readonly PendingImport[] = [];

/** Files over LINE_LIMIT today without a reason line, each with the issue 11 item that shortens it. Same rules as PENDING. */
const PENDING_LONG: readonly PendingLongFile[] = [];

// ---- the check ---------------------------------------------------------------------------------------

interface Layer {
  units: readonly string[];
  why: string;
}

/** One import: repo-relative posix paths of the importing file and of the file its specifier names. */
interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

interface Violation {
  from: string;
  to: string;
  rule: string;
}

interface PendingImport {
  from: string;
  to: string;
  item: string;
}

interface PendingLongFile {
  file: string;
  item: string;
}

const SOURCE_FILE = /\.(ts|tsx|mts|mjs|js)$/;

/** Test code, which the check does not walk (tests and their kits may import anything). */
function isTestCode(path: string): boolean {
  const name = posix.basename(path);
  return (
    /\.test\.[a-z]+$/.test(name) || name === 'testing.ts' || name.endsWith('.testing.ts') || path.split('/').includes('fixtures') || path.startsWith('server/hostile/cells/')
  );
}

/** Repo-relative posix paths of the non-test source files under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .map((p) => posix.join(dir, p.split(sep).join('/')))
    .filter((p) => SOURCE_FILE.test(p) && !isTestCode(p) && statSync(join(REPO_ROOT, p)).isFile());
}

// Line-anchored, so prose and code inside strings (a cell, a message) are not taken for imports.
const STATIC_IMPORT = /^[ \t]*(import|export)(\s+type)?\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm;
const SIDE_EFFECT_IMPORT = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
/** A JSDoc type import in plain JavaScript: `/** @import { A, B } from './x.ts' *\/` (types only). */
const JSDOC_IMPORT = /@import\s+[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g;

/** The relative imports of `file` (whose text is `text`), resolved to repo-relative paths; package imports are skipped. */
function parseImports(file: string, text: string): ImportEdge[] {
  const found: Array<{ spec: string; typeOnly: boolean }> = [];
  for (const m of text.matchAll(STATIC_IMPORT)) found.push({ spec: m[3]!, typeOnly: Boolean(m[2]) });
  for (const m of text.matchAll(SIDE_EFFECT_IMPORT)) found.push({ spec: m[1]!, typeOnly: false });
  for (const m of text.matchAll(DYNAMIC_IMPORT)) found.push({ spec: m[1]!, typeOnly: false });
  for (const m of text.matchAll(JSDOC_IMPORT)) found.push({ spec: m[1]!, typeOnly: true });
  return found.filter((f) => f.spec.startsWith('.')).map((f) => ({ from: file, to: posix.normalize(posix.join(posix.dirname(file), f.spec)), typeOnly: f.typeOnly }));
}

/** `runs/` for server/runs/..., `gateway.ts` for server/gateway.ts, undefined outside server/. */
function unitOf(path: string): string | undefined {
  if (!path.startsWith('server/')) return undefined;
  const rest = path.slice('server/'.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : rest.slice(0, slash + 1);
}

/** Every rule an edge breaks against `layers`, in the words the failure message uses. */
function checkImports(edges: readonly ImportEdge[], layers: readonly Layer[]): Violation[] {
  const rank = new Map<string, number>();
  layers.forEach((layer, i) => layer.units.forEach((u) => rank.set(u, i)));
  const gatewayRank = rank.get('gateway.ts') ?? -1;
  const placeOf = (unit: string) => `${unit} (layer ${rank.get(unit)! + 1}: ${layers[rank.get(unit)!]!.why.split(':')[0]})`;
  const violations: Violation[] = [];
  for (const edge of edges) {
    const from = unitOf(edge.from);
    const to = unitOf(edge.to);
    if (from === undefined) continue;
    if (to === undefined) {
      // shared/ is the neutral folder (checkAreas holds it to importing nothing else)
      if (edge.to.startsWith('shared/')) continue;
      violations.push({ ...edge, rule: 'server/ imports nothing outside server/ by path (UI code, scripts): use a package or move the code' });
      continue;
    }
    if (isTestCode(edge.to)) {
      violations.push({ ...edge, rule: 'production code imports a test kit: move what it needs into production code, or make the importer test code' });
      continue;
    }
    if (from === to) continue;
    const missing = [from, to].filter((u) => !rank.has(u));
    if (missing.length > 0) {
      violations.push({ ...edge, rule: `${missing.join(' and ')} has no layer: add it to LAYERS in server/architecture.test.ts` });
      continue;
    }
    if (rank.get(from)! > rank.get(to)!) {
      violations.push({ ...edge, rule: `against the arrows: ${placeOf(from)} imports from above it, ${placeOf(to)}` });
      continue;
    }
    if (EDGE_UNITS.has(from) && !edge.typeOnly && !EDGE_UNITS.has(to) && !EDGE_VALUE_UNITS.has(to) && rank.get(to)! > gatewayRank) {
      violations.push({ ...edge, rule: `the API edge reaches past the Gateway: ${from} may import only types from ${to}; get the value from the Gateway` });
    }
  }
  return violations;
}

/** The top-level area of a repo-relative path (`components/`), or undefined for a file at the root. */
function areaOf(path: string): string | undefined {
  const slash = path.indexOf('/');
  return slash < 0 ? undefined : path.slice(0, slash + 1);
}

/** Every import from one area into another that `areas` does not allow (imports inside an area are checkImports' business). */
function checkAreas(edges: readonly ImportEdge[], areas: typeof AREAS): Violation[] {
  const violations: Violation[] = [];
  for (const edge of edges) {
    const from = areaOf(edge.from);
    const to = areaOf(edge.to);
    if (from === undefined || from === to) continue;
    const rules = areas[from];
    if (!rules) continue;
    if (to !== undefined && rules.values.includes(to)) continue;
    if (to !== undefined && edge.typeOnly && rules.types.includes(to)) continue;
    const allowed = [...rules.values.map((a) => `anything from ${a}`), ...rules.types.map((a) => `types from ${a}`)];
    const hint = rules.types.includes(to ?? '') ? 'import it as a type, or move the value into shared/' : 'move the code, or change AREAS in server/architecture.test.ts';
    violations.push({ ...edge, rule: `${from} (${rules.why}) may import ${allowed.length > 0 ? allowed.join(' and ') : 'nothing outside itself'}: ${hint}` });
  }
  return violations;
}

/** Cycles between units (each as its units in order, first repeated last, with one import per hop), found by Tarjan's SCCs. */
function unitCycles(edges: readonly ImportEdge[]): string[] {
  const graph = new Map<string, Map<string, ImportEdge>>();
  for (const edge of edges) {
    const from = unitOf(edge.from);
    const to = unitOf(edge.to);
    if (from === undefined || to === undefined || from === to) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    if (!graph.get(from)!.has(to)) graph.get(from)!.set(to, edge);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (u: string) => {
    index.set(u, index.size);
    low.set(u, index.get(u)!);
    stack.push(u);
    onStack.add(u);
    for (const v of graph.get(u)?.keys() ?? []) {
      if (!index.has(v)) {
        visit(v);
        low.set(u, Math.min(low.get(u)!, low.get(v)!));
      } else if (onStack.has(v)) low.set(u, Math.min(low.get(u)!, index.get(v)!));
    }
    if (low.get(u) !== index.get(u)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== u);
    if (component.length > 1) components.push(component);
  };
  for (const u of [...graph.keys()].sort()) if (!index.has(u)) visit(u);
  // one concrete cycle per component: walk from its first unit, staying inside it, until a unit repeats
  return components.map((component) => {
    const inside = new Set(component);
    const path = [component.sort()[0]!];
    while (path.indexOf(path.at(-1)!) === path.length - 1) {
      const next = [...(graph.get(path.at(-1)!)?.keys() ?? [])].filter((v) => inside.has(v)).sort()[0]!;
      path.push(next);
    }
    const loop = path.slice(path.indexOf(path.at(-1)!));
    const hops = loop.slice(1).map((to, i) => {
      const edge = graph.get(loop[i]!)!.get(to)!;
      return `${edge.from} imports ${edge.to}`;
    });
    return `cycle ${loop.join(' -> ')}: ${hops.join('; ')}`;
  });
}

/** The header comment of a source file: its leading comment and blank lines (after a 'use client' directive). */
function headerComment(text: string): string {
  const header: string[] = [];
  let inBlock = false;
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (inBlock) {
      header.push(t);
      if (t.includes('*/')) inBlock = false;
    } else if (t.startsWith('//') || t === '' || /^['"]use (client|server)['"];?$/.test(t)) header.push(t);
    else if (t.startsWith('/*')) {
      header.push(t);
      inBlock = !t.includes('*/');
    } else break;
  }
  return header.join('\n');
}

/** Lines of `text` (a final newline does not start another line). */
function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** A file over the limit whose header comment does not say why. */
function isUnexplainedLongFile(text: string): boolean {
  return lineCount(text) > LINE_LIMIT && !headerComment(text).includes(LONG_FILE_MARKER);
}

const describeViolation = (v: Violation) => `${v.from} imports ${v.to}: ${v.rule}`;

// ---- the tree --------------------------------------------------------------------------------------

/** The imports of `files`. */
function edgesOf(files: readonly string[]): ImportEdge[] {
  return files.flatMap((file) => parseImports(file, readFileSync(join(REPO_ROOT, file), 'utf8')));
}

describe('architecture of server/', () => {
  const edges = edgesOf(sourceFiles('server'));
  const isPending = (e: { from: string; to: string }) => PENDING.some((p) => p.from === e.from && p.to === e.to);

  it('finds the imports it checks (a broken walk would pass everything)', () => {
    expect(edges.length).toBeGreaterThan(200);
    expect(edges).toContainEqual({ from: 'server/main.ts', to: 'server/gateway.ts', typeOnly: false });
  });

  it('on every import between folders: it follows the layer order, or is listed in PENDING with the item that removes it', () => {
    const unexpected = checkImports(edges, LAYERS).filter((v) => !isPending(v));
    expect(unexpected.map(describeViolation), 'imports that break a rule (see LAYERS at the top of server/architecture.test.ts)').toEqual([]);
  });

  it('on every PENDING entry: the import still exists and still breaks a rule (delete entries whose item has landed)', () => {
    const violations = checkImports(edges, LAYERS);
    const stale = PENDING.filter((p) => !violations.some((v) => v.from === p.from && v.to === p.to));
    expect(stale.map((p) => `${p.from} -> ${p.to} (${p.item})`), 'PENDING entries that no longer break a rule').toEqual([]);
  });

  it('on the folder graph without the PENDING imports: has no cycle', () => {
    expect(unitCycles(edges.filter((e) => !isPending(e)))).toEqual([]);
  });

  it('on every unit of the tree: it has a place in LAYERS, and every unit of LAYERS exists', () => {
    const units = new Set(sourceFiles('server').map((f) => unitOf(f)!));
    const placed = LAYERS.flatMap((l) => l.units);
    expect([...units].filter((u) => !placed.includes(u)).sort(), 'units without a layer').toEqual([]);
    expect(placed.filter((u) => !units.has(u)), 'layer units that do not exist').toEqual([]);
  });
});

describe('areas: the page, the bench, the server and shared/', () => {
  const files = Object.keys(AREAS).flatMap((area) => sourceFiles(area.slice(0, -1)));
  const edges = files.flatMap((file) => parseImports(file, readFileSync(join(REPO_ROOT, file), 'utf8')));

  it('finds the imports it checks in every area', () => {
    expect(edges).toContainEqual({ from: 'components/editor/languageService.ts', to: 'shared/cell-types.mjs', typeOnly: false });
    expect(edges).toContainEqual({ from: 'components/api.ts', to: 'server/trpc/routers/_app.ts', typeOnly: true });
    expect(edges.some((e) => e.from.startsWith('bench/') && e.to.startsWith('server/'))).toBe(true);
  });

  it('on every import between areas: AREAS allows it (the page takes only types from server/, shared/ imports no other area)', () => {
    expect(checkAreas(edges, AREAS).map(describeViolation)).toEqual([]);
  });
});

describe('type-checking of JavaScript', () => {
  const config = ts.getParsedCommandLineOfConfigFile(join(REPO_ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  const checked = new Set((config?.fileNames ?? []).map((f) => posix.relative(REPO_ROOT.split(sep).join('/'), f.split(sep).join('/'))));
  const scripts = CHECKED_JS_FOLDERS.flatMap((dir) =>
    readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
      .map((p) => posix.join(dir, p.split(sep).join('/')))
      .filter((p) => /\.(mjs|js)$/.test(p)),
  );

  it(`tsconfig.json checks JavaScript (checkJs) and names every .mjs and .js file under ${CHECKED_JS_FOLDERS.join('/, ')}/ but the listed ones`, () => {
    expect(config?.options.checkJs).toBe(true);
    expect(scripts.length).toBeGreaterThan(20);
    const unchecked = scripts.filter((f) => !checked.has(f) && !UNCHECKED_JS_FILES.some((u) => f.startsWith(u.prefix)));
    expect(unchecked, 'add the file to the include globs of tsconfig.json (and type it with JSDoc)').toEqual([]);
  });

  it('every UNCHECKED_JS_FILES entry still names an unchecked file (delete entries tsc now checks)', () => {
    const stale = UNCHECKED_JS_FILES.filter((u) => !scripts.some((f) => f.startsWith(u.prefix) && !checked.has(f)));
    expect(stale.map((u) => u.prefix)).toEqual([]);
  });

  it('no declaration file is kept by hand beside a source (x.d.mts next to x.mjs): the JSDoc is the declaration', () => {
    // (tsc itself would read the .d.mts in place of the source, and leave the source unchecked)
    const beside = scripts.filter((f) => f.endsWith('.mjs') && statSync(join(REPO_ROOT, f.replace(/\.mjs$/, '.d.mts')), { throwIfNoEntry: false }));
    expect(beside).toEqual([]);
  });
});

describe(`source files over ${LINE_LIMIT} lines`, () => {
  const files = [...sourceFiles('server'), ...sourceFiles('components')];
  const long = files.filter((f) => isUnexplainedLongFile(readFileSync(join(REPO_ROOT, f), 'utf8')));

  it(`on every file under server/ and components/: at most ${LINE_LIMIT} lines, or a "${LONG_FILE_MARKER} <why>" line in its header comment, or PENDING_LONG`, () => {
    const unexpected = long.filter((f) => !PENDING_LONG.some((p) => p.file === f));
    expect(unexpected, `split the file, or say in its header why it stays one file ("// ${LONG_FILE_MARKER} ...")`).toEqual([]);
  });

  it('on every PENDING_LONG entry: the file is still long and unexplained (delete entries whose item has landed)', () => {
    expect(PENDING_LONG.filter((p) => !long.includes(p.file)).map((p) => `${p.file} (${p.item})`)).toEqual([]);
  });
});

// ---- the Gateway facade -----------------------------------------------------------------------------

/** The Gateway's own files: the only ones that may touch its parts. */
const GATEWAY_FILES = /^server\/(gateway\.ts|gateway-types\.ts|gateway\/)/;
/** Public fields of class Gateway besides its methods (the faces): the edge's ownership checks, the diagnostics seam, the config it was built from, and the start's identity (instance id, durable runs' snapshot key). */
const GATEWAY_PUBLIC_FIELDS: readonly string[] = ['ownership', 'diagnostics', 'config', 'instanceId', 'snapshotKey'];
/** Names the Gateway once exposed for its parts; code that reads them again reaches past the faces. */
const RETIRED_GATEWAY_FIELDS: readonly string[] = ['runsManager'];
/** The Gateway's constructor only wires (parts in gateway/parts.ts, each face in its module): past this many lines it is building again. */
const MAX_GATEWAY_CONSTRUCTOR_LINES = 25;
/** Folders whose code (tests and kits included) may hold a Gateway. */
const GATEWAY_CALLER_DIRS = ['server', 'bench', 'components', 'app', 'e2e', 'scripts'];

interface ClassMember {
  name: string;
  access: 'private' | 'protected' | 'public';
  kind: 'field' | 'method';
}

/** The text of `class <name>` in `text`, from its declaration to its closing brace at column 0. */
function classBody(text: string, name: string): string {
  const start = text.search(new RegExp(`^export class ${name}\\b`, 'm'));
  if (start < 0) return '';
  const end = text.indexOf('\n}\n', start);
  return text.slice(start, end < 0 ? undefined : end + 2);
}

/** The members a class body declares at its own indentation (two spaces), and the constructor's parameter properties. */
function classMembers(body: string): ClassMember[] {
  const members: ClassMember[] = [];
  const accessOf = (modifier: string | undefined) => (modifier ?? 'public') as ClassMember['access'];
  for (const m of body.matchAll(/^ {2}(?:(private|protected|public)\s+)?(?:static\s+)?(?:readonly\s+)?(?:async\s+)?(\w+)\s*([?!]?\s*[:=;(<])/gm)) {
    if (m[2] === 'constructor') continue;
    members.push({ name: m[2]!, access: accessOf(m[1]), kind: m[3]!.trim().endsWith('(') || m[3]!.trim().endsWith('<') ? 'method' : 'field' });
  }
  const params = /^ {2}constructor\(([\s\S]*?)^ {2}\)/m.exec(body)?.[1] ?? '';
  for (const m of params.matchAll(/^\s*(?:\/\*\*[^]*?\*\/\s*)?(private|protected|public)?\s*(readonly\s+)?(\w+)\s*\??:/gm)) {
    if (m[1] || m[2]) members.push({ name: m[3]!, access: accessOf(m[1]), kind: 'field' });
  }
  return members;
}

/** Lines of the class's constructor, from its signature to its closing brace. */
function constructorLines(body: string): number {
  const start = body.search(/^ {2}constructor\(/m);
  if (start < 0) return 0;
  const end = body.indexOf('\n  }\n', start);
  return lineCount(body.slice(start, end + 4));
}

/** Repo-relative posix paths of every source file under `dir`, test code included. */
function everySourceFile(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .map((p) => posix.join(dir, p.split(sep).join('/')))
    .filter((p) => SOURCE_FILE.test(p) && !p.split('/').includes('node_modules') && statSync(join(REPO_ROOT, p)).isFile());
}

/** How `text` reaches into a Gateway past its faces: a private member by bracket (which TypeScript lets through), a retired field, a downcast. */
function facadeReachIns(text: string, privateNames: readonly string[]): string[] {
  const found: string[] = [];
  // on a receiver named as a Gateway (gw, gateway, ctx.gateway, ...): the same key on a document or a message is no reach-in
  for (const name of privateNames) if (new RegExp(`\\b\\w*(?:gw|gateway)(?:\\s+as\\s+\\w+)?\\)?\\s*(?:\\?\\.)?\\[\\s*['"\`]${name}['"\`]\\s*\\]`, 'i').test(text)) found.push(`reads the private ${name} by bracket`);
  for (const name of RETIRED_GATEWAY_FIELDS) if (new RegExp(`\\.${name}\\b`).test(text)) found.push(`reads .${name}, which the Gateway no longer exposes`);
  if (/\binstanceof\s+Gateway\b/.test(text)) found.push('downcasts with instanceof Gateway');
  return found;
}

/** Module-level mutable state in a file: a top-level let or var, or a top-level collection. */
function moduleState(text: string): string[] {
  return [...text.matchAll(/^(?:export\s+)?(?:let|var)\s+(\w+)|^(?:export\s+)?const\s+(\w+)\s*(?::[^=]+)?=\s*new\s+(?:Map|Set|WeakMap|WeakSet)\b/gm)].map((m) => m[1] ?? m[2]!);
}

describe('the Gateway facade', () => {
  const gatewayText = readFileSync(join(REPO_ROOT, 'server/gateway.ts'), 'utf8');
  const body = classBody(gatewayText, 'Gateway');
  const members = classMembers(body);
  const privateNames = members.filter((m) => m.access !== 'public').map((m) => m.name);

  it('finds the members of class Gateway (a broken parse would pass everything)', () => {
    expect(members.filter((m) => m.kind === 'method').length).toBeGreaterThan(30);
    expect(members).toContainEqual({ name: 'exec', access: 'public', kind: 'method' });
    expect(members).toContainEqual({ name: 'config', access: 'public', kind: 'field' });
    expect(privateNames.length).toBeGreaterThan(0);
  });

  it(`on class Gateway: every field is private except ${GATEWAY_PUBLIC_FIELDS.join(', ')} (its parts are reached through its faces)`, () => {
    const exposed = members.filter((m) => m.kind === 'field' && m.access === 'public' && !GATEWAY_PUBLIC_FIELDS.includes(m.name)).map((m) => m.name);
    expect(exposed, 'public fields of class Gateway: make them private and add what callers need to a face (gateway-types.ts)').toEqual([]);
  });

  it(`on the Gateway's constructor: at most ${MAX_GATEWAY_CONSTRUCTOR_LINES} lines (it wires; gateway/parts.ts builds)`, () => {
    expect(constructorLines(body)).toBeGreaterThan(0);
    expect(constructorLines(body)).toBeLessThanOrEqual(MAX_GATEWAY_CONSTRUCTOR_LINES);
  });

  it(`on every file of ${GATEWAY_CALLER_DIRS.join('/, ')}/ outside the Gateway's own, tests included: no reach into its private parts, no downcast to the class`, () => {
    const files = GATEWAY_CALLER_DIRS.flatMap((d) => everySourceFile(d)).filter((f) => !GATEWAY_FILES.test(f) && f !== 'server/architecture.test.ts');
    expect(files.length).toBeGreaterThan(300);
    const reachIns = files.flatMap((f) => facadeReachIns(readFileSync(join(REPO_ROOT, f), 'utf8'), privateNames).map((why) => `${f} ${why}`));
    expect(reachIns, 'take a face (gateway-types.ts) or the diagnostics seam (gateway.diagnostics) instead').toEqual([]);
  });

  it('on the API edge (http/, trpc/, mcp-server/): takes the Gateway by its faces (gateway-types.ts), never from gateway.ts', () => {
    const fromClass = edgesOf(sourceFiles('server')).filter((e) => EDGE_UNITS.has(unitOf(e.from)!) && e.to === 'server/gateway.ts');
    expect(fromClass.map((e) => `${e.from} imports server/gateway.ts`)).toEqual([]);
  });

  it('on trpc/: no module-level state (what a server shares across requests lives in its context: EdgeState, the test plan runner)', () => {
    const stateful = sourceFiles('server/trpc').flatMap((f) => moduleState(readFileSync(join(REPO_ROOT, f), 'utf8')).map((name) => `${f}: ${name}`));
    expect(stateful).toEqual([]);
  });
});

// ---- the check itself -------------------------------------------------------------------------------

describe('the check itself', () => {
  const layers: Layer[] = [
    { units: ['top/'], why: 'top: imports anything below' },
    { units: ['left/', 'right/'], why: 'peers: may import each other without a cycle' },
    { units: ['gateway.ts'], why: 'gateway: the facade' },
    { units: ['bottom/'], why: 'bottom: imports nothing above' },
  ];
  const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });

  it('on an import from a lower layer into a higher one: reports both files and the rule, type-only imports too', () => {
    expect(checkImports([edge('server/top/a.ts', 'server/bottom/b.ts'), edge('server/bottom/b.ts', 'server/top/a.ts', true)], layers)).toEqual([
      { from: 'server/bottom/b.ts', to: 'server/top/a.ts', typeOnly: true, rule: 'against the arrows: bottom/ (layer 4: bottom) imports from above it, top/ (layer 1: top)' },
    ]);
  });

  it('on a folder no layer names: reports it by name', () => {
    expect(checkImports([edge('server/top/a.ts', 'server/stray/x.ts')], layers).map((v) => v.rule)).toEqual([
      'stray/ has no layer: add it to LAYERS in server/architecture.test.ts',
    ]);
  });

  it('on production code importing a test kit or a file outside server/: reports each', () => {
    const rules = checkImports([edge('server/top/a.ts', 'server/bottom/testing.ts'), edge('server/top/a.ts', 'components/api.ts', true)], layers).map((v) => v.rule);
    expect(rules).toEqual([expect.stringMatching(/^production code imports a test kit/), expect.stringMatching(/^server\/ imports nothing outside server\//)]);
  });

  it('on peers that import each other: no arrow is broken, and the cycle is reported with one import per hop', () => {
    const peers = [edge('server/left/a.ts', 'server/right/b.ts'), edge('server/right/c.ts', 'server/left/d.ts'), edge('server/left/a.ts', 'server/bottom/e.ts')];
    expect(checkImports(peers, layers)).toEqual([]);
    expect(unitCycles(peers)).toEqual(['cycle left/ -> right/ -> left/: server/left/a.ts imports server/right/b.ts; server/right/c.ts imports server/left/d.ts']);
    expect(unitCycles(peers.slice(0, 1))).toEqual([]);
  });

  it('on imports between areas: the page may take types from server/ and anything from shared/; shared/ imports no other area', () => {
    const found = checkAreas(
      [
        edge('components/a.ts', 'server/x.ts', true),
        edge('components/a.ts', 'shared/c.mjs'),
        edge('components/a.ts', 'server/y.mjs'),
        edge('shared/c.mjs', 'server/z.ts', true),
        edge('server/catalog/v.ts', 'shared/c.mjs'),
        edge('server/catalog/v.ts', 'bench/h.ts'),
        edge('bench/h.ts', 'server/gateway.ts'),
      ],
      AREAS,
    );
    expect(found.map((v) => `${v.from} -> ${v.to}`)).toEqual(['components/a.ts -> server/y.mjs', 'shared/c.mjs -> server/z.ts', 'server/catalog/v.ts -> bench/h.ts']);
    expect(found[0]!.rule).toMatch(/import it as a type, or move the value into shared\//);
    expect(checkImports([edge('server/catalog/v.ts', 'shared/c.mjs')], LAYERS)).toEqual([]);
  });

  it('on the API edge importing a value from below the Gateway: reports it; a type, or a value from the Gateway, passes', () => {
    const edgeLayers: Layer[] = [{ units: ['trpc/'], why: 'the edge' }, ...layers];
    const found = checkImports([edge('server/trpc/r.ts', 'server/bottom/m.ts'), edge('server/trpc/r.ts', 'server/bottom/t.ts', true), edge('server/trpc/r.ts', 'server/gateway.ts')], edgeLayers);
    expect(found.map((v) => [v.to, v.rule])).toEqual([['server/bottom/m.ts', expect.stringMatching(/^the API edge reaches past the Gateway/)]]);
  });

  it('on source text: takes static, re-exported, side-effect and dynamic imports, marks type-only ones, and skips packages and prose', () => {
    const text = [
      "import { a, type B } from './a.ts';",
      'import type {',
      '  C,',
      "} from '../runs/types.ts';",
      "export { d } from './d.ts';",
      "export type { E } from './e.ts';",
      "import './side.ts';",
      "const m = await import('../executors/x.ts');",
      "import { z } from 'zod';",
      "/** @import { F } from '../bridge/f.ts' */",
      "const prose = 'say import x from this';",
    ].join('\n');
    expect(parseImports('server/bridge/p.ts', text)).toEqual([
      { from: 'server/bridge/p.ts', to: 'server/bridge/a.ts', typeOnly: false },
      { from: 'server/bridge/p.ts', to: 'server/runs/types.ts', typeOnly: true },
      { from: 'server/bridge/p.ts', to: 'server/bridge/d.ts', typeOnly: false },
      { from: 'server/bridge/p.ts', to: 'server/bridge/e.ts', typeOnly: true },
      { from: 'server/bridge/p.ts', to: 'server/bridge/side.ts', typeOnly: false },
      { from: 'server/bridge/p.ts', to: 'server/executors/x.ts', typeOnly: false },
      { from: 'server/bridge/p.ts', to: 'server/bridge/f.ts', typeOnly: true },
    ]);
  });

  it('on a class body: finds its fields, methods and parameter properties with their access (a plain parameter is none)', () => {
    const body = [
      'export class Gateway implements GatewayApi {',
      '  readonly ownership: OwnershipApi;',
      '  private readonly parts: GatewayParts;',
      '  private closed = false;',
      '',
      '  constructor(',
      '    /** the config: read it */',
      '    readonly config: GatewayConfig,',
      '    loaded: LoadedSources,',
      '    private readonly opts: GatewayOptions = {},',
      '  ) {',
      '    this.parts = build(loaded);',
      '  }',
      '  exec(agentRunId: string): void {',
      '    return;',
      '  }',
      '  private assertOpen(): void {}',
      '  async close(): Promise<void> {}',
      '}',
      '',
    ].join('\n');
    expect(classMembers(classBody(`// header\n${body}export function after() {}\n`, 'Gateway'))).toEqual([
      { name: 'ownership', access: 'public', kind: 'field' },
      { name: 'parts', access: 'private', kind: 'field' },
      { name: 'closed', access: 'private', kind: 'field' },
      { name: 'exec', access: 'public', kind: 'method' },
      { name: 'assertOpen', access: 'private', kind: 'method' },
      { name: 'close', access: 'public', kind: 'method' },
      { name: 'config', access: 'public', kind: 'field' },
      { name: 'opts', access: 'private', kind: 'field' },
    ]);
    expect(constructorLines(body)).toBe(8);
  });

  it('on code that reaches past the faces: a private member by bracket on a Gateway, a retired field and a downcast are each reported; a face call, or the key on something else, is not', () => {
    expect(facadeReachIns("gw['parts'].runs; x.runsManager.leaks(); if (g instanceof Gateway) {}; doc['faces']", ['parts', 'faces'])).toEqual([
      'reads the private parts by bracket',
      'reads .runsManager, which the Gateway no longer exposes',
      'downcasts with instanceof Gateway',
    ]);
    expect(facadeReachIns('gw.diagnostics.leaks(); caller.sessions.transcript({ sessionId }); gw.runs()', ['parts', 'faces'])).toEqual([]);
    expect(facadeReachIns("(ctx.gateway as never)['faces']; tightGw?.['parts']", ['parts', 'faces'])).toEqual(['reads the private parts by bracket', 'reads the private faces by bracket']);
  });

  it('on module state: a top-level let or var and a top-level collection are reported; constants, and state inside functions, are not', () => {
    const text = 'let running = false;\nexport const subs = new Map<string, number>();\nconst LIMIT = 5;\nfunction f() {\n  let local = 1;\n}\n';
    expect(moduleState(text)).toEqual(['running', 'subs']);
  });

  it(`on a file over ${LINE_LIMIT} lines: unexplained unless its header comment has the marker; a marker below the header does not count`, () => {
    const body = 'const x = 1;\n'.repeat(LINE_LIMIT);
    expect(isUnexplainedLongFile(`// owns x\n${body}`)).toBe(true);
    expect(isUnexplainedLongFile(`'use client';\n// owns x\n// ${LONG_FILE_MARKER} one state machine\n${body}`)).toBe(false);
    expect(isUnexplainedLongFile(`// owns x\n${body}// ${LONG_FILE_MARKER} hidden\n`)).toBe(true);
    expect(isUnexplainedLongFile(`// owns x\n${'const x = 1;\n'.repeat(LINE_LIMIT - 1)}`)).toBe(false);
  });
});
