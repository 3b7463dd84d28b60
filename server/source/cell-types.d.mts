// Types of cell-types.mjs (the one type world of a cell: compiler options, wrapper, diagnostic positions).
export type CellTypesLanguage = 'javascript' | 'typescript';

/** TypeScript compiler options as JSON (enum members by number). */
export interface CellCompilerOptions {
  strict: boolean;
  target: number;
  lib: string[];
  types: string[];
  noEmit: boolean;
  noResolve: boolean;
  skipLibCheck: boolean;
  moduleDetection: number;
  allowJs?: boolean;
  checkJs?: boolean;
  noImplicitAny?: boolean;
}

export interface CellTypeWorld {
  prefix: string;
  suffix: string;
  compilerOptions: Record<CellTypesLanguage, CellCompilerOptions>;
}

/** A diagnostic chain as TypeScript (and Monaco's worker) gives it. */
export interface MessageChain {
  messageText: string;
  next?: MessageChain[];
}

export interface RawDiagnostic {
  start?: number | undefined;
  length?: number | undefined;
  messageText: string | MessageChain;
  code: number;
}

export interface CellTypeDiagnostic {
  /** 1-based line in the user's cell source. */
  line: number;
  /** 1-based column. */
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
  /** TypeScript's diagnostic code (2339). */
  code: number;
}

export const CELL_PREFIX: string;
export const CELL_SUFFIX: string;
export function cellCompilerOptions(language: CellTypesLanguage): CellCompilerOptions;
export function cellTypeWorld(): CellTypeWorld;
export function wrapCell(source: string, prefix?: string, suffix?: string): string;
export function flattenMessage(messageText: string | MessageChain | undefined): string;
export function cellDiagnostics(found: readonly RawDiagnostic[], source: string, prefix?: string): CellTypeDiagnostic[];
