// Feeds Monaco's TypeScript service: the served cell world (compiler options), and the Gateway's ambient tool declarations.
import type * as Monaco from 'monaco-editor';
import type { CellTypeWorld } from './cellCheck.ts';
import type { CellEditorConfig } from './config.ts';

type MonacoApi = typeof Monaco;

/**
 * Monaco's own diagnostics are off: they would check the visible cell as a module, where a top-level `return`
 * is a grammar error the checker stops at. The editor's markers come from the hidden wrapped copy instead
 * (cellCheck.ts), exactly as the server typechecks. Hover, completion and go-to-definition stay on.
 */
export function configureLanguageService(monaco: MonacoApi, config: CellEditorConfig): void {
  const diagnostics = {
    noSemanticValidation: true,
    noSyntaxValidation: true,
    noSuggestionDiagnostics: true,
    diagnosticCodesToIgnore: config.diagnosticCodesToIgnore,
  };
  monaco.typescript.typescriptDefaults.setDiagnosticsOptions(diagnostics);
  monaco.typescript.javascriptDefaults.setDiagnosticsOptions(diagnostics);
  monaco.typescript.typescriptDefaults.setEagerModelSync(true);
  monaco.typescript.javascriptDefaults.setEagerModelSync(true);
}

/** The server typecheck's compiler options on both services (a change restarts Monaco's workers, so only on a real change). */
export function setCellTypes(monaco: MonacoApi, world: CellTypeWorld): void {
  const apply = (defaults: Monaco.typescript.LanguageServiceDefaults, options: Monaco.typescript.CompilerOptions) => {
    if (JSON.stringify(defaults.getCompilerOptions()) !== JSON.stringify(options)) defaults.setCompilerOptions(options);
  };
  apply(monaco.typescript.typescriptDefaults, { ...world.compilerOptions.typescript } as Monaco.typescript.CompilerOptions);
  apply(monaco.typescript.javascriptDefaults, { ...world.compilerOptions.javascript } as Monaco.typescript.CompilerOptions);
}

/** Replaces the ambient declarations in both services (the catalog changed, or client tools did). */
export function setDeclarations(monaco: MonacoApi, declarations: string, path: string): void {
  const libs = [{ content: declarations, filePath: path }];
  monaco.typescript.typescriptDefaults.setExtraLibs(libs);
  monaco.typescript.javascriptDefaults.setExtraLibs(libs);
}
