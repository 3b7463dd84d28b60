// Tests for the theme choice: a stored pick wins, else the system preference; the boot script in <head> agrees.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { resolveTheme, THEME_BOOT_SCRIPT, THEME_STORAGE_KEY } from './theme.ts';

/** Runs the boot script against a fake page; the theme it puts on <html>. */
function boot(stored: string | null, systemPrefersLight: boolean): string | undefined {
  const dataset: { theme?: string } = {};
  runInNewContext(THEME_BOOT_SCRIPT, {
    localStorage: { getItem: (key: string) => (key === THEME_STORAGE_KEY ? stored : null) },
    window: { matchMedia: (query: string) => ({ matches: query === '(prefers-color-scheme: light)' && systemPrefersLight }) },
    document: { documentElement: { dataset } },
  });
  return dataset.theme;
}

describe('resolveTheme', () => {
  it('with no pick: follows the system preference', () => {
    expect(resolveTheme(null, true)).toBe('light');
    expect(resolveTheme(null, false)).toBe('dark');
  });
  it('with a pick: the pick wins over the system', () => {
    expect(resolveTheme('dark', true)).toBe('dark');
    expect(resolveTheme('light', false)).toBe('light');
  });
  it('on a damaged stored value: ignores it', () => {
    expect(resolveTheme('sepia', true)).toBe('light');
  });
});

describe('THEME_BOOT_SCRIPT', () => {
  it('puts on <html> the theme resolveTheme gives, for every pick and system preference', () => {
    for (const stored of [null, 'light', 'dark', 'sepia']) {
      for (const light of [true, false]) expect(boot(stored, light), `${stored} / ${light}`).toBe(resolveTheme(stored, light));
    }
  });
  it('when storage throws: shows the dark theme rather than fail', () => {
    const dataset: { theme?: string } = {};
    runInNewContext(THEME_BOOT_SCRIPT, {
      localStorage: {
        getItem: () => {
          throw new Error('denied');
        },
      },
      window: { matchMedia: () => ({ matches: true }) },
      document: { documentElement: { dataset } },
    });
    expect(dataset.theme).toBe('dark');
  });
});
