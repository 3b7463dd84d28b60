// typecheck's thread (see server/offload/deadline-worker.ts and typecheck.ts): the TypeScript compiler, loaded
// once and warmed before the thread reports ready, checks one cell at a time. The host terminates this thread
// when a check outlives its deadline.
//
// The program is two virtual files (the ambient declarations and the cell) plus lib.es2022 from the typescript
// package. Lib SourceFiles are parsed once per thread and reused by every later program (the binder skips files
// it already bound), which keeps a check in the tens of milliseconds after the first.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parentPort } from 'node:worker_threads';
import tsModule from 'typescript';

const ts = tsModule;
const ROOT = '/codemode';
const CELL_FILE = `${ROOT}/cell.ts`;
const DECLARATIONS_FILE = `${ROOT}/declarations.d.ts`;
// The cell sits inside an async arrow so top-level `await` and `return` typecheck as they run; it starts on line 2.
const CELL_PREFIX = 'void (async () => {\n';
const CELL_SUFFIX = '\n})();\n';
const CELL_PREFIX_LINES = 1;

const options = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  types: [],
  noEmit: true,
  noResolve: true,
  skipLibCheck: true,
  moduleDetection: ts.ModuleDetectionKind.Legacy,
};
const libDir = dirname(ts.getDefaultLibFilePath(options));
const libFiles = new Map();
let declarations;
let previousProgram;

const parse = (fileName, text) => ts.createSourceFile(fileName, text, { languageVersion: ts.ScriptTarget.ES2022 }, true);

function libText(fileName) {
  if (!fileName.startsWith(libDir)) return undefined;
  try {
    return readFileSync(fileName, 'utf8');
  } catch {
    return undefined;
  }
}

function createHost(cellText, declarationsText) {
  const cellFile = parse(CELL_FILE, cellText);
  if (declarations?.text !== declarationsText) declarations = { text: declarationsText, file: parse(DECLARATIONS_FILE, declarationsText) };
  const declarationsFile = declarations.file;
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

const flatten = (message) => ts.flattenDiagnosticMessageText(message, '\n').replace(/\s*\n\s*/g, ' ');

/** { diagnostics } positioned on the user's lines, or { hostFault } when the compiler itself could not run. */
function check({ source, declarations: declarationsText }) {
  const host = createHost(`${CELL_PREFIX}${source}${CELL_SUFFIX}`, declarationsText);
  const program = ts.createProgram({ rootNames: [DECLARATIONS_FILE, CELL_FILE], options, host, oldProgram: previousProgram });
  previousProgram = program;
  const global = program.getGlobalDiagnostics();
  // Missing global types mean the lib files did not load: a host fault, not the cell's.
  if (global.length > 0) return { hostFault: `typecheck could not load its TypeScript libraries: ${flatten(global[0]?.messageText ?? '')}` };
  const cellFile = program.getSourceFile(CELL_FILE);
  if (cellFile === undefined) return { hostFault: 'typecheck lost its cell file' };
  const userLines = source.split(/\r\n|\r|\n/).length;
  const found = [...program.getSyntacticDiagnostics(cellFile), ...program.getSemanticDiagnostics(cellFile)];
  const diagnostics = found.map((diagnostic) => {
    const start = diagnostic.start ?? CELL_PREFIX.length;
    const position = cellFile.getLineAndCharacterOfPosition(start);
    // Diagnostics anchored on the wrapper (before line 1 or after the last line) are pinned to the nearest user line.
    const line = Math.min(Math.max(position.line - CELL_PREFIX_LINES + 1, 1), userLines);
    const column = position.line < CELL_PREFIX_LINES ? 1 : position.character + 1;
    return { line, column, message: flatten(diagnostic.messageText) };
  });
  return { diagnostics };
}

parentPort.on('message', ({ id, job }) => {
  try {
    parentPort.postMessage({ id, ok: true, value: check(job) });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});

// warm-up: parse and bind the lib files now, so a cell's deadline measures its own check only
check({ source: 'return 1;', declarations: '' });
parentPort.postMessage({ t: 'ready' });
