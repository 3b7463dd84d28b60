// TypeScript -> JavaScript for cells with sucrase: strips types, keeps line numbers, never loads the TypeScript compiler.
import { transform } from 'sucrase';
import { InvalidInputError } from '../errors.ts';
import { looksLikeShellCommand, shellInputError } from './checks.ts';
import { checkTypeScriptModules } from './ts-modules.ts';
import type { CellLanguage } from './exec-input.ts';

interface SucraseError extends Error {
  /** Both 1-based (unlike acorn's 0-based column). */
  loc: { line: number; column: number };
}

function isSucraseError(error: unknown): error is SucraseError {
  if (!(error instanceof Error)) return false;
  const loc = (error as Error & { loc?: unknown }).loc;
  return typeof loc === 'object' && loc !== null && typeof (loc as { line?: unknown }).line === 'number';
}

/** Strip TypeScript syntax. Imports are kept (not elided as unused) so the source checks see and reject them. */
export function transformTypeScript(source: string): string {
  let code: string;
  try {
    code = transform(source, {
      transforms: ['typescript'],
      // Leave modern JavaScript as written: both engines run it, and untouched code keeps its columns.
      disableESTransforms: true,
      keepUnusedImports: true,
    }).code;
  } catch (error) {
    if (looksLikeShellCommand(source)) throw shellInputError(source);
    if (isSucraseError(error)) {
      const message = error.message.replace(/\s*\(\d+:\d+\)$/, '');
      throw new InvalidInputError(
        `exec: TypeScript syntax error at line ${error.loc.line}:${error.loc.column}: ${message}. Fix the cell source and call exec again.`,
      );
    }
    throw error;
  }
  // what sucrase accepts but would drop (a namespace) or turn into CommonJS (`export =`)
  checkTypeScriptModules(source);
  return code;
}

/** The JavaScript an engine runs for a cell of either language. */
export function toJavaScript(source: string, language: CellLanguage): string {
  return language === 'typescript' ? transformTypeScript(source) : source;
}
