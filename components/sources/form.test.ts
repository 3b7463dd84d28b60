import { describe, expect, it } from 'vitest';
import { addInput, catalogSignature, EMPTY_FORM, pairs, stateLine } from './form.ts';
import type { SourceView } from '../api.ts';

describe('Sources form', () => {
  it('turns a stdio form into sources.add with the confirmed command line; arguments one per line keep their spaces', () => {
    const form = { ...EMPTY_FORM, name: ' demo ', command: 'node', args: 'demo/mcp/server.mjs\n  --label two words \n', env: 'A=1\nB = x=y' };
    expect(addInput(form, 'A=1 B=x=y node demo/mcp/server.mjs')).toEqual({
      kind: 'mcp-stdio',
      name: 'demo',
      command: 'node',
      args: ['demo/mcp/server.mjs', '--label two words'],
      env: { A: '1', B: 'x=y' },
      confirmCommandLine: 'A=1 B=x=y node demo/mcp/server.mjs',
    });
  });

  it('builds HTTP and OpenAPI inputs (an upload wins over a URL) and says what is missing', () => {
    expect(addInput({ ...EMPTY_FORM, kind: 'mcp-http', name: 'r', url: 'http://127.0.0.1:4000/mcp', headers: 'Authorization: Bearer x' })).toEqual({
      kind: 'mcp-http',
      name: 'r',
      url: 'http://127.0.0.1:4000/mcp',
      headers: { Authorization: 'Bearer x' },
    });
    expect(addInput({ ...EMPTY_FORM, kind: 'openapi', name: 'inv', documentText: 'openapi: 3.0.3', documentUrl: 'http://x/doc', baseUrl: 'http://127.0.0.1:4011', authValue: 'Bearer t' })).toEqual({
      kind: 'openapi',
      name: 'inv',
      documentText: 'openapi: 3.0.3',
      baseUrl: 'http://127.0.0.1:4011',
      auth: { header: 'Authorization', value: 'Bearer t' },
    });
    expect(() => addInput({ ...EMPTY_FORM, kind: 'openapi', name: 'inv' })).toThrow("upload an OpenAPI document (JSON or YAML), or give its http(s) URL or its path on the Gateway's machine");
    expect(addInput({ ...EMPTY_FORM, kind: 'openapi', name: 'gh', documentUrl: ' node_modules/@octokit/openapi/generated/api.github.com.json ' })).toEqual({
      kind: 'openapi',
      name: 'gh',
      document: 'node_modules/@octokit/openapi/generated/api.github.com.json',
    });
    expect(() => addInput({ ...EMPTY_FORM, kind: 'mcp-http', name: 'r', url: 'ftp://x' })).toThrow('give the server URL');
    expect(() => addInput({ ...EMPTY_FORM, command: 'node' })).toThrow('give the source a name');
    expect(() => pairs('no-separator', ':', 'headers')).toThrow('headers: "no-separator" is not Name: value');
  });

  it('states a source as the panel shows it, and changes its signature when state or tools change', () => {
    const view: SourceView = { name: 'demo', kind: 'mcp-stdio', origin: 'added', state: 'connected', toolCount: 5, detail: 'node demo/mcp/server.mjs' };
    expect(stateLine(view)).toBe('connected with 5 tools');
    expect(stateLine({ ...view, state: 'failed', error: 'spawn nope ENOENT' })).toBe('failed: spawn nope ENOENT');
    expect(stateLine({ ...view, state: 'connecting' })).toBe('connecting…');
    expect(catalogSignature([view])).not.toBe(catalogSignature([{ ...view, toolCount: 6 }]));
  });
});
