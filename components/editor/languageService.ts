// Feeds Monaco's TypeScript service: cell compiler options and the Gateway's ambient tool declarations.
import type * as Monaco from 'monaco-editor';
import type { CellEditorConfig } from './config.ts';

type MonacoApi = typeof Monaco;

/** Options for both JS and TS cells: modern syntax, every file a module (top-level await), no DOM. */
export function cellCompilerOptions(monaco: MonacoApi, language: 'javascript' | 'typescript'): Monaco.typescript.CompilerOptions {
  return {
    target: monaco.typescript.ScriptTarget.ESNext,
    module: monaco.typescript.ModuleKind.ESNext,
    // 3 = "force": each cell is a module, so top-level await type-checks; .d.ts files stay global.
    moduleDetection: 3,
    lib: ['esnext'],
    strict: language === 'typescript',
    noEmit: true,
    allowJs: true,
    // JavaScript cells get red squiggles for a wrong argument too.
    checkJs: true,
    allowNonTsExtensions: true,
  };
}

/** Sets compiler and diagnostics options on both language defaults. Call once, before the first model. */
export function configureLanguageService(monaco: MonacoApi, config: CellEditorConfig): void {
  const diagnostics = {
    noSemanticValidation: false,
    noSyntaxValidation: false,
    diagnosticCodesToIgnore: config.diagnosticCodesToIgnore,
  };
  monaco.typescript.typescriptDefaults.setCompilerOptions(cellCompilerOptions(monaco, 'typescript'));
  monaco.typescript.javascriptDefaults.setCompilerOptions(cellCompilerOptions(monaco, 'javascript'));
  monaco.typescript.typescriptDefaults.setDiagnosticsOptions(diagnostics);
  monaco.typescript.javascriptDefaults.setDiagnosticsOptions(diagnostics);
  monaco.typescript.typescriptDefaults.setEagerModelSync(true);
  monaco.typescript.javascriptDefaults.setEagerModelSync(true);
}

/** Replaces the ambient declarations in both services (the catalog changed, or client tools did). */
export function setDeclarations(monaco: MonacoApi, declarations: string, path: string): void {
  const libs = [{ content: declarations, filePath: path }];
  monaco.typescript.typescriptDefaults.setExtraLibs(libs);
  monaco.typescript.javascriptDefaults.setExtraLibs(libs);
}
