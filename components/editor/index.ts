// The editor core's public surface; the page imports from here and nothing deeper.
export { CellEditor, preloadCellEditor } from './CellEditor.tsx';
export { defaultConfig, cellModelPath } from './config.ts';
export type { CellEditorConfig } from './config.ts';
export { decodeCellHash, encodeCellHash } from './share.ts';
export type { CellLanguage, SharedCell } from './share.ts';
export type { CellEditorApi, CellEditorProps, CellMarker } from './types.ts';
export { deniedToolsOf } from './cellCheck.ts';
export type { CellTypeWorld, DeniedTool } from './cellCheck.ts';
