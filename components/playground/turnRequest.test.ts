// Tests for the turn request the page and its loader key the catalog by.
import { describe, expect, it } from 'vitest';
import { effectiveAgentId, turnRequestOf } from './turnRequest.ts';
import { DEFAULT_CLIENT_TOOLS } from './clientTools.ts';

describe('effectiveAgentId', () => {
  const agents = [{ id: 'main' }, { id: 'research' }];
  it('keeps a chosen agent the Gateway lists', () => {
    expect(effectiveAgentId('research', agents)).toBe('research');
  });
  it('falls back to the first agent for an unknown or missing choice', () => {
    expect(effectiveAgentId('gone', agents)).toBe('main');
    expect(effectiveAgentId(undefined, agents)).toBe('main');
  });
  it('keeps the choice while the agents are not known', () => {
    expect(effectiveAgentId('research', undefined)).toBe('research');
    expect(effectiveAgentId(undefined, [])).toBeUndefined();
  });
});

describe('turnRequestOf', () => {
  it('asks for nothing before an agent is known', () => {
    expect(turnRequestOf(undefined, 'm', DEFAULT_CLIENT_TOOLS)).toBeUndefined();
  });
  it('names the model only when one is typed, trimmed', () => {
    expect(turnRequestOf('main', '  ', DEFAULT_CLIENT_TOOLS)).toEqual({ agentId: 'main', clientTools: DEFAULT_CLIENT_TOOLS });
    expect(turnRequestOf('main', ' gpt-x ', [])).toEqual({ agentId: 'main', clientTools: [], model: 'gpt-x' });
  });
});
