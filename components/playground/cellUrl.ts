// The page's URL, built in one place: the cell in the hash (so a link reproduces it) and the shown run in `?run=`.
import { decodeCellHash, encodeCellHash } from '../editor/index.ts';
import type { SharedCell } from '../editor/index.ts';

/** The search parameter naming the run the trajectory and snapshot views show. */
export const RUN_PARAM = 'run';

/** What a visit's URL holds: the cell of a link (absent, or damaged, when it has none) and the run to show. */
export interface CellUrlState {
  cell?: SharedCell;
  runId?: string;
}

export function readCellUrl(href: string): CellUrlState {
  const url = new URL(href);
  const state: CellUrlState = {};
  const cell = decodeCellHash(url.hash);
  if (cell) state.cell = cell;
  const runId = url.searchParams.get(RUN_PARAM);
  if (runId !== null) state.runId = runId;
  return state;
}

/**
 * `cell`: the page's own URL with the current cell in its hash. `run`: with `?run=` naming the shown run (or
 * without it). `share`: a link that reproduces the cell and nothing else, so it carries no search at all.
 */
export type CellUrlChange = { kind: 'cell'; cell: SharedCell } | { kind: 'run'; runId: string | undefined } | { kind: 'share'; cell: SharedCell };

export function cellUrl(href: string, change: CellUrlChange): string {
  const url = new URL(href);
  switch (change.kind) {
    case 'cell':
      url.hash = encodeCellHash(change.cell);
      break;
    case 'run':
      if (change.runId) url.searchParams.set(RUN_PARAM, change.runId);
      else url.searchParams.delete(RUN_PARAM);
      break;
    case 'share':
      url.search = '';
      url.hash = encodeCellHash(change.cell);
      break;
  }
  return url.toString();
}
