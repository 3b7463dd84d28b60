// Opt-in typecheck of a TypeScript cell against the generated tool declarations (TypeScript compiler API, loaded lazily).
//
// Only `typecheck: true` reaches this file's TypeScript import, so JavaScript cells and plain TypeScript cells never
// load the compiler. The program is two virtual files (the ambient declarations and the cell) plus lib.es2022 read
// from the typescript package. Lib SourceFiles are parsed once per process and reused by every later program
// (the binder skips files it already bound), which keeps a check in the tens of milliseconds after the first.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as TS from 'typescript';
import { CodeModeError } from '../errors.ts';

type TypeScript = typeof TS;

export interface CellDiagnostic {
  /** 1-based line in the user's cell source. */
  line: number;
  /** 1-based column. */
  column: number;
  message: string;
}

const ROOT = '/codemode';
const CELL_FILE = `${ROOT}/cell.ts`;
const DECLARATIONS_FILE = `${ROOT}/declarations.d.ts`;
// The cell sits inside an async arrow so top-level `await` and `return` typecheck as they run; it starts on line 2.
const CELL_PREFIX = 'void (async () => {\n';
const CELL_SUFFIX = '\n})();\n';
const CELL_PREFIX_LINES = 1;

let typescript: Promise<TypeScript> | undefined;
const libFiles = new Map<string, TS.SourceFile>();
let declarations: { text: string; file: TS.SourceFile } | undefined;
let previousProgram: TS.Program | undefined;

function loadTypeScript(): Promise<TypeScript> {
  typescript ??= import('typescript').then((mod) => mod.default);
  return typescript;
}

function compilerOptions(ts: TypeScript): TS.CompilerOptions {
  return {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
    noEmit: true,
    noResolve: true,
    skipLibCheck: true,
    moduleDetection: ts.ModuleDetectionKind.Legacy,
  };
}

function createHost(ts: TypeScript, options: TS.CompilerOptions, cellText: string, declarationsText: string): TS.CompilerHost {
  const libDir = dirname(ts.getDefaultLibFilePath(options));
  const parse = (fileName: string, text: string) => ts.createSourceFile(fileName, text, { languageVersion: ts.ScriptTarget.ES2022 }, true);
  const cellFile = parse(CELL_FILE, cellText);
  if (declarations?.text !== declarationsText) declarations = { text: declarationsText, file: parse(DECLARATIONS_FILE, declarationsText) };
  const declarationsFile = declarations.file;

  const libText = (fileName: string): string | undefined => {
    if (!fileName.startsWith(libDir)) return undefined;
    try {
      return readFileSync(fileName, 'utf8');
    } catch {
      return undefined;
    }
  };
  return {
    getSourceFile(fileName) {
      if (fileName === CELL_FILE) return cellFile;
      if (fileName === DECLARATIONS_FILE) return declarationsFile;
      const cached = libFiles.get(fileName);
      if (cached) return cached;
      const text = libText(fileName);
      if (text === undefined) return undefined;
      const file = parse(fileName, text);
      libFiles.set(fileName, file);
      return file;
    },
    getDefaultLibFileName: (opts) => ts.getDefaultLibFilePath(opts),
    getDefaultLibLocation: () => libDir,
    writeFile: () => {},
    getCurrentDirectory: () => ROOT,
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (fileName) => fileName === CELL_FILE || fileName === DECLARATIONS_FILE || libFiles.has(fileName) || libText(fileName) !== undefined,
    readFile: (fileName) => (fileName === CELL_FILE ? cellText : fileName === DECLARATIONS_FILE ? declarationsText : libText(fileName)),
  };
}

function flatten(ts: TypeScript, message: string | TS.DiagnosticMessageChain): string {
  return ts.flattenDiagnosticMessageText(message, '\n').replace(/\s*\n\s*/g, ' ');
}

/** Typecheck a TypeScript cell; returns the cell's diagnostics (empty when it typechecks), positioned on the user's lines. */
export async function typecheckCell(tsSource: string, ambientDeclarations: string): Promise<CellDiagnostic[]> {
  const ts = await loadTypeScript();
  const options = compilerOptions(ts);
  const host = createHost(ts, options, `${CELL_PREFIX}${tsSource}${CELL_SUFFIX}`, ambientDeclarations);
  const program = ts.createProgram({ rootNames: [DECLARATIONS_FILE, CELL_FILE], options, host, oldProgram: previousProgram });
  previousProgram = program;

  const global = program.getGlobalDiagnostics();
  if (global.length > 0) {
    // Missing global types mean the lib files did not load: a host fault, not the cell's.
    throw new CodeModeError('internal_error', `typecheck could not load its TypeScript libraries: ${flatten(ts, global[0]?.messageText ?? '')}`);
  }
  const cellFile = program.getSourceFile(CELL_FILE);
  if (cellFile === undefined) throw new CodeModeError('internal_error', 'typecheck lost its cell file');
  const userLines = tsSource.split(/\r\n|\r|\n/).length;
  const found = [...program.getSyntacticDiagnostics(cellFile), ...program.getSemanticDiagnostics(cellFile)];
  return found.map((diagnostic) => {
    const start = diagnostic.start ?? CELL_PREFIX.length;
    const position = cellFile.getLineAndCharacterOfPosition(start);
    // Diagnostics anchored on the wrapper (before line 1 or after the last line) are pinned to the nearest user line.
    const line = Math.min(Math.max(position.line - CELL_PREFIX_LINES + 1, 1), userLines);
    const column = position.line < CELL_PREFIX_LINES ? 1 : position.character + 1;
    return { line, column, message: flatten(ts, diagnostic.messageText) };
  });
}
