'use client';
// The header's light/dark switch: a pick is kept in localStorage; without one the page follows the system preference.
import { themeToggleLabel, useTheme } from './theme.ts';

export function ThemeToggle() {
  const { theme, toggle } = useTheme();
  return (
    <button
      type="button"
      data-testid="theme-toggle"
      data-theme={theme}
      aria-label={themeToggleLabel(theme)}
      title={themeToggleLabel(theme)}
      onClick={toggle}
      className="rounded border border-neutral-700 px-1.5 py-0.5 text-[11px] text-neutral-300 hover:bg-neutral-800"
    >
      {theme === 'light' ? '☾ dark' : '☀ light'}
    </button>
  );
}
