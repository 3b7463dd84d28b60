// Test kit: Monaco's own TypeScript worker (monaco-editor's TypeScriptWorker class, its bundled TypeScript and lib
// files) run in Node over the models the playground editor keeps: the visible cell, the hidden wrapped copy and the
// declarations as an extra lib. The corpus test holds the editor's markers to the server typecheck with it.
import { TypeScriptWorker } from 'monaco-editor/languages/features/typescript/tsWorker.js';
import { cellMarkers, checkModelPath, checkText, editorCompilerOptions, type CellTypeWorld, type DeniedTool, type RawDiagnostic } from './cellCheck.ts';
import { cellModelPath, defaultConfig } from './config.ts';
import type { CellLanguage } from './share.ts';
import type { CellMarker } from './types.ts';

interface MirrorModel {
  uri: { toString(): string; path: string };
  getValue(): string;
  version: number;
}

function mirror(uri: string, text: string, version: number): MirrorModel {
  return { uri: { toString: () => uri, path: new URL(uri).pathname }, getValue: () => text, version };
}

interface WorkerApi {
  getSyntacticDiagnostics(fileName: string): Promise<RawDiagnostic[]>;
  getSemanticDiagnostics(fileName: string): Promise<RawDiagnostic[]>;
}

/** The editor's markers for `source` as the page computes them, from Monaco's worker with the served world. */
export async function editorMarkers(
  source: string,
  language: CellLanguage,
  world: CellTypeWorld,
  declarations: string,
  denied: readonly DeniedTool[] = [],
): Promise<CellMarker[]> {
  const models = [mirror(cellModelPath(language), source, 1), mirror(checkModelPath(language), checkText(world, source), 1)];
  const Worker = TypeScriptWorker as unknown as new (ctx: unknown, data: unknown) => WorkerApi;
  const worker = new Worker(
    { getMirrorModels: () => models },
    {
      compilerOptions: editorCompilerOptions(world, language),
      extraLibs: { [defaultConfig().declarationsPath]: { content: declarations, version: 1 } },
      inlayHintsOptions: {},
    },
  );
  const path = checkModelPath(language);
  const found = [...(await worker.getSyntacticDiagnostics(path)), ...(await worker.getSemanticDiagnostics(path))];
  return cellMarkers(found, source, world, denied);
}
