// The one type world of a cell: the compiler options, the wrapper a cell is checked inside, and how a compiler
// diagnostic on the wrapped text becomes a diagnostic on the user's lines. The server typecheck
// (server/cell/typecheck-worker.mjs) and the playground editor (components/editor/cellCheck.ts, over Monaco's TypeScript
// worker) both use exactly this, and the Gateway serves it with the declarations (catalog view `cellTypes`), so
// the editor's squiggles are the server's diagnostics. Plain JavaScript with no imports, so the typecheck thread
// and the browser load it as it is; tsc reads its types from the JSDoc. It lives in shared/, the one folder both
// the page and the server import values from (server/architecture.test.ts holds both sides to that).

/** @typedef {'javascript' | 'typescript'} CellTypesLanguage */
/**
 * TypeScript compiler options as JSON (enum members by number).
 * @typedef {{
 *   strict: boolean, target: number, lib: string[], types: string[], noEmit: boolean, noResolve: boolean,
 *   skipLibCheck: boolean, moduleDetection: number, allowJs?: boolean, checkJs?: boolean, noImplicitAny?: boolean,
 * }} CellCompilerOptions
 */
/**
 * What the Gateway serves to the page beside the declarations.
 * @typedef {{ prefix: string, suffix: string, compilerOptions: Record<CellTypesLanguage, CellCompilerOptions> }} CellTypeWorld
 */
/** A diagnostic chain as TypeScript (and Monaco's worker) gives it. @typedef {{ messageText: string, next?: MessageChain[] }} MessageChain */
/** A compiler diagnostic on the wrapped text. @typedef {{ start?: number | undefined, length?: number | undefined, messageText: string | MessageChain, code: number }} RawDiagnostic */
/**
 * A diagnostic on the user's lines: 1-based line and column, its end, the message, and TypeScript's code (2339).
 * @typedef {{ line: number, column: number, endLine: number, endColumn: number, message: string, code: number }} CellTypeDiagnostic
 */

/**
 * A cell is the body of an async function: it is checked inside one, so top-level `await` and `return` mean what
 * they do at run time and the returned expression is checked too (a top-level `return` in a module is a grammar
 * error the checker stops at, which hid `return w.temperature` from the editor). It starts on line 2.
 */
export const CELL_PREFIX = 'void (async () => {\n';
export const CELL_SUFFIX = '\n})();\n';

/**
 * TypeScript compiler options as JSON (enum members by number, so they travel to the page): strict, ES2022
 * syntax and lib only (no DOM, no Node types: a guest has neither), nothing resolved from disk. Every
 * non-declaration file is a module (moduleDetection 3 = Force), so the editor's own cell model cannot leak
 * globals into the checked copy; the declarations (.d.ts) stay global. JavaScript cells get the same world with
 * checkJs and without noImplicitAny (JavaScript has no annotations to give a parameter a type; the rest of strict
 * stays). The server typechecks TypeScript cells only (exec's rule); the editor flags JavaScript ones likewise.
 * @param {CellTypesLanguage} language
 * @returns {CellCompilerOptions}
 */
export function cellCompilerOptions(language) {
  const options = {
    strict: true,
    target: 9, // ES2022
    lib: ['lib.es2022.d.ts'],
    types: [],
    noEmit: true,
    noResolve: true,
    skipLibCheck: true,
    moduleDetection: 3, // Force
  };
  return language === 'javascript' ? { ...options, allowJs: true, checkJs: true, noImplicitAny: false } : options;
}

/** What the Gateway serves to the page beside the declarations. @returns {CellTypeWorld} */
export function cellTypeWorld() {
  return {
    prefix: CELL_PREFIX,
    suffix: CELL_SUFFIX,
    compilerOptions: { typescript: cellCompilerOptions('typescript'), javascript: cellCompilerOptions('javascript') },
  };
}

/** The text the compiler checks for `source`. @param {string} source */
export function wrapCell(source, prefix = CELL_PREFIX, suffix = CELL_SUFFIX) {
  return `${prefix}${source}${suffix}`;
}

/**
 * TypeScript's flattenDiagnosticMessageText, then folded onto one line (a chain's indented steps joined by spaces).
 * @param {string | MessageChain | undefined} messageText
 */
export function flattenMessage(messageText) {
  /** @type {string[]} */
  const parts = [];
  /** @param {string | MessageChain | null | undefined} chain @param {number} depth */
  const walk = (chain, depth) => {
    if (chain === undefined || chain === null) return;
    if (typeof chain === 'string') return void parts.push(chain);
    parts.push(String(chain.messageText));
    for (const next of chain.next ?? []) walk(next, depth + 1);
  };
  walk(messageText, 0);
  return parts.join('\n').replace(/\s*\n\s*/g, ' ');
}

/** Offsets where each line of `text` starts; lines end at \r\n, \r or \n (as an editor counts them). @param {string} text */
function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13 && text.charCodeAt(i + 1) === 10) i++;
    if (ch === 10 || ch === 13) starts.push(i + 1);
  }
  return starts;
}

/** 1-based line and column of `offset` in a text with `starts`, pinned inside the text. @param {number[]} starts @param {number} textLength @param {number} offset */
function position(starts, textLength, offset) {
  const at = Math.min(Math.max(offset, 0), textLength);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= at) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: at - (starts[lo] ?? 0) + 1 };
}

/**
 * Compiler diagnostics of the wrapped cell (`{ start, length, messageText, code }`, as TypeScript and Monaco's
 * worker give them) on the user's lines and columns (1-based). A diagnostic on the wrapper before the cell pins
 * to line 1 column 1; one after it pins to the cell's end.
 * @param {readonly RawDiagnostic[]} found @param {string} source
 * @returns {CellTypeDiagnostic[]}
 */
export function cellDiagnostics(found, source, prefix = CELL_PREFIX) {
  const starts = lineStarts(source);
  return found.map((d) => {
    const start = (d.start ?? prefix.length) - prefix.length;
    const end = start + (d.length ?? 0);
    const from = position(starts, source.length, start);
    const to = position(starts, source.length, Math.max(end, start));
    return { line: from.line, column: from.column, endLine: to.line, endColumn: to.column, message: flattenMessage(d.messageText), code: d.code };
  });
}
