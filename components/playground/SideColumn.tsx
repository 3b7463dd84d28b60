'use client';
// A side column of the page that collapses to a strip with one button (accessible name, aria-expanded), its state
// kept in localStorage (layout.ts).
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { COLLAPSED_STORAGE_KEY, parseCollapsed, type Collapsed, type SideColumn as Column } from './layout.ts';

/** The collapsed state of both side columns; read after mount (the server render has both open). */
export function useCollapsedColumns(): { collapsed: Collapsed; toggle: (column: Column) => void } {
  const [collapsed, setCollapsed] = useState<Collapsed>({ tools: false, runs: false });
  useEffect(() => {
    try {
      setCollapsed(parseCollapsed(localStorage.getItem(COLLAPSED_STORAGE_KEY)));
    } catch {
      // storage blocked: both stay open
    }
  }, []);
  const toggle = useCallback((column: Column) => {
    setCollapsed((prev) => {
      const next = { ...prev, [column]: !prev[column] };
      try {
        localStorage.setItem(COLLAPSED_STORAGE_KEY, JSON.stringify(next));
      } catch {
        // storage blocked: the state still holds for this page
      }
      return next;
    });
  }, []);
  return { collapsed, toggle };
}

export function SideColumn(props: { id: string; label: string; side: 'left' | 'right'; collapsed: boolean; onToggle: () => void; order: string; className: string; children: ReactNode }) {
  const arrow = (props.side === 'left') === props.collapsed ? '▸' : '◂';
  const button = (
    <button
      type="button"
      data-testid={`toggle-${props.id}`}
      aria-expanded={!props.collapsed}
      aria-controls={`${props.id}-column`}
      aria-label={`${props.collapsed ? 'Show' : 'Hide'} the ${props.label} panel`}
      title={`${props.collapsed ? 'show' : 'hide'} ${props.label}`}
      onClick={props.onToggle}
      className="flex items-center gap-1 rounded border border-neutral-800 px-1.5 py-0.5 text-[11px] text-neutral-400 hover:bg-neutral-800 hover:text-neutral-200"
    >
      {props.side === 'right' ? arrow : null}
      <span className={props.collapsed ? 'xl:hidden' : ''}>{props.label}</span>
      {props.side === 'left' ? arrow : null}
    </button>
  );
  if (props.collapsed) {
    return (
      <div id={`${props.id}-column`} data-testid={`${props.id}-column`} data-collapsed="true" className={`${props.order} flex min-h-0 flex-col items-start xl:items-center`}>
        {button}
      </div>
    );
  }
  return (
    <div id={`${props.id}-column`} data-testid={`${props.id}-column`} data-collapsed="false" className={`${props.order} ${props.className}`}>
      <div className={`flex shrink-0 ${props.side === 'left' ? 'justify-end' : 'justify-start'}`}>{button}</div>
      {props.children}
    </div>
  );
}
