'use client';
// The cell editor core's entry: loads Monaco in the browser only (it touches `window` on import).
import dynamic from 'next/dynamic';
import type { CellEditorProps } from './types.ts';

/** Starts loading Monaco (its chunk is most of the page's bytes and parse time) without waiting for the editor to render. */
export function preloadCellEditor(): Promise<unknown> {
  return import('./MonacoCellEditor.tsx');
}

const MonacoCellEditor = dynamic(() => import('./MonacoCellEditor.tsx'), {
  ssr: false,
  loading: () => <div className="p-3 text-xs text-neutral-400">Loading editor…</div>,
});

/**
 * A Monaco editor for one Code Mode cell.
 * - uncontrolled: `defaultValue` once, then `onChange` (debounced) and `onReady(api).setValue`;
 * - `declarations` (the catalog's ambient .d.ts) drive hover, completion and red squiggles;
 * - Ctrl/Cmd+Enter calls `onRun`; `onMarkersChange` reports the language service's problems.
 */
export function CellEditor(props: CellEditorProps) {
  return <MonacoCellEditor {...props} />;
}
