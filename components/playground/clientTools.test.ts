// Tests for parsing the client-tools editor.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT_TOOLS, parseClientTools } from './clientTools.ts';

describe('parseClientTools', () => {
  it('on the default tools round-tripped through JSON: gives them back', () => {
    expect(parseClientTools(JSON.stringify(DEFAULT_CLIENT_TOOLS))).toEqual({ tools: DEFAULT_CLIENT_TOOLS });
  });
  it('on broken JSON: says it is not JSON', () => {
    expect(parseClientTools('[{')).toMatchObject({ error: expect.stringContaining('not JSON') });
  });
  it('on a missing name: names the entry and the field', () => {
    expect(parseClientTools('[{"description":"x","inputSchema":{}}]')).toEqual({ error: '[0].name: give the tool a non-empty name' });
  });
  it('on a non-object inputSchema: names the field', () => {
    expect(parseClientTools('[{"name":"a","description":"x","inputSchema":[]}]')).toMatchObject({ error: expect.stringMatching(/^\[0\]\.inputSchema/) });
  });
  it('on an object instead of an array: says an array is expected', () => {
    expect(parseClientTools('{}')).toMatchObject({ error: expect.stringContaining('array') });
  });
});
