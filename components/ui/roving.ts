'use client';
// Roving tab index for a list of controls: one tab stop for the whole list, arrow keys, Home and End move between them.
import { useCallback, useRef, useState } from 'react';
import type { KeyboardEvent } from 'react';

export type RovingOrientation = 'horizontal' | 'vertical';

/**
 * The index a key moves focus to in a list of `count` items, or undefined when the key is not a move
 * (so the event keeps its default). Arrows wrap around, as the WAI-ARIA tabs and listbox patterns do.
 */
export function rovingTarget(key: string, index: number, count: number, orientation: RovingOrientation): number | undefined {
  if (count === 0) return undefined;
  const [back, forward] = orientation === 'horizontal' ? ['ArrowLeft', 'ArrowRight'] : ['ArrowUp', 'ArrowDown'];
  if (key === forward) return (index + 1) % count;
  if (key === back) return (index - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return undefined;
}

/** The item that holds the list's tab stop: the last one focused while it is still listed, else the first. */
export function rovingStop(keys: readonly string[], focused: string | undefined): string | undefined {
  return focused !== undefined && keys.includes(focused) ? focused : keys[0];
}

export interface Roving {
  /** 0 for the list's one tab stop, -1 for every other item. */
  tabIndexOf(key: string): 0 | -1;
  /** Put on each item: the item focused last keeps the tab stop. */
  onItemFocus(key: string): void;
  /** Put on the list's container: moves focus between items marked `data-roving-key`. */
  onKeyDown(event: KeyboardEvent<HTMLElement>): void;
}

/** `keys` in display order; `onMove` is told the key focus moved to (tabs select it). */
export function useRovingFocus(keys: readonly string[], orientation: RovingOrientation, onMove?: (key: string) => void): Roving {
  const [focused, setFocused] = useState<string>();
  const keysRef = useRef(keys);
  keysRef.current = keys;
  const stop = rovingStop(keys, focused);
  const onKeyDown = useCallback(
    (event: KeyboardEvent<HTMLElement>) => {
      const list = keysRef.current;
      const item = (event.target as HTMLElement).closest<HTMLElement>('[data-roving-key]');
      const current = item?.dataset.rovingKey;
      if (current === undefined) return;
      const target = rovingTarget(event.key, list.indexOf(current), list.length, orientation);
      const next = target === undefined ? undefined : list[target];
      if (next === undefined) return;
      event.preventDefault();
      setFocused(next);
      onMove?.(next);
      event.currentTarget.querySelector<HTMLElement>(`[data-roving-key="${CSS.escape(next)}"]`)?.focus();
    },
    [orientation, onMove],
  );
  return {
    tabIndexOf: (key) => (key === stop ? 0 : -1),
    onItemFocus: setFocused,
    onKeyDown,
  };
}
