// Tests for reading and building the page's URL (cell and settings in the hash, ?run=, share links).
import { describe, expect, it } from 'vitest';
import { agentLinkProblem, cellUrl, readCellUrl } from './cellUrl.ts';
import { encodeCellHash } from '../editor/index.ts';
import type { TurnSettings } from './cellUrl.ts';
import { DEFAULT_CLIENT_TOOLS } from './clientTools.ts';

const cell = { code: 'return await sleep({ ms: 10 });', language: 'typescript' as const };
const PAGE = 'http://127.0.0.1:3000/';
const pickColor = { name: 'pick_color', description: 'Ask for a color.', inputSchema: { type: 'object', properties: {} } };
const settings: TurnSettings = {
  agentId: 'research',
  model: 'demo/fast & cheap',
  executor: 'node',
  typecheck: true,
  typecheckInferred: true,
  clientTools: [...DEFAULT_CLIENT_TOOLS, pickColor],
  example: 'sleep-wait',
};

describe('readCellUrl', () => {
  it('on a link with a cell and a run: gives back both', () => {
    expect(readCellUrl(`${PAGE}?run=run_1${encodeCellHash(cell)}`)).toEqual({ cell, runId: 'run_1' });
  });
  it('on a bare page: gives neither, and no problem', () => {
    expect(readCellUrl(PAGE)).toEqual({});
  });
  it('on a damaged cell: gives no cell, and says the first example is shown instead', () => {
    expect(readCellUrl(`${PAGE}#code=%%%`)).toEqual({ problems: [expect.stringMatching(/^code= is damaged .*first example is shown instead$/)] });
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
    const link = cellUrl(`${PAGE}?run=run_1&x=y${encodeCellHash({ code: 'old', language: 'javascript' })}`, { kind: 'share', cell, settings: {} });
    expect(new URL(link).search).toBe('');
    expect(readCellUrl(link)).toEqual({ cell });
  });
});

describe('turn settings in the URL', () => {
  it('on a share link: carries agent, model, executor, typecheck (and its inferred-types opt-in), client tools and example, and reading it gives them back', () => {
    const link = cellUrl(`${PAGE}?run=run_1`, { kind: 'share', cell, settings });
    expect(new URL(link).search).toBe('');
    expect(readCellUrl(link)).toEqual({ cell, settings });
  });
  it('on a settings change: rewrites the settings and keeps the cell and the shown run', () => {
    const page = cellUrl(`${PAGE}?run=run_1${encodeCellHash(cell)}`, { kind: 'settings', settings });
    expect(readCellUrl(page)).toEqual({ cell, settings, runId: 'run_1' });
    const fewer = cellUrl(page, { kind: 'settings', settings: { agentId: 'main' } });
    expect(readCellUrl(fewer)).toEqual({ cell, settings: { agentId: 'main' }, runId: 'run_1' });
  });
  it('on a cell change: keeps the settings', () => {
    const page = cellUrl(`${PAGE}${encodeCellHash({ code: 'old', language: 'javascript' })}`, { kind: 'settings', settings });
    expect(readCellUrl(cellUrl(page, { kind: 'cell', cell }))).toEqual({ cell, settings });
  });
  it('leaves defaults out of the link: the default client tools, typecheck and inferred types off and no executor override', () => {
    const link = cellUrl(PAGE, { kind: 'share', cell, settings: { agentId: 'main', clientTools: DEFAULT_CLIENT_TOOLS, typecheck: false, typecheckInferred: false } });
    expect(new URL(link).hash).not.toMatch(/tools=|typecheck=|inferred=|executor=/);
    expect(readCellUrl(link)).toEqual({ cell, settings: { agentId: 'main' } });
  });
  it('on an unknown example: names it', () => {
    expect(readCellUrl(`${PAGE}${encodeCellHash(cell)}&example=ghost`).problems).toEqual(['example=ghost is not an example of this page, so the menu shows none']);
  });
  it('on an unknown agent, once the agents are known: names it, the known ones and the one used', () => {
    const agents = [{ id: 'main', name: 'Main' }, { id: 'research', name: 'Research' }];
    expect(agentLinkProblem('ghost', agents)).toBe('agent=ghost is not an agent of this Gateway (main, research), so Main is used');
    expect(agentLinkProblem('research', agents)).toBeUndefined();
    expect(agentLinkProblem('ghost', undefined)).toBeUndefined();
  });
  it('on a damaged setting (unknown executor, client tools that do not parse): leaves that one out and keeps the rest', () => {
    const link = `${PAGE}${encodeCellHash(cell)}&agent=main&executor=deno&tools=%5B%7B%7D%5D&typecheck=yes&inferred=true`;
    const { problems, ...read } = readCellUrl(link);
    expect(read).toEqual({ cell, settings: { agentId: 'main' } });
    // each one left out is named with what is used instead
    expect(problems).toEqual([
      expect.stringMatching(/^executor=deno is not one of quickjs, node, quickjs-emscripten, so the agent's executor is used$/),
      expect.stringMatching(/^tools= is not a client-tool list \(\[0\]\.name: .*\), so the default client tools are used$/),
    ]);
  });
});
