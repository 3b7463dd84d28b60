// The cell editor's typed config: every field has a documented default in defaultConfig().
import type { CellLanguage } from './share.ts';

/** TypeScript diagnostics that are wrong for a cell rather than for the code in it. */
export const CELL_DIAGNOSTICS_TO_IGNORE = [
  // "A 'return' statement can only be used within a function body": a cell's `return` is its result.
  1108,
  // Top-level await needs a module target/flag: cells run inside an async body.
  1375, 1378,
] as const;

export interface CellEditorConfig {
  /** Editor font size in px; 13 keeps a 40-line cell on a laptop screen. */
  fontSizePx: number;
  /** Monaco theme id; the playground is dark. */
  theme: 'vs-dark' | 'vs' | 'hc-black';
  /** The minimap is noise for cells of a few dozen lines. */
  minimap: boolean;
  /** Debounce before `onChange` fires (URL updates, drafts): typing stays smooth. */
  changeDebounceMs: number;
  /** Path of the ambient declarations file in the language service (shown in hovers and go-to-definition). */
  declarationsPath: string;
  /** Diagnostic codes the language service must not report. */
  diagnosticCodesToIgnore: number[];
}

export function defaultConfig(): CellEditorConfig {
  return {
    fontSizePx: 13,
    theme: 'vs-dark',
    minimap: false,
    changeDebounceMs: 250,
    declarationsPath: 'file:///codemode/globals.d.ts',
    diagnosticCodesToIgnore: [...CELL_DIAGNOSTICS_TO_IGNORE],
  };
}

/** Model URI per language: the language service picks JS or TS semantics from the extension. */
export function cellModelPath(language: CellLanguage): string {
  return language === 'typescript' ? 'file:///cell.ts' : 'file:///cell.js';
}
