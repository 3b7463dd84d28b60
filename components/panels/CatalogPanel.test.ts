// Tests for where the catalog panel places each tool of the effective set.
import { describe, expect, it } from 'vitest';
import { placement } from './CatalogPanel.tsx';

describe('catalog placement', () => {
  it('on a tool with a declaration: it is in the catalog', () => {
    expect(placement({ declaration: 'declare function read(input: { path: string }): Promise<unknown>;', directOnly: false })).toBe('catalog');
  });
  it('on a denied tool: denied wins over everything else', () => {
    expect(placement({ declaration: '', directOnly: true, deniedBy: 'tools.deny: "exec"' })).toBe('denied');
  });
  it('on a direct-only tool: model-visible, not cataloged', () => {
    expect(placement({ declaration: '', directOnly: true })).toBe('direct');
  });
  it('on an effective tool with no catalog entry: a hidden control tool', () => {
    expect(placement({ declaration: '', directOnly: false })).toBe('control');
  });
});
