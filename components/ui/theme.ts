'use client';
// The page's colour theme: light or dark, following the system preference until the user picks one (kept in localStorage).
import { useCallback, useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';

/** Where a picked theme is kept: it outlives the tab, as a preference should. */
export const THEME_STORAGE_KEY = 'codemode.theme';
const PREFERS_LIGHT = '(prefers-color-scheme: light)';

/** The theme to show: the stored pick when there is one, else the system's preference. */
export function resolveTheme(stored: string | null, systemPrefersLight: boolean): Theme {
  if (stored === 'light' || stored === 'dark') return stored;
  return systemPrefersLight ? 'light' : 'dark';
}

/**
 * Runs in <head> before the page paints (app/layout.tsx), so a light preference never flashes dark. It is
 * the source of resolveTheme as a string: keep the two in step (theme.test.ts checks they agree).
 */
export const THEME_BOOT_SCRIPT = `(function(){try{var s=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});var l=window.matchMedia(${JSON.stringify(PREFERS_LIGHT)}).matches;document.documentElement.dataset.theme=s==='light'||s==='dark'?s:(l?'light':'dark');}catch(e){document.documentElement.dataset.theme='dark';}})();`;

function readStored(): string | null {
  try {
    return localStorage.getItem(THEME_STORAGE_KEY);
  } catch {
    return null;
  }
}

function apply(): void {
  document.documentElement.dataset.theme = resolveTheme(readStored(), window.matchMedia(PREFERS_LIGHT).matches);
}

// The store is the <html data-theme> attribute: every component that reads it (the toggle, Monaco) re-renders on a change.
function subscribe(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  const media = window.matchMedia(PREFERS_LIGHT);
  media.addEventListener('change', apply);
  return () => {
    observer.disconnect();
    media.removeEventListener('change', apply);
  };
}

function snapshot(): Theme {
  return document.documentElement.dataset.theme === 'light' ? 'light' : 'dark';
}

export function useTheme(): { theme: Theme; toggle(): void } {
  const theme = useSyncExternalStore(subscribe, snapshot, () => 'dark' as const);
  const toggle = useCallback(() => {
    try {
      localStorage.setItem(THEME_STORAGE_KEY, snapshot() === 'light' ? 'dark' : 'light');
    } catch {
      // Storage can be disabled: the pick then lasts until the page reloads.
      document.documentElement.dataset.theme = snapshot() === 'light' ? 'dark' : 'light';
      return;
    }
    apply();
  }, []);
  return { theme, toggle };
}

/** The theme switch's accessible name: what pressing it does. */
export function themeToggleLabel(theme: Theme): string {
  return theme === 'light' ? 'Switch to the dark theme' : 'Switch to the light theme';
}
