// The page's columns: which side panels are collapsed (kept in localStorage, a layout preference outlives the tab),
// and the grid each combination takes at 1280 px and up (below that the columns stack).

export type SideColumn = 'tools' | 'runs';
export type Collapsed = Record<SideColumn, boolean>;

export const COLLAPSED_STORAGE_KEY = 'codemode.collapsed';

/** The stored state, or both open when nothing (or something damaged) is stored. */
export function parseCollapsed(stored: string | null): Collapsed {
  try {
    const value: unknown = stored === null ? null : JSON.parse(stored);
    if (typeof value !== 'object' || value === null) return { tools: false, runs: false };
    const record = value as Record<string, unknown>;
    return { tools: record.tools === true, runs: record.runs === true };
  } catch {
    return { tools: false, runs: false };
  }
}

// Whole class names, so Tailwind finds them: a collapsed column keeps a 2.25 rem strip with its show button.
const GRIDS: Record<string, string> = {
  'open-open': 'xl:grid-cols-[minmax(260px,22%)_minmax(0,1fr)_minmax(360px,32%)]',
  'closed-open': 'xl:grid-cols-[2.25rem_minmax(0,1fr)_minmax(360px,32%)]',
  'open-closed': 'xl:grid-cols-[minmax(260px,22%)_minmax(0,1fr)_2.25rem]',
  'closed-closed': 'xl:grid-cols-[2.25rem_minmax(0,1fr)_2.25rem]',
};

/** The main grid's column template for a collapsed state. */
export function gridColumns(collapsed: Collapsed): string {
  const key = `${collapsed.tools ? 'closed' : 'open'}-${collapsed.runs ? 'closed' : 'open'}`;
  return GRIDS[key] ?? (GRIDS['open-open'] as string);
}

/** Tailwind's `xl` breakpoint, where the three columns sit side by side; below it they stack (the cell first). */
export const WIDE_LAYOUT_QUERY = '(min-width: 1280px)';

/**
 * Where the approvals prompt sits: at the top of the runs column when that column is beside the cell and open;
 * otherwise in the cell's column, just above the result, where the user who pressed Run is looking (stacked below
 * 1280 px the runs column starts a screen or more below Run; a collapsed column shows nothing).
 */
export function approvalsPlacement(wide: boolean, collapsed: Collapsed): 'runs' | 'cell' {
  return wide && !collapsed.runs ? 'runs' : 'cell';
}
