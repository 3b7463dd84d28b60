'use client';
// A tab strip that switches between panels sharing one slot; the panels stay mounted so their state survives.
import { Activity, type ReactNode } from 'react';
import { useRovingFocus } from './roving.ts';

export interface TabSpec<T extends string> {
  id: T;
  label: ReactNode;
}

/**
 * The WAI-ARIA tabs pattern with automatic activation: the strip is one tab stop (the selected tab), and
 * Left/Right, Home and End move focus and select the tab at once (the panels are already mounted, so it is cheap).
 */
export function Tabs<T extends string>(props: { tabs: ReadonlyArray<TabSpec<T>>; active: T; onChange: (id: T) => void; label: string }) {
  const { onChange, tabs } = props;
  const roving = useRovingFocus(
    tabs.map((t) => t.id),
    'horizontal',
    (id) => onChange(id as T),
  );
  return (
    <div role="tablist" aria-label={props.label} aria-orientation="horizontal" onKeyDown={roving.onKeyDown} className="flex gap-0.5 border-b border-neutral-800">
      {props.tabs.map((tab) => {
        const selected = tab.id === props.active;
        return (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={selected}
            aria-controls={`tabpanel-${tab.id}`}
            data-testid={`tab-${tab.id}`}
            data-roving-key={tab.id}
            tabIndex={selected ? 0 : -1}
            onClick={() => props.onChange(tab.id)}
            // tight enough that all five fit the runs column at 1280 px (402 px wide): the last one ran past it
            className={`-mb-px rounded-t border px-2 py-1 text-[11px] font-semibold uppercase tracking-wide ${
              selected ? 'border-neutral-800 border-b-neutral-950 bg-neutral-900/60 text-neutral-200' : 'border-transparent text-neutral-500 hover:text-neutral-300'
            }`}
          >
            {tab.label}
          </button>
        );
      })}
    </div>
  );
}

/**
 * The body of one tab: hidden (not unmounted) while another tab is active. A hidden body keeps its state inside a
 * hidden `<Activity>`: React renders its updates only when idle and pauses its effects, so a query it holds does not
 * refetch on every live event (issue 14: each run refetched the hidden Session tab's transcript). `live` keeps the
 * effects of a body that must act while hidden (the Sources tab polls and reports catalog changes).
 */
export function TabPanel(props: { id: string; active: boolean; live?: boolean; children: ReactNode }) {
  return (
    <div role="tabpanel" id={`tabpanel-${props.id}`} aria-labelledby={`tab-${props.id}`} hidden={!props.active} className="flex min-h-0 flex-col">
      {props.live ? props.children : <Activity mode={props.active ? 'visible' : 'hidden'}>{props.children}</Activity>}
    </div>
  );
}
