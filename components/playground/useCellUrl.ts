'use client';
// The page's URL as state: the cell, settings and run a visit starts with, and the writes that keep the URL reproducing them.
import { useCallback, useMemo, useRef, useState } from 'react';
import { cellUrl, readCellUrl } from './cellUrl.ts';
import { UrlWriter } from './urlWriter.ts';
import type { CellUrlChange, CellUrlState, TurnSettings } from './cellUrl.ts';
import type { SharedCell } from '../editor/index.ts';

export interface CellUrl {
  /** The URL's state when the page loaded (read once: later writes come from the page itself). */
  initial: CellUrlState;
  /** Puts the cell in the hash, so a reload or a copied address reproduces it. */
  writeCell(cell: SharedCell): void;
  /** Puts the turn's settings in the hash (agent, model, executor, typecheck, client tools, example). */
  writeSettings(settings: TurnSettings): void;
  /** Names the shown run in `?run=` (undefined removes it). */
  writeRun(runId: string | undefined): void;
  /** A link that reproduces `cell` and the settings last written (without the shown run). */
  shareUrl(cell: SharedCell): string;
  /** Hold URL writes while a Run's exec is in flight (urlWriter.ts): written together on `releaseWrites`, or after a short cap. */
  holdWrites(): void;
  releaseWrites(): void;
}

export function useCellUrl(): CellUrl {
  // The page renders in the browser only (PlaygroundLoader), but a server render must not throw either.
  const [initial] = useState<CellUrlState>(() => (typeof window === 'undefined' ? {} : readCellUrl(window.location.href)));
  const settingsRef = useRef<TurnSettings>(initial.settings ?? {});
  // one writer per page: replaceState only on a real change, and a Run's writes held until its result shows
  const writer = useMemo(() => (typeof window === 'undefined' ? null : new UrlWriter(window)), []);
  const replace = useCallback((change: CellUrlChange) => writer?.write(change), [writer]);
  const writeCell = useCallback((cell: SharedCell) => replace({ kind: 'cell', cell }), [replace]);
  const writeSettings = useCallback(
    (settings: TurnSettings) => {
      settingsRef.current = settings;
      replace({ kind: 'settings', settings });
    },
    [replace],
  );
  const writeRun = useCallback((runId: string | undefined) => replace({ kind: 'run', runId }), [replace]);
  const shareUrl = useCallback((cell: SharedCell) => cellUrl(writer?.href() ?? window.location.href, { kind: 'share', cell, settings: settingsRef.current }), [writer]);
  const holdWrites = useCallback(() => writer?.hold(), [writer]);
  const releaseWrites = useCallback(() => writer?.release(), [writer]);
  return useMemo(
    () => ({ initial, writeCell, writeSettings, writeRun, shareUrl, holdWrites, releaseWrites }),
    [initial, writeCell, writeSettings, writeRun, shareUrl, holdWrites, releaseWrites],
  );
}
