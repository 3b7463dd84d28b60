// typecheck's thread (see server/offload/deadline-worker.ts and typecheck.ts): the TypeScript compiler, loaded
// once and warmed before the thread reports ready, checks one cell at a time. The host terminates this thread
// when a check outlives its deadline.
//
// The program is two virtual files (the ambient declarations and the cell) plus lib.es2022 from the typescript
// package, under the options, wrapper and positions of shared/cell-types.mjs (the editor checks with the same). Lib SourceFiles are parsed once per thread and reused by every later program (the binder skips files
// it already bound), which keeps a check in the tens of milliseconds after the first.
/** @import { CompilerHost, CompilerOptions, Program, SourceFile } from 'typescript' */
/** @import { DeadlineJobMessage, DeadlineWorkerReply } from '../offload/deadline-worker.ts' */
/** @import { CellTypesLanguage } from '../../shared/cell-types.mjs' */
/** @import { CheckJob, CheckResult } from './typecheck.ts' */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parentPort } from 'node:worker_threads';
import tsModule from 'typescript';
import { cellCompilerOptions, cellDiagnostics, flattenMessage, wrapCell } from '../../shared/cell-types.mjs';

const ts = tsModule;
const port = parentPort;
if (!port) throw new Error('the typecheck thread runs on a worker thread');
const ROOT = '/codemode';
/** @type {Record<CellTypesLanguage, string>} */
const CELL_FILES = { typescript: `${ROOT}/cell.ts`, javascript: `${ROOT}/cell.js` };
const DECLARATIONS_FILE = `${ROOT}/declarations.d.ts`;
/** The cell's compiler options as the compiler takes them (shared/cell-types.mjs spells its enums as numbers). @type {Record<CellTypesLanguage, CompilerOptions>} */
const OPTIONS = { typescript: cellCompilerOptions('typescript'), javascript: cellCompilerOptions('javascript') };
const libDir = dirname(ts.getDefaultLibFilePath(OPTIONS.typescript));
/** @type {Map<string, SourceFile>} */
const libFiles = new Map();
/** @type {{ text: string, file: SourceFile } | undefined} */
let declarations;
/** @type {Program | undefined} */
let previousProgram;

/**
 * As a program's own host parses: moduleDetection decides whether the cell is a module (Force: it is). The function
 * is internal to TypeScript (its typings leave it out); the TypeScript version is pinned in package.json.
 * @type {(options: CompilerOptions) => (file: SourceFile) => void}
 */
const setExternalModuleIndicatorFor = /** @type {{ getSetExternalModuleIndicator: (options: CompilerOptions) => (file: SourceFile) => void }} */ (
  /** @type {unknown} */ (ts)
).getSetExternalModuleIndicator;
const parseOptions = { languageVersion: ts.ScriptTarget.ES2022, setExternalModuleIndicator: setExternalModuleIndicatorFor(OPTIONS.typescript) };
/** @param {string} fileName @param {string} text */
const parse = (fileName, text) => ts.createSourceFile(fileName, text, parseOptions, true);

/** @param {string} fileName */
function libText(fileName) {
  if (!fileName.startsWith(libDir)) return undefined;
  try {
    return readFileSync(fileName, 'utf8');
  } catch {
    return undefined;
  }
}

/** @param {string} cellName @param {string} cellText @param {string} declarationsText @returns {CompilerHost} */
function createHost(cellName, cellText, declarationsText) {
  const cellFile = parse(cellName, cellText);
  if (declarations?.text !== declarationsText) declarations = { text: declarationsText, file: parse(DECLARATIONS_FILE, declarationsText) };
  const declarationsFile = declarations.file;
  return {
    getSourceFile(fileName) {
      if (fileName === cellName) return cellFile;
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
    fileExists: (fileName) => fileName === cellName || fileName === DECLARATIONS_FILE || libFiles.has(fileName) || libText(fileName) !== undefined,
    readFile: (fileName) => (fileName === cellName ? cellText : fileName === DECLARATIONS_FILE ? declarationsText : libText(fileName)),
  };
}

/**
 * { diagnostics } positioned on the user's lines, or { hostFault } when the compiler itself could not run.
 * @param {Omit<CheckJob, 'language'> & { language?: CheckJob['language'] }} job
 * @returns {CheckResult}
 */
function check({ source, declarations: declarationsText, language = 'typescript' }) {
  const cellName = CELL_FILES[language] ?? CELL_FILES.typescript;
  const options = OPTIONS[language] ?? OPTIONS.typescript;
  const host = createHost(cellName, wrapCell(source), declarationsText);
  const program = ts.createProgram({ rootNames: [DECLARATIONS_FILE, cellName], options, host, oldProgram: previousProgram });
  previousProgram = program;
  const global = program.getGlobalDiagnostics();
  // Missing global types mean the lib files did not load: a host fault, not the cell's.
  if (global.length > 0) return { hostFault: `typecheck could not load its TypeScript libraries: ${flattenMessage(global[0]?.messageText)}` };
  const cellFile = program.getSourceFile(cellName);
  if (cellFile === undefined) return { hostFault: 'typecheck lost its cell file' };
  const found = [...program.getSyntacticDiagnostics(cellFile), ...program.getSemanticDiagnostics(cellFile)];
  return { diagnostics: cellDiagnostics(found, source) };
}

/** @param {DeadlineWorkerReply<CheckResult>} reply */
const reply = (reply) => port.postMessage(reply);

port.on('message', (/** @type {DeadlineJobMessage<CheckJob>} */ { id, job }) => {
  try {
    reply({ id, ok: true, value: check(job) });
  } catch (error) {
    reply({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});

// warm-up: parse and bind the lib files now, so a cell's deadline measures its own check only
check({ source: 'return 1;', declarations: '' });
reply({ t: 'ready' });
