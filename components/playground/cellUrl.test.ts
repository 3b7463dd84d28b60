// Tests for reading and building the page's URL (cell hash, ?run=, share links).
import { describe, expect, it } from 'vitest';
import { cellUrl, readCellUrl } from './cellUrl.ts';
import { encodeCellHash } from '../editor/index.ts';

const cell = { code: 'return await sleep({ ms: 10 });', language: 'typescript' as const };
const PAGE = 'http://127.0.0.1:3000/';

describe('readCellUrl', () => {
  it('on a link with a cell and a run: gives back both', () => {
    expect(readCellUrl(`${PAGE}?run=run_1${encodeCellHash(cell)}`)).toEqual({ cell, runId: 'run_1' });
  });
  it('on a bare page or a damaged hash: gives neither', () => {
    expect(readCellUrl(PAGE)).toEqual({});
    expect(readCellUrl(`${PAGE}#code=%%%`)).toEqual({});
  });
});

describe('cellUrl', () => {
  it('on a cell change: rewrites the hash and keeps the shown run', () => {
    const next = cellUrl(`${PAGE}?run=run_1#lang=js&code=eA`, { kind: 'cell', cell });
    expect(readCellUrl(next)).toEqual({ cell, runId: 'run_1' });
  });
  it('on a run change: sets or removes ?run= and keeps the cell', () => {
    const withCell = `${PAGE}${encodeCellHash(cell)}`;
    const shown = cellUrl(withCell, { kind: 'run', runId: 'run_2' });
    expect(readCellUrl(shown)).toEqual({ cell, runId: 'run_2' });
    expect(readCellUrl(cellUrl(shown, { kind: 'run', runId: undefined }))).toEqual({ cell });
  });
  it('on a share link: carries the cell and drops every search parameter, the run included', () => {
    const link = cellUrl(`${PAGE}?run=run_1&x=y${encodeCellHash({ code: 'old', language: 'javascript' })}`, { kind: 'share', cell });
    expect(new URL(link).search).toBe('');
    expect(readCellUrl(link)).toEqual({ cell });
  });
});
