// The cell editor's typed config: every field has a documented default in defaultConfig().
import type { CellLanguage } from './share.ts';

/**
 * Monaco's own diagnostics are off (languageService.ts); these codes would only matter to them: a cell checked
 * as a bare module has a top-level `return` (1108) and `await` (1375, 1378). The markers come from the wrapped
 * copy, which has neither.
 */
export const CELL_DIAGNOSTICS_TO_IGNORE = [1108, 1375, 1378] as const;

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
  /** Debounce before the cell is checked after an edit (the server's world, on a hidden wrapped copy). */
  checkDebounceMs: number;
}

export function defaultConfig(): CellEditorConfig {
  return {
    fontSizePx: 13,
    theme: 'vs-dark',
    minimap: false,
    changeDebounceMs: 250,
    declarationsPath: 'file:///codemode/globals.d.ts',
    diagnosticCodesToIgnore: [...CELL_DIAGNOSTICS_TO_IGNORE],
    checkDebounceMs: 200,
  };
}

/** Model URI per language: the language service picks JS or TS semantics from the extension. */
export function cellModelPath(language: CellLanguage): string {
  return language === 'typescript' ? 'file:///cell.ts' : 'file:///cell.js';
}
