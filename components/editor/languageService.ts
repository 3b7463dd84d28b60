// Feeds Monaco's TypeScript service: the served cell world (compiler options), and the Gateway's ambient tool declarations.
import type * as Monaco from 'monaco-editor';
import { cellTypeWorld } from '../../shared/cell-types.mjs';
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
  // The world this build ships, before the Gateway serves its own: the served one (setCellTypes) is then equal
  // and changes nothing, so the worker is not restarted (its first start loads the lib, seconds on a busy machine).
  setCellTypes(monaco, cellTypeWorld());
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
  for (const defaults of [monaco.typescript.typescriptDefaults, monaco.typescript.javascriptDefaults]) replaceLib(defaults, path, declarations);
}

/** Extra libs this module added, per service: path -> its text and the handle that removes it. */
const added = new WeakMap<Monaco.typescript.LanguageServiceDefaults, Map<string, { text: string; lib: Monaco.IDisposable }>>();

function replaceLib(defaults: Monaco.typescript.LanguageServiceDefaults, path: string, text: string | undefined): void {
  let libs = added.get(defaults);
  if (!libs) added.set(defaults, (libs = new Map()));
  const current = libs.get(path);
  if (current?.text === text) return;
  current?.lib.dispose();
  libs.delete(path);
  if (text !== undefined) libs.set(path, { text, lib: defaults.addExtraLib(text, path) });
}

/**
 * Each OpenAPI source's named types as a lib of its own, beside the ambient declarations: a source's file (GitHub's
 * is about 2 MB) is sent to the TypeScript worker once and kept while it is unchanged, instead of riding along with
 * every change of the tool declarations. Files no longer served are removed.
 */
export function setTypeFiles(monaco: MonacoApi, files: ReadonlyArray<{ path: string; text: string }>, folder: string): void {
  for (const defaults of [monaco.typescript.typescriptDefaults, monaco.typescript.javascriptDefaults]) {
    const wanted = new Map(files.map((f) => [`${folder}${f.path}`, f.text]));
    for (const path of added.get(defaults)?.keys() ?? []) if (path.startsWith(folder) && !wanted.has(path)) replaceLib(defaults, path, undefined);
    for (const [path, text] of wanted) replaceLib(defaults, path, text);
  }
}
