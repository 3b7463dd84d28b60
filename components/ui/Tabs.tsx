'use client';
// A tab strip that switches between panels sharing one slot; the panels stay mounted so their state survives.
import type { ReactNode } from 'react';

export interface TabSpec<T extends string> {
  id: T;
  label: ReactNode;
}

export function Tabs<T extends string>(props: { tabs: ReadonlyArray<TabSpec<T>>; active: T; onChange: (id: T) => void; label: string }) {
  return (
    <div role="tablist" aria-label={props.label} className="flex gap-0.5 border-b border-neutral-800">
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
            onClick={() => props.onChange(tab.id)}
            className={`-mb-px rounded-t border px-2.5 py-1 text-[11px] font-semibold uppercase tracking-wider ${
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

/** The body of one tab: hidden (not unmounted) while another tab is active. */
export function TabPanel(props: { id: string; active: boolean; children: ReactNode }) {
  return (
    <div role="tabpanel" id={`tabpanel-${props.id}`} aria-labelledby={`tab-${props.id}`} hidden={!props.active} className="flex min-h-0 flex-col">
      {props.children}
    </div>
  );
}
